"""Compile every kind's simulation kernel into numba's on-disk cache before it is needed.

numba compiles a kernel the first time a process calls it and keeps the machine code in its
cache, under a digest of the sources (:mod:`kipviz.scenarios.jit`). On a fresh checkout nothing
is cached: measured on a 2-core machine, the kernels take about 150 s to compile one after the
other (the reassignment kernel about 50 s, the share-group one 40 s, the consumer's 30 s), and
``make test``'s pytest-xdist workers, each meeting a kernel first in a test of its own, compiled
the same code in both workers at once. ``make test`` runs this module first:
``python -m kipviz.scenarios.warm --processes N`` simulates each registered kind's default
scenario once, the kinds spread over ``N`` processes, the longest to compile first; every later
process loads the kernels from the cache (about 3 s in all when nothing changed).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["warm"]

# Longest to compile first (measured, seconds on 2 cores), so N processes end close together;
# a kind not listed (one registered later) goes last.
COMPILE_S = {"reassignment": 51, "share_group": 42, "consumer": 29, "streams": 11,
             "tiered_fetch": 11, "broker": 7}


def _simulate(name: str) -> tuple[str, float]:
    """Run kind ``name``'s default scenario once (compiling or loading its kernel)."""
    from kipviz.scenarios import SCENARIOS

    kind = SCENARIOS[name]
    start = time.perf_counter()
    kind.simulate(kind.scenario(), seed=0)
    return name, time.perf_counter() - start


def warm(processes: int = 2) -> dict[str, float]:
    """Simulate every registered kind's default scenario over ``processes`` processes (see the
    module); seconds per kind, by name."""
    from kipviz.scenarios import SCENARIOS

    if processes < 1:
        raise ValueError(f"processes must be at least 1: {processes}")
    names = sorted(SCENARIOS, key=lambda n: -COMPILE_S.get(n, 0))
    if processes == 1:
        return dict(_simulate(name) for name in names)
    with ProcessPoolExecutor(max_workers=processes) as pool:
        return dict(pool.map(_simulate, names))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kipviz.scenarios.warm",
                                     description="compile the simulation kernels into numba's "
                                                 "cache")
    parser.add_argument("--processes", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error(f"--processes must be at least 1: {args.processes}")
    start = time.perf_counter()
    took = warm(args.processes)
    print(f"kernels ready in {time.perf_counter() - start:.0f} s ("
          + ", ".join(f"{name} {s:.0f} s" for name, s in took.items()) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
