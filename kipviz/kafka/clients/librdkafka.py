"""librdkafka's consumer memory (confluent-kafka and the other bindings), read at v2.15.0.

The rule in two sentences: no partition is fetched while the high-level consumer's one queue
(every partition's fetch queue is forwarded to it) holds ``queued.min.messages`` messages or
``queued.max.messages.kbytes x 1000`` value bytes, and each broker has one fetch in flight, so the
queue overshoots by at most one response per broker. Every message is a 320-byte op beside its
bytes, and it keeps its whole response alive (or, compressed, its decompressed batch, in a buffer
sized by the codec's guess), so a bound in bytes counts messages too: pass ``record_bytes``.

Where the code contradicts issue 31's text (RESEARCH-31 section 5): pausing purges only the paused
partition's run at the head of the shared queue, the rest stays counted until the next poll
(rdkafka_queue.c:246-289); the byte gate is kbytes x 1000 (rdkafka.c:2717-2718) while the
``fetch.max.bytes`` clamp is kbytes x 1024 (rdkafka_conf.c:4554); the memory includes whole pinned
responses, which the config text's "overshot by fetch.message.max.bytes" understates, and one op
per message, which neither gate counts (measured on a real cluster, ``kipviz reality``).
librdkafka 2.16.0 (confluent-kafka 2.16.1, what the probe runs) changes none of these paths (its
CHANGELOG: re-bootstrap, FETCH_STOP, admin calls).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from kipviz.kafka.clients import _bound
from kipviz.kafka.clients.settings import LIBRDKAFKA
from kipviz.kafka.config.checks import check_choice, check_int

__all__ = ["CODECS", "librdkafka_decompression_bytes", "librdkafka_fetch_max_bytes",
           "librdkafka_memory_bound", "librdkafka_queue_gate_bytes",
           "librdkafka_receive_max_bytes"]

OP_BYTES = 320
"""One fetched message: ``rd_kafka_op_new(RD_KAFKA_OP_FETCH)`` callocs ``sizeof(rd_kafka_op_t) -
sizeof(rko_u) + sizeof(rko_u.fetch)`` = 1024 - 912 + 192 = 304 bytes on x86-64 (rdkafka_op.c:232,
334; the ``rd_kafka_msg_t`` is inside, rdkafka_op.c:988), a 320-byte glibc chunk."""

BATCH_BUFFER_BYTES = 640
"""One decompressed batch beside its bytes: its shadow ``rd_kafka_buf_t`` (calloc 512, a 528-byte
chunk, rdkafka_buf.c:202, msgset_reader.c:448), its segment (72, an 80-byte chunk,
rdbuf.c:365-371) and the decompressed buffer's own chunk header and rounding (32)."""

RESPONSE_BUFFER_BYTES = 640
"""One response beside its bytes: its ``rd_kafka_buf_t`` and segment, as a batch's."""

FETCH_VERSIONS = range(4, 17)
"""The FetchRequest versions librdkafka sends: up to 16 (rdkafka_fetcher.c:3387-3388)."""

CODECS = ("gzip", "snappy", "lz4", "zstd")
"""The codecs a batch may be compressed with; ``codec=None`` takes the one librdkafka allocates
most for."""


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


def _grown(start: float, factor: float, ratio: float) -> float:
    """The first of ``start``, ``start x factor``, ... that holds ``ratio``."""
    steps = 0 if ratio <= start else math.ceil(math.log(ratio / start, factor) - 1e-12)
    while start * factor ** steps < ratio:
        steps += 1
    return start * factor ** steps


def librdkafka_decompression_bytes(codec: str | None, compression_ratio: float,
                                   batch_bytes: int, message_max_bytes: int = 1000000) -> float:
    """Bytes librdkafka allocates per compressed byte to decompress a batch that decompresses
    ``compression_ratio`` times: gzip and snappy size the output first (rdgz.c:43-50,
    snappy.c:1705); lz4 (Kafka's producers write no content size) guesses ``4 x`` the input,
    at most ``message.max.bytes``, and grows by 3/4 (rdkafka_lz4.c:222-231, 272-290); zstd
    without a content size guesses ``2 x`` and grows 3 times (rdkafka_zstd.c:45-50, 95).
    ``codec=None``: the most of the four.

    >>> librdkafka_decompression_bytes("lz4", 3.75, 17000), librdkafka_decompression_bytes(
    ...     "zstd", 3.75, 17000)
    (4.0, 6.0)
    """
    r = compression_ratio
    if codec is None:
        return max(librdkafka_decompression_bytes(c, r, batch_bytes, message_max_bytes)
                   for c in CODECS)
    check_choice("codec", codec, CODECS, "one of gzip, snappy, lz4, zstd or None (any)")
    if codec in ("gzip", "snappy"):
        return r
    if codec == "lz4":
        if 4 * batch_bytes > message_max_bytes:  # the guess is capped: grown past out by 3/4
            return max(4.0, 1.75 * r)
        return _grown(4.0, 1.75, r)
    return _grown(2.0, 3.0, r)


def _growth_step_bytes(codec: str | None, ratio: float) -> int:
    """The least a codec grows its buffer by, where it may grow: lz4 1,024 bytes
    (rdkafka_lz4.c:276), zstd 4,000 (rdkafka_zstd.c:95)."""
    lz4 = 1024 if ratio > 4 and codec in ("lz4", None) else 0
    zstd = 4000 if ratio > 2 and codec in ("zstd", None) else 0
    return max(lz4, zstd)


def librdkafka_memory_bound(partitions: int, brokers: int,
                            settings: Mapping[str, int] | None = None, *,
                            max_batch_bytes: int = _bound.MAX_BATCH_BYTES,
                            compression_ratio: float = 1.0,
                            record_bytes: int = _bound.DEFAULT_RECORD_BYTES,
                            codec: str | None = None,
                            batch_records: int = 1) -> _bound.ClientMemoryBound:
    """The high-level consumer's memory while it lags, for records of ``record_bytes`` value
    bytes (no key or headers) in batches of up to ``max_batch_bytes`` and at least
    ``batch_records`` records (1: each record may be a batch of its own) whose records decompress
    at most ``compression_ratio`` times (decompressed over compressed; a batch's wire bytes then
    decompress less) with ``codec``.

    A fetch goes out only while the queue holds fewer than ``M = queued.min.messages`` messages
    and ``Q`` value bytes (rdkafka_fetcher.c:3764-3779), each broker's one fetch in flight
    (rdkafka_broker.c:4651-4654) lands after that, so the queue holds at most ``n_q = min(M,
    Q / record_bytes)`` messages and the responses in flight. Uncompressed, each message keeps
    its response (rdkafka_op.c:996-997): the queue's messages on the wire (at most
    ``RECORD_FRAMING_BYTES`` and a batch header beside each value; the responses full, each with
    its own fields), ``B`` responses ``W`` in flight and one pinned at the head. Compressed, a
    message keeps its decompressed batch (rdkafka_msgset_reader.c:448), a buffer of
    :func:`librdkafka_decompression_bytes` per compressed byte: the queue's, each broker's
    response ``W`` and its batches while parsed, and the batch at the head. Every message is an
    op of :data:`OP_BYTES`, and compressed, each batch a buffer of :data:`BATCH_BUFFER_BYTES`
    beside its bytes (and the codec's least growth step); ``W`` is the broker's response (KIP-74
    and the first-batch exception) capped by ``receive.message.max.bytes``.

    >>> librdkafka_memory_bound(1000, 3).bound_bytes
    350681867
    """
    leaders, _ = _bound.checked_inputs(partitions, brokers, max_batch_bytes,
                                       compression_ratio, record_bytes)
    check_int("batch_records", batch_records, 1)
    s = _bound.settings_with_defaults(LIBRDKAFKA, settings)
    if codec is not None:
        check_choice("codec", codec, CODECS, "one of gzip, snappy, lz4, zstd or None (any)")
    w = _bound.response_of(partitions, leaders, librdkafka_fetch_max_bytes(settings),
                           s["fetch.message.max.bytes"], max_batch_bytes,
                           librdkafka_receive_max_bytes(settings), FETCH_VERSIONS, record_bytes)
    response = w.bytes + RESPONSE_BUFFER_BYTES
    gate = librdkafka_queue_gate_bytes(settings)
    queued = min(s["queued.min.messages"], gate // record_bytes)
    r = compression_ratio
    terms: tuple[tuple[str, int], ...]
    if r == 1.0:
        wire = gate + queued * (_bound.RECORD_FRAMING_BYTES + _bound.RECORD_BATCH_HEADER_BYTES)
        fields = (-(-wire // max(w.records_bytes, 1)) + 1) * w.frame_bytes
        messages = queued + leaders * w.records
        terms = (("queue below its gates", wire + fields),
                 ("responses in flight", leaders * response),
                 ("response pinned at the queue's head", response),
                 ("messages' ops", messages * OP_BYTES))
    else:
        c = librdkafka_decompression_bytes(codec, r, max_batch_bytes, s["message.max.bytes"])
        values = gate + queued * _bound.RECORD_FRAMING_BYTES  # decompressed record bytes
        messages = queued + leaders * (int(r * w.records_bytes) // record_bytes)
        # a batch partly consumed at the head, and one cut at each response's end
        batches = -(-messages // batch_records) + leaders + 1
        terms = (("queue below its gates, decompressed", math.ceil(values * c / r)),
                 ("responses in flight", leaders * response),
                 ("responses' batches decompressed while parsed",
                  math.ceil(leaders * c * w.records_bytes)),
                 ("decompressed batch at the queue's head", math.ceil(c * max_batch_bytes)),
                 ("messages' ops", messages * OP_BYTES),
                 ("decompressed batches' own buffers",
                  batches * (BATCH_BUFFER_BYTES + _growth_step_bytes(codec, r))))
    data = f"records of {record_bytes:,} value bytes" + ("" if r == 1.0 else (
        f" compressed {r:g}:1 ({codec or 'any codec'}) in batches of {batch_records:,} or more"))
    return _bound.bound_of("librdkafka", terms, lambda bound, name, size: (
        f"librdkafka holds at most {bound:,} bytes for {partitions} partitions on {leaders} "
        f"brokers, {data}: the {name} ({size:,} bytes) binds; queued.max.messages.kbytes "
        f"bounds the one consumer queue's value bytes, not each partition's, and not the "
        f"320-byte op of each message."))
