"""The Kafka-version control the consumer dashboards share, and the memory answer they print.

The choices are the releases :mod:`kipviz.kafka.config.versions` knows, newest first; moving the
control re-runs the consumer under that release's fetch rules (KAFKA-17182's one response per broker
from 4.0, the request order, the broker caps).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from kipviz.kafka.config.versions import BEHAVIOURS, KAFKA_VERSIONS, NEWEST_KAFKA_VERSION
from kipviz.widgets._base import NOT_SET

__all__ = ["memory_answer_html", "ordering_options", "version_dropdown"]

# the releases where a consumer-fetch rule changed, and the newest: the control's choices
_CONSUMER = [b for b in BEHAVIOURS if b.area == "consumer"]  # not the broker's tiered rules
_MARKED = {b.since for b in _CONSUMER} | {b.until for b in _CONSUMER if b.until}


def version_dropdown(value: str) -> w.Dropdown:
    """A dropdown of every release the model knows, newest first; those that changed a rule are
    labelled with the change."""
    changes = {b.since: b.change.split(" (")[0] for b in _CONSUMER}
    options = []
    for v in reversed(KAFKA_VERSIONS):
        label = v + (" (newest)" if v == NEWEST_KAFKA_VERSION else "")
        if v in _MARKED and v in changes:
            label += f" · {changes[v]}"
        options.append((label, v))
    return w.Dropdown(options=options, value=value, description="Kafka version",
                      style={"description_width": "initial"})


def ordering_options(orderings: Any) -> list[tuple[str, Any]]:
    """The request-order choices: ``None`` (as the chosen release does) first, then each policy."""
    return [("as this Kafka version does", NOT_SET),
            *((o.name.lower().replace("_", "-"), o) for o in orderings)]


def memory_answer_html(meta: dict[str, Any]) -> str:
    """The trace's one consumer-memory sentence (:mod:`kipviz.kafka.consumer.memory`) for a
    summary."""
    sentence = meta.get("memory_sentence")
    return f"<br><b>memory</b> {sentence}" if sentence else ""
