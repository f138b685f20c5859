"""The consumer kernel compiled by numba, with every mechanism it calls, once per process.

:func:`kipviz.scenarios.jit.jit_functions` rebuilds :func:`~kipviz.scenarios.consumer.kernel.
consumer_kernel` over a namespace whose mechanisms are compiled too: KIP-74's ``fill_raw_bytes``,
``next_order`` and ``request_partitions``, KIP-81's pool (:mod:`kipviz.kafka.broker.pool`'s
rules), and the fetch quota's ``throttle_fetch`` over the ``Rate`` slot functions. The plain
functions stay plain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["compiled_kernel"]

_compiled: dict[str, Any] = {}


def compiled_kernel() -> Any:
    """:func:`~kipviz.scenarios.consumer.kernel.consumer_kernel`, compiled (numba imported
    here, on first use)."""
    if not _compiled:
        from kipviz.kafka.fetch import response
        from kipviz.kafka.fetch.request import next_order, request_partitions
        from kipviz.kafka.quotas import client as _fetch_quota
        from kipviz.scenarios.broker import kernel as _broker_kernel
        from kipviz.scenarios.consumer import kernel as _consumer_kernel
        from kipviz.scenarios.jit import jit_functions
        from kipviz.scenarios.rate_jit import compiled_rates

        # kipviz.kafka.quotas.rate's functions, compiled once for every kernel
        rates = compiled_rates()
        quota = jit_functions(["fetch_quota_throttle_ms", "throttle_fetch"],
                              {**vars(_fetch_quota), **rates})
        # KIP-74's fill with the partition rule it calls, compiled over their own module
        fill = jit_functions(response.FILL_FUNCTIONS, vars(response), inline=["read_partition"])
        foreign: dict[str, Callable[..., Any]] = {
            "next_order": next_order, "request_partitions": request_partitions}
        # kipviz.kafka.broker.pool's rules
        pool = {name: _broker_kernel.compiled_kernel(name) for name in (
            "pool_try_allocate", "pool_release", "pool_out_of_memory")}
        _compiled.update(jit_functions(["consumer_kernel"],
                                       {**vars(_consumer_kernel), **quota, **pool, **fill},
                                       foreign=foreign))
    return _compiled["consumer_kernel"]
