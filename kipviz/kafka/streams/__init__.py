"""Kafka Streams' input buffer (KIP-770, as proposed and as merged) and its memory.

* :mod:`~kipviz.kafka.streams.input_buffer`: record cost, per-thread shares, the pause and
  resume rules of ``input.buffer.max.bytes`` and ``buffered.records.per.partition`` (plain
  functions the kernel compiles, and their checked forms), and both bounds.
* :mod:`~kipviz.kafka.streams.memory`: a Streams instance's input buffer plus its threads'
  consumers, by Kafka version.

May import: :mod:`kipviz.kafka.config`, :mod:`kipviz.kafka.fetch`, :mod:`kipviz.kafka.consumer`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "input_buffer": [
        "record_size_bytes", "thread_share_bytes", "thread_cache_bytes", "records_bound_bytes",
        "thread_bound_bytes",
    ],
    "memory": ["StreamsInstance", "StreamsMemory", "streams_memory", "streams_memory_table"],
})
