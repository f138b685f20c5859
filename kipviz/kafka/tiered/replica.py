"""Tiered storage on the broker's side of a fetch: the remote reader pool's queue and where a new
follower starts (KIP-1023).

* ``RemoteLogManager`` runs remote reads on a ``ThreadPoolExecutor`` of
  ``remote.log.reader.threads`` threads over a ``LinkedBlockingQueue`` of
  ``remote.log.reader.max.pending.tasks`` (100) reads (``RemoteStorageThreadPool``). A read that
  finds the queue full is refused (``RejectedExecutionException``): ``ReplicaManager.
  processRemoteFetch`` completes it at once with that error, which goes back to the client in
  the ``DelayedRemoteFetch`` beside the other partitions' data. A read cancelled by the
  ``DelayedRemoteFetch``'s expiry (``cancel(false)``) stays queued until a thread takes it and
  finds it cancelled: it holds its slot until then.
* KIP-1023 (4.3, KAFKA-17108, KAFKA-17266): with ``follower.fetch.last.tiered.offset.enable``
  (default false) a new follower of a tiered topic asks the leader for its earliest
  *pending-upload* offset (``ListOffsets`` v11, ``EARLIEST_PENDING_UPLOAD_TIMESTAMP``:
  ``RemoteLeaderEndPoint``), max(highest offset in remote storage + 1, log start), and copies only
  from there: what is not yet in remote storage. Otherwise (and before 4.3) it starts at the
  leader's local log start and copies every local segment, those already uploaded included.

>>> reader_queue_accepts(99, 100), reader_queue_accepts(100, 100)
(True, False)
>>> follower_start_offset("4.3", True, log_start_offset=0, local_log_start_offset=500,
...                       highest_remote_offset=899)
900
>>> follower_start_offset("4.2", True, log_start_offset=0, local_log_start_offset=500,
...                       highest_remote_offset=899)
500
"""

from __future__ import annotations

from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.versions import check_kafka_version, has

__all__ = ["REMOTE_LOG_READER_MAX_PENDING_TASKS", "follower_start_offset",
           "reader_queue_accepts"]

REMOTE_LOG_READER_MAX_PENDING_TASKS = BROKER.default_of("remote.log.reader.max.pending.tasks")


def reader_queue_accepts(pending_tasks: int, max_pending_tasks: int) -> bool:
    """Whether the reader pool's ``LinkedBlockingQueue(max_pending_tasks)`` takes one more read
    while ``pending_tasks`` wait for a thread (else ``RejectedExecutionException``)."""
    return pending_tasks < max_pending_tasks


def follower_start_offset(kafka_version: str, last_tiered_offset_enable: bool, *,
                          log_start_offset: int, local_log_start_offset: int,
                          highest_remote_offset: int) -> int:
    """The offset a new follower of a tiered topic starts copying from: from 4.3 with
    ``follower.fetch.last.tiered.offset.enable`` the earliest pending-upload offset,
    max(``highest_remote_offset`` + 1, ``log_start_offset``) (KIP-1023; -1: nothing uploaded
    yet); otherwise the leader's local log start."""
    if last_tiered_offset_enable and has(check_kafka_version(kafka_version),
                                         "follower_fetch_pending_upload"):
        return max(highest_remote_offset + 1, log_start_offset)
    return local_log_start_offset
