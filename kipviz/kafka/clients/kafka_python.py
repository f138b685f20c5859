"""kafka-python's consumer memory, read at 3.0.11 (aiokafka v0.14.0 differs: see below).

The rule in two sentences: one fetch is pending per node, and a new round is sent only when a
poll has drained every completed fetch (fetcher.py:222-227, 624), so each node holds one
response: its read buffer, then its per-partition copies. Each connection also keeps its last
read (up to a whole response) until its next one, and a read joins its 4 KiB chunks into one more
copy (net/transport.py:93, 105-131), so a lagging consumer holds about ``2 x nodes + 2`` responses;
buffered data stays compressed and each batch is decompressed whole, lazily, one at a time
(record/default_records.py:234-250).

Where the code contradicts issue 31's text (RESEARCH-31 section 5): a lagging kafka-python
consumer's completed fetches do not grow towards partitions x ``max_partition_fetch_bytes``; that is
aiokafka's behaviour (its fetcher re-asks a node for its other partitions after 0.1 s, so a slow
consumer buffers up to partitions x ``max_partition_fetch_bytes``), and Java <= 3.9's. The
receive path holds a response three times at once, not twice (measured on a real cluster,
``kipviz reality``). kafka-python 3.0.12 (what the probe runs) changes no consumer, network or
record code.
"""

from __future__ import annotations

from collections.abc import Mapping

from kipviz.kafka.clients import _bound
from kipviz.kafka.clients.settings import KAFKA_PYTHON

__all__ = ["kafka_python_memory_bound", "kafka_python_receive_max_bytes"]

FETCH_VERSIONS = range(4, 13)
"""The FetchRequest versions kafka-python sends: up to 12 (fetcher.py:1265-1271)."""

CHUNK_BYTES, CHUNK_OBJECT_BYTES = 4096, 4137
"""``sock.recv(4096)`` (net/transport.py:110): a 4,096-byte ``bytes`` object is 4,129 bytes on
CPython, and 8 more for its slot in the list ``b''.join`` reads (transport.py:120, 130)."""

BYTES_OBJECT_BYTES = 33
"""A ``bytes`` object's header on 64-bit CPython (``sys.getsizeof(b'')``)."""

PARTITION_OBJECT_BYTES = 512
"""One partition of a decoded response beside its records' bytes: its data object, ints and
``CompletedFetch`` (282 bytes measured with tracemalloc on CPython 3.11)."""

RECORD_OBJECT_BYTES = 377
"""One ``ConsumerRecord`` a poll returns beside its value (fetcher.py): the 13-field tuple (160
with its GC header), the value's ``bytes`` header (33), the headers list (56) and four ints (32
each), by ``sys.getsizeof`` on CPython 3.11."""


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
                              record_bytes: int = _bound.DEFAULT_RECORD_BYTES,
                              ) -> _bound.ClientMemoryBound:
    """What a lagging consumer holds, for records of ``record_bytes`` value bytes:

    * each node's response ``R`` (the frame read into ``KafkaBytes(nbytes)``, parser.py:117,
      then its per-partition copies, parser.py:175), with its decoded partitions' objects;
    * each connection's last read, up to a whole frame: ``_read_from_sock`` keeps
      ``recvd_data`` until its next read returns (net/transport.py:93);
    * the read in progress: its 4 KiB chunks beside their join (transport.py:105-131), which
      also covers a frame decoded beside its copies;
    * the partition being drained (a new round goes out while it is, fetcher.py:222-227) and
      its batch copied and decompressed (default_records.py:132-133, 239-248): ``max(partition
      limit, b) + (2 + 2r) x b``;
    * the records one poll returns: ``max_poll_records x (record_bytes`` +
      :data:`RECORD_OBJECT_BYTES`).

    ``R`` is KIP-74's response (the first-batch exception included) capped by
    ``receive_message_max_bytes``, with its fields at fetch v12 (topic names). Python's other
    objects (metrics, the client's fixed state) are left out.

    >>> kafka_python_memory_bound(1000, 3, max_batch_bytes=0).bound_bytes
    422334103
    """
    leaders, on_broker = _bound.checked_inputs(partitions, brokers, max_batch_bytes,
                                               compression_ratio, record_bytes)
    s = _bound.settings_with_defaults(KAFKA_PYTHON, settings)
    w = _bound.response_of(partitions, leaders, s["fetch_max_bytes"],
                           s["max_partition_fetch_bytes"], max_batch_bytes,
                           kafka_python_receive_max_bytes(settings), FETCH_VERSIONS, record_bytes)
    frame = w.bytes + 4  # the size prefix is read with it
    chunks = -(-frame // CHUNK_BYTES) * CHUNK_OBJECT_BYTES
    b = max_batch_bytes
    terms = (("each node's response", leaders * (w.bytes + on_broker * PARTITION_OBJECT_BYTES)),
             ("each connection's last read", leaders * (frame + BYTES_OBJECT_BYTES)),
             ("the read in progress, its chunks beside their join",
              chunks + frame + BYTES_OBJECT_BYTES),
             ("the partition being drained and its batch",
              max(s["max_partition_fetch_bytes"], b) + int((2 + 2 * compression_ratio) * b)),
             ("records one poll returns",
              s["max_poll_records"] * (record_bytes + RECORD_OBJECT_BYTES)))
    bound = sum(n for _, n in terms)
    sentence = (f"kafka-python holds at most {bound:,} bytes for {partitions} partitions on "
                f"{leaders} brokers, records of {record_bytes:,} value bytes: one response per "
                f"node ({w.bytes:,} bytes) held about twice, and once more while read, binds; "
                f"fetch_max_bytes sets it, not the partition count.")
    return _bound.ClientMemoryBound("kafka-python", bound, _bound.Sentence(sentence), terms)
