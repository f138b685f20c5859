"""The argument checks every setting, knob and mechanism argument goes through, and the one table
of Java ranges (:data:`JAVA_RANGES`).

Every error is a ``ValueError`` in one shape, ``<label> must be <rule>: <value>``; the label is the
argument's name, followed by its Kafka key in parentheses where it has one
(``fetch_min_bytes (fetch.min.bytes) must be an integer: '5'``, ``partitions must be an integer
>= 1: -1``). A value of the wrong type shows its ``repr``, one out of range its ``str``.

Also Kafka's topic-name rule (``Topic.validate``: 1 to 249 characters of ``[a-zA-Z0-9._-]``,
not ``.`` or ``..``).

>>> check_int("fetch_min_bytes (fetch.min.bytes)", 2**31, 0, java="int")  # doctest: +ELLIPSIS
Traceback (most recent call last):
ValueError: fetch_min_bytes (fetch.min.bytes) must be an integer <= 2147483647 (a Java int): ...
>>> check_int("partitions", -1, 1)
Traceback (most recent call last):
ValueError: partitions must be an integer >= 1: -1
>>> check_number("consume_bytes_per_s", float("inf"), 0, finite=True)
Traceback (most recent call last):
ValueError: consume_bytes_per_s must be a finite number: inf
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

__all__ = ["JAVA_RANGES", "bounds_text", "check_bool", "check_choice", "check_int",
           "check_not_both", "check_number", "check_text", "check_topic_name"]

JAVA_RANGES: dict[str, tuple[int, int, str]] = {
    "short": (-(2**15), 2**15 - 1, "a Java short"),
    "int": (-(2**31), 2**31 - 1, "a Java int"),
    "long": (-(2**63), 2**63 - 1, "a Java long"),
    "int64": (-(2**63), 2**63 - 1, "a 64-bit integer"),
}
"""Java type -> (lowest, highest, its name in messages): the range an integer setting must fit
(``ConfigDef.Type``: ``Integer.parseInt``, ``Long.parseLong``); ``int64`` is the kernels' integer,
for model knobs that are not Kafka settings."""

_TOPIC = re.compile(r"[a-zA-Z0-9._-]+")
_TOPIC_MAX = 249  # Topic.MAX_NAME_LENGTH


def _shown(bound: float) -> str:
    """A bound as a reader writes it: ``0`` rather than ``0.0``."""
    if isinstance(bound, float) and bound.is_integer():
        return str(int(bound))
    return str(bound)


def bounds_text(low: float | None = None, high: float | None = None, *,
                strict: bool = False) -> str:
    """``>= low``, ``> low`` (``strict``), ``<= high`` or both joined by ``and``; ``""`` if none."""
    parts = ([] if low is None else [f"{'>' if strict else '>='} {_shown(low)}"]) + (
        [] if high is None else [f"<= {_shown(high)}"])
    return " and ".join(parts)


def _rule(what: str, low: float | None, high: float | None, strict: bool = False) -> str:
    bounds = bounds_text(low, high, strict=strict)
    return f"{what} {bounds}" if bounds else what


def check_int(name: str, value: object, minimum: int | None = None, *,
              maximum: int | None = None, java: str = "int64") -> int:
    """``value`` as an int; ValueError unless it is an integer (not a bool) within
    ``minimum`` .. ``maximum`` and the range of Java type ``java`` (:data:`JAVA_RANGES`)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer: {value!r}")
    number = int(value)
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise ValueError(f"{name} must be {_rule('an integer', minimum, maximum)}: {value}")
    low, high, java_name = JAVA_RANGES[java]
    if not low <= number <= high:
        side = f"<= {high}" if number > high else f">= {low}"
        raise ValueError(f"{name} must be an integer {side} ({java_name}): {value}")
    return number


def check_number(name: str, value: object, minimum: float | None = None, *,
                 strict: bool = False, maximum: float | None = None, finite: bool = False,
                 java: str | None = None) -> float:
    """``value`` itself; ValueError unless it is a real number, not nan (nor infinite when
    ``finite``), >= (or >, if ``strict``) ``minimum``, <= ``maximum`` and, for a Kafka ``long``
    setting held as a number (``java``), within that Java type's range."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real) \
            or math.isnan(value):
        raise ValueError(f"{name} must be a number: {value!r}")
    number = cast(float, value)  # compared as it is: a huge int is not rounded to a float
    if finite and math.isinf(number):
        raise ValueError(f"{name} must be a finite number: {value!r}")
    if ((minimum is not None and (number < minimum or (strict and number == minimum)))
            or (maximum is not None and number > maximum)):
        raise ValueError(f"{name} must be {_rule('a number', minimum, maximum, strict)}: {value}")
    if java is not None:
        low, high, java_name = JAVA_RANGES[java]
        if not low <= number <= high:
            side = f"<= {high}" if number > high else f">= {low}"
            raise ValueError(f"{name} must be a number {side} ({java_name}): {value}")
    return number


def check_bool(name: str, value: object) -> bool:
    """``value`` as a bool; ValueError unless it is True or False (numpy's too)."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False: {value!r}")
    return bool(value)


def check_choice(name: str, value: Any, options: Sequence[Any], rule: str = "") -> Any:
    """``value`` itself; ValueError unless it is one of ``options`` (a bool or a float never is,
    though ``True == 1`` and ``1.0 == 1``); ``rule`` replaces the listed options in the message."""
    valid = not isinstance(value, bool | float | np.bool_) and any(
        value == option for option in options)
    if not valid:
        listed = rule or f"one of {', '.join(repr(option) for option in options)}"
        raise ValueError(f"{name} must be {listed}: {value!r}")
    return value


def check_not_both(first: str, first_value: object, second: str, second_value: object) -> None:
    """ValueError ``give <first> or <second>, not both`` when neither value is None: two
    arguments that each decide the same thing (the one "not both" verdict)."""
    if first_value is not None and second_value is not None:
        raise ValueError(f"give {first} or {second}, not both")


def check_text(name: str, value: object) -> str:
    """``value`` itself; ValueError unless it is a non-empty string."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string: {value!r}")
    return value


def check_topic_name(topic: object, where: str = "topic") -> str:
    """``topic`` if Kafka accepts it as a topic name (``Topic.validate``), else ValueError."""
    if not isinstance(topic, str) or not topic:
        raise ValueError(f"{where}: topic must be a non-empty string: {topic!r}")
    if topic in (".", ".."):
        raise ValueError(f"{where}: topic name cannot be '.' or '..': {topic!r}")
    if len(topic) > _TOPIC_MAX:
        raise ValueError(f"{where}: topic name must be at most {_TOPIC_MAX} characters long: "
                         f"{len(topic)} characters")
    if not _TOPIC.fullmatch(topic):
        raise ValueError(f"{where}: topic name {topic!r} is illegal, it contains a character "
                         f"other than ASCII alphanumerics, '.', '_' and '-'")
    return topic
