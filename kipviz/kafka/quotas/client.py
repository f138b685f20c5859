"""A consumer's fetch quota on the broker (``consumer_byte_rate``), in numba's terms.

``KafkaApis.handleFetchRequest`` records each response's size in the client's quota sensor
(``ClientQuotaManager``: a ``Rate`` over ``quota.window.num`` = 11 windows of
``quota.window.size.seconds`` = 1 s) and, when the quota is violated, computes the throttle time
(``QuotaUtils.throttleTime``: ``(observed - bound) / bound * window size``, ``Math.round``). Since
KIP-219 (Kafka 2.0) a throttled fetch is "unrecorded" and answered at once with an empty
response and that throttle time; the client then sends nothing to that broker until the time has
passed. Before 2.0 the broker kept the response, data included, for the throttle time.

The rate is :mod:`kipviz.kafka.quotas.rate`'s state arrays and functions (``Rate``, the ones
:class:`kipviz.kafka.quotas.rate.Rate` runs); the consumer kernel and the SimPy reference both
call :func:`fetch_quota_throttle_ms`.
"""

from __future__ import annotations

import numpy as np

from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.quotas.rate import (
    FIELDS,
    LAST,
    PURGE_BY,
    SAMPLES,
    quota_throttle_time_ms,
    rate_record,
)

__all__ = ["QUOTA_WINDOW_MS", "QUOTA_WINDOW_NUM", "fetch_quota_throttle_ms", "new_quota_rates",
           "throttle_fetch"]

QUOTA_WINDOW_NUM = BROKER.default_of("quota.window.num")  # 11
QUOTA_WINDOW_MS = 1000.0 * BROKER.default_of("quota.window.size.seconds")  # 1 s


def new_quota_rates(brokers: int) -> tuple[np.ndarray, np.ndarray]:
    """One empty client-quota ``Rate`` per broker (:func:`kipviz.kafka.quotas.rate.new_rate`
    stacked): slots ``(brokers, 12 x 3)`` and positions ``(brokers, 4)``."""
    pos = np.zeros((brokers, 4), np.int64)
    pos[:, SAMPLES] = QUOTA_WINDOW_NUM
    pos[:, PURGE_BY] = LAST
    return np.zeros((brokers, (QUOTA_WINDOW_NUM + 1) * FIELDS), np.float64), pos


def fetch_quota_throttle_ms(slots, pos, bound, response_bytes, now_ms, unrecord):
    """Record a response of ``response_bytes`` at ``now_ms`` against ``bound`` bytes/s; return
    the throttle time in ms (0: within the quota). With ``unrecord`` (KIP-219) a throttled
    response's bytes are taken back out of the rate, as ``unrecordQuotaSensor`` does."""
    rate_record(slots, pos, QUOTA_WINDOW_MS, response_bytes, now_ms)
    throttle = quota_throttle_time_ms(slots, pos, QUOTA_WINDOW_MS, bound, now_ms, False)
    if throttle > 0 and unrecord:
        rate_record(slots, pos, QUOTA_WINDOW_MS, -response_bytes, now_ms)
    return throttle


def throttle_fetch(slots, pos, bound, raw, total, now_ms, empty, tick_ms, throttled):
    """The broker's quota step for one fetch response of ``total`` bytes (``raw`` per partition):
    the throttle time in whole ticks (0: not throttled). A throttled response is counted in
    ``throttled`` (fetches, ms) and, with ``empty`` (KIP-219), emptied: ``raw`` set to 0 (the
    caller sends 0 bytes)."""
    ms = fetch_quota_throttle_ms(slots, pos, bound, total, now_ms, empty)
    if ms <= 0:
        return 0
    throttled[0] += 1
    throttled[1] += ms
    if empty:
        raw[:] = 0
    return (ms + tick_ms - 1) // tick_ms
