"""Seeded topics on a real cluster: records of known sizes produced once, with librdkafka
(``confluent_kafka.Producer``), and the partitions' real record batches read back from the log.

Every record of one :func:`produce` call carries the same timestamp (the call's start: an old
one would fall past the topic's 7-day ``retention.ms`` and be deleted by the broker's first
retention check, 30 s after it starts), so a batch's size depends only on its records' sizes
(``timestampDelta`` is 0); batches are whatever librdkafka's ``batch.size`` and ``linger.ms``
make them, and what kipviz predicts from is the layout the broker stored
(:func:`kipviz.reality.wire.log_batches`), never an assumed one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kipviz.reality.jars import RealityError

__all__ = ["TopicLoad", "produce"]


@dataclass(frozen=True)
class TopicLoad:
    """What to write into one topic: per partition, ``bytes_per_partition`` of records whose
    values are ``record_bytes`` (an int, or a (low, high) range drawn with ``seed``)."""

    topic: str
    partitions: Sequence[int]
    bytes_per_partition: int
    record_bytes: int | tuple[int, int] = 1000
    seed: int = 1
    head_record_bytes: Mapping[int, int] | None = None  # partition -> one record written first


def produce(bootstrap_servers: str, loads: Sequence[TopicLoad], *,
            producer_config: Mapping[str, object] | None = None) -> dict[tuple[str, int], int]:
    """Write every load and wait for every acknowledgement; records written per partition."""
    from confluent_kafka import KafkaError, Producer

    conf: dict[str, object] = {"bootstrap.servers": bootstrap_servers, "linger.ms": 50,
                               "batch.size": 65536, "compression.type": "none", "acks": "all",
                               "enable.idempotence": False, "log.connection.close": False,
                               **(producer_config or {})}
    producer = Producer(conf)
    failed: list[str] = []

    def on_delivery(err: KafkaError | None, _msg: object) -> None:
        if err is not None:
            failed.append(str(err))

    stamp = int(time.time() * 1000)
    written: dict[tuple[str, int], int] = {}
    for load in loads:
        rng = random.Random(load.seed)
        for p in load.partitions:
            head = (load.head_record_bytes or {}).get(p)
            if head:
                producer.produce(load.topic, value=b"h" * head, partition=p,
                                 timestamp=stamp, on_delivery=on_delivery)
                producer.flush(60)
            total = n = 0
            while total < load.bytes_per_partition:
                size = (load.record_bytes if isinstance(load.record_bytes, int)
                        else rng.randint(*load.record_bytes))
                while True:
                    try:
                        producer.produce(load.topic, value=b"r" * size, partition=p,
                                         timestamp=stamp, on_delivery=on_delivery)
                        break
                    except BufferError:  # librdkafka's queue is full: let it send
                        producer.poll(0.05)
                total += size
                n += 1
            written[(load.topic, p)] = n + (1 if head else 0)
    left = producer.flush(120)
    del producer
    if failed or left:
        raise RealityError(f"producing the seeded topics failed: {left} records unsent, "
                           f"{len(failed)} refused ({failed[:1]})")
    return written
