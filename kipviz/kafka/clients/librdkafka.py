"""librdkafka's consumer memory (confluent-kafka and the other bindings), read at v2.15.0.

The rule in two sentences: no partition is fetched while the high-level consumer's one queue
(every partition's fetch queue is forwarded to it) holds ``queued.min.messages`` messages or
``queued.max.messages.kbytes x 1000`` value bytes, and each broker has one fetch in flight, so the
queue overshoots by at most one response per broker. An uncompressed message keeps its whole
response buffer alive and a compressed one its decompressed batch, decompressed eagerly in the
broker thread.

Where the code contradicts issue 31's text (RESEARCH-31 section 5): pausing purges only the paused
partition's run at the head of the shared queue, the rest stays counted until the next poll
(rdkafka_queue.c:246-289); the byte gate is kbytes x 1000 (rdkafka.c:2717-2718) while the
``fetch.max.bytes`` clamp is kbytes x 1024 (rdkafka_conf.c:4554); the memory includes whole pinned
responses, which the config text's "overshot by fetch.message.max.bytes" understates.
"""

from __future__ import annotations

from collections.abc import Mapping

from kipviz.kafka.clients import _bound
from kipviz.kafka.clients.settings import LIBRDKAFKA

__all__ = ["librdkafka_fetch_max_bytes", "librdkafka_memory_bound", "librdkafka_queue_gate_bytes",
           "librdkafka_receive_max_bytes"]


def librdkafka_fetch_max_bytes(settings: Mapping[str, int] | None = None) -> int:
    """The request's MaxBytes (rdkafka_fetcher.c:3431-3434): ``fetch.max.bytes`` when set (then
    it must be >= ``message.max.bytes``, rdkafka_conf.c:4546-4550), else, since v1.5.0,
    ``max(min(52428800, queued.max.messages.kbytes x 1024), message.max.bytes)``
    (rdkafka_conf.c:4554).

    >>> librdkafka_fetch_max_bytes({"queued.max.messages.kbytes": 10000})
    10240000
    """
    given = dict(settings or {})
    s = _bound.settings_with_defaults(LIBRDKAFKA, given)
    if "fetch.max.bytes" in given:
        if s["fetch.max.bytes"] < s["message.max.bytes"]:
            raise ValueError(f"fetch_max_bytes (fetch.max.bytes) must be >= message.max.bytes "
                             f"({s['message.max.bytes']}): {s['fetch.max.bytes']}")
        return s["fetch.max.bytes"]
    return max(min(s["fetch.max.bytes"], s["queued.max.messages.kbytes"] * 1024),
               s["message.max.bytes"])


def librdkafka_receive_max_bytes(settings: Mapping[str, int] | None = None) -> int:
    """``receive.message.max.bytes``: raised to ``fetch.max.bytes + 512`` when unset, an error
    when set below it (rdkafka_conf.c:4563-4573).

    >>> librdkafka_receive_max_bytes({"fetch.max.bytes": 200000000})
    200000512
    """
    given = dict(settings or {})
    s = _bound.settings_with_defaults(LIBRDKAFKA, given)
    floor = librdkafka_fetch_max_bytes(given) + 512
    if "receive.message.max.bytes" in given:
        if s["receive.message.max.bytes"] < floor:
            raise ValueError(f"receive_message_max_bytes (receive.message.max.bytes) must be "
                             f">= fetch.max.bytes + 512 ({floor}): "
                             f"{s['receive.message.max.bytes']}")
        return s["receive.message.max.bytes"]
    return max(s["receive.message.max.bytes"], floor)


def librdkafka_queue_gate_bytes(settings: Mapping[str, int] | None = None) -> int:
    """The consumer queue's value-byte gate: ``queued.max.messages.kbytes x 1000``
    (rdkafka.c:2717-2718), checked on the one forwarded queue (rdkafka_fetcher.c:3764-3779)."""
    return _bound.settings_with_defaults(LIBRDKAFKA, settings)["queued.max.messages.kbytes"] * 1000


def librdkafka_memory_bound(partitions: int, brokers: int,
                            settings: Mapping[str, int] | None = None, *,
                            max_batch_bytes: int = _bound.MAX_BATCH_BYTES,
                            compression_ratio: float = 1.0) -> _bound.ClientMemoryBound:
    """The high-level consumer's memory bound (RESEARCH-31 1.2, h = 1, value bytes ~ bytes
    held): uncompressed, ``Q + (B + 1) x W`` (the queue gate, each broker's one response in
    flight, rdkafka_broker.c:4651-4654, and one partly drained response pinned at the queue's
    head, rdkafka_op.c:996-997); compressed (``compression_ratio`` r > 1), ``Q + B x (1 + r) x W
    + r x b`` (each broker's wire buffer and its decompressed batches while parsed,
    rdkafka_msgset_reader.c:1286-1296, and one decompressed batch at the head). ``W`` is KIP-74's
    response (the per-partition limit x the busiest broker's partitions, capped by the request's
    MaxBytes and ``receive.message.max.bytes``). ``Q`` counts decompressed value bytes.

    >>> librdkafka_memory_bound(1000, 3).bound_bytes
    275251200
    """
    leaders, on_broker = _bound.checked_inputs(partitions, brokers, max_batch_bytes,
                                               compression_ratio)
    s = _bound.settings_with_defaults(LIBRDKAFKA, settings)
    wire = min(_bound.response_wire_bytes(on_broker, librdkafka_fetch_max_bytes(settings),
                                   s["fetch.message.max.bytes"], max_batch_bytes),
               librdkafka_receive_max_bytes(settings))
    gate = librdkafka_queue_gate_bytes(settings)
    r = compression_ratio
    terms: tuple[tuple[str, int], ...]
    if r == 1.0:
        terms = (("queue gate", gate), ("responses in flight", leaders * wire),
                 ("response pinned at the queue's head", wire))
    else:
        terms = (("queue gate", gate), ("responses in flight", leaders * wire),
                 ("decompressed batches while parsed", int(leaders * r * wire)),
                 ("decompressed batch at the queue's head", int(r * max_batch_bytes)))
    return _bound.bound_of("librdkafka", terms, lambda bound, name, size: (
        f"librdkafka holds at most {bound:,} bytes for {partitions} partitions on {leaders} "
        f"brokers: the {name} ({size:,} bytes) binds; queued.max.messages.kbytes bounds the one "
        f"consumer queue, not each partition."))
