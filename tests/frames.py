"""Comparing curve tables the chispa way: approximately, ignoring row order."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd


def assert_frames_close(actual: pd.DataFrame, expected: pd.DataFrame, by: Sequence[str]) -> None:
    """Equal up to row order and dtype width, floats to a relative 1e-9 (NaN equals NaN)."""
    assert list(actual.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(
        actual.sort_values(list(by), ignore_index=True),
        expected.sort_values(list(by), ignore_index=True),
        check_dtype=False, rtol=1e-9,
    )  # fmt: skip
