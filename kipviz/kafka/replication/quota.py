"""KIP-73: replication quotas on Kafka's windowed rate, and the throttled-replica lists.

``ReplicationQuotaManager`` (KIP-73 "The Throttle Mechanism"): a ``SimpleRate``
(:mod:`kipviz.kafka.quotas.rate`, Kafka's rate metric as it is since apache/kafka#15889) of
``replication.quota.window.num`` x ``replication.quota.window.size.seconds`` against
``leader.``/``follower.replication.throttled.rate``; throttled partitions per topic, ``*`` for all
(:func:`parse_throttled_replicas` reads Kafka's ``0:101,1:102`` lists). Planning arithmetic (Q&A
1, 4, 5 as ``--throttle`` counts): :mod:`kipviz.kafka.replication.planning`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Literal

from kipviz.kafka.config.checks import check_number as _check_number
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.fetch.request import TopicPartition
from kipviz.kafka.quotas import rate
from kipviz.kafka.quotas.rate import Quota, SimpleRate

__all__ = ["REPLICATION_QUOTA_WINDOW_NUM", "REPLICATION_QUOTA_WINDOW_SIZE_SECONDS",
           "ReplicationQuotaManager", "parse_throttled_replicas"]

# replication.quota.window.num (11): 10 whole windows + the current
REPLICATION_QUOTA_WINDOW_NUM = BROKER.default_of("replication.quota.window.num")
REPLICATION_QUOTA_WINDOW_SIZE_SECONDS = BROKER.default_of("replication.quota.window.size.seconds")

_INT_MAX = 2**31 - 1
_REPLICA = re.compile(r"[0-9]+:[0-9]+")
_THROTTLED_RATE = "leader.replication.throttled.rate / follower.replication.throttled.rate"


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

    def allowance(self, now_ms: float) -> float:
        """The bytes it can record at ``now_ms`` and stay within its quota
        (:func:`kipviz.kafka.quotas.rate.quota_allowance`; ``inf`` without a quota)."""
        if self.quota is None:
            return math.inf
        r = self.rate
        return rate.quota_allowance(r._slots, r._pos, r.window_ms, self.quota.bound, now_ms)

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
