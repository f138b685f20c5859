"""What every Kafka config class shares: declared settings, validation, ``.properties`` import.

Each modelled setting is a dataclass field made by
:func:`~kipviz.kafka.config.fields.kafka_field` from its declaration
(:mod:`kipviz.kafka.config.declarations`: Kafka key, Java type, ``ConfigDef`` range, default);
:class:`KafkaSettings` validates every field by it (the scenarios' one path,
:func:`~kipviz.kafka.config.fields.check_declared`), maps fields to Kafka keys and reads
``.properties`` files (:mod:`kipviz.kafka.config.properties`), checking each key against Kafka's own
lists (:mod:`kipviz.kafka.config.keys`).
"""

from __future__ import annotations

import dataclasses
import numbers
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Self, TypeVar

from kipviz.kafka.config.checks import check_bool
from kipviz.kafka.config.declarations import Setting
from kipviz.kafka.config.fields import check_declared, field_rule
from kipviz.kafka.config.keys import KafkaConfigWarning, is_known, unknown_key_message
from kipviz.kafka.config.properties import read_properties

__all__ = ["KafkaSettings", "LoadedConfig"]

_INTEGER = re.compile(r"[+-]?[0-9]+")  # Integer.parseInt / Long.parseLong after trim()


def _setting_of(f: dataclasses.Field[Any]) -> Setting:
    setting = f.metadata["setting"]
    assert isinstance(setting, Setting)
    return setting


ConfigT = TypeVar("ConfigT", bound="KafkaSettings")


@dataclass(frozen=True)
class LoadedConfig(Generic[ConfigT]):
    """What ``from_properties`` read: the ``config``, the real Kafka keys it ``ignored`` (not
    modelled), the ``unknown`` keys (Kafka does not define them) and a warning for each."""

    config: ConfigT
    ignored: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class KafkaSettings:
    """Shared behaviour: per-field validation, Kafka key mapping and .properties import.

    Messages name the field, the Kafka key, the rule and the value (``fetch_max_bytes
    (fetch.max.bytes) must be an integer >= 1024: 1000``), for a value of the wrong type too;
    numpy integers are stored as ``int``."""

    _ROLE: ClassVar[str] = ""

    def __post_init__(self) -> None:
        check_declared(self, normalize=True)
        self._check_together()

    def _check_together(self) -> None:
        """Rules that relate two settings (none by default)."""

    @classmethod
    def kafka_keys(cls) -> dict[str, str]:
        """Field name -> Kafka key, e.g. ``{"fetch_max_bytes": "fetch.max.bytes", ...}``."""
        return {f.name: _setting_of(f).key for f in dataclasses.fields(cls)}

    @classmethod
    def from_properties(cls, source: str | os.PathLike[str] | Mapping[str, object], *,
                        strict: bool = False, kafka_version: str | None = None
                        ) -> LoadedConfig[Self]:
        """Read a ``.properties`` file (path) or a mapping of Kafka keys to values.

        Values are integers as Kafka parses them (surrounding whitespace stripped). Keys kipviz
        models set fields; other keys Kafka defines (:mod:`kipviz.kafka.config.keys`, in
        ``kafka_version`` or, if None, in any version) are listed in ``ignored`` (in file order).
        A key Kafka does not define is what Kafka ignores too: a :class:`KafkaConfigWarning`
        naming it, the closest known key and that the Kafka default is used, listed in
        ``unknown`` and ``warnings``; ``strict=True`` raises ``ValueError`` instead. Files are
        read as ISO-8859-1, as Kafka's ``Utils.loadProps`` (``Properties.load``) does.
        """
        check_bool("strict", strict)
        entries = source if isinstance(source, Mapping) else read_properties(source)
        fields_by_key = {key: name for name, key in cls.kafka_keys().items()}
        labels = {f.name: found[0] for f in dataclasses.fields(cls)
                  if (found := field_rule(f)) is not None}
        values: dict[str, int] = {}
        ignored: list[str] = []
        unknown: list[str] = []
        notes: list[str] = []
        for key, raw in entries.items():
            if not isinstance(key, str):
                raise ValueError(f"a {cls._ROLE} config key must be a string: {key!r}")
            if key in fields_by_key:
                name = fields_by_key[key]
                values[name] = _parse_int(labels[name], raw)
            elif is_known(cls._ROLE, key, kafka_version):
                ignored.append(key)
            else:
                message = unknown_key_message(cls._ROLE, key, kafka_version,
                                              frozenset(fields_by_key))
                if strict:
                    raise ValueError(message)
                warnings.warn(message, KafkaConfigWarning, stacklevel=2)
                unknown.append(key)
                notes.append(message)
        return LoadedConfig(cls(**values), tuple(ignored), tuple(unknown), tuple(notes))

    def to_kafka_dict(self, *, include_defaults: bool = True) -> dict[str, int]:
        """Kafka key -> value; unset optional settings (``None``) are left out."""
        out: dict[str, int] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None and (include_defaults or value != f.default):
                out[_setting_of(f).key] = value
        return out

    def to_properties(self, *, include_defaults: bool = False) -> str:
        """``key=value`` lines, by default only for settings that differ from Kafka's default."""
        items = self.to_kafka_dict(include_defaults=include_defaults).items()
        return "".join(f"{key}={value}\n" for key, value in items)


def _parse_int(label: str, raw: object) -> int:
    """``raw`` as Kafka parses an integer setting (``label``: ``name (key)``) from its file."""
    if isinstance(raw, numbers.Integral) and not isinstance(raw, bool):
        return int(raw)
    if isinstance(raw, str) and _INTEGER.fullmatch(raw.strip()):
        return int(raw.strip())
    raise ValueError(f"{label} must be an integer: {raw!r}")
