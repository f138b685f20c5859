"""Compile every kind's simulation kernel into numba's on-disk cache before the test workers
need it: ``make test``'s first step.

numba compiles a kernel the first time a process calls it and keeps the machine code in its
cache, under a digest of the sources (:mod:`kipviz.scenarios.jit`). On a fresh checkout nothing
is cached, and ``make test``'s pytest-xdist workers, each meeting a kernel first in a test of its
own, would compile the same code in both workers at once. ``python tools/warm.py --processes N``
simulates each registered kind's default scenario once, the kinds spread over ``N`` processes,
the slowest to compile first (:data:`LONGEST_FIRST`); every later process loads the kernels from
the cache.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["LONGEST_FIRST", "main", "warm"]

LONGEST_FIRST = ("reassignment", "share_group", "consumer", "streams", "tiered_fetch", "broker")
"""The built-in kinds, slowest kernel to compile first, so N processes end close together; a
kind not listed (one registered later) goes last."""


def _simulate(name: str) -> tuple[str, float]:
    """Run kind ``name``'s default scenario once (compiling or loading its kernel)."""
    from kipviz.scenarios import SCENARIOS

    kind = SCENARIOS[name]
    start = time.perf_counter()
    kind.simulate(kind.scenario(), seed=0)
    return name, time.perf_counter() - start


def _rank(name: str) -> int:
    return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)


def warm(processes: int = 2) -> dict[str, float]:
    """Simulate every registered kind's default scenario over ``processes`` processes (see the
    module); seconds per kind, by name."""
    from kipviz.scenarios import SCENARIOS

    if processes < 1:
        raise ValueError(f"processes must be at least 1: {processes}")
    names = sorted(SCENARIOS, key=_rank)
    if processes == 1:
        return dict(_simulate(name) for name in names)
    with ProcessPoolExecutor(max_workers=processes) as pool:
        return dict(pool.map(_simulate, names))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/warm.py",
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
