"""The consumer's memory: how much a consumer holds by Kafka version, and KIP-81's pool.

* :mod:`~kipviz.kafka.consumer.memory`: the one memory answer (``consumer_memory_bounds``) and
  KIP-74's one round of responses (``one_round``, ``consumer_memory_bound_bytes``).
* :mod:`~kipviz.kafka.consumer.buffer_memory`: KIP-81's ``buffer.memory`` pool, as proposed
  (never merged).

May import: :mod:`kipviz.kafka.config`, :mod:`kipviz.kafka.fetch`, :mod:`kipviz.kafka.broker`,
and (lazily, for a scenario on another client) :mod:`kipviz.kafka.clients`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "memory": ["ConsumerMemoryBounds", "OneRound", "consumer_memory_bound_bytes",
               "consumer_memory_bounds", "memory_bounds", "one_round", "poll_heap_sentence"],
    "buffer_memory": ["ConsumerBuffer", "consumer_pool", "pooled_bytes_bound"],
})
