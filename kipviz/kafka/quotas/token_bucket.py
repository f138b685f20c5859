"""KIP-599: Kafka's token bucket and the controller mutation quota, strict and permissive.

``org.apache.kafka.common.metrics.stats.TokenBucket`` (Kafka 2.7, KIP-599 "Token Bucket"):

* State: ``tokens`` (a double) and ``lastUpdateMs``, both 0 when the bucket is made. So the
  bucket starts *empty at time 0*: at ``now_ms`` it has refilled ``quota * now_ms / 1000``
  credits, capped at the burst. Kafka's tests measure at a wall-clock time (``MockTime`` starts
  at ``System.currentTimeMillis()``), decades after time 0, so they see a full bucket.
* ``burst = samples * window_s * quota`` (``MetricConfig.samples`` x ``timeWindowMs`` in
  seconds x ``Quota.bound``; for controller mutations ``controller.quota.window.num`` 11 x
  ``controller.quota.window.size.seconds`` 1 x ``controller_mutation_rate``).
* ``refill(now)``: ``tokens = min(burst, tokens + quota * (now - last) / 1000)``, ``last = now``
  (no guard against a clock going backwards: credits then shrink, as in Kafka).
* ``measure(now)``: refill, return ``tokens`` (a credit balance, negative when overdrawn).
  ``record(v, now)``: refill, ``tokens = min(burst, tokens - v)``.
* ``Sensor.checkQuotas``: a token bucket is violated when its measure is ``< 0``; the throttle
  time is ``Math.round(-credits / quota * 1000)`` ms (``ControllerMutationQuotaManager
  .throttleTimeMs``), the time the refill needs to bring the credits back to 0.
* Strict mode (``StrictControllerMutationQuota``, requests at or above ``strictSinceVersion``):
  check *before* recording; while the credits are >= 0 any amount is accepted, even one that
  overdraws the bucket far below 0; once they are negative the request is rejected
  (``THROTTLING_QUOTA_EXCEEDED``) and nothing is recorded. Permissive mode
  (``PermissiveControllerMutationQuota``, older request versions): record first, then check; it
  always accepts and only reports a throttle time. ``AbstractControllerMutationQuota
  .throttleTime`` counts the last throttle time down with the time elapsed since it was set.

The rules are plain functions on a state array ``[tokens, last_update_ms]`` (float64) that numba
can compile; :class:`TokenBucket` and :class:`ControllerMutationQuota` wrap them.

>>> bucket = TokenBucket(quota=5, samples=10, window_s=2)   # TokenBucketTest.testRecord
>>> bucket.measure(0), bucket.measure(10_000), bucket.measure(20_000)
(0.0, 50.0, 100.0)
"""

from __future__ import annotations

import numpy as np

from kipviz.kafka.config.checks import check_bool
from kipviz.kafka.config.checks import check_number as _check_number
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.quotas.rate import java_round

__all__ = [
    "CONTROLLER_QUOTA_WINDOW_NUM",
    "CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS",
    "ControllerMutationQuota",
    "TokenBucket",
    "bucket_measure",
    "bucket_record",
    "bucket_refill",
    "burst_credits",
    "new_bucket_state",
    "permissive_record",
    "remaining_throttle_time_ms",
    "strict_record",
    "token_bucket_throttle_time_ms",
]

CONTROLLER_QUOTA_WINDOW_NUM = BROKER.default_of("controller.quota.window.num")  # 11
CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS = BROKER.default_of("controller.quota.window.size.seconds")

_TOKENS = 0
_LAST_UPDATE_MS = 1
_INT_MIN = -(2**31)
_INT_MAX = 2**31 - 1


def new_bucket_state() -> np.ndarray:
    """A new bucket's state ``[tokens, last_update_ms]``: ``[0.0, 0.0]`` (``new TokenBucket()``)."""
    return np.zeros(2, dtype=np.float64)


def burst_credits(quota: float, samples: int, window_s: float) -> float:
    """The bucket's capacity: ``samples * window_s * quota`` (``TokenBucket.burst``)."""
    return samples * window_s * quota


def bucket_refill(state: np.ndarray, quota: float, burst: float, now_ms: float) -> None:
    """``TokenBucket.refill``: add ``quota`` credits per second since the last update, up to
    ``burst``; the last update becomes ``now_ms``."""
    elapsed_s = (now_ms - state[_LAST_UPDATE_MS]) / 1000.0
    state[_TOKENS] = min(burst, state[_TOKENS] + quota * elapsed_s)
    state[_LAST_UPDATE_MS] = now_ms


def bucket_measure(state: np.ndarray, quota: float, burst: float, now_ms: float) -> float:
    """``TokenBucket.measure``: refill, then the credits (negative when overdrawn)."""
    bucket_refill(state, quota, burst, now_ms)
    return state[_TOKENS]


def bucket_record(state: np.ndarray, quota: float, burst: float, value: float,
                  now_ms: float) -> None:
    """``TokenBucket.record``: refill, then take ``value`` credits (a negative value gives
    credits back, never beyond ``burst``)."""
    bucket_refill(state, quota, burst, now_ms)
    state[_TOKENS] = min(burst, state[_TOKENS] - value)


def token_bucket_throttle_time_ms(credits: float, quota: float) -> int:
    """``ControllerMutationQuotaManager.throttleTimeMs``: ``Math.round(-credits / quota * 1000)``
    ms when the credits are negative (a violation), else 0."""
    if credits >= 0:
        return 0
    return java_round(-credits / quota * 1000.0)


def _as_int(ms: int) -> int:
    """Java's ``(int)`` cast of a long: the low 32 bits, signed."""
    low = ms & 0xFFFFFFFF
    return low - 2**32 if low > _INT_MAX else low


def strict_record(state: np.ndarray, quota: float, burst: float, permits: float,
                  now_ms: float) -> tuple[bool, int]:
    """``StrictControllerMutationQuota.record``: check, then record.

    Returns ``(violated, throttle_time_ms)``: not violated, the permits are recorded (however
    far they overdraw the bucket); violated (credits already < 0), nothing is recorded and the
    request fails with ``THROTTLING_QUOTA_EXCEEDED`` and that throttle time.
    """
    credits = bucket_measure(state, quota, burst, now_ms)
    if credits < 0:
        return True, token_bucket_throttle_time_ms(credits, quota)
    bucket_record(state, quota, burst, permits, now_ms)
    return False, 0


def permissive_record(state: np.ndarray, quota: float, burst: float, permits: float,
                      now_ms: float) -> tuple[bool, int]:
    """``PermissiveControllerMutationQuota.record``: record, then check.

    Returns ``(violated, throttle_time_ms)``; the permits are recorded either way (the request
    is never rejected), a violation (credits < 0 after recording) only sets a throttle time.
    """
    bucket_record(state, quota, burst, permits, now_ms)
    credits = bucket_measure(state, quota, burst, now_ms)
    return credits < 0, token_bucket_throttle_time_ms(credits, quota)


def remaining_throttle_time_ms(last_throttle_time_ms: int, recorded_at_ms: float,
                               now_ms: float) -> int:
    """``AbstractControllerMutationQuota.throttleTime``: the last throttle time less the time
    elapsed since it was recorded, cast to a Java ``int``, never below 0 (0 when none was
    recorded)."""
    if last_throttle_time_ms == 0:
        return 0
    return max(0, _as_int(int(last_throttle_time_ms - (now_ms - recorded_at_ms))))


class TokenBucket:
    """Kafka's ``TokenBucket`` with its ``MetricConfig``: ``quota`` units per second refill a
    bucket of ``samples * window_s * quota`` credits. Times are Kafka's clock in ms.

    >>> t = 1_764_000_000_000   # a wall-clock time, as TokenBucketTest's MockTime
    >>> bucket = TokenBucket(quota=5, samples=10, window_s=2)
    >>> bucket.measure(t)
    100.0
    >>> bucket.record(60, t); bucket.measure(t)
    40.0
    >>> bucket.record(5, t + 2000); bucket.measure(t + 2000)
    45.0
    >>> bucket.record(60, t + 4000); bucket.measure(t + 4000), bucket.throttle_time_ms(t + 4000)
    (-5.0, 1000)
    """

    def __init__(self, quota: float, samples: int = CONTROLLER_QUOTA_WINDOW_NUM,
                 window_s: float = CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS) -> None:
        self.quota = float(_check_number("quota (controller_mutation_rate)", quota, 0,
                                         strict=True))
        self.samples = check_setting("samples", samples, BROKER["controller.quota.window.num"])
        self.window_s = float(_check_number("window_s (controller.quota.window.size.seconds)",
                                            window_s, 0, strict=True))
        self.burst = burst_credits(self.quota, self.samples, self.window_s)
        self.state = new_bucket_state()

    def measure(self, now_ms: float) -> float:
        """The credits at ``now_ms`` (refilled first), negative when overdrawn."""
        return float(bucket_measure(self.state, self.quota, self.burst, now_ms))

    def record(self, value: float, now_ms: float) -> None:
        """Take ``value`` credits at ``now_ms`` (refilled first); negative values give back."""
        bucket_record(self.state, self.quota, self.burst,
                      float(_check_number("value", value, -np.inf)), now_ms)

    def throttle_time_ms(self, now_ms: float) -> int:
        """How long until the credits are back at 0 with nothing more recorded (0 if >= 0)."""
        return token_bucket_throttle_time_ms(self.measure(now_ms), self.quota)


class ControllerMutationQuota:
    """One request's controller mutation quota over a client's shared ``TokenBucket``
    (``ControllerMutationQuotaManager.newQuotaFor``): strict (``StrictControllerMutationQuota``)
    or permissive (``PermissiveControllerMutationQuota``).

    ``ControllerMutationQuotaManagerTest.testStrictControllerMutationQuotaViolation``:

    >>> t = 1_764_000_000_000
    >>> quota = ControllerMutationQuota(TokenBucket(quota=10, samples=10, window_s=1), strict=True)
    >>> quota.record(90, t), quota.record(90, t), quota.record(90, t)
    (True, True, False)
    >>> quota.is_exceeded, quota.throttle_time_ms(t), quota.throttle_time_ms(t + 5000)
    (True, 8000, 3000)
    """

    def __init__(self, bucket: TokenBucket, *, strict: bool) -> None:
        check_bool("strict", strict)
        self.bucket = bucket
        self.strict = strict
        self._last_throttle_time_ms = 0
        self._recorded_at_ms = 0.0

    @property
    def is_exceeded(self) -> bool:
        """``isExceeded``: strict, a request was rejected (throttle time > 0); permissive, never."""
        return self.strict and self._last_throttle_time_ms > 0

    def record(self, permits: float, now_ms: float) -> bool:
        """Ask for ``permits`` mutations at ``now_ms``; whether they were accepted (a strict
        rejection is Kafka's ``ThrottlingQuotaExceededException``)."""
        permits = float(_check_number("permits (partitions created or deleted)", permits, 0))
        b = self.bucket
        record = strict_record if self.strict else permissive_record
        violated, throttle = record(b.state, b.quota, b.burst, permits, now_ms)
        if violated:  # updateThrottleTime: on a QuotaViolationException only
            self._last_throttle_time_ms = throttle
            self._recorded_at_ms = now_ms
        return not (self.strict and violated)

    def throttle_time_ms(self, now_ms: float) -> int:
        """``throttleTime``: the last violation's throttle time counted down to ``now_ms``."""
        return remaining_throttle_time_ms(self._last_throttle_time_ms, self._recorded_at_ms,
                                          now_ms)
