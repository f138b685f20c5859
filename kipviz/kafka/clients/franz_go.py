"""franz-go's (``pkg/kgo``) consumer memory, read at v1.21.5.

The rule in two sentences: each broker's source buffers at most one fetch, and
``MaxConcurrentFetches`` (-1: no limit, so one per broker that leads an assigned partition; 0:
one, only while polling) caps how many are buffered or in flight; a poll hands a fetch over and
frees its broker for the next one while the records it returned still hold their response. Each
fetch is a KIP-74 response of at most ``min(FetchMaxBytes, partitions x FetchMaxPartitionBytes)``
(compressed batches decompressed eagerly), and each record is a 160-byte ``kgo.Record`` beside
its bytes, so the client holds ``2 x fetches`` of them (buffered and polled) and a bound in bytes
counts records too: pass ``record_bytes``.

Where the code refines issue 31's text (RESEARCH-31 section 5): Go's garbage collector headroom
(GOGC, GOMEMLIMIT) is the runtime's, not franz-go's, and is left out of the bound; paused
partitions' buffered data is stripped at the next poll, not at pause time (v1.14.0 dropped it at
pause); the default FetchMaxWait is 5 s, not Java's 500 ms; the fetches a poll handed over stay
reachable beside the next ones (measured on a real cluster, ``kipviz reality``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from kipviz.kafka.clients import _bound
from kipviz.kafka.clients.settings import FRANZ_GO

__all__ = ["franz_go_concurrent_fetches", "franz_go_memory_bound", "franz_go_partition_max_bytes"]

RECORD_STRUCT_BYTES = 220
"""One record beside its bytes: a ``kgo.Record`` (160 bytes on 64-bit Go:
record_and_fetch.go:71-153) in its batch's ``[]Record`` (source.go:1840-1849), and its pointer in
``FetchPartition.Records`` (source.go:2147; ``append`` keeps the capacity under twice the length:
16), each rounded up by Go's allocator by at most a quarter (a size class, or whole 8 KiB pages
for an object above 32 KiB: runtime/sizeclasses.go, malloc.go)."""

GO_PAGE_BYTES = 8192
"""A large allocation (a response, ``make([]byte, size)``, broker.go:1457) is whole pages."""

GO_ROUNDING = 1.25
"""A decompressed batch (``slices.Clone``, compression.go:401) rounded up by Go's allocator."""

FETCH_VERSIONS = range(4, 19)
"""The FetchRequest versions franz-go sends: the broker's newest it knows (4.4's 18)."""


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
                          compression_ratio: float = 1.0,
                          record_bytes: int = _bound.DEFAULT_RECORD_BYTES,
                          ) -> _bound.ClientMemoryBound:
    """What the client holds while it lags (RESEARCH-31 2.2, ``M_client``), for records of
    ``record_bytes`` value bytes: ``Fc`` fetches buffered or in flight, and as many the
    application holds from its last poll (``takeBufferedFn`` frees the source and its
    concurrency slot as it hands a fetch over, source.go:672-677, while each record's ``Value``
    is a slice of its response or of its decompressed batch, source.go:1759-1764). A fetch is
    the response ``W`` (KIP-74 and the first-batch exception, capped by ``BrokerMaxReadBytes``,
    in whole pages) and a :data:`RECORD_STRUCT_BYTES` struct per record; compressed, its
    decompressed batches (``r x`` its records, rounded up by Go by at most a quarter), the wire
    buffer only while decoding. Go's heap adds GC headroom (about 2x at GOGC=100) on top.

    >>> franz_go_memory_bound(1000, 3).bound_bytes
    382291758
    """
    leaders, _ = _bound.checked_inputs(partitions, brokers, max_batch_bytes,
                                       compression_ratio, record_bytes)
    s = _bound.settings_with_defaults(FRANZ_GO, settings)
    w = _bound.response_of(partitions, leaders, s["FetchMaxBytes"],
                           franz_go_partition_max_bytes(settings), max_batch_bytes,
                           s["BrokerMaxReadBytes"], FETCH_VERSIONS, record_bytes)
    fetches = franz_go_concurrent_fetches(leaders, settings)
    wire = w.bytes + GO_PAGE_BYTES
    r = compression_ratio
    terms: tuple[tuple[str, int], ...]
    if r == 1.0:
        fetch = wire + w.records * RECORD_STRUCT_BYTES
        terms = (("buffered or in-flight fetches", fetches * fetch),
                 ("fetches the application holds from its last poll", fetches * fetch))
    else:
        records = int(r * w.records_bytes) // record_bytes
        fetch = math.ceil(GO_ROUNDING * r * w.records_bytes) + records * RECORD_STRUCT_BYTES
        terms = (("wire buffers while decoding", fetches * wire),
                 ("decompressed buffered fetches", fetches * fetch),
                 ("decompressed fetches the application holds", fetches * fetch))
    return _bound.bound_of("franz-go", terms, lambda bound, name, size: (
        f"franz-go holds at most {bound:,} bytes for {partitions} partitions on {leaders} "
        f"brokers, records of {record_bytes:,} value bytes: the {name} ({size:,} bytes, "
        f"{fetches} fetches of up to {w.bytes:,} wire bytes) bind; Go's GC headroom comes on "
        f"top."))
