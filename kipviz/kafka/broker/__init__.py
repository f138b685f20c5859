"""The broker's memory pool for requests (KIP-72).

* :mod:`~kipviz.kafka.broker.pool`: ``SimpleMemoryPool`` and ``MemoryPool.NONE`` with their state:
  the rules on a pool's state row that the class and the kernels share, dry spells and the
  depletion metrics (``DepletionTracker``).
* :mod:`~kipviz.kafka.broker.network`: the pool ``SocketServer`` builds and ``Selector``'s key
  shuffling under low memory.
* :mod:`~kipviz.kafka.broker.receive`: the size check before the pool (the TLS-to-PLAINTEXT
  size) and an invalid request's buffer by release (KAFKA-20302).

May import: :mod:`kipviz.kafka.config`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "pool": [
        "NO_POOL", "DepletionTracker", "MemoryPool", "NoPool", "SimpleMemoryPool",
        "max_outstanding_bytes",
    ],
    "network": ["broker_pool", "should_shuffle_keys"],
    "receive": ["TLS_HANDSHAKE_SIZE_BYTES", "receive_size_refused",
                "releases_invalid_request_buffer"],
})
