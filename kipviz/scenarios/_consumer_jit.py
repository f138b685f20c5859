"""The consumer kernel compiled by numba, with every mechanism it calls, once per process.

:func:`kipviz.scenarios._jit.jit_functions` rebuilds :func:`~kipviz.scenarios._consumer_kernel.
consumer_kernel` over a namespace whose mechanisms are compiled too: KIP-74's ``fill_raw_bytes``,
``next_order`` and ``request_partitions``, KIP-81's ``pool_*`` functions, and the fetch quota's
``throttle_fetch`` over the ``Rate`` slot functions. The plain functions stay plain.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compiled_kernel"]

_compiled: dict[str, Any] = {}


def compiled_kernel() -> Any:
    """:func:`~kipviz.scenarios._consumer_kernel.consumer_kernel`, compiled (numba imported
    here, on first use)."""
    if not _compiled:
        from kipviz.fetch import fill_raw_bytes, next_order, request_partitions
        from kipviz.scenarios import (
            _broker_kernel,
            _consumer_kernel,
            _fetch_quota,
            _reassignment_kernel,
        )
        from kipviz.scenarios._jit import jit_functions

        rates = _reassignment_kernel.compiled()  # the Rate slot functions, compiled together
        quota = jit_functions(["fetch_quota_throttle_ms", "throttle_fetch"],
                              {**vars(_fetch_quota), **rates})
        foreign = {"fill_raw_bytes": fill_raw_bytes, "next_order": next_order,
                   "request_partitions": request_partitions,
                   **{name: getattr(_broker_kernel, name) for name in (
                       "pool_try_allocate", "pool_release", "pool_out_of_memory")}}
        _compiled.update(jit_functions(["consumer_kernel"],
                                       {**vars(_consumer_kernel), **quota}, foreign=foreign))
    return _compiled["consumer_kernel"]
