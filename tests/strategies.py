"""Shared Hypothesis strategies (one place, as attrs does it)."""

from __future__ import annotations

from hypothesis import strategies as st

batch_sizes = st.integers(min_value=1, max_value=5_000)
partition_logs = st.lists(st.lists(batch_sizes, max_size=6), min_size=1, max_size=12)
byte_limits = st.integers(min_value=0, max_value=20_000)
