"""Argument checks shared by the mechanisms: errors name the argument, the rule and the value."""

from __future__ import annotations

import math
import numbers


def check_int(name: str, value: object, minimum: int | None = None) -> int:
    """``value`` as an int; ValueError unless it is an integer (not a bool) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer: {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}: {value}")
    return int(value)


def check_number(name: str, value: float, minimum: float, *, strict: bool = False) -> float:
    """``value`` itself; ValueError unless it is a real number >= (or >, if ``strict``)
    ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise ValueError(f"{name} must be a number: {value!r}")
    if value < minimum or (strict and value == minimum):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {minimum}: {value}")
    return value
