"""The broker's memory pool for requests (KIP-72).

* :mod:`~kipviz.kafka.broker.pool`: ``SimpleMemoryPool`` and ``MemoryPool.NONE``, the rules on a
  pool's state row that the class and the kernels share, key shuffling under low memory.
* :mod:`~kipviz.kafka.broker.pool_state`: the pool's state row and its depletion metrics.

May import: :mod:`kipviz.kafka.config`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "pool": [
        "NO_POOL", "MemoryPool", "NoPool", "SimpleMemoryPool", "broker_pool",
        "max_outstanding_bytes", "should_shuffle_keys",
    ],
    "pool_state": ["DepletionTracker"],
})
