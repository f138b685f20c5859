"""The clients dashboard (lesson 9): one catching-up consumer on the client you run.

The same brokers, workload and Spark curves as :class:`kipviz.widgets.consumer.FetchDashboard`; a
dropdown picks whose consumer fetches and holds the data (Java's, librdkafka, franz-go or
kafka-python: :mod:`kipviz.kafka.clients`), and the two fetch limits are set by that client's own
names. The summary gives the client's memory bound and names its binding term.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar

from kipviz.kafka.clients.bounds import CLIENT_NAMES
from kipviz.kafka.units import KiB, MiB
from kipviz.plots.consumer import consumer_figure
from kipviz.scenarios.consumer.clients import catching_up
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.widgets._base import Dashboard
from kipviz.widgets._versions import memory_answer_html
from kipviz.widgets.consumer import FetchDashboard, run_summary_html
from kipviz.widgets.controls import Control

__all__ = ["CLIENTS_LESSON_SCENARIO", "LIMIT_NAMES", "ClientDashboard"]

# 300 partitions on 3 brokers, 400 MB behind in 256 KiB batches, an application slower (50 MB/s)
# than the brokers' links: lesson 9's catch-up, smaller so a move takes a moment.
CLIENTS_LESSON_SCENARIO = catching_up(partitions=300, brokers=3, ticks=200)

LIMIT_NAMES: dict[str, tuple[str, str]] = {
    "java": ("fetch.max.bytes", "max.partition.fetch.bytes"),
    "librdkafka": ("fetch.max.bytes", "fetch.message.max.bytes"),
    "franz-go": ("FetchMaxBytes", "FetchMaxPartitionBytes"),
    "kafka-python": ("fetch_max_bytes", "max_partition_fetch_bytes"),
}
"""Each client's name for the response limit and for the per-partition limit."""


@cache
def _bound_traces() -> tuple[int, int]:
    """Where the consumer figure draws KIP-74's bound and the pre-KIP-74 one, in that order
    (found once, on first redraw, not at import)."""
    own, other = (i for i, t in enumerate(consumer_figure().data)
                  if t.name in ("KIP-74 bound", "pre-KIP-74 bound"))
    return own, other




class ClientDashboard(FetchDashboard):
    """Lesson 9's dashboard: ``client`` (``"java"``, ``"librdkafka"``, ``"franz-go"``,
    ``"kafka-python"``), the response and per-partition fetch limits by that client's names
    (:data:`LIMIT_NAMES`; ``update(response_max_bytes=..., partition_max_bytes=...)``),
    partitions, brokers and the compression ratio (decompressed bytes per wire byte: librdkafka
    and franz-go hold decompressed records, Java's consumer compressed batches).

    Switching client keeps the two limits' values and gives them to the new client under its
    own names; the client's other settings are its defaults. ``update`` returns the Spark curves,
    or None with the reason in ``warning``.
    """

    CONTROLS: ClassVar[tuple[Control, ...]] = (
        Control("client", "dropdown", options=tuple((c, c) for c in CLIENT_NAMES)),
        Control("fetch_max_bytes", name="response_max_bytes",
                options=tuple(sorted({52428800, *(2**k * MiB for k in range(0, 7))})),
                label=lambda s: LIMIT_NAMES[s.client][0]),
        Control("max_partition_fetch_bytes", name="partition_max_bytes",
                options=tuple(2**k * KiB for k in range(6, 15)),
                label=lambda s: LIMIT_NAMES[s.client][1]),
        Control("partitions", range=(1, 2000)),
        Control("brokers", range=(1, 12)),
        Control("compression_ratio", range=(1.0, 8.0), step=0.5,
                label="compression ratio (decompressed / wire)"),
    )
    ALIASES: ClassVar[Mapping[str, str | None]] = {}  # not the workload names of FetchDashboard

    def __init__(self, scenario: ConsumerScenario = CLIENTS_LESSON_SCENARIO, *, seed: int = 0,
                 spark: Any = None, **overrides: Any) -> None:
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _control_values(self, s: ConsumerScenario) -> dict[str, Any]:
        # not in the table: the two limits are Java's fields or the client's own settings
        response, partition = _limits(s)
        return {**super()._control_values(s), "response_max_bytes": response,
                "partition_max_bytes": partition}

    def _apply(self, scenario: ConsumerScenario, params: dict[str, Any]) -> ConsumerScenario:
        # not in the table: the two limits go to Java's fields or to the client's own settings
        params = dict(params)
        response, partition = _limits(scenario)
        response = params.pop("response_max_bytes", response)
        partition = params.pop("partition_max_bytes", partition)
        client = params.get("client", scenario.client)
        if client not in LIMIT_NAMES:
            raise ValueError(f"client must be one of {', '.join(LIMIT_NAMES)}: {client!r}")
        if client == "java":
            params.update(fetch_max_bytes=response, max_partition_fetch_bytes=partition,
                          client_settings=())
        else:
            response_name, partition_name = LIMIT_NAMES[client]
            params["client_settings"] = {response_name: response, partition_name: partition}
        return Dashboard._apply(self, scenario, params)

    def _advice(self, scenario: ConsumerScenario, curves: Any) -> list[str]:
        notes = super()._advice(scenario, curves) if scenario.client == "java" else []
        if scenario.client == "java" and scenario.compression_ratio > 1:
            notes.append("Java's consumer holds the compressed batches as they came (it "
                         "decompresses a batch as the application reads it), so the "
                         "compression ratio changes nothing here; switch client to see it.")
        return notes

    def _redraw(self, curves: Any) -> None:
        """The consumer figure; on another client the memory panel's bound is that client's own
        (and Java's KIP-74 bound beside it), not Java's two; the second bound is dash-dotted."""
        super()._redraw(curves)
        meta = self.trace.meta if self.trace is not None else {}
        java = self.scenario.client == "java" or "memory_bound_bytes" not in meta
        own, other = (self.figure.data[i] for i in _bound_traces())
        with self.figure.batch_update():
            other.line.dash = "dashdot"  # told apart from the first where the two meet
            if java:
                own.name, other.name = "KIP-74 bound", "pre-KIP-74 bound"
                return
            own.name = f"{self.scenario.client}'s bound"
            own.y = [int(meta["memory_bound_bytes"]) / MiB] * 2
            other.name = "Java's KIP-74 bound"
            other.y = [curves.kip74_bound_bytes / MiB] * 2

    def _summary(self, curves: Any) -> str:
        meta = self.trace.meta if self.trace is not None else {}
        if self.scenario.client == "java" or "memory_bound_bytes" not in meta:
            return super()._summary(curves)
        bound = (f"{self.scenario.client}'s bound", int(meta["memory_bound_bytes"]))
        return run_summary_html(curves, bound) + memory_answer_html(meta)


def _limits(s: ConsumerScenario) -> tuple[int, int]:
    """The response and per-partition limits ``s`` sets, by value (the client's own when set,
    else what its request carries by its rules)."""
    if s.client == "java":
        return s.fetch_max_bytes, s.max_partition_fetch_bytes
    response_name, partition_name = LIMIT_NAMES[s.client]
    settings = dict(s.client_settings)
    return (int(settings.get(response_name, s.request_max_bytes)),
            int(settings.get(partition_name, s.partition_max_bytes)))
