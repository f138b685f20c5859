"""Timing and reporting helpers shared by every benchmark.

Every figure is printed as one JSON line (DESIGN.md, "Benchmarks")::

    {"benchmark": "kip74_consumer", "metric": "speedup_vs_simpy", "value": 123.4, "unit": "x",
     "target": ">= 100"}

Figures with a target are the ones judged; absolute times are informational (unit ``s``, no
target). Timings are medians of several repetitions after a warm-up.
"""

from __future__ import annotations

import gc
import importlib
import itertools
import json
import numbers
import statistics
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["COMPILED_REPEAT", "FLOOR_ROWS", "REFERENCE_REPEAT", "ROUNDS", "WARMUP", "SliderMoves",
           "Timing", "compare_kernel", "cycle_moves", "dashboard_latency", "emit", "note",
           "percentile", "spark_floor_job", "time_call", "time_each", "timed_rate"]

COMPILED_REPEAT = 21
"""Timed runs of a compiled kernel (:func:`compare_kernel`): its median is the figure."""
REFERENCE_REPEAT = 3
"""Timed runs of a reference (SimPy, plain Python): far slower, so fewer."""
WARMUP = 1
"""Untimed runs before the timed ones."""
FLOOR_ROWS = 100_000
"""Rows of the reference Spark job (:func:`spark_floor_job`)."""
ROUNDS = 3
"""Rounds of a dashboard benchmark: each times its share of the moves and as many reference
jobs, so both see the same load; the figures are medians over the rounds' p95s."""


@dataclass(frozen=True)
class Timing:
    """Wall-clock seconds of the timed repetitions (warm-up runs excluded)."""

    times_s: tuple[float, ...]
    warmup: int

    @property
    def median_s(self) -> float:
        return statistics.median(self.times_s)

    @property
    def p95_s(self) -> float:
        return percentile(self.times_s, 95)

    @property
    def repeat(self) -> int:
        return len(self.times_s)


def percentile(values: Any, q: float) -> float:
    """The q-th percentile with linear interpolation between closest ranks (numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"q must be in [0, 100]: {q}")
    pos = (len(ordered) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def time_call(fn: Callable[[], Any], *, repeat: int = 5, warmup: int = 1) -> Timing:
    """Run ``fn`` ``warmup`` times untimed, then ``repeat`` times timed (garbage collected
    before each run, so one run's garbage does not land on the next)."""
    if repeat < 1 or warmup < 0:
        raise ValueError(f"repeat must be >= 1 and warmup >= 0: {repeat}, {warmup}")
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return Timing(times_s=tuple(times), warmup=warmup)


def time_each(fn: Callable[[Any], Any], inputs: Sequence[Any], *, warmup: int = 0) -> Timing:
    """Call ``fn`` on each input in turn, the first ``warmup`` untimed (one slider move each,
    say): the distribution over different inputs rather than over repeats of one."""
    if not 0 <= warmup < len(inputs):
        raise ValueError(f"warmup must be in [0, len(inputs)): {warmup}, {len(inputs)}")
    for x in inputs[:warmup]:
        fn(x)
    times = []
    for x in inputs[warmup:]:
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return Timing(times_s=tuple(times), warmup=warmup)


def _rounded(value: float) -> float | int:
    if isinstance(value, numbers.Integral):
        return int(value)
    return float(f"{float(value):.4g}")


def emit(benchmark: str, metric: str, value: float, unit: str, target: str | None = None) -> None:
    """Print one figure as a JSON line; ``target`` (e.g. ``">= 100"``) only on judged figures."""
    line: dict[str, Any] = {"benchmark": benchmark, "metric": metric, "value": _rounded(value),
                            "unit": unit}
    if target is not None:
        line["target"] = target
    print(json.dumps(line), flush=True)


def note(benchmark: str, text: str) -> None:
    """Print an informational line (how a figure was measured, what was skipped and why)."""
    print(json.dumps({"benchmark": benchmark, "metric": "note", "value": text, "unit": ""}),
          flush=True)


def cycle_moves(values: Mapping[str, Sequence[Any]], count: int) -> list[dict[str, Any]]:
    """``count`` slider moves, one control at a time, each control cycling through its values."""
    cycles = {name: itertools.cycle(options) for name, options in values.items()}
    names = itertools.cycle(values)
    return [{name: next(cycles[name])} for name in itertools.islice(names, count)]


def spark_floor_job(spark: Any) -> Callable[[], Any]:
    """The reference Spark job every Spark-backed slider move pays at least: :data:`FLOOR_ROWS`
    rows from pandas (through Arrow), a groupBy, the result back to pandas. Returns the job as a
    function (its input built once)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = pd.DataFrame({"key": rng.integers(0, 100, FLOOR_ROWS).astype(np.int32),
                         "value": rng.random(FLOOR_ROWS)})

    def job() -> Any:
        df = spark.createDataFrame(rows)
        return df.groupBy("key").agg({"value": "sum"}).toPandas()

    return job


@dataclass(frozen=True)
class SliderMoves:
    """A dashboard benchmark: ``kipviz.widgets.<dashboard>(**overrides)`` moved one control at
    a time, each control cycling through its ``values`` (every one a setting the dashboard
    accepts), ``what`` naming the controls in words for the note."""

    dashboard: str
    values: Mapping[str, Sequence[Any]]
    what: str
    overrides: Mapping[str, Any] = field(default_factory=dict)

    def moves(self, count: int) -> list[dict[str, Any]]:
        """``count`` moves (:func:`cycle_moves`)."""
        return cycle_moves(self.values, count)

    def time(self, benchmark: str, warmup: int = 10, moves: int = 20) -> None:
        """:func:`dashboard_latency` of ``moves`` timed moves after ``warmup`` untimed ones."""
        dashboard_latency(benchmark, self.dashboard, self.moves(warmup + moves), warmup=warmup,
                          what=self.what, **self.overrides)


def dashboard_latency(benchmark: str, dashboard: str, moves: list[dict[str, Any]], *,
                      warmup: int, what: str, **overrides: Any) -> None:
    """Time slider moves on ``kipviz.widgets.<dashboard>(**overrides)`` against Spark's floor.

    Emits the p95 seconds of an update (re-simulate, Spark curves, redraw) and of the reference
    job (:func:`spark_floor_job`, ``spark_floor_p95_s``) on the dashboard's session, and their
    ratio ``update_vs_spark_floor_p95`` (target <= 2.5, issue 30): the timed moves are cut into
    :data:`ROUNDS` rounds, each followed by as many reference jobs, and every figure is the
    median over the rounds (a ratio of two figures measured under the same load). Also the
    median update and the CPU seconds each update used in Python and the Spark JVM.

    The first ``warmup`` moves (and two reference jobs) are untimed. A dashboard that is missing
    or fails to start (no Java, Spark not starting) is reported as a note, so the other figures
    still print; a move the dashboard rejects is an error, since it would time nothing.
    """
    try:
        factory = getattr(importlib.import_module("kipviz.widgets"), dashboard)
    except (ImportError, AttributeError) as err:
        note(benchmark, f"dashboard benchmark skipped: kipviz.widgets.{dashboard} missing ({err})")
        return
    try:
        d = factory(**overrides)
    except Exception as err:  # no Java, Spark failing to start: report, keep the other figures
        traceback.print_exc()
        note(benchmark, f"dashboard benchmark skipped: {dashboard} failed to start "
                        f"({type(err).__name__}: {err})")
        return

    cpu: list[float] = []

    def move(params: dict[str, Any]) -> None:
        start = _cpu_s()
        if d.update(**params) is None:
            raise RuntimeError(f"the dashboard rejected {params}: {d.warning.value}")
        cpu.append(_cpu_s() - start)

    floor = spark_floor_job(d.spark)
    for _ in range(2):
        floor()
    for params in moves[:warmup]:
        move(params)
    timed = moves[warmup:]
    size = max(1, len(timed) // ROUNDS)
    updates: list[Timing] = []
    floors: list[Timing] = []
    for r in range(ROUNDS):
        chunk = timed[r * size:(r + 1) * size] if r < ROUNDS - 1 else timed[r * size:]
        if not chunk:
            break
        updates.append(time_each(move, chunk))
        floors.append(time_call(floor, repeat=len(chunk), warmup=0))
    timed_cpu = cpu[warmup:]
    update_p95 = statistics.median(t.p95_s for t in updates)
    floor_p95 = statistics.median(t.p95_s for t in floors)
    ratio = statistics.median(u.p95_s / f.p95_s for u, f in zip(updates, floors, strict=True))
    settings = ", ".join(f"{k}={v!r}" for k, v in overrides.items())
    note(benchmark, f"dashboard: {dashboard}({settings}), {warmup} warm-up updates, then "
                    f"{len(timed)} slider moves cycling {what}, in {len(updates)} rounds each "
                    f"followed by as many reference Spark jobs ({FLOOR_ROWS:,} rows from pandas, "
                    f"a groupBy, back to pandas); p95 figures are medians over the rounds; "
                    f"update_cpu_* are the CPU seconds of Python and the Spark JVM per update "
                    f"(steadier than wall time on a shared machine)")
    emit(benchmark, "update_median_s",
         statistics.median(x for t in updates for x in t.times_s), "s")
    emit(benchmark, "update_p95_s", update_p95, "s")
    emit(benchmark, "spark_floor_p95_s", floor_p95, "s")
    emit(benchmark, "update_vs_spark_floor_p95", ratio, "x", target="<= 2.5")
    emit(benchmark, "update_cpu_median_s", statistics.median(timed_cpu), "s")
    emit(benchmark, "update_cpu_p95_s", percentile(timed_cpu, 95), "s")


def _cpu_s() -> float:
    """CPU seconds (user + system) used so far by this process and its live children (the
    Spark JVM)."""
    import psutil

    me = psutil.Process()
    total = sum(me.cpu_times()[:2])
    for child in me.children(recursive=True):
        try:
            total += sum(child.cpu_times()[:2])
        except psutil.Error:  # gone meanwhile
            continue
    return float(total)


def timed_rate(benchmark: str, label: str, run: Callable[[], Any], count: int, unit: str, *,
               repeat: int, warmup: int) -> float:
    """Time ``run`` (median of ``repeat`` after ``warmup``), emit ``<label>_median_s``,
    ``<label>_p95_s`` and ``<label>_<unit>_per_s``, and return ``count`` per second."""
    timing = time_call(run, repeat=repeat, warmup=warmup)
    rate = count / timing.median_s
    emit(benchmark, f"{label}_median_s", timing.median_s, "s")
    emit(benchmark, f"{label}_p95_s", timing.p95_s, "s")
    emit(benchmark, f"{label}_{unit.replace('-', '_')}_per_s", rate, f"{unit}/s")
    return rate



def compare_kernel(benchmark: str, *, compiled: Callable[[], Any], simpy: Callable[[], Any],
                   python: Callable[[], Any], count: int, unit: str, same_model: bool,
                   compiled_count: int | None = None, compiled_repeat: int = COMPILED_REPEAT,
                   repeat: int = REFERENCE_REPEAT, warmup: int = WARMUP,
                   simpy_warmup: int = 0,
                   variants: Mapping[str, tuple[Callable[[], Any], int]] | None = None) -> float:
    """A compiled kernel against its two references, and its rate.

    ``compiled`` is timed on ``compiled_count`` ``unit`` (``count`` when None; median of
    ``compiled_repeat`` after ``warmup``); the SimPy program ``simpy`` (after ``simpy_warmup``
    runs: the run that checked its tables is usually the warm-up) and the kernel as plain Python
    ``python`` (after ``warmup``) on ``count`` (median of ``repeat``). Emits each one's median,
    p95 and rate, then ``speedup_vs_simpy`` (target >= 100) and ``speedup_vs_python``: rates
    measured in this run. ``variants`` (``label -> (run, its count)``: the compiled kernel on
    other settings, e.g. another client's) are timed like ``compiled`` and each emits
    ``speedup_vs_simpy_<label>`` against the same SimPy rate. ``same_model`` False (the SimPy
    program's tables differ from the kernel's on this run) is said first: the ratio then compares
    different models."""
    note(benchmark, f"timing: the compiled kernel median of {compiled_repeat}, SimPy and plain "
                    f"Python of {repeat}, {warmup} warm-up run each; speedups are ratios of "
                    f"{unit}/s measured in this run")
    if not same_model:
        note(benchmark, "WARNING: the SimPy program's tables differ from the kernel's on the "
                        "benchmark setting: the speedup compares different models")
    rate = timed_rate(benchmark, "compiled", compiled,
                      count if compiled_count is None else compiled_count, unit,
                      repeat=compiled_repeat, warmup=warmup)
    simpy_rate = timed_rate(benchmark, "simpy", simpy, count, unit, repeat=repeat,
                            warmup=simpy_warmup)
    python_rate = timed_rate(benchmark, "python", python, count, unit, repeat=repeat,
                             warmup=warmup)
    emit(benchmark, "speedup_vs_simpy", rate / simpy_rate, "x", target=">= 100")
    emit(benchmark, "speedup_vs_python", rate / python_rate, "x")
    for label, (run, run_count) in (variants or {}).items():  # the same kernel, other settings
        variant_rate = timed_rate(benchmark, f"compiled_{label}", run, run_count, unit,
                                  repeat=compiled_repeat, warmup=warmup)
        emit(benchmark, f"speedup_vs_simpy_{label}", variant_rate / simpy_rate, "x",
             target=">= 100")
    return rate
