"""Kafka's quota machinery: windowed rates, quota checks, throttle times, token buckets.

* :mod:`~kipviz.kafka.quotas.rate`: ``SampledStat``, ``Rate``, ``SimpleRate``, ``Quota`` and
  ``QuotaUtils.throttleTime``: plain functions on state arrays (the one copy the kernels run)
  and the classes that keep that state for plain Python.
* :mod:`~kipviz.kafka.quotas.client`: a consumer's fetch quota on the broker
  (``ClientQuotaManager``), in numba's terms.
* :mod:`~kipviz.kafka.quotas.token_bucket`: KIP-599's ``TokenBucket`` and controller mutation
  quota.

May import: :mod:`kipviz.kafka.config`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "rate": [
        "Quota", "Rate", "Sample", "SimpleRate", "bound_or_inf", "java_round",
        "max_value_in_quota_window", "new_rate", "quota_exceeded", "quota_throttle_time_ms",
        "rate_measure", "rate_record", "rate_window_size_ms", "throttle_time", "throttle_time_ms",
    ],
    "client": ["fetch_quota_throttle_ms", "new_quota_rates", "throttle_fetch"],
    "token_bucket": ["ControllerMutationQuota", "TokenBucket"],
})
