"""Kafka's quota family on bursty loads: the tiered-storage copy quota, and ``Rate``,
``SimpleRate`` and ``TokenBucket`` side by side.

* :func:`copy_under_quota`: a broker's copy thread (``RemoteLogManager.RLMCopyTask``) uploading
  segments under ``remote.log.manager.copy.max.bytes.per.second`` (KIP-956). Each segment is
  recorded whole when the throttle time is 0 (:func:`kipviz.kafka.tiered.quota.copy_segments`), so
  the quota lets a burst through and then holds the next segment until ``SimpleRate``'s 11 windows
  have spread it out. The ``rate`` table samples the quota's ``byte-rate`` and throttle time.
* :func:`three_rates`: one bursty load recorded in Kafka's three meters at once: ``Rate``
  (client quotas: ``quota.window.num`` 11 x 1 s, the missing whole windows added),
  ``SimpleRate`` (replication and RLM quotas: at least one window) and ``TokenBucket``
  (KIP-599: credits refilled at the quota rate up to ``samples * window * quota``), each with
  the throttle time its quota manager would give (``QuotaUtils.throttleTime`` for the two rates,
  ``-credits / quota * 1000`` for the bucket). No kernel: numpy tables over the mechanism
  classes themselves.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kipviz.kafka.config.checks import check_int, check_number
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.quotas.rate import Rate, SimpleRate, java_round
from kipviz.kafka.quotas.token_bucket import TokenBucket
from kipviz.kafka.tiered.quota import (
    RLM_QUOTA_WINDOW_NUM,
    RLM_QUOTA_WINDOW_SIZE_SECONDS,
    RemoteLogQuota,
    copy_segments,
    rlm_throttle_time_ms,
)

__all__ = ["WALL_CLOCK_MS", "bursty_load", "copy_under_quota", "three_rates",
           "throttle_summary"]

QUOTA_WINDOW_NUM = BROKER.default_of("quota.window.num")  # 11, as every quota's window.num
QUOTA_WINDOW_SIZE_SECONDS = BROKER.default_of("quota.window.size.seconds")  # 1
WALL_CLOCK_MS = 1_764_000_000_000
"""Where the traces' clocks start: a wall-clock time, as Kafka's tests' ``MockTime`` (a
``TokenBucket`` starts empty at time 0, so at a wall-clock time it is full)."""


def copy_under_quota(segment_bytes: int, segments: int, copy_max_bytes_per_s: float, *,
                     upload_bytes_per_s: float | None = None, sample_ms: int = 250,
                     window_num: int = RLM_QUOTA_WINDOW_NUM,
                     window_size_s: int = RLM_QUOTA_WINDOW_SIZE_SECONDS
                     ) -> dict[str, pd.DataFrame]:
    """``segments`` segments of ``segment_bytes`` (log.segment.bytes) copied one after another
    by one copy thread under ``copy_max_bytes_per_s``; tables ``segments`` (``segment``,
    ``asked_ms``, ``recorded_ms``, ``waited_ms``, ``throttle_checks``) and ``rate``
    (``time_ms``, ``rate_bytes_per_s``, ``throttle_time_ms``, ``quota_bytes_per_s``), times
    from the first ask.

    >>> t = copy_under_quota(5_000_000, 3, 1_000_000)["segments"]
    >>> t.recorded_ms.tolist(), t.throttle_checks.tolist()
    ([0.0, 5000.0, 10000.0], [0, 5, 5])
    """
    # the model takes any segment of >= 1 byte (Kafka's log.segment.bytes is atLeast(1 MiB))
    check_setting("segment_bytes", segment_bytes, BROKER["log.segment.bytes"], at_least=1)
    check_int("segments", segments, 1)
    check_int("sample_ms", sample_ms, 1)
    quota = RemoteLogQuota(copy_max_bytes_per_s, window_num, window_size_s)
    copied = copy_segments(quota, [segment_bytes] * segments, WALL_CLOCK_MS,
                           upload_bytes_per_s=upload_bytes_per_s)
    seg = pd.DataFrame({
        "segment": np.arange(segments, dtype=np.int64),
        "asked_ms": [c.asked_ms - WALL_CLOCK_MS for c in copied],
        "recorded_ms": [c.recorded_ms - WALL_CLOCK_MS for c in copied],
        "waited_ms": [c.waited_ms for c in copied],
        "throttle_checks": [len(c.throttle_times_ms) for c in copied],
    }).astype({"asked_ms": np.float64, "recorded_ms": np.float64, "waited_ms": np.float64})
    # replay the records into a fresh SimpleRate, sampling between them
    end = float(seg.recorded_ms.max()) + window_num * window_size_s * 1000
    times = np.arange(0.0, end + sample_ms, sample_ms)
    replay = SimpleRate(window_num, window_size_s * 1000)
    events = list(seg.recorded_ms)
    rates, throttles = np.zeros(len(times)), np.zeros(len(times), np.int64)
    k = 0
    for i, t in enumerate(times):
        while k < len(events) and events[k] <= t:
            replay.record(segment_bytes, WALL_CLOCK_MS + events[k])
            k += 1
        now = WALL_CLOCK_MS + t
        rates[i] = replay.measure(now)
        throttles[i] = rlm_throttle_time_ms(rates[i], quota.bytes_per_s,
                                            replay.window_size_ms(now))
    rate = pd.DataFrame({"time_ms": times, "rate_bytes_per_s": rates,
                         "throttle_time_ms": throttles,
                         "quota_bytes_per_s": float(quota.bytes_per_s)})
    return {"segments": seg, "rate": rate}


def bursty_load(burst: float, period_ms: int, duration_ms: int, *,
                first_ms: int = 0) -> pd.DataFrame:
    """``burst`` units recorded every ``period_ms`` from ``first_ms`` to ``duration_ms``
    (exclusive): the ``time_ms`` and ``value`` of each record."""
    check_number("burst", burst, 0)
    check_int("period_ms", period_ms, 1)
    check_int("duration_ms", duration_ms, 1)
    check_int("first_ms", first_ms, 0)
    times = np.arange(first_ms, duration_ms, period_ms, dtype=np.float64)
    return pd.DataFrame({"time_ms": times, "value": np.full(len(times), float(burst))})


def three_rates(load: pd.DataFrame, quota: float, duration_ms: int, *,
                samples: int = QUOTA_WINDOW_NUM, window_s: int = QUOTA_WINDOW_SIZE_SECONDS,
                sample_ms: int = 100) -> pd.DataFrame:
    """The same ``load`` (``time_ms``, ``value``) in a ``Rate``, a ``SimpleRate`` and a
    ``TokenBucket`` of ``samples`` x ``window_s`` against ``quota`` units/s, sampled every
    ``sample_ms``: long table ``time_ms``, ``meter`` (``Rate``, ``SimpleRate``,
    ``TokenBucket``), ``measure`` (a rate per second; the bucket's credits), ``throttle_time_ms``.

    Records and samples at the same instant: the record first.

    TokenBucketTest.testRecord's numbers: 60 units, 5 two seconds later, 60 two seconds after:

    >>> load = pd.DataFrame({"time_ms": [0, 2_000, 4_000], "value": [60, 5, 60]})
    >>> t = three_rates(load, 5, 6_000, samples=10, window_s=2, sample_ms=2_000)
    >>> t[t.meter == "TokenBucket"].measure.tolist()
    [40.0, 45.0, -5.0]
    """
    check_number("quota", quota, 0, strict=True)
    check_int("samples", samples, 1)
    check_int("window_s", window_s, 1)
    check_int("sample_ms", sample_ms, 1)
    check_int("duration_ms", duration_ms, 1)
    window_ms = window_s * 1000
    meters = {"Rate": Rate(samples, window_ms), "SimpleRate": SimpleRate(samples, window_ms)}
    bucket = TokenBucket(quota, samples, window_s)
    times = np.arange(0, duration_ms, sample_ms, dtype=np.float64)
    ev_t = load["time_ms"].to_numpy(np.float64)
    ev_v = load["value"].to_numpy(np.float64)
    rows: dict[str, list[tuple[float, float, int]]] = {m: [] for m in (*meters, "TokenBucket")}
    k = 0
    for t in times:
        while k < len(ev_t) and ev_t[k] <= t:
            now = WALL_CLOCK_MS + ev_t[k]
            for meter in meters.values():
                meter.record(ev_v[k], now)
            bucket.record(ev_v[k], now)
            k += 1
        now = WALL_CLOCK_MS + t
        for name, meter in meters.items():
            rate = meter.measure(now)
            throttle = 0 if rate <= quota else java_round(
                (rate - quota) / quota * meter.window_size_ms(now))
            rows[name].append((t, rate, throttle))
        rows["TokenBucket"].append((t, bucket.measure(now), bucket.throttle_time_ms(now)))
    frames = [pd.DataFrame(r, columns=["time_ms", "measure", "throttle_time_ms"]).assign(meter=m)
              for m, r in rows.items()]
    out = pd.concat(frames, ignore_index=True)
    out["throttle_time_ms"] = out["throttle_time_ms"].astype(np.int64)
    return out[["time_ms", "meter", "measure", "throttle_time_ms"]]


def throttle_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per meter of a :func:`three_rates` table: when it first throttled (s, NaN: never), its
    longest throttle time (ms) and the share of samples it throttled (%)."""
    throttled = table.assign(on=table["throttle_time_ms"] > 0)
    first = throttled[throttled["on"]].groupby("meter")["time_ms"].min() / 1000.0
    g = throttled.groupby("meter")
    out = pd.DataFrame({"first throttle s": first.reindex(g.size().index),
                        "max throttle ms": g["throttle_time_ms"].max(),
                        "throttled %": (100 * g["on"].mean()).round(1)})
    return out
