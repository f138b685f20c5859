"""Parameter sweeps as one Spark job, with a cache that holds each configuration once.

A sweep runs many configurations of a scenario (a grid, :func:`grid`, or a seeded random sample,
:func:`sample`) as one Spark job: the configurations are rows of a DataFrame, ``mapInPandas``
simulates each in a task and reduces it to summary metrics and downsampled curves
(:func:`kipviz.curves.summary.summarise`), and the driver collects the rows once. Spark retries a
lost task; since only the collected rows are written, every configuration is cached exactly once.

The cache is one Parquet file per configuration under ``cache_dir/<scenario kind>/<key>.parquet``,
keyed by the scenario's canonical values, the seed and the kipviz version (:func:`config_key`). A
file whose stored version, key or parameters do not match, that lacks a metric or curve or holds
one of the wrong type, fails its checksum or cannot be read is recomputed and replaced, never
shown (:mod:`kipviz.curves.sweep_cache`). A ``cache_dir`` that cannot be written is reported
(:class:`CacheWarning`) before the Spark job; the results are returned all the same.

Each configuration is reduced by :func:`kipviz.curves.summary.summarise` (its metrics and curves are
documented there; ``SUMMARY``, ``CURVES`` and ``summarise`` are re-exported here), by its kind
in :data:`kipviz.scenarios.registry.SCENARIOS`: any registered kind with a ``summarise`` can be
swept, with no change here.
"""

from __future__ import annotations

import itertools
import math
import os
import pickle
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

import kipviz
from kipviz.curves.summary import CURVES, SUMMARY, check_sweepable, summarise
from kipviz.curves.sweep_cache import (
    CacheWarning,
    cache_folder,
    canonical_params,
    config_key,
    read_cached,
    writable_cache,
    write_cached,
)
from kipviz.scenarios import ScenarioKind

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["CURVES", "SUMMARY", "CacheWarning", "SweepResult", "config_key", "grid",
           "pareto_front", "sample", "summarise", "sweep", "valid_grid"]

_ROW = {"config_id": "int64", "key": "string", "kind": "string", "params": "string",
        "version": "string", **SUMMARY}
_SQL_TYPES = {"int64": "bigint", "string": "string", "float64": "double"}
_SCHEMA = ", ".join([*(f"{c} {_SQL_TYPES[t]}" for c, t in _ROW.items()),
                     "curve_window_ms array<bigint>", "curve_memory_bytes array<double>",
                     "curve_throughput_bytes_per_s array<double>",
                     "curve_jain_index array<double>"])


def _axes(values: Mapping[str, Any]) -> dict[str, Sequence[Any]]:
    """Each grid axis as a list; ValueError naming the axis when one is not a collection of
    values (a number, a string, a mapping)."""
    out: dict[str, Sequence[Any]] = {}
    for name, axis in values.items():
        if isinstance(axis, str | bytes | Mapping) or not isinstance(axis, Iterable):
            raise ValueError(f"{name} must be a list of values (one axis of the grid): {axis!r}")
        out[name] = list(axis)
    return out


def grid(base: Any, **values: Sequence[Any]) -> list[Any]:
    """Every combination of ``values`` (field name -> values) applied to ``base`` with
    ``dataclasses.replace``, in row-major order; invalid combinations raise ``ValueError``, and
    so does an axis that is no list of values."""
    values = _axes(values)
    names = list(values)
    return [replace(base, **dict(zip(names, combo, strict=True)))
            for combo in itertools.product(*(values[n] for n in names))]


def valid_grid(base: Any, **values: Sequence[Any]) -> list[Any]:
    """:func:`grid` without the combinations the scenario rejects (holes, not errors)."""
    values = _axes(values)
    out = []
    for combo in itertools.product(*values.values()):
        try:
            out.append(replace(base, **dict(zip(values, combo, strict=True))))
        except ValueError:
            continue  # a combination Kafka would reject
    return out


def sample(base: Any, n: int, *, seed: int = 0, **values: Sequence[Any]) -> list[Any]:
    """``n`` configurations drawn uniformly (seeded) from the grid of ``values``, skipping
    combinations the scenario rejects; fewer if the grid has fewer valid points."""
    values = _axes(values)
    rng = np.random.default_rng(seed)
    names = list(values)
    out: list[Any] = []
    seen: set[tuple[int, ...]] = set()
    sizes = [len(values[name]) for name in names]
    tries = 0
    while len(out) < n and len(seen) < math.prod(sizes) and tries < 20 * n:
        tries += 1
        pick = tuple(int(rng.integers(s)) for s in sizes)
        if pick in seen:
            continue
        seen.add(pick)
        try:
            out.append(replace(base, **{name: values[name][i]
                                        for name, i in zip(names, pick, strict=True)}))
        except ValueError:
            continue
    return out


def _run_partition(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """The ``mapInPandas`` task: simulate and summarise each configuration row."""
    for batch in batches:
        rows = []
        for config_id, key, seed, blob in zip(batch["config_id"], batch["key"], batch["seed"],
                                              batch["scenario"], strict=True):
            scenario, kind = pickle.loads(blob)  # the kind as the driver's registry had it
            params = canonical_params(scenario)
            rows.append({"config_id": int(config_id),
                         "key": key or config_key(scenario, int(seed), params),
                         "kind": type(scenario).__name__, "params": params,
                         "version": kipviz.__version__,
                         **summarise(scenario, int(seed), kind=kind)})
        yield pd.DataFrame(rows)


@dataclass(frozen=True)
class SweepResult:
    """One row per configuration, in the order given: ``table`` has ``config_id``, ``key``,
    ``kind``, ``params``, ``version``, the ``SUMMARY`` metrics and the ``curve_*`` arrays;
    ``scenarios`` the configurations; ``computed`` how many were simulated (not cached)."""

    table: pd.DataFrame
    scenarios: tuple[Any, ...]
    computed: int

    def with_params(self, *names: str) -> pd.DataFrame:
        """The summary metrics with the named scenario fields as leading columns."""
        params = pd.DataFrame([{n: getattr(s, n) for n in names} for s in self.scenarios])
        return pd.concat([params, self.table[list(SUMMARY)]], axis=1)


def _cache_path(cache_dir: Path, scenario: Any, key: str) -> Path:
    return cache_dir / type(scenario).__name__ / f"{key}.parquet"


def sweep(spark: SparkSession, scenarios: Sequence[Any], *, seed: int = 0,
          cache_dir: str | os.PathLike[str] | None = None, partitions: int | None = None,
          progress: bool = False) -> SweepResult:
    """Summarise ``scenarios`` (see the module): cached ones are read, the rest run as one Spark
    job of ``partitions`` tasks (default: Spark's default parallelism, at most one per
    configuration) and join the cache. ``cache_dir`` None keeps nothing; ``progress`` shows a
    tqdm bar of finished tasks (classic Spark sessions)."""
    if not scenarios:
        raise ValueError("scenarios must hold at least one configuration")
    # here, not as an error from inside a Spark task; the tasks get each kind with its
    # configuration, so a kind registered in the driver only is swept all the same
    kinds = [check_sweepable(scenario) for scenario in scenarios]
    cache = cache_folder(cache_dir)
    # the driver needs the keys only to look the cache up; without one the tasks work them out,
    # in parallel, from the canonical values they compute for the table anyway
    keys = [config_key(s, seed) for s in scenarios] if cache is not None else [""] * len(scenarios)
    found: dict[int, pd.DataFrame] = {}
    if cache is not None:
        for i, (s, key) in enumerate(zip(scenarios, keys, strict=True)):
            row = read_cached(_cache_path(cache, s, key), key, s)
            if row is not None:
                found[i] = row.assign(config_id=i)
    missing = [i for i in range(len(scenarios)) if i not in found]
    if missing and cache is not None:
        problem = writable_cache(cache)  # before the job, not after it
        if problem is not None:
            warnings.warn(f"{problem}; the sweep's results are returned but not stored",
                          CacheWarning, stacklevel=2)
            cache = None
    parts = [found[i] for i in sorted(found)]
    if missing:
        got = _run(spark, [(i, keys[i], (scenarios[i], kinds[i])) for i in missing], seed,
                   partitions, progress)
        got = got.sort_values("config_id", kind="stable").reset_index(drop=True)
        got.attrs = {}  # Spark Connect's toPandas puts its plan metrics there: not results
        counts = got["config_id"].value_counts()  # one count, not a filter per configuration
        asked = set(missing)
        for i in [*missing, *sorted(set(counts.index) - asked)]:
            if counts.get(i, 0) != (i in asked):
                raise RuntimeError(f"configuration {i} came back {counts.get(i, 0)} times from "
                                   f"Spark")
        for at, i in enumerate(got["config_id"] if cache is not None else ()):
            problem = write_cached(_cache_path(cast(Path, cache), scenarios[i], keys[i]),
                                   got.iloc[[at]].reset_index(drop=True))
            if problem:
                warnings.warn(f"{problem}; the sweep's results are returned, the rest of them "
                              f"not stored", CacheWarning, stacklevel=2)
                break
        parts.append(got)
    table = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    table = table.sort_values("config_id", kind="stable").reset_index(drop=True)
    table = table.astype({c: t for c, t in _ROW.items() if t != "string"})
    return SweepResult(table=table, scenarios=tuple(scenarios), computed=len(missing))


def _run(spark: SparkSession, rows: list[tuple[int, str, tuple[Any, ScenarioKind]]], seed: int,
         partitions: int | None, progress: bool) -> pd.DataFrame:
    """One Spark job: the configurations as rows, ``mapInPandas`` over them, collected once."""
    params = pd.DataFrame({"config_id": [r[0] for r in rows], "key": [r[1] for r in rows],
                           "seed": seed, "scenario": [pickle.dumps(r[2]) for r in rows]})
    tasks = max(1, min(partitions or _default_parallelism(spark), len(rows)))
    df = spark.createDataFrame(params, "config_id bigint, key string, seed bigint, "
                                       "scenario binary")
    if _split(df) != tasks:
        df = df.repartition(tasks)  # round robin: equal shares
    job = df.mapInPandas(_run_partition, schema=_SCHEMA)
    if not progress:
        return cast(pd.DataFrame, job.toPandas())
    return _with_progress(spark, job, tasks)


def _split(df: Any) -> int | None:
    """How many partitions ``df`` already has (None through Spark Connect, which does not say).
    A few configurations' rows are a local relation, which Spark splits evenly over the default
    parallelism: then the sweep needs no round-robin shuffle (whose JVM work would compete with
    the tasks for the cores), and a lost task is recomputed from the rows it was sent."""
    try:
        return int(df.rdd.getNumPartitions())
    except Exception:  # Spark Connect: no RDDs
        return None


def _default_parallelism(spark: SparkSession) -> int:
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:
        return int(spark.conf.get("spark.sql.shuffle.partitions", "2") or 2)


def _with_progress(spark: SparkSession, job: Any, tasks: int) -> pd.DataFrame:
    """Collect ``job`` while a tqdm bar follows its finished tasks (polled from Spark)."""
    from tqdm.auto import tqdm

    result: dict[str, Any] = {}

    def collect() -> None:
        try:
            result["table"] = job.toPandas()
        except BaseException as err:
            result["error"] = err

    worker = threading.Thread(target=collect, daemon=True)
    worker.start()
    with tqdm(total=tasks, desc="sweep", unit="task") as bar:
        while worker.is_alive():
            worker.join(0.5)
            bar.n = min(tasks, _finished_tasks(spark))
            bar.refresh()
        bar.n = tasks
        bar.refresh()
    if "error" in result:
        raise result["error"]
    return cast(pd.DataFrame, result["table"])


def _finished_tasks(spark: SparkSession) -> int:
    """Tasks finished in the active stages plus those of the mapInPandas stage just done."""
    try:
        tracker = spark.sparkContext.statusTracker()
    except Exception:
        return 0
    done = 0
    for stage_id in tracker.getActiveStageIds():
        info = tracker.getStageInfo(stage_id)
        if info is not None:
            done += info.numCompletedTasks
    return done


def pareto_front(table: pd.DataFrame, *, minimize: str, maximize: str) -> pd.DataFrame:
    """The rows no other row beats on both ``minimize`` (lower is better) and ``maximize``
    (higher is better), sorted by ``minimize``: the configurations worth choosing between."""
    rows = table.dropna(subset=[minimize, maximize]).sort_values([minimize, maximize],
                                                                 ascending=[True, False])
    best = -math.inf
    keep = []
    for index, value in rows[maximize].items():
        if value > best:
            keep.append(index)
            best = value
    return rows.loc[keep]
