"""KIP-72 at the socket: the size check before a request's buffer is taken from the pool, and
what becomes of the buffer of a request that turns out invalid (KAFKA-20302), by release.

* ``NetworkReceive.readFrom`` reads a 4-byte size first and refuses a negative one or one above
  ``socket.request.max.bytes`` (``InvalidReceiveException``: the connection is closed, nothing is
  allocated); only then does it ask the pool (``memoryPool.tryAllocate(size)``) for the buffer.
  A TLS ClientHello sent to a PLAINTEXT listener starts ``0x16 0x03 0x01 0x01``: read as a size,
  369,295,617 bytes (352 MiB). The default 100 MiB refuses it; raised to 500 MB (a common "fix"
  for large requests) the broker tries to reserve it for a request that never completes
  ("Cannot reserve 369295617 bytes of direct buffer memory", sentry-kubernetes/charts #1733).
* ``Processor.processCompletedReceives`` parses a complete request (header, version, body). When
  that throws (an unsupported version, a corrupt body: Kafka's ``SocketServerMemoryPoolTest``) it
  closes the connection, and before KAFKA-20302 (PR #21740) never returned the request's buffer
  to the pool: each such request shrinks the pool for good. Fixed in 4.3.0, 4.2.1 and 3.9.3
  (``gradle.properties`` at each cherry-pick: ``4.3.0-SNAPSHOT``, ``4.2.1-SNAPSHOT``,
  ``3.9.3-SNAPSHOT``); 4.0 and 4.1 keep it. ``kafka_version`` is MAJOR.MINOR and follows each
  minor's newest patch: 3.9 and 4.2 release the buffer.

>>> TLS_HANDSHAKE_SIZE_BYTES, receive_size_refused(TLS_HANDSHAKE_SIZE_BYTES, 104857600)
(369295617, True)
>>> receive_size_refused(TLS_HANDSHAKE_SIZE_BYTES, 500_000_000)
False
>>> [releases_invalid_request_buffer(v) for v in ("3.8", "3.9", "4.0", "4.1", "4.2", "4.3")]
[False, True, False, False, True, True]
"""

from __future__ import annotations

from kipviz.kafka.config.versions import check_kafka_version, has

__all__ = ["TLS_HANDSHAKE_SIZE_BYTES", "receive_size_refused",
           "releases_invalid_request_buffer"]

TLS_HANDSHAKE_SIZE_BYTES = 0x16030101  # a TLS 1.0 handshake record's first 4 bytes, as a size


def receive_size_refused(size_bytes: int, socket_request_max_bytes: int) -> bool:
    """Whether ``NetworkReceive.readFrom`` refuses a request of ``size_bytes`` before allocating
    (``InvalidReceiveException``): a negative size, or one above ``socket.request.max.bytes``."""
    return size_bytes < 0 or size_bytes > socket_request_max_bytes


def releases_invalid_request_buffer(kafka_version: str) -> bool:
    """Whether the release's ``Processor.processCompletedReceives`` returns an invalid complete
    request's buffer to the pool (KAFKA-20302: 3.9.3, 4.2.1, 4.3.0 on); 4.0 and 4.1 never do."""
    version = check_kafka_version(kafka_version)
    return has(version, "invalid_request_buffer_released_3_9") or has(
        version, "invalid_request_buffer_released")
