"""KIP-73: replication quotas on Kafka's windowed rate, and the KIP's planning arithmetic.

Kafka's rate metric (``org.apache.kafka.common.metrics.stats``: ``SampledStat``, ``WindowedSum``,
``Rate``, ``SimpleRate``) as it is since apache/kafka#15889 (Kafka 3.8):

* Up to ``samples + 1`` slots of ``window_ms``, each {start, last event, value}. A record at t
  goes into the current slot (made at t if there is none); when ``t - start >= window`` the next
  slot, cyclically, is reset to start at t and takes the value.
* Before measuring, every slot whose *last event* is at least ``samples * window`` old is reset
  to start at now with value 0; measuring an empty stat creates a slot starting now.
* ``Rate``: elapsed = now - oldest start; with fewer than ``samples - 1`` whole windows elapsed,
  the missing whole windows are added (``elapsed + (samples - 1 - full) * window``); never below
  1 ms. ``SimpleRate`` (replication quotas) uses ``max(elapsed, window)``.
  rate = sum of slot values / (window size in s).
* ``legacy=True`` is the rule before #15889: ``samples`` slots, purged by their *start*.

The rules themselves are the plain functions of :mod:`kipviz.kafka.quotas.rate` (one copy, which the
numba kernels compile); :class:`Rate` and :class:`SimpleRate` keep their state as lists for them.

``ReplicationQuotaManager`` (KIP-73 "The Throttle Mechanism"): a ``SimpleRate`` of
``replication.quota.window.num`` x ``replication.quota.window.size.seconds`` against
``leader.``/``follower.replication.throttled.rate``; throttled partitions per topic, ``*`` for all.
Planning arithmetic (Q&A 1, 4, 5 as ``--throttle`` counts):
:mod:`kipviz.kafka.replication.planning`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from kipviz.kafka.config.checks import check_number as _check_number
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.fetch.request import TopicPartition
from kipviz.kafka.quotas import rate
from kipviz.kafka.quotas.rate import java_round  # re-exported: defined once, in kipviz.rate
from kipviz.kafka.replication.planning import (  # re-exported: the planning arithmetic lives there
    catch_up_bytes_per_s,
    in_sync_follower_bytes,
    max_replica_fetch_response_bytes,
    move_time_s,
    resolve_in_sync_followers,
    scheduled_move_time_s,
    throttle_bounds,
)

__all__ = [
    "METRICS_NUM_SAMPLES",
    "METRICS_SAMPLE_WINDOW_MS",
    "REPLICATION_QUOTA_WINDOW_NUM",
    "REPLICATION_QUOTA_WINDOW_SIZE_SECONDS",
    "Quota",
    "Rate",
    "ReplicationQuotaManager",
    "Sample",
    "SimpleRate",
    "catch_up_bytes_per_s",
    "in_sync_follower_bytes",
    "java_round",
    "max_replica_fetch_response_bytes",
    "max_value_in_quota_window",
    "move_time_s",
    "parse_throttled_replicas",
    "resolve_in_sync_followers",
    "scheduled_move_time_s",
    "throttle_bounds",
    "throttle_time_ms",
]

METRICS_NUM_SAMPLES = BROKER.default_of("metrics.num.samples")  # MetricConfig: 2
METRICS_SAMPLE_WINDOW_MS = BROKER.default_of("metrics.sample.window.ms")  # 30000
# replication.quota.window.num (11): 10 whole windows + the current
REPLICATION_QUOTA_WINDOW_NUM = BROKER.default_of("replication.quota.window.num")
REPLICATION_QUOTA_WINDOW_SIZE_SECONDS = BROKER.default_of("replication.quota.window.size.seconds")

_INT_MAX = 2**31 - 1
_REPLICA = re.compile(r"[0-9]+:[0-9]+")
_THROTTLED_RATE = "leader.replication.throttled.rate / follower.replication.throttled.rate"


@dataclass(frozen=True)
class Sample:
    """One slot of a ``SampledStat`` (``SampledStat.Sample``), as a read-only snapshot."""

    start_ms: float
    last_event_ms: float
    value: float


class Rate:
    """Kafka's ``Rate`` over a ``WindowedSum``: ``record``, ``measure`` (per second), window size.

    ``samples`` and ``window_ms`` are the ``MetricConfig`` (``metrics.num.samples`` 2,
    ``metrics.sample.window.ms`` 30000 by default). Times are Kafka's wall clock in ms. The
    rules are :mod:`kipviz.kafka.quotas.rate`'s functions, run on this object's slots (Python
    lists).
    """

    simple = False  # Rate.windowSize; SimpleRate's is max(elapsed, one window)

    def __init__(self, samples: int = METRICS_NUM_SAMPLES,
                 window_ms: int = METRICS_SAMPLE_WINDOW_MS, *, legacy: bool = False) -> None:
        self.samples = check_setting("samples", samples, BROKER["metrics.num.samples"])
        self.window_ms = check_setting("window_ms", window_ms, BROKER["metrics.sample.window.ms"])
        self.legacy = legacy
        # the state of kipviz.kafka.quotas.rate as lists: start_ms, last_event_ms, value of each
        # slot, flat, and [slots used, current slot, samples, the field slots are purged by]
        self._slots = [0.0] * (rate.FIELDS * (samples if legacy else samples + 1))
        self._pos = [0, 0, samples, rate.START if legacy else rate.LAST]

    def record(self, value: float, now_ms: float) -> None:
        """Add ``value`` at ``now_ms`` (``SampledStat.record``), advancing to a new slot if due."""
        rate.rate_record(self._slots, self._pos, self.window_ms, value, now_ms)

    def window_size_ms(self, now_ms: float) -> float:
        """``Rate.windowSize``: elapsed since the oldest slot plus any missing whole windows
        (``SimpleRate``: at least one whole window)."""
        return rate.rate_window_size_ms(self._slots, self._pos, self.window_ms, now_ms,
                                        self.simple)

    def measure(self, now_ms: float) -> float:
        """The rate per second at ``now_ms``: purged sum / (window size / 1000.0)."""
        return rate.rate_measure(self._slots, self._pos, self.window_ms, now_ms, self.simple)

    def throttle_time_ms(self, bound: float, now_ms: float) -> int:
        """``Sensor.checkQuotas`` against an upper ``bound`` then ``QuotaUtils.throttleTime``:
        0 while the rate is within it, else the ms that bring it back."""
        return rate.quota_throttle_time_ms(self._slots, self._pos, self.window_ms, bound,
                                           now_ms, self.simple)

    def slots(self) -> tuple[Sample, ...]:
        """The slots as stored, in slot order (no purge)."""
        f = rate.FIELDS
        return tuple(Sample(*self._slots[f * j: f * j + f]) for j in range(self._pos[rate.USED]))

    @property
    def current_slot(self) -> int:
        """The slot the next record goes to unless a window has passed (``SampledStat.current``)."""
        return self._pos[rate.CURRENT]


class SimpleRate(Rate):
    """Kafka's ``SimpleRate``: window size = ``max(now - oldest start, one window)``."""

    simple = True


@dataclass(frozen=True)
class Quota:
    """Kafka's ``Quota``: an upper (or lower) bound; the bound itself is acceptable."""

    bound: float
    upper: bool = True

    def acceptable(self, value: float) -> bool:
        """``Quota.acceptable``: ``value <= bound`` for an upper bound, ``>=`` for a lower one."""
        return value <= self.bound if self.upper else value >= self.bound


def throttle_time_ms(observed: float, bound: float, window_size_ms: float) -> int:
    """``QuotaUtils.throttleTime``: ``Math.round((observed - bound) / bound * window)``.

    The delay X that brings O down to T over window W: ``O * W / (W + X) = T``.
    """
    _check_number("bound (quota)", bound, 0, strict=True)
    _check_number("window_size_ms", window_size_ms, 0, strict=True)
    return rate.throttle_time(observed, bound, window_size_ms)


def max_value_in_quota_window(quota_bytes_per_s: float, samples: int, window_s: float) -> float:
    """``ClientQuotaManager.getMaxValueInQuotaWindow``: ``quota * (samples - 1) * window_s``.

    The most one request may record without being throttled for sure (caps a fetch response).
    """
    _check_number("quota_bytes_per_s", quota_bytes_per_s, 0)
    check_setting("samples", samples, BROKER["quota.window.num"])
    _check_number("window_s (quota.window.size.seconds)", window_s, 0, strict=True)
    return quota_bytes_per_s * (samples - 1) * window_s


def _quota(rate_bytes_per_s: float | None) -> Quota | None:
    if rate_bytes_per_s is None:
        return None
    return Quota(_check_number(f"rate_bytes_per_s ({_THROTTLED_RATE})", rate_bytes_per_s, 0))


class ReplicationQuotaManager:
    """Kafka's ``ReplicationQuotaManager`` (one for the leader side, one for the follower side).

    ``rate_bytes_per_s`` ``None`` is unlimited (no quota: never exceeded). Kafka accepts a rate
    of 0 (``atLeast(0)``). ``window_s`` may be fractional here; Kafka's setting is whole seconds.
    """

    def __init__(self, rate_bytes_per_s: float | None = None,
                 samples: int = REPLICATION_QUOTA_WINDOW_NUM,
                 window_s: float = REPLICATION_QUOTA_WINDOW_SIZE_SECONDS) -> None:
        samples = check_setting("samples", samples, BROKER["replication.quota.window.num"])
        name = "window_s (replication.quota.window.size.seconds)"
        window_ms = round(_check_number(name, window_s, 0, strict=True) * 1000)
        if window_ms < 1 or not math.isclose(window_ms, window_s * 1000, abs_tol=1e-6):
            raise ValueError(f"{name} must be a whole number of milliseconds >= 1 ms: {window_s}")
        self.quota = _quota(rate_bytes_per_s)
        self.rate = SimpleRate(samples, window_ms)
        self._throttled: dict[str, list[int] | Literal["*"]] = {}

    def update_quota(self, rate_bytes_per_s: float | None) -> None:
        """``updateQuota``: change the rate at run time; the recorded bytes stay."""
        self.quota = _quota(rate_bytes_per_s)

    def record(self, bytes: int, now_ms: float) -> None:
        """Add throttled bytes to the rate, whether or not the quota is exceeded."""
        self.rate.record(_check_number("bytes", bytes, 0), now_ms)

    def measure(self, now_ms: float) -> float:
        """The throttled rate in bytes/s (``SimpleRate``)."""
        return self.rate.measure(now_ms)

    def is_quota_exceeded(self, now_ms: float) -> bool:
        """``isQuotaExceeded``: the rate is above the bound (measured only if there is a quota)."""
        if self.quota is None:
            return False
        r = self.rate
        return rate.quota_exceeded(r._slots, r._pos, r.window_ms, self.quota.bound, now_ms)

    def mark_throttled(self, topic: str, partitions: Iterable[int] | Literal["*"] = "*") -> None:
        """Throttle these partitions of ``topic`` (``*``: all), replacing the topic's list."""
        self._throttled[topic] = "*" if partitions == "*" else [int(p) for p in partitions]

    def remove_throttle(self, topic: str) -> None:
        """No partition of ``topic`` is throttled any more."""
        self._throttled.pop(topic, None)

    def is_throttled(self, tp: TopicPartition) -> bool:
        """Whether ``tp`` is in the throttled list of its topic (or the topic has ``*``)."""
        partitions = self._throttled.get(tp.topic)
        return partitions is not None and (partitions == "*" or tp.partition in partitions)

    def should_throttle(self, tp: TopicPartition, in_sync: bool, now_ms: float) -> bool:
        """``ReplicaManager.shouldLeaderThrottle`` / ``shouldFollowerThrottle`` (KAFKA-4313).

        ``!inSync && isThrottled(tp) && isQuotaExceeded``, short-circuited in that order, so the
        rate is measured (and maybe a sample created) only for throttled out-of-sync replicas.
        """
        return not in_sync and self.is_throttled(tp) and self.is_quota_exceeded(now_ms)


def parse_throttled_replicas(value: str, broker_id: int, *,
                             setting: str = "leader.replication.throttled.replicas"
                             ) -> list[int] | Literal["*"]:
    """The partitions throttled on ``broker_id`` by a throttled-replicas value (``0:101,1:102``).

    ``ConfigHandler.parseThrottledPartitions`` after ``ThrottledReplicaListValidator``: entries
    ``partition:broker`` (each an int), empty entries only at the end, or the literal ``*``;
    ``setting`` names the config (``leader.`` or ``follower.replication.throttled.replicas``).

    >>> parse_throttled_replicas("0:101,1:102,2:101", 101)
    [0, 2]
    """
    text = value.strip()
    entries = [e.strip() for e in text.split(",")]
    if entries == ["*"]:
        return "*"
    pairs = [e for e in entries if e]
    valid = (entries[: len(pairs)] == pairs
             and all(_REPLICA.fullmatch(e) and max(map(int, e.split(":"))) <= _INT_MAX
                     for e in pairs))
    if not valid:
        raise ValueError(f"{setting} must be the literal '*' or a list of replicas in the form "
                         f"[partitionId]:[brokerId],[partitionId]:[brokerId],...: {value!r}")
    return [int(p) for p, b in (e.split(":") for e in pairs) if int(b) == broker_id]
