"""The Spark SQL plumbing every curve module shares: trace tables into Spark, one SQL text for
several small results, their rows back by part, and the checks on trace tables and meta.

Spark is imported inside the functions (``import kipviz`` stays light).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kipviz.kafka.config.checks import check_choice, check_int, check_number

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

__all__ = ["JAIN_INDEX", "LOCAL_RELATION_ROWS", "collect_parts", "collect_union", "part_table",
           "require_columns", "require_meta", "require_windows", "run_sql", "spark_schema",
           "to_spark", "trace_tables", "union_all", "window_args"]

LOCAL_RELATION_ROWS = 10_000
_ARROW_LOCAL_RELATION_THRESHOLD = "spark.sql.execution.arrow.localRelationThreshold"
_SPARK_TYPES = {
    "int8": "ByteType", "int16": "ShortType", "int32": "IntegerType", "int64": "LongType",
    "float32": "FloatType", "float64": "DoubleType", "bool": "BooleanType",
    "boolean": "BooleanType", "object": "StringType", "string": "StringType",
}

JAIN_INDEX = "pow(sum(x), 2) / NULLIF(count(x) * sum(x * x), 0) AS jain_index"
"""Jain's index of the column ``x`` over a group's rows, J = (sum x)^2 / (n * sum x^2), NULL with
nothing to rate: :func:`kipviz.scenarios.fairness.jain_index` in SQL (the share-group and broker
fairness; the consumer's water-filled one is ``kipviz.curves.consumer.sql.JAIN``)."""


def require_windows(windows_table: Any, windows: int | None) -> int:
    """The number of windows a consumer trace's ``windows`` table has (the simulation cuts
    them: ``ConsumerScenario.windows``); ``windows``, every curve function's argument, must be
    None or that number."""
    have = int(windows_table["window"].max()) + 1 if len(windows_table) else 1
    if windows is not None:
        check_choice("windows", windows, (have,), f"None or the {have} windows the trace was "
                     f"simulated with (ConsumerScenario.windows)")
    return have


def require_meta(meta: dict[str, Any], keys: Iterable[str], windows: int | None = None) -> None:
    """ValueError unless ``trace.meta`` has ``keys`` (and ``windows``, if given, is an integer
    >= 1)."""
    for key in keys:
        if key not in meta:
            raise ValueError(f"trace.meta is missing {key!r}; it has {sorted(meta)}")
    if windows is not None:
        check_int("windows", windows, 1)


def require_columns(columns: Iterable[str], needed: Iterable[str], table: str) -> None:
    """ValueError unless ``columns`` has every ``needed`` column of trace table ``table``."""
    have = set(columns)
    for name in needed:
        if name not in have:
            raise ValueError(f"{table} table is missing column {name!r}; it has {sorted(have)}")


def spark_schema(pdf: pd.DataFrame) -> StructType:
    """The Spark schema for a pandas frame's dtypes (int32 -> int, int64 -> bigint, ...)."""
    from pyspark.sql import types as T

    fields = []
    for name, dtype in pdf.dtypes.items():
        kind = _SPARK_TYPES.get(str(dtype).lower())
        if kind is None:
            raise ValueError(f"column {name!r} has dtype {dtype}: kipviz cannot send it to Spark")
        fields.append(T.StructField(str(name), getattr(T, kind)(), nullable=True))
    return T.StructType(fields)


def to_spark(spark: SparkSession, pdf: pd.DataFrame) -> DataFrame:
    """Send a pandas trace table to Spark through Arrow with a schema taken from its dtypes.

    The explicit schema keeps int32 and int64 apart and lets empty tables through. A table of
    more than ``LOCAL_RELATION_ROWS`` rows becomes an Arrow-backed RDD, decoded in the tasks,
    rather than a ``LocalRelation`` held in the plan: the optimizer evaluates projections over a
    LocalRelation row by row (``ConvertToLocalRelation``) and every rule that walks the plan
    walks its rows, which on an 80k-row table cost more than running the job.
    """
    schema = spark_schema(pdf)
    if len(pdf) <= LOCAL_RELATION_ROWS:
        return spark.createDataFrame(pdf, schema=schema)
    with _arrow_rdd(spark):
        return spark.createDataFrame(pdf, schema=schema)


@contextmanager
def _arrow_rdd(spark: SparkSession) -> Iterator[None]:
    """Make ``createDataFrame`` from pandas build an Arrow RDD (classic Spark 4 sessions; older
    Spark always does, and Spark Connect sends its own local relation)."""
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        yield
        return
    old = spark.conf.get(_ARROW_LOCAL_RELATION_THRESHOLD, None)
    spark.conf.set(_ARROW_LOCAL_RELATION_THRESHOLD, "0")
    try:
        yield
    finally:
        if old is None:
            spark.conf.unset(_ARROW_LOCAL_RELATION_THRESHOLD)
        else:
            spark.conf.set(_ARROW_LOCAL_RELATION_THRESHOLD, old)


def window_args(window_ms: int, tick_ms: int | None) -> dict[str, Any]:
    """``window_ms`` and the ``span_ms`` a per-second rate divides by, for windowed tick queries:
    ``ticks * tick_ms`` when ``tick_ms`` is given (exact for a partial last window)."""
    check_number("window_ms", window_ms, 0, strict=True)
    if tick_ms is not None:
        check_number("tick_ms", tick_ms, 0, strict=True)
    return {"window_ms": int(window_ms),
            "span_ms": f"count(1) * {int(tick_ms)}" if tick_ms else int(window_ms)}


def run_sql(df: DataFrame, query: str, **frames: Any) -> DataFrame:
    """``query`` run in ``df``'s session, with ``frames`` as its ``{name}`` tables."""
    return df.sparkSession.sql(query, **frames)


def union_all(parts: Sequence[tuple[str, Iterable[str]]]) -> str:
    """One SQL text for several small result queries, so one job computes and collects them:
    their UNION ALL, each branch tagged ``_part`` = its place in ``parts`` and given every
    column of the others as NULL. ``parts``: (query, its output columns). One text is analysed
    once; a chain of ``unionByName`` re-analyses the growing plan at every step."""
    names = [list(columns) for _, columns in parts]
    every = list(dict.fromkeys(c for columns in names for c in columns))
    return "\nUNION ALL\n".join(
        f"SELECT {i} AS _part, "
        + ", ".join(c if c in columns else f"NULL AS {c}" for c in every)
        + f" FROM ({query})"
        for i, ((query, _), columns) in enumerate(zip(parts, names, strict=True))
    )


def part_table(got: Any, part: int, schema: dict[str, str]) -> pd.DataFrame:
    """The rows of one ``union_all`` branch of ``got`` (the union collected as a pyarrow Table,
    :func:`collect_union`), typed by ``schema`` and sorted by its first column. Integers come
    through exactly (through pandas, a column with NULLs on other branches' rows would be a
    float64 one: 2**63 - 1, Kafka's "no limit", came back as -2**63); a NULL where ``schema``
    wants an integer raises ValueError."""
    rows = got.take(np.flatnonzero(got.column("_part").to_numpy() == part))
    columns: dict[str, np.ndarray] = {}
    for name, dtype in schema.items():
        column = rows.column(name)
        want = np.dtype(dtype)
        if want.kind in "iu" and column.null_count:
            raise ValueError(f"column {name!r} has NULLs but is {dtype}")
        columns[name] = column.to_numpy(zero_copy_only=False).astype(want, copy=False)
    order = np.argsort(columns[next(iter(schema))], kind="stable")
    return pd.DataFrame({name: values[order] for name, values in columns.items()})


def collect_union(df: DataFrame) -> Any:
    """A ``union_all`` query's rows collected once, as a pyarrow Table (``DataFrame.toArrow``:
    no pandas conversion, integer columns kept exact), for :func:`part_table`."""
    return df.toArrow()


def trace_tables(spark: SparkSession, trace: Any, inputs: Mapping[str, Sequence[str]], *,
                 spread: Collection[str] = ()) -> dict[str, DataFrame]:
    """The trace tables named in ``inputs`` (table -> the columns the curves read), checked with
    :func:`require_columns` and sent to Spark with only those columns, each in one partition (so
    every GROUP BY runs in one task, with no shuffle) except the tables named in ``spread``."""
    for name, columns in inputs.items():
        require_columns(getattr(trace, name).columns, columns, name)
    frames = {}
    for name, columns in inputs.items():
        df = to_spark(spark, getattr(trace, name)[list(columns)])
        frames[name] = df if name in spread else df.coalesce(1)
    return frames


def collect_parts(spark: SparkSession, parts: Sequence[tuple[str, Mapping[str, str]]],
                  **frames: Any) -> list[pd.DataFrame]:
    """Several small results computed and collected in one Spark job: the ``union_all`` of
    ``parts`` (query, output schema) over ``frames`` (the queries' ``{name}`` tables), collected
    once as an Arrow table and split back into one table per part, typed by its schema and
    sorted by its first column (:func:`part_table`)."""
    got = collect_union(spark.sql(union_all(parts), **frames))
    return [part_table(got, i, dict(schema)) for i, (_, schema) in enumerate(parts)]
