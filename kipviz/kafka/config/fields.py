"""The one declarative path from Kafka's settings to a field's check, for every scenario, config
class and mechanism argument.

A scenario field that is a Kafka setting is :func:`kafka_field` of its declaration
(:mod:`kipviz.kafka.config.declarations`): its default is Kafka's unless the scenario chooses its
own, its range is Kafka's unless the model needs a narrower one (said at the field), its Java type
bounds it (:data:`~kipviz.kafka.config.checks.JAVA_RANGES`), and its error message names the
field and the setting: ``fetch_max_bytes (fetch.max.bytes) must be an integer >= 0: -1``.
A model knob (ticks, rates of the workload) is :func:`knob`: the same checks, its own name; a
switch is :func:`flag`, a named option :func:`choice`, a name :func:`text`, a nested object
:func:`nested` and a tuple :func:`items`. :func:`check_declared` runs every field's
:class:`FieldRule` in field order; :func:`check_setting` checks a function argument that holds a
setting by the same rule; :func:`values_from` is the one mapping from Kafka configs
(:class:`~kipviz.kafka.config.settings.ConsumerConfig`, ``BrokerConfig``) to a scenario's fields,
derived from the declarations both sides share.

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
ValueError: fetch_max_bytes (fetch.max.bytes) must be an integer >= 0: -1
>>> Fetch(ticks="5")
Traceback (most recent call last):
ValueError: ticks must be an integer: '5'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kipviz.kafka.config.checks import (
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_text,
)
from kipviz.kafka.config.declarations import Setting

__all__ = ["KINDS", "FieldRule", "check_declared", "check_setting", "choice", "field_rule",
           "field_setting", "flag", "items", "kafka_field", "knob", "nested", "setting_rule",
           "text", "values_from"]

KINDS = ("int", "number", "bool", "choice", "text", "nested", "items")
"""What a :class:`FieldRule` may check: an integer, a real number, a bool, one of some options,
a non-empty string, an object of a class, a tuple of items (or of pairs)."""

_KAFKA: Any = object()  # "take it from the declaration"
_JAVA_INTEGERS = ("short", "int", "long")


@dataclass(frozen=True)
class FieldRule:
    """A field's check, by ``kind`` (:data:`KINDS`).

    Integers and numbers: ``>= at_least``, ``> above``, ``<= at_most``, within the range of Java
    type ``java`` (:data:`~kipviz.kafka.config.checks.JAVA_RANGES`; None: unbounded, for a number
    that is no Kafka setting), numbers ``finite`` unless said. ``choice``: one of ``options``.
    ``nested``: an instance of ``of``. ``items``: a tuple (any iterable but a string) whose items
    each pass ``of`` (a rule), or pairs whose parts pass ``of`` (``(name, rule)`` pairs),
    ``non_empty`` if said. ``None`` passes when ``optional``. ``label`` names the field in
    messages as ``field (label)`` (None: the field's name alone; a Kafka setting's key); ``rule``
    replaces the generated words of a ``choice`` or ``items`` message.
    """

    kind: str = "int"
    at_least: float | None = None
    above: float | None = None
    at_most: float | None = None
    java: str | None = "int64"
    finite: bool = True
    optional: bool = False
    label: str | None = None
    options: tuple[Any, ...] = ()
    of: Any = None
    non_empty: bool = False
    rule: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}: {self.kind!r}")

    @property
    def number(self) -> bool:
        """Whether the rule takes real numbers (not only integers)."""
        return self.kind == "number"

    def check(self, label: str, value: Any) -> Any:
        """``value`` (an ``int`` for an integer, a ``tuple`` for items) when it keeps the rule;
        otherwise ValueError ``<label> must be <rule>: <value>``."""
        if value is None and self.optional:
            return None
        if self.kind == "int":
            low = self.at_least if self.above is None else self.above + 1
            return check_int(label, value, None if low is None else int(low),
                             maximum=None if self.at_most is None else int(self.at_most),
                             java=self.java or "int64")
        if self.kind == "number":
            return check_number(label, value, self.above if self.above is not None
                                else self.at_least, strict=self.above is not None,
                                maximum=self.at_most, finite=self.finite, java=self.java)
        if self.kind == "bool":
            return check_bool(label, value)
        if self.kind == "choice":
            return check_choice(label, value, self.options, self.rule)
        if self.kind == "text":
            return check_text(label, value)
        if self.kind == "nested":
            if not isinstance(value, self.of):
                raise ValueError(f"{label} must be a {self.of.__name__}: {value!r}")
            return value
        return self._check_items(label, value)

    def _check_items(self, label: str, value: Any) -> tuple[Any, ...]:
        if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable) or (
                self.non_empty and not value):
            raise ValueError(f"{label} must be {self.rule or 'a tuple'}: {value!r}")
        found = tuple(value)
        if isinstance(self.of, FieldRule):
            return tuple(self.of.check(f"{label}[{i}]", item) for i, item in enumerate(found))
        names = [name for name, _ in self.of]
        out = []
        for i, item in enumerate(found):
            if isinstance(item, str | bytes) or not isinstance(item, Sequence) \
                    or len(item) != len(names):
                raise ValueError(f"{label}[{i}] must be a ({', '.join(names)}) pair: {item!r}")
            out.append(tuple(rule.check(_named(f"{label}[{i}] {name}", rule), part)
                             for (name, rule), part in zip(self.of, item, strict=True)))
        return tuple(out)


def _named(name: str, rule: FieldRule) -> str:
    return f"{name} ({rule.label})" if rule.label else name


def setting_rule(setting: Setting, *, at_least: Any = _KAFKA, at_most: Any = _KAFKA,
                 above: float | None = None, number: bool = False,
                 optional: bool | None = None, label: str | None = None) -> FieldRule:
    """The rule of Kafka ``setting``: its declared range (or the narrower one given), its Java
    type, ``None`` allowed when ``optional`` (default: when it has no default)."""
    return FieldRule(
        kind="number" if number else "int",
        at_least=setting.at_least if at_least is _KAFKA else at_least,
        at_most=setting.at_most if at_most is _KAFKA else at_most, above=above,
        java=setting.java if setting.java in _JAVA_INTEGERS else None,
        optional=setting.default is None if optional is None else optional,
        label=label or setting.key)


def kafka_field(setting: Setting, default: Any = _KAFKA, *, at_least: Any = _KAFKA,
                at_most: Any = _KAFKA, above: float | None = None, number: bool = False,
                optional: bool | None = None, label: str | None = None) -> Any:
    """A dataclass field holding Kafka ``setting``: Kafka's default and range unless given.

    ``label`` replaces the key in messages (``"broker fetch.max.bytes"``); ``number=True``
    takes reals (a rate in bytes/s); ``optional`` (default: the default is None) lets ``None``
    through (unset: Kafka's ``Long.MAX_VALUE``)."""
    value = setting.default if default is _KAFKA else default
    rule = setting_rule(setting, at_least=at_least, at_most=at_most, above=above, number=number,
                        optional=(setting.default is None or value is None)
                        if optional is None else optional, label=label)
    return field(default=value, metadata={"setting": setting, "rule": rule})


def _field(rule: FieldRule, default: Any, default_factory: Any = dataclasses.MISSING) -> Any:
    if default_factory is not dataclasses.MISSING:
        return field(default_factory=default_factory, metadata={"rule": rule})
    return field(default=default, metadata={"rule": rule})


def knob(default: Any = dataclasses.MISSING, *, default_factory: Callable[[], Any] | Any
         = dataclasses.MISSING, at_least: float | None = None, above: float | None = None,
         at_most: float | None = None, number: bool = False, optional: bool = False,
         java: str | None = None, label: str | None = None) -> Any:
    """A dataclass field for a model knob (not a Kafka setting), checked by the same path: an
    integer (a 64-bit one unless ``java`` names a narrower Java type) or, with ``number=True``, a
    finite real number."""
    return _field(FieldRule(kind="number" if number else "int", at_least=at_least, above=above,
                            at_most=at_most, java=java or (None if number else "int64"),
                            optional=optional, label=label), default, default_factory)


def flag(default: bool) -> Any:
    """A dataclass field holding True or False (``"no"`` is not False)."""
    return _field(FieldRule(kind="bool"), default)


def choice(default: Any, options: Iterable[Any], *, optional: bool = False,
           label: str | None = None, rule: str = "") -> Any:
    """A dataclass field holding one of ``options`` (``rule``: how a message says them)."""
    return _field(FieldRule(kind="choice", options=tuple(options), optional=optional,
                            label=label, rule=rule), default)


def text(default: str) -> Any:
    """A dataclass field holding a non-empty string."""
    return _field(FieldRule(kind="text"), default)


def nested(of: type, default_factory: Callable[[], Any]) -> Any:
    """A dataclass field holding an instance of ``of`` (which checks itself)."""
    return _field(FieldRule(kind="nested", of=of), dataclasses.MISSING, default_factory)


def items(default: tuple[Any, ...] | None = (), *,
          of: FieldRule | tuple[tuple[str, FieldRule], ...], rule: str,
          optional: bool = False, non_empty: bool = False) -> Any:
    """A dataclass field holding a tuple whose items each pass ``of`` (a rule), or pairs whose
    parts pass ``of`` (``(name, rule)`` pairs); any iterable but a string is taken and stored
    as a tuple. ``rule`` says what it holds (``"a tuple of partitions"``)."""
    return _field(FieldRule(kind="items", of=of, rule=rule, optional=optional,
                            non_empty=non_empty), default)


def check_setting(name: str, value: Any, setting: Setting, *, at_least: Any = _KAFKA,
                  at_most: Any = _KAFKA, above: float | None = None, number: bool = False,
                  optional: bool = False, label: str | None = None) -> Any:
    """Check a function argument ``name`` that holds Kafka ``setting`` by its declared range
    (or the narrower one given) and Java type; returns ``value`` (an ``int`` for an integer
    setting).

    >>> from kipviz.kafka.config.declarations import BROKER
    >>> check_setting("segment_bytes", 0, BROKER["log.segment.bytes"], at_least=1)
    Traceback (most recent call last):
    ValueError: segment_bytes (log.segment.bytes) must be an integer >= 1: 0
    """
    rule = setting_rule(setting, at_least=at_least, at_most=at_most, above=above, number=number,
                        optional=optional, label=label)
    return rule.check(_named(name, rule), value)


def field_setting(f: dataclasses.Field[Any]) -> Setting | None:
    """The Kafka setting a dataclass field holds (None: a model knob or an undeclared field)."""
    setting = f.metadata.get("setting")
    return setting if isinstance(setting, Setting) else None


def field_rule(f: dataclasses.Field[Any]) -> tuple[str, FieldRule] | None:
    """A declared field's message label (``name (key)``) and rule; None if it has none."""
    rule = f.metadata.get("rule")
    if not isinstance(rule, FieldRule):
        return None
    return _named(f.name, rule), rule


def check_declared(obj: Any, *, normalize: bool = False) -> None:
    """Check every declared field of dataclass ``obj``, in field order (ValueError on the
    first that breaks its rule, naming the field, the Kafka setting and the rule).

    A tuple field given as another iterable is stored as a tuple; with ``normalize``, every
    checked value is stored as the check returns it (numpy integers as ``int``)."""
    for f in dataclasses.fields(obj):
        found = field_rule(f)
        if found is None:
            continue
        value = getattr(obj, f.name)
        checked = found[1].check(found[0], value)
        if (normalize or found[1].kind == "items") and checked is not value:
            object.__setattr__(obj, f.name, checked)


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
