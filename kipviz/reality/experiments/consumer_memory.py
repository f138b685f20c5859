"""(c) A lagging Java consumer's memory, 3.9 against 4.4: the bytes of fetch responses it keeps
reachable, at three partition counts on one broker and on three, and with paused partitions that
hold data, beside kipviz's bound and kipviz's simulation of the same consumer.

The real side is the consumer probe (:mod:`kipviz.reality.probes.java_probe`): kafka-clients of
the broker's release, ``assign`` + ``seekToBeginning`` over a backlog, an application that takes
``max.poll.records`` records and then sleeps, and before every ``poll()`` the distinct response
buffers its ``FetchBuffer`` (queued and next-in-line ``CompletedFetch``\\ es) and its network
receives keep reachable. The predicted side is, for the same partitions, brokers, settings and
the batches the broker stored: :func:`kipviz.kafka.consumer.memory.consumer_memory_bounds`
(tolerance "bound": never exceeded) and the consumer scenario's simulated peak of ``held_bytes``
at the consumption rate the probe reached (tolerance "within 20%").
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kipviz.kafka.consumer.memory import consumer_memory_bounds
from kipviz.kafka.units import MiB
from kipviz.reality.cluster import KafkaCluster
from kipviz.reality.jars import RealityError
from kipviz.reality.probes.java_probe import run_consumer_probe
from kipviz.reality.results import Row
from kipviz.reality.wire import log_batches
from kipviz.reality.workloads import TopicLoad, produce

__all__ = ["CASES", "NAME", "Case", "MemorySetup", "predict_bound", "run", "setup",
           "simulated_peak_bytes"]

NAME = "consumer_memory"
PARTITIONS = 12
BACKLOG_BYTES = 3 * MiB     # per partition: more than a 3.9 consumer can buffer here
RECORD_BYTES = 1000
FETCH_MAX_BYTES = 1_048_576
PARTITION_MAX_BYTES = 262_144
MAX_POLL_RECORDS = 50               # 50 kB a poll, then a 20 ms sleep: the application lags
SLEEP_MS = 20
POLLS = 300


@dataclass(frozen=True)
class Case:
    """One consumer: its brokers and partitions, the partitions it pauses, its group protocol."""

    brokers: int
    partitions: int
    paused: tuple[int, ...] = ()
    group_protocol: str = "classic"

    @property
    def name(self) -> str:
        """The case's words in the table."""
        paused = f", {len(self.paused)} paused with data" if self.paused else ""
        protocol = "" if self.group_protocol == "classic" else ", group.protocol=consumer"
        return f"{self.partitions} partitions on {self.brokers} broker" \
               f"{'s' if self.brokers > 1 else ''}{paused}{protocol}"


CASES = (Case(1, 3), Case(1, 6), Case(1, 12), Case(3, 3), Case(3, 6), Case(3, 12),
         Case(3, 12, paused=(0,)), Case(1, 6, paused=(2,)), Case(3, 12, group_protocol="consumer"))
QUICK = (Case(3, 6),)


@dataclass(frozen=True)
class MemorySetup:
    """The topics made for each broker count and the batches the brokers stored."""

    topics: dict[int, str]                      # broker count -> topic
    batches: dict[tuple[str, int], list[int]]   # (topic, partition) -> batch sizes


def setup(cluster: KafkaCluster) -> MemorySetup:
    """``mem-b1``: 12 partitions led by one broker; ``mem-b3``: 12 partitions, partition p led
    by broker p % 3 + 1 (as kipviz's scenario places them); 3 MiB of 1,000-byte records each."""
    ids = cluster.broker_ids
    topics = {1: "mem-b1", len(ids): f"mem-b{len(ids)}"}
    cluster.create_topic(topics[1], assignment=[[ids[0]]] * PARTITIONS)
    cluster.create_topic(topics[len(ids)],
                         assignment=[[ids[p % len(ids)]] for p in range(PARTITIONS)])
    produce(cluster.bootstrap_servers,
            [TopicLoad(t, range(PARTITIONS), BACKLOG_BYTES, RECORD_BYTES, seed=b)
             for b, t in topics.items()], producer_config={"batch.size": 16384})
    batches = {}
    for t in topics.values():
        leaders = cluster.leaders(t)
        for p in range(PARTITIONS):
            part = cluster.partition_dir(t, p, leaders[p])
            batches[(t, p)] = [b.size_bytes for b in log_batches(part)]
    return MemorySetup(topics, batches)


def _scenario(case: Case, model_version: str, consume_bytes_per_s: float,
              duration_ms: float, pause_at_ms: int = 0) -> Any:
    from kipviz.scenarios.consumer.scenario import ConsumerScenario
    from kipviz.scenarios.workload import Workload

    tick_ms = 5
    ticks = max(20, int(duration_ms / tick_ms))
    return ConsumerScenario(
        partitions=case.partitions, brokers=case.brokers, fetch_max_bytes=FETCH_MAX_BYTES,
        max_partition_fetch_bytes=PARTITION_MAX_BYTES, kafka_version=model_version,
        paused_partitions=case.paused, pause_at_ms=pause_at_ms,
        consume_bytes_per_s=max(1.0, consume_bytes_per_s),
        rtt_ms=1, network_bytes_per_s=1e9, tick_ms=tick_ms, ticks=ticks, windows=1,
        heartbeat_interval_ms=0,
        workload=Workload(produce_bytes_per_s=0, record_bytes=RECORD_BYTES,
                          initial_lag_bytes=BACKLOG_BYTES))


def predict_bound(setup: dict[str, Any], model_version: str) -> int:
    """kipviz's bound for a row's setup (what the row predicted), made again from its numbers."""
    case = Case(int(setup["brokers"]), int(setup["partitions"]), tuple(setup["paused"]),
                str(setup["group.protocol"]))
    scenario = _scenario(case, model_version, float(setup["consume_bytes_per_s"]),
                         float(setup["duration_ms"]))
    return int(consumer_memory_bounds(scenario, lagging=True,
                                      max_batch_bytes=int(setup["max_batch_bytes"])).bound_bytes)


def simulated_peak_bytes(scenario: Any, batches: list[list[int]]) -> int:
    """kipviz's simulation of the scenario over the real batches: the peak of ``held_bytes``
    (responses received, handed over or not, the drained one still next in line)."""
    from kipviz.scenarios.consumer.scenario import simulate
    from kipviz.scenarios.workload import Batches

    trace = simulate(scenario, record_fetches=False, batches=Batches.backlog(batches))
    return int(trace.memory["held_bytes"].max())


def _paused_at_ms(samples: list[dict[str, Any]], topic: str, case: Case) -> int:
    """When the probe paused the case's partitions (right after a poll first returned each),
    from its first sample: the scenario pauses them then too."""
    at = 0
    for p in case.paused:
        first = next((x["t_ms"] for x in samples if [topic, p] in x["partitions_returned"]),
                     samples[0]["t_ms"])
        at = max(at, int(first - samples[0]["t_ms"]))
    return at


def _probe_config(cluster: KafkaCluster, topic: str, case: Case) -> dict[str, Any]:
    return {
        "bootstrap_servers": cluster.bootstrap_servers,
        "assign": [[topic, p] for p in range(case.partitions)],
        "consumer_config": {"fetch.max.bytes": str(FETCH_MAX_BYTES),
                            "max.partition.fetch.bytes": str(PARTITION_MAX_BYTES),
                            "max.poll.records": str(MAX_POLL_RECORDS),
                            "group.protocol": case.group_protocol},
        "polls": POLLS, "poll_timeout_ms": 200, "sleep_ms_between_polls": SLEEP_MS,
        "pause": [[topic, p] for p in case.paused], "heap_every": 20,
        "stop_when_idle_polls": 5,
        # also every 5 ms, inside poll(): a classic consumer hands responses over there
        "peak_sampler_ms": 5,
    }


def _run_case(cluster: KafkaCluster, s: MemorySetup, case: Case, log_dir: Path) -> list[Row]:
    topic = s.topics[case.brokers]
    lines = run_consumer_probe(cluster.kafka_version, _probe_config(cluster, topic, case),
                               timeout_s=120, log_dir=log_dir)
    samples = [x for x in lines if x.get("type") == "sample"]
    start = next(x for x in lines if x.get("type") == "start")
    summary = lines[-1]
    if not summary.get("records"):
        raise RealityError(f"the consumer probe (Kafka {cluster.release.version}, {case.name}) "
                           f"read no records from {topic} on {cluster.bootstrap_servers} "
                           f"(logs in {log_dir})")
    measured = max(summary["max_reachable_bytes"], summary.get("max_peak_reachable_bytes", 0))
    most = max(summary["max_responses"], summary.get("max_peak_responses", 0))
    duration_ms = max(1.0, samples[-1]["t_ms"] - samples[0]["t_ms"])
    consumed = sum(x.get("bytes_returned", 0) for x in samples)
    rate = consumed / (duration_ms / 1000)
    model = cluster.release.model_version
    scenario = _scenario(case, model, rate, duration_ms, _paused_at_ms(samples, topic, case))
    batches = [s.batches[(topic, p)] for p in range(case.partitions)]
    max_batch = max(max(b) for b in batches)
    bound = consumer_memory_bounds(scenario, lagging=True, max_batch_bytes=max_batch)
    peak = simulated_peak_bytes(scenario, batches)  # the classic consumer's hand-over
    setup_ = {"brokers": case.brokers, "partitions": case.partitions,
              "paused": list(case.paused), "group.protocol": case.group_protocol,
              "fetch.max.bytes": FETCH_MAX_BYTES,
              "max.partition.fetch.bytes": PARTITION_MAX_BYTES,
              "max.poll.records": MAX_POLL_RECORDS, "sleep_ms": SLEEP_MS,
              "record_bytes": RECORD_BYTES, "backlog_bytes_per_partition": BACKLOG_BYTES,
              "consume_bytes_per_s": round(rate), "duration_ms": round(duration_ms),
              "max_batch_bytes": max_batch}
    client = f"java {start.get('kafka_clients', cluster.release.version)}"
    common = {"experiment": NAME, "kafka_version": cluster.release.version, "client": client,
              "setup": setup_, "measured": measured, "unit": "bytes"}
    extra = {"model_version": model, "most_responses_held": most,
             "drained_next_in_line_beside_another": bool(
                 summary.get("consumed_next_in_line_with_other_response")
                 or summary.get("peak_consumed_next_in_line_with_other_response")),
             "max_heap_used_bytes": max((x.get("heap_used_bytes") or 0) for x in samples),
             "rule": bound.rule}
    rows = [Row(case=f"{case.name}: bound", predicted=bound.bound_bytes, tolerance="bound",
                note=bound.sentence(), extra=extra, **common)]
    extra["simulated_peak_bytes"] = peak
    if case.group_protocol == "classic" and (not case.paused or case.brokers == 1):
        if case.brokers > 1:
            # the simulated brokers answer in step, so every broker's next response lands while
            # the drained one is still next in line; real brokers drift, and a run reaches that
            # peak or stops up to one response short of it, on either release (4.4.0: 786,654
            # and 1,048,872 bytes in two runs of 3 partitions on 3 brokers; 3.9.2: 1,048,872 and
            # 861,699, 2026-12-02; the drained response stays next in line on both, 4.4
            # FetchCollector.java:98-104, 3.9 FetchBuffer.java:254): the prediction is that range
            one = bound.per_broker_bytes
            rows.append(Row(case=f"{case.name}: simulated peak", predicted=[peak - one, peak],
                            tolerance="within 20% of the range", extra=extra, **common,
                            note="kipviz's simulation over the broker's own batches at the "
                                 "consumption rate the probe reached, less one response to it "
                                 "(real brokers do not answer in step)"))
        else:
            rows.append(Row(case=f"{case.name}: simulated peak", predicted=peak,
                            tolerance="within 20%", extra=extra, **common,
                            note="kipviz's simulation over the broker's own batches at the "
                                 "consumption rate the probe reached"))
    return rows


def run(cluster: KafkaCluster, s: MemorySetup, *, quick: bool = False) -> list[Row]:
    """Every case (``quick``: one) on this cluster: a bound row and, where the scenario models
    the consumer, a simulated-peak row per case."""
    cases: tuple[Case, ...] = QUICK if quick else CASES
    if cluster.release.major < 4:
        cases = tuple(c for c in cases if c.group_protocol == "classic")
    rows = []
    with tempfile.TemporaryDirectory(prefix="kipviz-probe-") as tmp:
        for i, case in enumerate(cases):
            rows += _run_case(cluster, s, case, Path(tmp) / f"case-{i}")
    return rows
