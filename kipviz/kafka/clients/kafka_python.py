"""kafka-python's consumer memory, read at 3.0.11 (aiokafka v0.14.0 differs: see below).

The rule in two sentences: one fetch is pending per node, and a new round is sent only when a
poll has drained every completed fetch (fetcher.py:222-227, 624), so completed fetches hold about
one response per node (two in a race), and a response's frame and its per-partition copies
coexist while it is decoded. Buffered data stays compressed; each batch is decompressed whole,
lazily, one at a time (record/default_records.py:234-250).

Where the code contradicts issue 31's text (RESEARCH-31 section 5): a lagging kafka-python
consumer's completed fetches do not grow towards partitions x ``max_partition_fetch_bytes``; that is
aiokafka's behaviour (its fetcher re-asks a node for its other partitions after 0.1 s, so a slow
consumer buffers up to partitions x ``max_partition_fetch_bytes``), and Java <= 3.9's.
"""

from __future__ import annotations

from collections.abc import Mapping

from kipviz.kafka.clients import _bound
from kipviz.kafka.clients.settings import KAFKA_PYTHON

__all__ = ["kafka_python_memory_bound", "kafka_python_receive_max_bytes"]


def kafka_python_receive_max_bytes(settings: Mapping[str, int] | None = None) -> int:
    """``receive_message_max_bytes``, raised to ``fetch_max_bytes + max_partition_fetch_bytes``
    when smaller (group.py:395-406, 3.0.1+).

    >>> kafka_python_receive_max_bytes({"fetch_max_bytes": 104857600})
    105906176
    """
    s = _bound.settings_with_defaults(KAFKA_PYTHON, settings)
    return max(s["receive_message_max_bytes"],
               s["fetch_max_bytes"] + s["max_partition_fetch_bytes"])


def kafka_python_memory_bound(partitions: int, brokers: int,
                              settings: Mapping[str, int] | None = None, *,
                              max_batch_bytes: int = _bound.MAX_BATCH_BYTES,
                              compression_ratio: float = 1.0,
                              record_bytes: int = 0) -> _bound.ClientMemoryBound:
    """RESEARCH-31 3.3: ``2 x B x R`` (each node's completed response and, while it is decoded,
    its frame beside the per-partition copies, parser.py:115-117, 138-140) ``+ (2 + 2r) x b``
    (one batch being decompressed, default_records.py:132-138, 334-335) ``+ max_poll_records x
    record_bytes`` (the records one poll returns). ``R`` is KIP-74's response capped by
    ``receive_message_max_bytes``. Paused partitions' parked data and Python object overhead are
    left out.

    >>> kafka_python_memory_bound(1000, 3, max_batch_bytes=0).bound_bytes
    314572800
    """
    leaders, on_broker = _bound.checked_inputs(partitions, brokers, max_batch_bytes,
                                               compression_ratio)
    s = _bound.settings_with_defaults(KAFKA_PYTHON, settings)
    wire = min(_bound.response_wire_bytes(on_broker, s["fetch_max_bytes"],
                                   s["max_partition_fetch_bytes"], max_batch_bytes),
               kafka_python_receive_max_bytes(settings))
    terms = (("completed responses", leaders * wire),
             ("frames decoded beside their copies", leaders * wire),
             ("batch being decompressed", int((2 + 2 * compression_ratio) * max_batch_bytes)),
             ("records one poll returns", s["max_poll_records"] * record_bytes))
    bound = sum(n for _, n in terms)
    sentence = (f"kafka-python holds at most {bound:,} bytes for {partitions} partitions on "
                f"{leaders} brokers: one response per node ({wire:,} bytes) held twice while "
                f"decoded binds; fetch_max_bytes sets it, not the partition count.")
    return _bound.ClientMemoryBound("kafka-python", bound, sentence, terms)
