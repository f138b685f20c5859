"""Argument checks shared by the mechanisms: errors name the argument, the rule and the value.

Also Kafka's topic-name rule (``Topic.validate``: 1 to 249 characters of ``[a-zA-Z0-9._-]``,
not ``.`` or ``..``).
"""

from __future__ import annotations

import math
import numbers
import re

__all__ = ["check_int", "check_number", "check_topic_name"]

_TOPIC = re.compile(r"[a-zA-Z0-9._-]+")
_TOPIC_MAX = 249  # Topic.MAX_NAME_LENGTH


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
