"""kipviz benchmarks: ``python -m benchmarks`` runs them all, ``python -m benchmarks NAME`` one.

Each benchmark is a module with a ``run()`` that prints one JSON line per figure
(:func:`benchmarks.harness.emit`). Register a new one with one line in :data:`BENCHMARKS`:
its name and the module that holds its ``run``. Modules are imported only when run, so one
benchmark's heavy or missing imports never stop the others.

The reference implementations that the benchmarks time and the tests check the compiled kernels
against, value for value, are the oracles of :mod:`tools.oracles`: the SimPy programs
(``simpy_*.py``) and the plain-Python KIP-73 loop (``reassignment_reference.py``).

How every kernel benchmark (``kip*``) is timed: the compiled kernel, its SimPy program and the
same kernel run as plain Python (``compiled=False``) on one setting; whole ``simulate`` calls
(tables and ``meta`` included), the workload drawn before timing and passed in; each figure the
median of several runs after a warm-up (for SimPy the run that checks its tables against the
kernel's is the warm-up, and a difference is printed as a warning:
:func:`benchmarks.harness.emit_speedups`). The speedups are ratios of rates measured in the same
run. The dashboard figures time slider moves (re-simulate, Spark curves, redraw) against a
reference Spark job on the same session (:class:`benchmarks.harness.SliderMoves`).
"""

from __future__ import annotations

__all__ = ["BENCHMARKS"]

BENCHMARKS: dict[str, str] = {
    "kip74_consumer": "benchmarks.kip74_consumer",
    "kip72_broker": "benchmarks.kip72_broker",
    "kip73_reassignment": "benchmarks.kip73_reassignment",
    "kip770_streams": "benchmarks.kip770_streams",
    "kip81_consumer": "benchmarks.kip81_consumer",
    "kip932_share_groups": "benchmarks.kip932_share_groups",
    "kip405_tiered": "benchmarks.kip405_tiered",
    "spark_sweep": "benchmarks.spark_sweep",
}
