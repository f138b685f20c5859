"""(b) The partition order over successive fetches, with incremental fetch sessions (KIP-227)
and without, 3.9 against 4.4: which partitions each response carries, in which order, fetch
after fetch, as the broker logged them.

A cluster of its own per release (two brokers: broker 1 keeps fetch sessions, broker 2 runs
with ``max.incremental.fetch.session.cache.slots=0``, so every fetch to it is full; the setting
is static, so it cannot be the main cluster's), both logging every request with its response
(:mod:`kipviz.reality.request_log`). Topic ``events`` (the scenario's own topic name: the Java
hash orders depend on it), 16 partitions, partition p led by broker p % 2 + 1 as kipviz's
scenario places them; :data:`BACKLOG_BYTES` per partition of records of 200-3,000 bytes. One
Java consumer of the release, no group: ``assign`` of the 16 partitions (so they start in Java
hash order, ``ConsumerScenario.assignment="assign"``) and ``seek`` to offset 0, so that every
position is known before the first fetch and no heartbeat thread polls the network (in a group
it can complete a fetch between the application's poll and the next request, which then leaves
the new response's partitions out: a race, measured once in 44 fetches), with
``fetch.max.bytes`` :data:`FETCH_MAX_BYTES` and ``max.partition.fetch.bytes``
:data:`PARTITION_MAX_BYTES`, so a response carries two or three partitions of the eight, and
takes every record at once (``max.poll.records`` 100,000): each response is drained before the
next fetch to its broker, so what differs is the order alone.

Predicted: kipviz's consumer scenario over the batches the brokers stored, with sessions for
broker 1's partitions and ``incremental_fetch_sessions=False`` for broker 2's. Tolerance:
exact, partition by partition and byte by byte, in response order.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kipviz.reality.cluster import KafkaCluster
from kipviz.reality.jars import RealityError
from kipviz.reality.probes.java_probe import run_consumer_probe
from kipviz.reality.request_log import fetch_exchanges
from kipviz.reality.results import Row
from kipviz.reality.wire import log_batches
from kipviz.reality.workloads import TopicLoad, produce

__all__ = ["NAME", "OrderSetup", "predict", "run", "setup"]

NAME = "partition_order"
PARTITIONS = 16
BACKLOG_BYTES = 150_000
RECORD_BYTES = (200, 3000)
FETCH_MAX_BYTES = 50_000
PARTITION_MAX_BYTES = 20_000
FIRST = 8                                # responses shown partition by partition in the table
CLIENT_ID = "kipviz-probe"               # ConsumerProbe.java's client.id
NO_SESSIONS = {"max.incremental.fetch.session.cache.slots": 0}
BROKERS = {True: 1, False: 2}            # sessions -> the broker that has them or not


@dataclass(frozen=True)
class OrderSetup:
    """Nothing on the main cluster: the experiment starts its own (see the module)."""

    kafka_version: str


def setup(cluster: KafkaCluster) -> OrderSetup:
    """Nothing to produce on the main cluster: :func:`run` starts the experiment's own."""
    return OrderSetup(cluster.kafka_version)


def _topic() -> str:
    from kipviz.scenarios.consumer.scenario import TOPIC
    return TOPIC


def predict(setup_: dict[str, Any], batches: list[list[int]], model_version: str,
            sessions: bool) -> list[list[list[int]]]:
    """kipviz's responses from the sessions broker (``sessions``) or the other, in order: per
    response the ``[partition, bytes]`` of every partition that returned records."""
    from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
    from kipviz.scenarios.workload import Batches, Workload

    total = sum(sum(b) for b in batches)
    scenario = ConsumerScenario(
        partitions=int(setup_["partitions"]), brokers=2,
        fetch_max_bytes=int(setup_["fetch.max.bytes"]),
        max_partition_fetch_bytes=int(setup_["max.partition.fetch.bytes"]),
        kafka_version=model_version, incremental_fetch_sessions=sessions, assignment="assign",
        consume_bytes_per_s=1e12, rtt_ms=1, network_bytes_per_s=1e12, tick_ms=1,
        ticks=4 * total // int(setup_["max.partition.fetch.bytes"]) + 100, windows=1,
        heartbeat_interval_ms=0,
        workload=Workload(produce_bytes_per_s=0, record_bytes=1000, initial_lag_bytes=1))
    f = simulate(scenario, batches=Batches.backlog(batches)).fetches
    f = f[(f.broker == BROKERS[sessions] - 1) & (f.raw_bytes > 0)]
    out = []
    for _, g in f.sort_values(["fetch_id", "position"]).groupby("fetch_id", sort=True):
        out.append([[int(p), int(b)] for p, b in zip(g.partition, g.raw_bytes, strict=True)])
    return out


def _measured(path: Path) -> tuple[list[list[list[int]]], dict[str, Any]]:
    exchanges = fetch_exchanges(path, CLIENT_ID)
    responses = [[[p, b] for p, b in x.returned] for x in exchanges]
    while responses and not responses[-1]:
        responses.pop()  # the fetches that waited at the end of the backlog
    sessions = {x.response_session_id for x in exchanges} - {0}
    return responses, {"fetches": len(exchanges), "full_fetches": sum(x.full for x in exchanges),
                       "sessions_created": len(sessions),
                       "forgotten_partitions": sum(len(x.forgotten) for x in exchanges),
                       "requests": [list(x.requested) for x in exchanges],
                       "forgotten": [list(x.forgotten) for x in exchanges]}


def _words(responses: list[list[list[int]]]) -> list[str]:
    return [",".join(str(p) for p, _ in r) for r in responses]


def _with_bytes(responses: list[list[list[int]]]) -> list[str]:
    return [",".join(f"{p}:{b}" for p, b in r) for r in responses]


def _first_seen(responses: list[list[list[int]]], partitions: list[int]) -> list[int]:
    """Per partition (in partition order) the number of the first response that carried it."""
    seen: dict[int, int] = {}
    for i, r in enumerate(responses, start=1):
        for p, _ in r:
            seen.setdefault(p, i)
    return [seen.get(p, 0) for p in partitions]


def run(cluster: KafkaCluster, s: OrderSetup, *, quick: bool = False) -> list[Row]:
    """Both brokers' fetch sequences on the release's own two-broker cluster: three rows each
    (the first :data:`FIRST` responses' partitions, every response's partitions and bytes,
    the response that first carried each partition)."""
    topic = _topic()
    rows: list[Row] = []
    with KafkaCluster(brokers=2, kafka_version=s.kafka_version, node_config={2: NO_SESSIONS},
                      request_log=True) as own, \
            tempfile.TemporaryDirectory(prefix="kipviz-probe-") as tmp:
        own.create_topic(topic, assignment=[[p % 2 + 1] for p in range(PARTITIONS)])
        produce(own.bootstrap_servers,
                [TopicLoad(topic, range(PARTITIONS), BACKLOG_BYTES, RECORD_BYTES, seed=227)],
                producer_config={"batch.size": 16384})
        batches = [[b.size_bytes for b in log_batches(own.partition_dir(topic, p, p % 2 + 1))]
                   for p in range(PARTITIONS)]
        config = {"bootstrap_servers": own.bootstrap_servers,
                  "assign": [[topic, p] for p in range(PARTITIONS)],
                  "seek_offset": 0,
                  "consumer_config": {"fetch.max.bytes": str(FETCH_MAX_BYTES),
                                      "max.partition.fetch.bytes": str(PARTITION_MAX_BYTES),
                                      "max.poll.records": "100000"},
                  "polls": 400, "poll_timeout_ms": 200, "stop_when_idle_polls": 8}
        lines = run_consumer_probe(own.kafka_version, config, timeout_s=120, log_dir=Path(tmp))
        start = next(x for x in lines if x.get("type") == "start")
        records = lines[-1].get("records", 0)
        model = own.release.model_version
        setup_ = {"brokers": 2, "partitions": PARTITIONS, "topic": topic,
                  "fetch.max.bytes": FETCH_MAX_BYTES,
                  "max.partition.fetch.bytes": PARTITION_MAX_BYTES,
                  "max.poll.records": 100_000, "record_bytes": list(RECORD_BYTES),
                  "backlog_bytes_per_partition": BACKLOG_BYTES, "assignment": "assign, seek to 0",
                  "records_read": records}
        for sessions in (True, False):
            broker = BROKERS[sessions]
            measured, seen = _measured(own.node(broker).request_log)
            if not measured:
                raise RealityError(f"broker {broker} logged no fetch from the probe "
                                   f"(Kafka {own.release.version}; {own.node(broker).request_log})")
            mine = [p for p in range(PARTITIONS) if p % 2 + 1 == broker]
            predicted = predict(setup_, batches, model, sessions)
            mode = ("with fetch sessions" if sessions else
                    "without (max.incremental.fetch.session.cache.slots=0)")
            case_setup = {**setup_, "broker": broker, "fetch_sessions": sessions,
                          "batches": batches}
            common: dict[str, Any] = {"experiment": NAME, "kafka_version": own.release.version,
                      "client": f"java {start.get('kafka_clients', own.release.version)}",
                      "setup": case_setup, "tolerance": "exact",
                      "extra": {"model_version": model, **seen}}
            rows += [
                Row(case=f"broker {broker}, {mode}: partitions of responses 1-{FIRST}",
                    predicted=_words(predicted[:FIRST]), measured=_words(measured[:FIRST]),
                    unit="partitions", **common),
                Row(case=f"broker {broker}, {mode}: every response, partition and bytes",
                    predicted=_with_bytes(predicted), measured=_with_bytes(measured),
                    unit="partition:bytes, a response each", **common),
                Row(case=f"broker {broker}, {mode}: response that first carried partition "
                         f"{', '.join(map(str, mine))}",
                    predicted=_first_seen(predicted, mine), measured=_first_seen(measured, mine),
                    unit="response number", **common),
            ]
    return rows
