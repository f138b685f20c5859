"""Parameter sweeps as one Spark job, with a cache that holds each configuration once.

A sweep runs many configurations of a scenario (a grid, :func:`grid`, or a seeded random sample,
:func:`sample`) as one Spark job: the configurations are rows of a DataFrame, ``mapInPandas``
simulates each in a task and reduces it to summary metrics and downsampled curves
(:func:`summarise`), and the driver collects the rows once. Spark retries a lost task; since only
the collected rows are written, every configuration is cached exactly once.

The cache is one Parquet file per configuration under ``cache_dir/<scenario kind>/<key>.parquet``,
keyed by the scenario's parameters, the seed and the kipviz version (:func:`config_key`). A file
whose stored version, key or parameters do not match, or that cannot be read, is recomputed and
replaced, never shown.

Summary metrics (NaN where a scenario has no such quantity): ``peak_memory_bytes`` and
``p99_memory_bytes`` of what the mechanism holds (a consumer's retained fetch responses, KIP-74 and
KIP-81; a broker pool's requests, KIP-72; a reassigning follower's lag, KIP-73; a Streams
instance's input buffered after its polls, KIP-770) against ``bound_bytes`` (KIP-81's
``buffer.memory`` + largest response - 1, KIP-72's outstanding bound, KIP-770's shares + one fetch
per partition) and, for a consumer, ``kip74_bound_bytes``; ``min_jain_index`` /
``mean_jain_index`` over windows (across partitions for a consumer, KIP-74; across stream threads
for Streams, KIP-770); ``longest_starvation_fetches``; ``throughput_bytes_per_s``;
``move_time_s`` (KIP-73). Curves: per window, ``curve_window_ms``, ``curve_memory_bytes``,
``curve_throughput_bytes_per_s`` and ``curve_jain_index``.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import pickle
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

import kipviz

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["SUMMARY", "SweepResult", "config_key", "grid", "jain_by_window", "pareto_front",
           "sample", "summarise", "sweep", "thread_demand"]

SUMMARY = {
    "peak_memory_bytes": "float64", "p99_memory_bytes": "float64", "bound_bytes": "float64",
    "kip74_bound_bytes": "float64", "min_jain_index": "float64", "mean_jain_index": "float64",
    "longest_starvation_fetches": "float64", "throughput_bytes_per_s": "float64",
    "move_time_s": "float64",
}  # fmt: skip
CURVES = ("curve_window_ms", "curve_memory_bytes", "curve_throughput_bytes_per_s",
          "curve_jain_index")
_ROW = {"config_id": "int64", "key": "string", "kind": "string", "params": "string",
        "version": "string", **SUMMARY}
_SQL_TYPES = {"int64": "bigint", "string": "string", "float64": "double"}
_SCHEMA = ", ".join([*(f"{c} {_SQL_TYPES[t]}" for c, t in _ROW.items()),
                     "curve_window_ms array<bigint>", "curve_memory_bytes array<double>",
                     "curve_throughput_bytes_per_s array<double>",
                     "curve_jain_index array<double>"])


def grid(base: Any, **values: Sequence[Any]) -> list[Any]:
    """Every combination of ``values`` (field name -> values) applied to ``base`` with
    ``dataclasses.replace``, in row-major order; invalid combinations raise ``ValueError``."""
    names = list(values)
    return [replace(base, **dict(zip(names, combo, strict=True)))
            for combo in itertools.product(*(values[n] for n in names))]


def sample(base: Any, n: int, *, seed: int = 0, **values: Sequence[Any]) -> list[Any]:
    """``n`` configurations drawn uniformly (seeded) from the grid of ``values``, skipping
    combinations the scenario rejects; fewer if the grid has fewer valid points."""
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


def config_key(scenario: Any, seed: int) -> str:
    """The cache key: a hash of the scenario kind, its parameters, the seed and kipviz's version."""
    text = f"{type(scenario).__qualname__}|{scenario!r}|{seed}|{kipviz.__version__}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def jain_by_window(windows: pd.DataFrame) -> np.ndarray:
    """Jain's index per window over partitions with data, as :func:`kipviz.curves.fairness`
    computes it in Spark (max-min fair shares by water-filling), here in numpy for the tasks."""
    out = []
    for _, w in windows.groupby("window", sort=True):
        d = w["demand_bytes"].to_numpy(dtype=float)
        x = w["delivered_bytes"].to_numpy(dtype=float)
        keep = d > 0
        d, x = d[keep], x[keep]
        if len(d) == 0:
            out.append(math.nan)
            continue
        order = np.argsort(d, kind="stable")
        ds = d[order]
        smaller = np.concatenate([[0.0], np.cumsum(ds)[:-1]])
        cand = (x.sum() - smaller) / (len(ds) - np.arange(len(ds)))
        fits = np.nonzero(cand <= ds)[0]
        share = np.minimum(d, cand[fits[0]]) if len(fits) else d
        ratio = np.divide(x, share, out=np.ones_like(x), where=share > 0)
        out.append(ratio.sum() ** 2 / (len(ratio) * (ratio**2).sum()))
    return np.asarray(out)


def thread_demand(threads: pd.DataFrame, window_ms: int) -> pd.DataFrame:
    """A Streams trace's ``threads`` table as :func:`jain_by_window` input: per window and stream
    thread, the records it could have processed (``demand_bytes``) and did (``delivered_bytes``),
    as :func:`kipviz.curves.streams.thread_fairness` measures fairness across threads."""
    window = threads["time_ms"].to_numpy() // window_ms
    table = pd.DataFrame({"window": window, "thread": threads["thread"].to_numpy(),
                          "demand_bytes": threads["demand_records"].to_numpy(dtype=float),
                          "delivered_bytes": threads["processed_records"].to_numpy(dtype=float)})
    return table.groupby(["window", "thread"], sort=True, as_index=False).sum()


def summarise(scenario: Any, seed: int = 0) -> dict[str, Any]:
    """Simulate one configuration and reduce it to the summary metrics and curves (module doc)."""
    from kipviz.scenarios.broker import BrokerScenario
    from kipviz.scenarios.consumer import ConsumerScenario
    from kipviz.scenarios.reassignment import ReassignmentScenario
    from kipviz.scenarios.streams import StreamsScenario

    nan = math.nan
    row: dict[str, Any] = dict.fromkeys(SUMMARY, nan)
    jain, windows = np.full(0, nan), 20
    if isinstance(scenario, ConsumerScenario):
        from kipviz.scenarios.consumer import simulate

        t = simulate(scenario, seed=seed, record_fetches=False)
        memory, tick_ms = t.buffer["retained_bytes"].to_numpy(), t.meta["tick_ms"]
        consumed = t.memory["consumed_bytes"].to_numpy()
        jain = jain_by_window(t.windows)
        row.update(bound_bytes=t.meta.get("pooled_bound_bytes", nan),
                   kip74_bound_bytes=t.meta["kip74_bound_bytes"],
                   longest_starvation_fetches=t.windows["max_starvation_streak"].max())
        windows = scenario.windows
    elif isinstance(scenario, BrokerScenario):
        from kipviz.scenarios.broker import simulate as simulate_broker

        tb = simulate_broker(scenario, seed=seed)
        memory, tick_ms = tb.ticks["pool_used_bytes"].to_numpy(), tb.meta["tick_ms"]
        consumed = tb.ticks["bytes_read"].to_numpy()
        bound = tb.meta["outstanding_bound_bytes"]
        row["bound_bytes"] = nan if bound is None else bound
    elif isinstance(scenario, ReassignmentScenario):
        from kipviz.scenarios.reassignment import simulate as simulate_move

        tr = simulate_move(scenario)
        memory, tick_ms = tr.ticks["replica_lag_bytes"].to_numpy(), tr.meta["tick_ms"]
        consumed = tr.ticks["throttled_bytes"].to_numpy()
        done = tr.meta.get("completed_ms")
        row["move_time_s"] = nan if done is None else done / 1000.0
    elif isinstance(scenario, StreamsScenario):
        from kipviz.scenarios.streams import simulate as simulate_streams

        ts = simulate_streams(scenario, seed=seed)
        memory, tick_ms = ts.ticks["buffered_bytes_after_poll"].to_numpy(), ts.meta["tick_ms"]
        consumed = ts.ticks["processed_bytes"].to_numpy()
        row["bound_bytes"] = ts.meta["bytes_bound_bytes"]
        jain = jain_by_window(thread_demand(ts.threads, math.ceil(len(memory) / windows)
                                            * tick_ms))
    else:
        raise _unsweepable(scenario)
    if np.isfinite(jain).any():
        row.update(min_jain_index=np.nanmin(jain), mean_jain_index=np.nanmean(jain))
    row.update(peak_memory_bytes=float(memory.max()) if len(memory) else nan,
               p99_memory_bytes=float(np.percentile(memory, 99)) if len(memory) else nan,
               throughput_bytes_per_s=consumed.sum() * 1000.0 / (len(consumed) * tick_ms))
    edges = np.linspace(0, len(memory), min(windows, len(memory)) + 1).astype(int)
    row["curve_window_ms"] = (edges[:-1] * tick_ms).astype(np.int64)
    row["curve_memory_bytes"] = np.array([memory[a:b].max() for a, b in itertools.pairwise(edges)],
                                         dtype=float)
    row["curve_throughput_bytes_per_s"] = np.array(
        [consumed[a:b].sum() * 1000.0 / ((b - a) * tick_ms) for a, b in itertools.pairwise(edges)])
    row["curve_jain_index"] = np.asarray(jain, dtype=float)
    return {k: float(v) if k in SUMMARY else v for k, v in row.items()}


def _sweepable(scenario: Any) -> bool:
    from kipviz.scenarios.broker import BrokerScenario
    from kipviz.scenarios.consumer import ConsumerScenario
    from kipviz.scenarios.reassignment import ReassignmentScenario
    from kipviz.scenarios.streams import StreamsScenario

    return isinstance(scenario, ConsumerScenario | BrokerScenario | ReassignmentScenario
                      | StreamsScenario)


def _unsweepable(scenario: Any) -> ValueError:
    return ValueError(f"cannot sweep a {type(scenario).__name__}: a ConsumerScenario, "
                      f"BrokerScenario, ReassignmentScenario or StreamsScenario is needed")


def _run_partition(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """The ``mapInPandas`` task: simulate and summarise each configuration row."""
    for batch in batches:
        rows = []
        for config_id, key, seed, blob in zip(batch["config_id"], batch["key"], batch["seed"],
                                              batch["scenario"], strict=True):
            scenario = pickle.loads(blob)
            rows.append({"config_id": int(config_id), "key": key,
                         "kind": type(scenario).__name__, "params": repr(scenario),
                         "version": kipviz.__version__, **summarise(scenario, int(seed))})
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


def _read_cached(path: Path, key: str, scenario: Any) -> pd.DataFrame | None:
    """The cached row, or None when missing, unreadable, stale or for other parameters."""
    try:
        row = pd.read_parquet(path)
    except Exception:
        return None
    ok = (len(row) == 1 and row["key"].iloc[0] == key
          and row["version"].iloc[0] == kipviz.__version__
          and row["params"].iloc[0] == repr(scenario))
    return row if ok else None


def _write_cached(path: Path, row: pd.DataFrame) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    row.to_parquet(tmp, index=False)
    tmp.replace(path)  # atomic: a reader sees the old file or the whole new one


def sweep(spark: SparkSession, scenarios: Sequence[Any], *, seed: int = 0,
          cache_dir: str | os.PathLike[str] | None = None, partitions: int | None = None,
          progress: bool = False) -> SweepResult:
    """Summarise ``scenarios`` (see the module): cached ones are read, the rest run as one Spark
    job of ``partitions`` tasks (default: Spark's default parallelism, at most one per
    configuration) and join the cache. ``cache_dir`` None keeps nothing; ``progress`` shows a
    tqdm bar of finished tasks (classic Spark sessions)."""
    if not scenarios:
        raise ValueError("scenarios must hold at least one configuration")
    for scenario in scenarios:  # here, not as an error from inside a Spark task
        if not _sweepable(scenario):
            raise _unsweepable(scenario)
    cache = Path(cache_dir) if cache_dir is not None else None
    keys = [config_key(s, seed) for s in scenarios]
    found: dict[int, pd.DataFrame] = {}
    if cache is not None:
        for i, (s, key) in enumerate(zip(scenarios, keys, strict=True)):
            row = _read_cached(_cache_path(cache, s, key), key, s)
            if row is not None:
                found[i] = row.assign(config_id=i)
    missing = [i for i in range(len(scenarios)) if i not in found]
    if missing:
        got = _run(spark, [(i, keys[i], scenarios[i]) for i in missing], seed, partitions,
                   progress)
        for i in missing:
            row = got[got["config_id"] == i].reset_index(drop=True)
            if len(row) != 1:
                raise RuntimeError(f"configuration {i} came back {len(row)} times from Spark")
            found[i] = row
            if cache is not None:
                _write_cached(_cache_path(cache, scenarios[i], keys[i]), row)
    table = pd.concat([found[i] for i in range(len(scenarios))], ignore_index=True)
    table = table.astype({c: t for c, t in _ROW.items() if t != "string"})
    return SweepResult(table=table, scenarios=tuple(scenarios), computed=len(missing))


def _run(spark: SparkSession, rows: list[tuple[int, str, Any]], seed: int,
         partitions: int | None, progress: bool) -> pd.DataFrame:
    """One Spark job: the configurations as rows, ``mapInPandas`` over them, collected once."""
    params = pd.DataFrame({"config_id": [r[0] for r in rows], "key": [r[1] for r in rows],
                           "seed": seed, "scenario": [pickle.dumps(r[2]) for r in rows]})
    n = partitions or _default_parallelism(spark)
    df = spark.createDataFrame(params, "config_id bigint, key string, seed bigint, "
                                       "scenario binary")
    df = df.repartition(max(1, min(n, len(rows))))  # round robin: equal shares
    job = df.mapInPandas(_run_partition, schema=_SCHEMA)
    if not progress:
        return cast(pd.DataFrame, job.toPandas())
    return _with_progress(spark, job, max(1, min(n, len(rows))))


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
