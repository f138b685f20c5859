"""The oracles: reference implementations the compiled kernels are checked against, value for
value (``tests/scenarios/``), and that the benchmarks time (``benchmarks/kip*.py``).

The SimPy programs (``simpy_*.py``: processes and resources, one per scenario kind) and the
plain-Python KIP-73 loop the reassignment kernel replaced (``reassignment_reference.py``). They
are neither kipviz (the wheel does not ship them) nor benchmarks (not in
:data:`benchmarks.BENCHMARKS`).
"""

from __future__ import annotations

__all__: list[str] = []
