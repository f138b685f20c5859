"""Kafka's quota machinery: windowed rates, quota checks, throttle times, token buckets.

* :mod:`~kipviz.kafka.quotas.rate`: ``SampledStat``, ``Rate``, ``SimpleRate``, ``Quota`` and
  ``QuotaUtils.throttleTime`` as plain functions on state arrays (the one copy the classes and
  the kernels run).
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
        "java_round", "new_rate", "quota_exceeded", "quota_throttle_time_ms", "rate_measure",
        "rate_record", "rate_window_size_ms", "throttle_time",
    ],
    "client": ["fetch_quota_throttle_ms", "new_quota_rates", "throttle_fetch"],
    "token_bucket": ["ControllerMutationQuota", "TokenBucket"],
})
