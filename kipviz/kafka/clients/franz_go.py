"""franz-go's (``pkg/kgo``) consumer memory, read at v1.21.5.

The rule in two sentences: each broker's source buffers at most one fetch, complete only once
polled, and ``MaxConcurrentFetches`` (-1: no limit, so one per broker that leads an assigned
partition; 0: one, only while polling) caps how many are buffered or in flight. Each fetch is a
KIP-74 response of at most ``min(FetchMaxBytes, partitions x FetchMaxPartitionBytes)``, and its
compressed batches are decompressed eagerly while it is processed, so the client holds
``fetches x r x W`` (and the wire buffer too while decoding).

Where the code refines issue 31's text (RESEARCH-31 section 5): Go's garbage collector headroom
(GOGC, GOMEMLIMIT) is the runtime's, not franz-go's, and is left out of the bound; paused
partitions' buffered data is stripped at the next poll, not at pause time (v1.14.0 dropped it at
pause); the default FetchMaxWait is 5 s, not Java's 500 ms.
"""

from __future__ import annotations

from collections.abc import Mapping

from kipviz.kafka.clients import _bound
from kipviz.kafka.clients.settings import FRANZ_GO

__all__ = ["franz_go_concurrent_fetches", "franz_go_memory_bound", "franz_go_partition_max_bytes"]


def franz_go_partition_max_bytes(settings: Mapping[str, int] | None = None) -> int:
    """``FetchMaxPartitionBytes`` as sent: clamped to ``FetchMaxBytes`` (config.go:235-237);
    ``BrokerMaxReadBytes`` must be >= ``FetchMaxBytes`` (config.go:331).

    >>> franz_go_partition_max_bytes({"FetchMaxPartitionBytes": 100 << 20})
    52428800
    """
    s = _bound.settings_with_defaults(FRANZ_GO, settings)
    if s["BrokerMaxReadBytes"] < s["FetchMaxBytes"]:
        raise ValueError(f"broker_max_read_bytes (BrokerMaxReadBytes) must be >= FetchMaxBytes "
                         f"({s['FetchMaxBytes']}): {s['BrokerMaxReadBytes']}")
    return min(s["FetchMaxPartitionBytes"], s["FetchMaxBytes"])


def franz_go_concurrent_fetches(brokers: int, settings: Mapping[str, int] | None = None) -> int:
    """Fetches buffered or in flight: one per source with cursors (``brokers`` that lead an
    assigned partition) when ``MaxConcurrentFetches`` is -1, at most that many when >= 1, one
    (only while polling) when 0 (RESEARCH-31 2.2, G3/G5/G6)."""
    limit = _bound.settings_with_defaults(FRANZ_GO, settings)["MaxConcurrentFetches"]
    return brokers if limit == -1 else 1 if limit == 0 else min(brokers, limit)


def franz_go_memory_bound(partitions: int, brokers: int, settings: Mapping[str, int] | None = None,
                          *, max_batch_bytes: int = _bound.MAX_BATCH_BYTES,
                          compression_ratio: float = 1.0) -> _bound.ClientMemoryBound:
    """What the client holds (RESEARCH-31 2.2, ``M_client``): ``Fc x W`` uncompressed (the
    records alias the response buffer), ``Fc x (1 + r) x W`` compressed (each buffered fetch's
    decompressed batches, and the wire buffer while decoding). ``W`` is KIP-74's response capped
    by ``BrokerMaxReadBytes``. Go's heap adds GC headroom (about 2x at GOGC=100) on top.

    >>> franz_go_memory_bound(1000, 3).bound_bytes
    157286400
    """
    leaders, on_broker = _bound.checked_inputs(partitions, brokers, max_batch_bytes,
                                               compression_ratio)
    s = _bound.settings_with_defaults(FRANZ_GO, settings)
    wire = min(_bound.response_wire_bytes(on_broker, s["FetchMaxBytes"],
                                   franz_go_partition_max_bytes(settings), max_batch_bytes),
               s["BrokerMaxReadBytes"])
    fetches = franz_go_concurrent_fetches(leaders, settings)
    r = compression_ratio
    terms = (("buffered fetches", fetches * wire),) if r == 1.0 else (
        ("wire buffers while decoding", fetches * wire),
        ("decompressed buffered fetches", int(fetches * r * wire)))
    return _bound.bound_of("franz-go", terms, lambda bound, name, size: (
        f"franz-go holds at most {bound:,} bytes for {partitions} partitions on {leaders} "
        f"brokers: the {name} ({size:,} bytes, {fetches} fetches of up to {wire:,} wire "
        f"bytes) bind; Go's GC headroom comes on top."))
