"""Byte and time units and the formatters that print them: the lowest layer, so every layer
imports its ``MiB`` from here instead of defining one.

Binary sizes (``KiB``, ``MiB``, ``GiB``) are how Kafka's byte settings default (``fetch.max.bytes``
= 50 MiB = 52428800, ``ConsumerConfig.DEFAULT_FETCH_MAX_BYTES``); decimal ones (``KB``, ``MB``,
``GB``) are how Kafka's docs and quotas give rates (``kafka-reassign-partitions --throttle`` in
bytes/s, read as MB/s). Each formatter keeps the exact text its old callers printed (nbval
compares lesson outputs), so similar ones stay apart where their text differs.

>>> byte_label(1024 * 1024), byte_label(512 * 1024), byte_label(30)
('1 MiB', '512 KiB', '30 B')
>>> mib_or_kib(1536 * 1024), mib_or_kib(100 * 1024)
('1.5 MiB', '100.0 KiB')
>>> bytes_and_mib(52428800)
'52,428,800 bytes (50.0 MiB)'
>>> hours(5400), hours(None), hours(float("inf")), hours(None, missing="not within the run")
('1.50 h', '-', 'never', 'not within the run')
"""

from __future__ import annotations

import math

__all__ = ["GB", "KB", "MB", "S_PER_HOUR", "GiB", "KiB", "MiB", "byte_label",
           "bytes_and_mib", "gib", "hours", "in_hours", "mib", "mib_or_kib", "mib_per_s"]

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB
KB = 1_000
MB = 1_000_000
GB = 1_000_000_000

S_PER_HOUR = 3600


def byte_label(value: float) -> str:
    """A byte count in B, KiB or MiB, exact (``1 MiB``, ``512 KiB``, ``30 B``)."""
    if abs(value) < KiB:
        return f"{value:g} B"
    return f"{value / MiB:g} MiB" if abs(value) >= MiB else f"{value / KiB:g} KiB"


def mib(n: float) -> str:
    """MiB with one decimal and thousands separators (``1,234.5 MiB``)."""
    return f"{n / MiB:,.1f} MiB"


def mib_or_kib(n: float) -> str:
    """MiB, or KiB below 1 MiB (so small peaks and bounds do not all read 0.0 MiB)."""
    return mib(n) if n >= MiB else f"{n / KiB:,.1f} KiB"


def bytes_and_mib(n: float) -> str:
    """Bytes, then MiB: ``52,428,800 bytes (50.0 MiB)``."""
    return f"{n:,.0f} bytes ({n / MiB:,.1f} MiB)"


def gib(n: float) -> str:
    """GiB with one decimal and thousands separators (``1.5 GiB``)."""
    return f"{n / GiB:,.1f} GiB"


def mib_per_s(value: float) -> str:
    """A rate in MiB/s, exact (``8 MiB/s``)."""
    return f"{value / MiB:g} MiB/s"


def hours(seconds: float | None, missing: str = "-") -> str:
    """Seconds as hours with two decimals (``1.50 h``); ``never`` when infinite, ``missing``
    when None."""
    if seconds is None:
        return missing
    return "never" if math.isinf(seconds) else f"{seconds / S_PER_HOUR:.2f} h"


def in_hours(seconds: float | None) -> float | None:
    """Seconds as a number of hours, None when there is none (None, infinite or nan): a figure's
    gap rather than a point."""
    return None if seconds is None or not math.isfinite(seconds) else seconds / S_PER_HOUR
