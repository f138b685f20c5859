"""The one declarative path from Kafka's settings to a scenario's fields and their checks.

A scenario field that is a Kafka setting is :func:`kafka_field` of its declaration
(:mod:`kipviz.kafka.config.declarations`): its default is Kafka's unless the scenario chooses its
own, its range is Kafka's unless the model needs a narrower one (said at the field), and its error
message names the field and the setting, ``'fetch_max_bytes (fetch.max.bytes) must be >= 0: -1'``.
A model-only knob (ticks, rates of the workload) is :func:`knob`: the same checks, its own name.
:func:`check_declared` runs every field's check in field order; :func:`values_from` is the one
mapping from Kafka configs (:class:`~kipviz.kafka.config.settings.ConsumerConfig`, ``BrokerConfig``)
to a scenario's fields, derived from the declarations both sides share.

>>> from dataclasses import dataclass
>>> from kipviz.kafka.config.declarations import CONSUMER
>>> @dataclass(frozen=True)
... class Fetch:
...     fetch_max_bytes: int = kafka_field(CONSUMER["fetch.max.bytes"])
...     ticks: int = knob(1000, at_least=1)
...     def __post_init__(self) -> None:
...         check_declared(self)
>>> Fetch().fetch_max_bytes
52428800
>>> Fetch(fetch_max_bytes=-1)
Traceback (most recent call last):
ValueError: fetch_max_bytes (fetch.max.bytes) must be >= 0: -1
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kipviz.kafka.config.checks import check_int, check_number
from kipviz.kafka.config.declarations import Setting

__all__ = ["FieldRule", "check_declared", "check_setting", "field_rule", "field_setting",
           "kafka_field", "knob", "values_from"]

_KAFKA: Any = object()  # "take it from the declaration"


@dataclass(frozen=True)
class FieldRule:
    """A field's check: an integer (``number=False``) or a real number, ``>= at_least``,
    ``> above``, ``<= at_most``, ``None`` allowed when ``optional``; ``label`` names it in
    messages as ``field (label)`` (None: the field's name alone; a Kafka setting's key)."""

    at_least: float | None = None
    above: float | None = None
    at_most: float | None = None
    number: bool = False
    optional: bool = False
    label: str | None = None

    def check(self, label: str, value: Any) -> None:
        """ValueError naming ``label``, the rule and ``value`` when ``value`` breaks the rule."""
        if value is None and self.optional:
            return
        if self.number:
            low = self.above if self.above is not None else self.at_least
            if low is None:
                low = float("-inf")
            check_number(label, value, low, strict=self.above is not None)
        else:
            minimum = self.at_least if self.above is None else self.above + 1
            check_int(label, value, None if minimum is None else int(minimum))
        if self.at_most is not None and value > self.at_most:
            raise ValueError(f"{label} must be <= {self.at_most}: {value}")


def kafka_field(setting: Setting, default: Any = _KAFKA, *, at_least: Any = _KAFKA,
                at_most: Any = _KAFKA, above: float | None = None, number: bool = False,
                optional: bool | None = None, label: str | None = None) -> Any:
    """A dataclass field holding Kafka ``setting``: Kafka's default and range unless given.

    ``label`` replaces the key in messages (``"broker fetch.max.bytes"``); ``number=True``
    takes reals (a rate in bytes/s); ``optional`` (default: the declared default is None)
    lets ``None`` through (unset: Kafka's ``Long.MAX_VALUE``)."""
    value = setting.default if default is _KAFKA else default
    rule = FieldRule(
        at_least=setting.at_least if at_least is _KAFKA else at_least,
        at_most=setting.at_most if at_most is _KAFKA else at_most, above=above, number=number,
        optional=(setting.default is None or value is None) if optional is None else optional,
        label=label or setting.key)
    return field(default=value, metadata={"setting": setting, "rule": rule})


def knob(default: Any = dataclasses.MISSING, *, default_factory: Callable[[], Any] | Any
         = dataclasses.MISSING, at_least: float | None = None, above: float | None = None,
         at_most: float | None = None, number: bool = False, optional: bool = False) -> Any:
    """A dataclass field for a model knob (not a Kafka setting), checked by the same path."""
    rule = FieldRule(at_least=at_least, above=above, at_most=at_most, number=number,
                     optional=optional)
    if default_factory is not dataclasses.MISSING:
        return field(default_factory=default_factory, metadata={"rule": rule})
    return field(default=default, metadata={"rule": rule})


def check_setting(name: str, value: Any, setting: Setting, *, at_least: Any = _KAFKA,
                  at_most: Any = _KAFKA, above: float | None = None, number: bool = False,
                  optional: bool = False, label: str | None = None) -> Any:
    """Check a function argument ``name`` that holds Kafka ``setting`` by its declared range
    (or the narrower one given); returns ``value`` (an ``int`` for an integer setting).

    >>> from kipviz.kafka.config.declarations import BROKER
    >>> check_setting("segment_bytes", 0, BROKER["log.segment.bytes"], at_least=1)
    Traceback (most recent call last):
    ValueError: segment_bytes (log.segment.bytes) must be >= 1: 0
    """
    rule = FieldRule(at_least=setting.at_least if at_least is _KAFKA else at_least,
                     at_most=setting.at_most if at_most is _KAFKA else at_most, above=above,
                     number=number, optional=optional)
    rule.check(f"{name} ({label or setting.key})", value)
    return value if number or value is None else int(value)


def field_setting(f: dataclasses.Field[Any]) -> Setting | None:
    """The Kafka setting a dataclass field holds (None: a model knob or an undeclared field)."""
    setting = f.metadata.get("setting")
    return setting if isinstance(setting, Setting) else None


def field_rule(f: dataclasses.Field[Any]) -> tuple[str, FieldRule] | None:
    """A declared field's message label (``name (key)``) and rule; None if it has none."""
    rule = f.metadata.get("rule")
    if not isinstance(rule, FieldRule):
        return None
    return (f"{f.name} ({rule.label})" if rule.label else f.name), rule


def check_declared(obj: Any) -> None:
    """Check every declared field of dataclass ``obj``, in field order (ValueError on the
    first that breaks its rule, naming the field, the Kafka setting and the rule)."""
    for f in dataclasses.fields(obj):
        found = field_rule(f)
        if found is not None:
            found[1].check(found[0], getattr(obj, f.name))


def values_from(cls: type, *configs: Any) -> dict[str, Any]:
    """Field name -> value for every field of dataclass ``cls`` whose Kafka setting one of
    ``configs`` (Kafka config objects, or None) declares: the one scenario <-> config mapping."""
    by_setting: dict[tuple[str, str], Any] = {}
    for config in configs:
        if config is None:
            continue
        for f in dataclasses.fields(config):
            setting = field_setting(f)
            if setting is not None:
                by_setting[setting.role, setting.key] = getattr(config, f.name)
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        setting = field_setting(f)
        if setting is not None and (setting.role, setting.key) in by_setting:
            out[f.name] = by_setting[setting.role, setting.key]
    return out
