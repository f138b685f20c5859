"""Kafka's windowed rate (:mod:`kipviz.kafka.quotas.rate`) compiled by numba, once per process.

Every kernel that measures a rate (reassignment, tiered fetch, the consumer's fetch quota)
compiles its own functions over a namespace holding these, so the compiled kernels call the very
functions :class:`kipviz.kafka.quotas.rate.Rate` and the SimPy references run.
"""

from __future__ import annotations

from typing import Any

from kipviz.kafka.quotas import rate

__all__ = ["compiled_rates"]

_compiled: dict[str, Any] = {}


def compiled_rates() -> dict[str, Any]:
    """:data:`kipviz.kafka.quotas.rate.RATE_FUNCTIONS` compiled (numba imported on first use), by
    name."""
    if not _compiled:
        from kipviz.scenarios.jit import jit_functions

        _compiled.update(jit_functions(rate.RATE_FUNCTIONS, vars(rate)))
    return dict(_compiled)
