"""How each client fetches and what it keeps, as the consumer kernel runs it (issue 31).

The broker, the workload and KIP-74's fill are the same for every client; what differs, and what
:func:`client_fetch` gives the kernel (RESEARCH-31, citations at the tags read):

* **java**: the scenario's own fields and Kafka version (nothing here changes it).
* **librdkafka**: one fetch in flight per broker (rdkafka_broker.c:4651-4654); no fetch sessions
  and the request starts one partition later each time (rdkafka_fetcher.c:3441-3445,
  3460-3461, 3558-3566); no request while the one consumer queue holds
  ``queued.max.messages.kbytes x 1000`` decompressed value bytes (fetcher.c:3764-3779); an
  uncompressed message pins its whole response, a compressed one its decompressed batch
  (rdkafka_op.c:996-997, msgset_reader.c:1286-1296).
* **franz-go**: a broker's next fetch waits until its buffered one is taken (source.go:26-41,
  672-677), at most ``MaxConcurrentFetches`` buffered or in flight; the request rotates by one
  (source.go:726-751) and KIP-227 sessions are used (source.go:2548-2549); decompressed eagerly,
  records alias the response or the decompressed batch (source.go:1759-1764, G8).
* **kafka-python**: a new round goes out only when a poll has drained every completed fetch
  (fetcher.py:222-227, 624); Java-style round-robin (fetcher.py:1581-1582) with sessions (2.1.0+);
  records copied out per partition and kept compressed (parser.py:115-117, default_records.py).

The model keeps Java's rule that a request lists only partitions with nothing buffered for every
client: librdkafka advances a partition's fetch offset when the response arrives and may fetch it
again while its messages are queued, which the kernel (one buffered part per partition) does not
represent; the queue gate bounds its memory either way. A part counts in the queue in full until
its last record is consumed. The kernel calls :func:`client_may_fetch`, :func:`client_held_bytes`
and :func:`rotate_by_one`, compiled with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from kipviz.kafka.clients._bound import settings_with_defaults
from kipviz.kafka.clients.franz_go import franz_go_partition_max_bytes
from kipviz.kafka.clients.kafka_python import kafka_python_receive_max_bytes
from kipviz.kafka.clients.librdkafka import (
    librdkafka_fetch_max_bytes,
    librdkafka_queue_gate_bytes,
    librdkafka_receive_max_bytes,
)
from kipviz.kafka.clients.settings import FRANZ_GO, KAFKA_PYTHON, LIBRDKAFKA
from kipviz.kafka.fetch.request import Ordering

__all__ = ["CLIENT_FUNCTIONS", "GATE_ALL", "GATE_BROKER", "GATE_NONE", "ClientFetch",
           "client_fetch", "client_held_bytes", "client_may_fetch", "rotate_by_one"]

GATE_NONE, GATE_BROKER, GATE_ALL = 0, 1, 2
"""Which buffered data holds back a new request, beyond Java's per-partition rule: none (Java,
librdkafka), the broker's own buffered fetch (franz-go), any completed fetch (kafka-python)."""

FRANZ_GO_FETCH_MAX_WAIT_MS = 5000  # config.go:225-231 (G14), not Java's 500 ms
KAFKA_PYTHON_FETCH_MAX_WAIT_MS = 500  # group.py DEFAULT_CONFIG

CLIENT_FUNCTIONS = ["client_held_bytes", "client_may_fetch", "rotate_by_one"]
"""The rules the consumer kernel compiles with it (numba), over this module."""


class ClientFetch(NamedTuple):
    """One client's fetching as the kernel runs it: the request's limits (``fetch_max_bytes``
    capped by what the client reads, each partition's ``partition_max_bytes``, MinBytes,
    MaxWait), fetches buffered or in flight (``max_fetches``, 0: no cap), its ``gate`` (a
    ``GATE_*``), the queue's value-byte gate (0: none), its request ``ordering`` and whether it
    ``rotates`` by one per request, KIP-227 ``sessions``, whether a message pins its
    ``whole_response`` and the bytes held per wire byte."""

    client: str
    fetch_max_bytes: int
    partition_max_bytes: int
    fetch_min_bytes: int
    fetch_max_wait_ms: int
    max_fetches: int
    gate: int
    queue_gate_bytes: int
    ordering: Ordering
    rotates: bool
    sessions: bool
    whole_response: bool
    held_per_wire_byte: float


def client_fetch(client: str, settings: Mapping[str, int] | None = None, *,
                 compression_ratio: float = 1.0) -> ClientFetch:
    """How ``client`` (``"librdkafka"``, ``"franz-go"`` or ``"kafka-python"``) fetches with
    ``settings`` (its own names) on data whose batches decompress ``compression_ratio`` times.

    >>> client_fetch("librdkafka", {"queued.max.messages.kbytes": 10000}).fetch_max_bytes
    10240000
    """
    r = float(compression_ratio)
    if client == "librdkafka":
        s = settings_with_defaults(LIBRDKAFKA, settings)
        return ClientFetch(client, min(librdkafka_fetch_max_bytes(settings),
                                       librdkafka_receive_max_bytes(settings)),
                           s["fetch.message.max.bytes"], s["fetch.min.bytes"],
                           s["fetch.wait.max.ms"], 0, GATE_NONE,
                           librdkafka_queue_gate_bytes(settings), Ordering.FIXED, True, False,
                           r == 1.0, r)
    if client == "franz-go":
        s = settings_with_defaults(FRANZ_GO, settings)
        limit = s["MaxConcurrentFetches"]
        return ClientFetch(client, min(s["FetchMaxBytes"], s["BrokerMaxReadBytes"]),
                           franz_go_partition_max_bytes(settings), s["FetchMinBytes"],
                           FRANZ_GO_FETCH_MAX_WAIT_MS, 0 if limit == -1 else max(limit, 1),
                           GATE_BROKER, 0, Ordering.FIXED, True, True, True, r)
    if client == "kafka-python":
        s = settings_with_defaults(KAFKA_PYTHON, settings)
        return ClientFetch(client, min(s["fetch_max_bytes"],
                                       kafka_python_receive_max_bytes(settings)),
                           s["max_partition_fetch_bytes"], s["fetch_min_bytes"],
                           KAFKA_PYTHON_FETCH_MAX_WAIT_MS, 0, GATE_ALL, 0, Ordering.ROUND_ROBIN,
                           False, True, False, 1.0)
    raise ValueError(f"client must be one of librdkafka, franz-go, kafka-python: {client!r}")


def client_may_fetch(gate: int, broker_parts: int, queued_parts: int, queued_bytes: int,
                     held_per_wire_byte: float, queue_gate_bytes: int) -> bool:
    """Whether a broker may get a new request: not while its own fetch is buffered
    (``GATE_BROKER``: ``broker_parts`` > 0), nor while any completed fetch is (``GATE_ALL``), nor
    while the queue's value bytes (``queued_bytes`` on the wire x bytes per wire byte) reach
    ``queue_gate_bytes`` (librdkafka; 0: no gate). Plain code: numba compiles it."""
    if gate == GATE_BROKER and broker_parts > 0:
        return False
    if gate == GATE_ALL and queued_parts > 0:
        return False
    return not (queue_gate_bytes > 0 and queued_bytes * held_per_wire_byte >= queue_gate_bytes)


def client_held_bytes(retained: int, queued: int, whole_response: bool,
                      held_per_wire_byte: float) -> int:
    """Bytes the client holds: whole responses while any part is buffered (``retained``) or the
    buffered parts alone (``queued``), times the bytes held per wire byte. Plain code."""
    held = retained if whole_response else queued
    if held_per_wire_byte == 1.0:
        return held
    return int(held * held_per_wire_byte)


def rotate_by_one(order: np.ndarray) -> None:
    """The next request starts one partition later (librdkafka's ``rkb_active_toppar_next``,
    franz-go's ``cursorsStart``): ``order`` rotated left by one, in place. Plain loops."""
    n = order.shape[0]
    if n < 2:
        return
    first = order[0]
    for i in range(n - 1):
        order[i] = order[i + 1]
    order[n - 1] = first
