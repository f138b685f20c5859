"""The Kafka-version control the consumer dashboards share, and the memory answer they print.

The choices are the releases :mod:`kipviz.kafka.config.versions` knows, newest first; moving the
control re-runs the consumer under that release's fetch rules (KAFKA-17182's one response per broker
from 4.0, the request order, the broker caps); the share-group and broker dashboards use it with
their own area's rules (KIP-932 from 4.0; KAFKA-20302's released buffers).
"""

from __future__ import annotations

from typing import Any

from kipviz.kafka.config.versions import BEHAVIOURS, KAFKA_VERSIONS, NEWEST_KAFKA_VERSION
from kipviz.widgets.controls import Control

__all__ = ["memory_answer_html", "ordering_options", "version_control", "version_options"]

def version_options(area: str = "consumer", oldest: str | None = None) -> list[tuple[str, str]]:
    """Every release the model knows (from ``oldest`` on), newest first; those that changed a rule
    of ``area`` (a :data:`~kipviz.kafka.config.versions.BEHAVIOURS` area: "consumer", "share",
    "broker") are labelled with the change."""
    rows = [b for b in BEHAVIOURS if b.area == area]  # not another area's rules
    marked = {b.since for b in rows} | {b.until for b in rows if b.until}
    changes = {b.since: b.change.split(" (")[0] for b in rows}
    releases = KAFKA_VERSIONS if oldest is None else KAFKA_VERSIONS[KAFKA_VERSIONS.index(oldest):]
    options = []
    for v in reversed(releases):
        label = v + (" (newest)" if v == NEWEST_KAFKA_VERSION else "")
        if v in marked and v in changes:
            label += f" · {changes[v]}"
        options.append((label, v))
    return options


def version_control(area: str = "consumer", oldest: str | None = None,
                    path: str = "kafka_version") -> Control:
    """The Kafka-version dropdown of a dashboard's table (:func:`version_options`)."""
    return Control(path, "dropdown", options=tuple(version_options(area, oldest)),
                   label="Kafka version")


def ordering_options(orderings: Any) -> tuple[tuple[str, Any], ...]:
    """The request-order choices, each policy by name (a control's ``unset`` choice, "as this
    Kafka version does", goes first)."""
    return tuple((o.name.lower().replace("_", "-"), o) for o in orderings)


def memory_answer_html(meta: dict[str, Any]) -> str:
    """The trace's one consumer-memory sentence (:mod:`kipviz.kafka.consumer.memory`) for a
    summary."""
    sentence = meta.get("memory_sentence")
    return f"<br><b>memory</b> {sentence}" if sentence else ""
