"""(a) KIP-74's response filling, on a real broker: which partitions one fetch response carries
and how many bytes each, over ``fetch.max.bytes`` x ``max.partition.fetch.bytes`` x partitions,
and the first-batch exception with a record larger than both limits.

Each case sends one raw FetchRequest (:func:`kipviz.reality.wire.raw_fetch`: a full fetch, so the
broker reads the partitions in request order, ``FullFetchContext``) and predicts the same
response with :func:`kipviz.kafka.fetch.fill_response` from the record batches the broker stored
(:func:`kipviz.reality.wire.log_batches`) and the limit it applies
(:func:`kipviz.kafka.fetch.response_limit_bytes`: min(request, broker ``fetch.max.bytes``)).
Tolerance: exact, byte for byte per partition, in response order.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from kipviz.kafka.fetch.frame import response_frame_bytes
from kipviz.kafka.fetch.response import fill_response, response_limit_bytes
from kipviz.kafka.units import KiB, MiB
from kipviz.reality.cluster import KafkaCluster
from kipviz.reality.results import Row
from kipviz.reality.wire import FETCH_VERSION, log_batches, raw_fetch
from kipviz.reality.workloads import TopicLoad, produce

__all__ = ["NAME", "ResponsesSetup", "predict", "predict_size", "run", "setup"]

NAME = "kip74_responses"
TOPIC, LARGE = "kip74", "kip74-large"
PARTITIONS = 6
LARGE_RECORD_BYTES = 3 * MiB   # larger than every fetch.max.bytes and partition limit
FETCH_MAX_BYTES = (102_400, 1_048_576, 2_621_440)
PARTITION_MAX_BYTES = (40_000, 262_144, 1_048_576)
PARTITION_COUNTS = (1, 3, 6)


@dataclass(frozen=True)
class ResponsesSetup:
    leader: int
    broker_fetch_max_bytes: int


def setup(cluster: KafkaCluster) -> ResponsesSetup:
    """Two topics led by the first broker: ``kip74`` (6 partitions, about 1.5 MiB each of
    records of 200-3,000 bytes) and ``kip74-large`` (its partition 0 starts with one 3 MiB
    record; partitions 1 and 2 hold small records)."""
    leader = cluster.broker_ids[0]
    cluster.create_topic(TOPIC, assignment=[[leader]] * PARTITIONS)
    cluster.create_topic(LARGE, assignment=[[leader]] * 3,
                         config={"max.message.bytes": 4 * MiB})
    produce(cluster.bootstrap_servers, [
        TopicLoad(TOPIC, range(PARTITIONS), 1_500_000, (200, 3000), seed=74),
        TopicLoad(LARGE, range(3), 300_000, (200, 3000), seed=75,
                  head_record_bytes={0: LARGE_RECORD_BYTES}),
    ], producer_config={"message.max.bytes": 4 * MiB + KiB, "batch.size": 16384})
    broker_fmb = int(str(cluster.broker_config.get("fetch.max.bytes", 57_671_680)))
    return ResponsesSetup(leader, broker_fmb)


def predict(setup: dict[str, object], model_version: str) -> list[int]:
    """kipviz's response for a row's setup: :func:`fill_response` over the batches the broker
    stored (``setup["batches"]``, from each fetch offset), under the limit the release applies."""
    limit = response_limit_bytes(model_version, int(str(setup["fetch.max.bytes"])),
                                 int(str(setup["broker fetch.max.bytes"])))
    batches = setup["batches"]
    assert isinstance(batches, list)
    return [d.raw_bytes for d in fill_response(
        batches, response_max_bytes=limit,
        partition_max_bytes=int(str(setup["max.partition.fetch.bytes"])), version=FETCH_VERSION)]


def predict_size(setup: dict[str, object], raw_bytes: list[int]) -> int:
    """The whole response's size: its records and its frame
    (:func:`kipviz.kafka.fetch.frame.response_frame_bytes`), one topic at a time in order."""
    topics: list[list[int]] = []
    names: list[str] = []
    partitions = setup["partitions"]
    assert isinstance(partitions, list)
    for tp, raw in zip(partitions, raw_bytes, strict=True):
        topic = str(tp).rsplit("-", 1)[0]
        if not names or names[-1] != topic:
            names.append(topic)
            topics.append([])
        topics[-1].append(raw)
    return sum(raw_bytes) + response_frame_bytes([], version=FETCH_VERSION, topics=topics,
                                                 topic_names=names)


def _enough(sizes: list[int], budget: int) -> list[int]:
    """The batches a fill with at most ``budget`` bytes can read (through the one crossing it):
    what a row keeps so that its prediction can be made again without the cluster."""
    out, total = [], 0
    for size in sizes:
        out.append(size)
        total += size
        if total > budget:
            break
    return out


def _case(cluster: KafkaCluster, s: ResponsesSetup, name: str,
          asked: list[tuple[str, int, int]], fetch_max_bytes: int,
          partition_max_bytes: int) -> list[Row]:
    """One fetch: ``asked`` is (topic, partition, index of the batch to fetch from)."""
    node = cluster.node(s.leader)
    batches, request = [], []
    for topic, p, k in asked:
        log = log_batches(node.data_dir / f"{topic}-{p}")
        sizes = [b.size_bytes for b in log[k:]]
        batches.append(_enough(sizes, max(fetch_max_bytes, partition_max_bytes, sizes[0])))
        request.append((topic, p, log[k].base_offset, partition_max_bytes))
    setup: dict[str, object] = {
        "fetch.max.bytes": fetch_max_bytes, "max.partition.fetch.bytes": partition_max_bytes,
        "broker fetch.max.bytes": s.broker_fetch_max_bytes,
        "partitions": [f"{t}-{p}" for t, p, _ in asked],
        "fetch_offsets": [offset for _, _, offset, _ in request], "batches": batches}
    predicted = predict(setup, cluster.release.model_version)
    response = raw_fetch(f"127.0.0.1:{node.port}", request, max_bytes=fetch_max_bytes)
    got = response.partitions
    order_ok = [(g.topic, g.partition) for g in got] == [(t, p) for t, p, _ in asked]
    measured: list[object] = ([g.raw_bytes for g in got] if order_ok else
                              [[g.topic, g.partition, g.raw_bytes] for g in got])
    errors = [g.error_code for g in got]
    common: dict[str, Any] = {"experiment": NAME, "kafka_version": cluster.release.version,
              "client": f"raw FetchRequest v{FETCH_VERSION}", "setup": setup,
              "note": "" if not any(errors) else f"error codes {errors}",
              "extra": {"model_version": cluster.release.model_version}}
    return [Row(case=name, predicted=predicted, measured=measured, unit="bytes per partition",
                tolerance="exact", **common),
            Row(case=f"{name}: response size", predicted=predict_size(setup, predicted),
                measured=response.size_bytes, unit="bytes", tolerance="exact", **common)]


def run(cluster: KafkaCluster, s: ResponsesSetup, *, quick: bool = False) -> list[Row]:
    """Every combination of the three grids (the first, middle and last partition of each fetch
    starting at different batches), then the first-batch exception's cases."""
    rows = []
    grid = list(itertools.product(FETCH_MAX_BYTES, PARTITION_MAX_BYTES, PARTITION_COUNTS))
    if quick:
        grid = [(1_048_576, 262_144, 6), (102_400, 40_000, 3)]
    for fmb, pmb, n in grid:
        asked = [(TOPIC, p, p % 3) for p in range(n)]
        rows += (_case(cluster, s, f"{n} partitions, fetch.max.bytes {fmb:,}, "
                                      f"max.partition.fetch.bytes {pmb:,}", asked, fmb, pmb))
    large = [
        ("3 MiB record first (the first-batch exception returns it whole)",
         [(LARGE, 0, 0), (LARGE, 1, 0), (LARGE, 2, 0)]),
        ("3 MiB record after a partition that returned bytes (returned empty)",
         [(LARGE, 1, 0), (LARGE, 0, 0), (LARGE, 2, 0)]),
    ]
    for name, asked in (large[:1] if quick else large):
        rows += _case(cluster, s, name, asked, 1_048_576, 262_144)
    return rows
