"""What a broker really sends and stores: a raw FetchRequest, and the record batches of a
partition's log as they lie in its segment files.

:func:`raw_fetch` sends one full ``FetchRequest`` (version 4: the oldest a 4.x broker accepts,
KIP-896, and the first with an isolation level; KIP-74's rules hold from v3) over a plain socket,
encoded and decoded by kafka-python's generated protocol classes, and returns each partition's
raw record bytes in the order the response carries them: the response's composition exactly, as
``ReplicaManager.readFromLog`` filled it, with no consumer in between.

:func:`log_batches` reads the record batches' sizes from a partition's ``.log`` files (each
batch: ``baseOffset`` int64, ``batchLength`` int32, then ``batchLength`` bytes;
``DefaultRecordBatch``): the layout kipviz's :func:`~kipviz.kafka.fetch.fill_response` is given
to predict the same response.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kipviz.kafka.units import MiB

__all__ = ["Batch", "FetchedPartition", "RawResponse", "log_batches", "raw_fetch"]

FETCH_VERSION = 4


@dataclass(frozen=True)
class Batch:
    """One record batch in a partition's log."""

    base_offset: int
    last_offset: int
    size_bytes: int   # 12 + batchLength: what a fetch returns for it


@dataclass(frozen=True)
class FetchedPartition:
    """One partition of a fetch response, in response order."""

    topic: str
    partition: int
    error_code: int
    high_watermark: int
    raw_bytes: int    # the records field's length (may end in a partial batch)


@dataclass(frozen=True)
class RawResponse:
    """A fetch response as it came: its size (after the 4-byte length prefix: what a client
    allocates for it) and its partitions in order."""

    size_bytes: int
    partitions: list[FetchedPartition]


def log_batches(partition_dir: Path) -> list[Batch]:
    """Every record batch of a partition's log, oldest first, from its segment files."""
    out: list[Batch] = []
    for segment in sorted(partition_dir.glob("*.log")):
        data = segment.read_bytes()
        pos = 0
        while pos + 61 <= len(data):  # a v2 batch header is 61 bytes
            base, length = struct.unpack_from(">qi", data, pos)
            if length <= 0 or pos + 12 + length > len(data):
                break  # a batch still being written, or preallocated zeros
            last_delta = struct.unpack_from(">i", data, pos + 23)[0]
            out.append(Batch(base, base + last_delta, 12 + length))
            pos += 12 + length
    return out


def _recv_exactly(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(MiB, n - got))
        if not chunk:
            raise ConnectionError(f"the broker closed the connection after {got} of {n} bytes")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def raw_fetch(bootstrap: str, partitions: Sequence[tuple[str, int, int, int]], *,
              max_bytes: int, max_wait_ms: int = 0, min_bytes: int = 1,
              timeout_s: float = 30.0) -> RawResponse:
    """Send one FetchRequest v4 to ``bootstrap`` (``host:port``, the leader of every partition
    asked) for ``(topic, partition, fetch_offset, partition_max_bytes)`` in that order, with the
    response limit ``max_bytes``; the response's size and its partitions in the order it
    carries them."""
    from kafka.protocol.consumer.fetch import FetchRequest, FetchResponse

    topics: dict[str, list[object]] = {}
    order: list[str] = []
    for topic, partition, offset, pmb in partitions:
        if topic not in topics:
            topics[topic] = []
            order.append(topic)
        topics[topic].append(FetchRequest.FetchTopic.FetchPartition(
            partition=partition, fetch_offset=offset, partition_max_bytes=pmb))
    request = FetchRequest(version=FETCH_VERSION, replica_id=-1, max_wait_ms=max_wait_ms,
                           min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=0,
                           topics=[FetchRequest.FetchTopic(topic=t, partitions=topics[t])
                                   for t in order])
    request.with_header(correlation_id=1, client_id="kipviz-raw-fetch")
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=timeout_s) as sock:
        sock.sendall(request.encode(header=True, framed=True))
        size = struct.unpack(">i", _recv_exactly(sock, 4))[0]
        payload = _recv_exactly(sock, size)
    response = FetchResponse.decode(payload, version=FETCH_VERSION, header=True)
    return RawResponse(size, [
        FetchedPartition(t.topic, p.partition_index, p.error_code, p.high_watermark,
                         len(p.records) if p.records is not None else 0)
        for t in response.responses for p in t.partitions])
