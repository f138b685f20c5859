"""Comparing curve tables the chispa way (approximately, ignoring row order), and a dashboard's
curves before and after a refused move."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd


def assert_frames_close(actual: pd.DataFrame, expected: pd.DataFrame, by: Sequence[str]) -> None:
    """Equal up to row order and dtype width, floats to a relative 1e-9 (NaN equals NaN)."""
    assert list(actual.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(
        actual.sort_values(list(by), ignore_index=True),
        expected.sort_values(list(by), ignore_index=True),
        check_dtype=False, rtol=1e-9,
    )


def assert_curves_match(got: Any, expected: Mapping[str, tuple[Any, Mapping[str, str]]]) -> None:
    """Each collected table of ``got`` has its schema's dtypes, is sorted by its first column and
    equals the Spark DataFrame computed on its own (``expected``: name -> (DataFrame, schema))."""
    for name, (df, schema) in expected.items():
        table = getattr(got, name)
        assert table.dtypes.astype(str).to_dict() == schema, name
        key = next(iter(schema))
        assert table[key].is_monotonic_increasing, name
        assert_frames_close(table, df.toPandas()[list(schema)], by=[key])


def assert_refused_and_kept(dashboard: Any, params: Mapping[str, Any], message: str) -> None:
    """A bad move on ``dashboard`` shows ``message`` in its warning (never a traceback:
    ``update`` returns None) and leaves the figure's first trace as it was."""
    shown = list(dashboard.figure.data[0].y)
    assert dashboard.update(**params) is None
    assert message in dashboard.warning.value
    assert list(dashboard.figure.data[0].y) == shown
