"""KIP-956: the tiered-storage copy and fetch quotas (``RLMQuotaManager``), on ``SimpleRate``.

``org.apache.kafka.server.log.remote.quota.RLMQuotaManager`` (KAFKA-15265: the class and its use
in the copy and fetch paths in 3.8, asking ``isQuotaExceeded``; throttle times in 3.9): one
``SimpleRate`` per broker and direction, of
``remote.log.manager.{copy,fetch}.quota.window.num`` (11) windows of
``remote.log.manager.{copy,fetch}.quota.window.size.seconds`` (1), against
``remote.log.manager.{copy,fetch}.max.bytes.per.second`` (default ``Long.MAX_VALUE``: none).

* ``getThrottleTimeMs``: ``Sensor.checkQuotas`` at now; when the rate is above the bound
  (``Quota.acceptable`` is ``rate <= bound``), ``QuotaUtils.throttleTime``:
  ``Math.round((rate - bound) / bound * windowSize(now))``, else 0. ``record`` never checks.
* Copy (``RemoteLogManager.RLMCopyTask.copyLogSegmentsToRemote``): before each segment the copy
  thread asks for the throttle time; while it is > 0 it waits on a condition for at most
  ``quotaTimeout()`` (1 s) and asks again; then it records the *whole segment's* size at once
  and uploads it. The quota is bursty: one segment can push the rate far above the bound, and
  the next segment waits until the windows have spread it out.
* Fetch (``ReplicaManager.readFromLog`` for an offset below the local log start): a consumer's
  remote partition is read only if the fetch throttle time is 0; otherwise it is returned empty
  with ``Errors.NONE`` (not an error, so the request still waits for its other partitions) and
  the throttle time is recorded in ``remote-fetch-throttle-time``. ``RemoteLogReader`` records the
  bytes it read (0 on an error) after the read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.checks import check_number as _check_number
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.quotas import rate
from kipviz.kafka.quotas.rate import SimpleRate

__all__ = [
    "RLM_QUOTA_TIMEOUT_MS",
    "RLM_QUOTA_WINDOW_NUM",
    "RLM_QUOTA_WINDOW_SIZE_SECONDS",
    "CopiedSegment",
    "RemoteLogQuota",
    "copy_segment",
    "copy_segments",
    "record_remote_read",
    "remote_fetch_throttle_time_ms",
    "rlm_throttle_time_ms",
]

# remote.log.manager.{copy,fetch}.quota.window.num and .size.seconds (the same defaults)
RLM_QUOTA_WINDOW_NUM = BROKER.default_of("remote.log.manager.copy.quota.window.num")
RLM_QUOTA_WINDOW_SIZE_SECONDS = BROKER.default_of(
    "remote.log.manager.copy.quota.window.size.seconds")
RLM_QUOTA_TIMEOUT_MS = 1000  # RemoteLogManager.quotaTimeout(): the copy thread's longest wait

_RATE_KEY = "remote.log.manager.{copy,fetch}.max.bytes.per.second"


def _check_rate(bytes_per_s: float) -> float:
    """A remote copy or fetch quota: its declaration's rule (a long, at least 1 byte/s)."""
    return float(check_setting("bytes_per_s", bytes_per_s,
                               BROKER["remote.log.manager.copy.max.bytes.per.second"],
                               number=True, label=_RATE_KEY))


def rlm_throttle_time_ms(rate_bytes_per_s: float, quota_bytes_per_s: float,
                         window_size_ms: float) -> int:
    """``RLMQuotaManager.getThrottleTimeMs`` from a measured rate: 0 while the rate is within the
    quota (``<=``), else ``QuotaUtils.throttleTime``'s ``Math.round((O - T) / T * W)``.
    (:func:`kipviz.kafka.quotas.rate.throttle_time`;
    :func:`kipviz.kafka.quotas.rate.quota_throttle_time_ms` measures too.)

    >>> rlm_throttle_time_ms(500.0, 50.0, 1000.0), rlm_throttle_time_ms(50.0, 50.0, 10_000.0)
    (9000, 0)
    """
    if rate_bytes_per_s <= quota_bytes_per_s:
        return 0
    return rate.throttle_time(rate_bytes_per_s, quota_bytes_per_s, window_size_ms)


class RemoteLogQuota:
    """Kafka's ``RLMQuotaManager``: ``record(bytes, now_ms)`` and ``throttle_time_ms(now_ms)``.

    ``RLMQuotaManagerTest.testQuotaExceeded``: 50 B/s over 11 x 1 s; 500 bytes recorded at t:

    >>> quota = RemoteLogQuota(50)
    >>> t = 1_764_000_000_000
    >>> quota.throttle_time_ms(t); quota.record(500, t)
    0
    >>> [quota.throttle_time_ms(t + s * 1000) for s in (1, 9, 10)]
    [9000, 1000, 0]
    """

    def __init__(self, bytes_per_s: float, window_num: int = RLM_QUOTA_WINDOW_NUM,
                 window_size_s: int = RLM_QUOTA_WINDOW_SIZE_SECONDS) -> None:
        self.bytes_per_s = _check_rate(bytes_per_s)
        self.window_num = check_setting(
            "window_num", window_num, BROKER["remote.log.manager.copy.quota.window.num"],
            label="remote.log.manager.{copy,fetch}.quota.window.num")
        self.window_size_s = check_setting(
            "window_size_s", window_size_s,
            BROKER["remote.log.manager.copy.quota.window.size.seconds"],
            label="remote.log.manager.{copy,fetch}.quota.window.size.seconds")
        self.rate = SimpleRate(self.window_num, self.window_size_s * 1000)

    def update_quota(self, bytes_per_s: float) -> None:
        """``updateQuota``: a new bound (a dynamic broker config); the recorded bytes stay."""
        self.bytes_per_s = _check_rate(bytes_per_s)

    def record(self, bytes: float, now_ms: float) -> None:
        """``record``: add bytes copied or read at ``now_ms``, with no quota check."""
        self.rate.record(_check_number("bytes", bytes, 0), now_ms)

    def measure(self, now_ms: float) -> float:
        """The ``byte-rate`` metric: the ``SimpleRate`` in bytes per second."""
        return self.rate.measure(now_ms)

    def throttle_time_ms(self, now_ms: float) -> int:
        """``getThrottleTimeMs``: how long until the rate is back within the quota, if nothing
        more is recorded; 0 when it is within
        (:func:`kipviz.kafka.quotas.rate.quota_throttle_time_ms`)."""
        return self.rate.throttle_time_ms(self.bytes_per_s, now_ms)


@dataclass(frozen=True)
class CopiedSegment:
    """One segment through the copy quota: when the copy thread first asked, the throttle times
    it saw while waiting (``remote-copy-throttle-time``), and when it recorded the segment."""

    asked_ms: float
    throttle_times_ms: tuple[int, ...]
    recorded_ms: float

    @property
    def waited_ms(self) -> float:
        """Time spent waiting for the quota."""
        return self.recorded_ms - self.asked_ms


def copy_segment(quota: RemoteLogQuota, segment_bytes: int, now_ms: float, *,
                 quota_timeout_ms: int = RLM_QUOTA_TIMEOUT_MS) -> CopiedSegment:
    """One pass of the copy loop for one segment, with no other copy thread signalling: ask for
    the throttle time every ``quota_timeout_ms`` until it is 0, then record the whole segment.

    >>> quota = RemoteLogQuota(1_000_000)              # 1 MB/s, 11 x 1 s
    >>> first = copy_segment(quota, 5_000_000, 0)      # a 5 MB segment goes at once
    >>> first.recorded_ms, first.throttle_times_ms
    (0, ())
    >>> second = copy_segment(quota, 5_000_000, 0)     # the next waits 5 s, not the 4 s asked:
    >>> second.recorded_ms, second.throttle_times_ms   # SimpleRate's window is >= 1 s
    (5000, (4000, 4000, 3000, 2000, 1000))
    """
    _check_int("segment_bytes", segment_bytes, 0)
    _check_int("quota_timeout_ms", quota_timeout_ms, 1)
    asked, seen = now_ms, []
    throttle = quota.throttle_time_ms(now_ms)
    while throttle > 0:
        seen.append(throttle)
        now_ms += quota_timeout_ms  # copyQuotaManagerLockCondition.await(quotaTimeout())
        throttle = quota.throttle_time_ms(now_ms)
    quota.record(segment_bytes, now_ms)
    return CopiedSegment(asked, tuple(seen), now_ms)


def copy_segments(quota: RemoteLogQuota, segment_bytes: Iterable[int], now_ms: float, *,
                  upload_bytes_per_s: float | None = None,
                  quota_timeout_ms: int = RLM_QUOTA_TIMEOUT_MS) -> list[CopiedSegment]:
    """One copy thread uploading ``segment_bytes`` in order: each segment is recorded when the
    quota allows, then uploaded at ``upload_bytes_per_s`` (``None``: instantly) before the
    thread asks for the next."""
    if upload_bytes_per_s is not None:
        _check_number("upload_bytes_per_s", upload_bytes_per_s, 0, strict=True)
    out = []
    for size in segment_bytes:
        copied = copy_segment(quota, size, now_ms, quota_timeout_ms=quota_timeout_ms)
        out.append(copied)
        now_ms = copied.recorded_ms
        if upload_bytes_per_s is not None:
            now_ms += size / upload_bytes_per_s * 1000.0
    return out


def remote_fetch_throttle_time_ms(quota: RemoteLogQuota | None, now_ms: float) -> int:
    """``RemoteLogManager.getFetchThrottleTimeMs`` as ``ReplicaManager.readFromLog`` asks it for
    each remote partition of a consumer fetch: > 0 means the partition is not read and is
    returned empty with no error (KIP-956); ``None`` is no fetch quota (Kafka's default)."""
    return 0 if quota is None else quota.throttle_time_ms(now_ms)


def record_remote_read(quota: RemoteLogQuota | None, bytes_read: int, now_ms: float) -> None:
    """``RemoteLogReader.call``: after the read, record the bytes read (0 for a failed read)."""
    if quota is not None:
        quota.record(_check_int("bytes_read", bytes_read, 0), now_ms)
