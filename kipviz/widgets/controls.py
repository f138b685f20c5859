"""A dashboard's controls as data: one :class:`Control` per knob, one line each.

A control names the scenario field it moves by attribute path (``"workload.zipf_s"``,
``"consumer.fetch_max_bytes"``), its kind (a slider over ``options`` or a number ``range``, a
dropdown, toggle buttons), and where the setting has one, its ``unset`` choice: the label of the
scenario's None (the Kafka setting left unset: "unlimited", "as this Kafka version does"). The
label is the Kafka key of the field's declaration (:func:`kipviz.kafka.config.fields.kafka_field`:
``fetch.max.bytes``), a model knob's name, or ``label`` where the dashboard says more. The base
:class:`~kipviz.widgets._base.Dashboard` builds the widgets from its ``CONTROLS``, reads values by
path (:func:`read_path`), writes them with one nested ``replace`` (:func:`replace_paths`), and the
static pages' grids (:mod:`kipviz.apps.static.grids`) take their labels from the same tables
(:func:`control_labels`).

>>> from kipviz.scenarios.consumer.scenario import ConsumerScenario
>>> s = ConsumerScenario()
>>> Control("fetch_max_bytes", options=(1024, 52428800)).label_for(s)
'fetch.max.bytes'
>>> replace_paths(s, {"workload.zipf_s": 0.5}).workload.zipf_s
0.5
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kipviz.kafka.config.fields import field_setting
from kipviz.plots.sweep import setting_label

__all__ = ["KINDS", "Control", "control_labels", "declared_key", "read_path", "replace_paths"]

KINDS = ("slider", "dropdown", "toggle")
"""A slider (over ``options``: a selection slider; over a ``range``: a number slider), a
dropdown or toggle buttons (over ``options``)."""


@dataclass(frozen=True)
class Control:
    """One knob: the field at ``path``, as ``update(name=...)`` sets it (``name``: the path's last
    part unless given); ``also``: more paths set to the same value.

    ``options``: the values offered, ``(label, value)`` pairs first, then bare values (labelled by
    ``fmt``; numbers in order, once each), or a function of the scenario returning them;
    ``range`` and ``step``: a number slider's (its max grows to a value set from code);
    ``unset``: the label of the None choice, first (or last, with ``unset_last``); ``label``:
    the control's text where it is not the declared Kafka key (a string, or a function of the
    scenario); ``fmt``: how a value set from code is labelled
    (default :func:`kipviz.plots.sweep.setting_label` by the field's unit).
    """

    path: str
    kind: str = "slider"
    options: Sequence[Any] | Callable[[Any], Sequence[Any]] = ()
    range: tuple[float, float] | None = None
    step: float | None = None
    unset: str | None = None
    unset_last: bool = False
    label: str | Callable[[Any], str] | None = None
    name: str | None = None
    also: tuple[str, ...] = ()
    fmt: Callable[[Any], str] | None = None
    tooltips: tuple[str, ...] = ()
    readout_format: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}: {self.kind!r}")
        if (self.range is None) == (not self.options and self.kind == "slider"):
            raise ValueError(f"{self.path}: a slider has options or a range, not both")

    @property
    def key(self) -> str:
        """The name ``update`` takes and ``Dashboard.controls`` is keyed by."""
        return self.name or self.path.rsplit(".", 1)[-1]

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.path, *self.also)

    def label_for(self, scenario: Any) -> str:
        """The control's text: ``label``, else the Kafka key of the field's declaration, else the
        update name."""
        if callable(self.label):
            return self.label(scenario)
        if self.label is not None:
            return self.label
        return declared_key(scenario, self.path) or self.key

    def option_label(self, value: Any) -> str:
        """How ``value`` reads among the options."""
        if self.fmt is not None:
            return self.fmt(value)
        return setting_label(self.path.rsplit(".", 1)[-1], value)

    def choices(self, scenario: Any) -> list[tuple[str, Any]]:
        """The ``(label, value)`` options, the unset choice (value None) included."""
        raw = self.options(scenario) if callable(self.options) else self.options
        labelled = [o for o in raw if isinstance(o, tuple) and len(o) == 2
                    and isinstance(o[0], str)]
        bare = [o for o in raw if o not in labelled]
        if all(isinstance(o, int | float) and not isinstance(o, bool) for o in bare):
            bare = sorted(set(bare))  # numbers in order, once each (as a slider offers them)
        pairs = [*labelled, *((self.option_label(o), o) for o in bare)]
        if self.unset is None:
            return pairs
        return [*pairs, (self.unset, None)] if self.unset_last else [(self.unset, None), *pairs]


def _field(obj: Any, name: str) -> dataclasses.Field[Any] | None:
    if not dataclasses.is_dataclass(obj):
        return None
    return next((f for f in dataclasses.fields(obj) if f.name == name), None)


def declared_key(scenario: Any, path: str) -> str | None:
    """The Kafka key the field at ``path`` of ``scenario`` declares (None: a model knob)."""
    *parents, last = path.split(".")
    obj = scenario
    for part in parents:
        obj = getattr(obj, part)
    f = _field(obj, last)
    setting = field_setting(f) if f is not None else None
    return setting.key if setting is not None else None


def read_path(obj: Any, path: str) -> Any:
    """The value at a dotted attribute ``path`` of ``obj``."""
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def replace_paths(obj: Any, values: Mapping[str, Any]) -> Any:
    """``obj`` (a frozen dataclass) with the values at dotted ``paths`` replaced: one
    ``dataclasses.replace`` per object on the way, each validating its own fields."""
    top: dict[str, Any] = {}
    nested: dict[str, dict[str, Any]] = {}
    for path, value in values.items():
        head, _, rest = path.partition(".")
        if rest:
            nested.setdefault(head, {})[rest] = value
        else:
            top[head] = value
    for head, inner in nested.items():
        top[head] = replace_paths(top.get(head, getattr(obj, head)), inner)
    return dataclasses.replace(obj, **top) if top else obj


def control_labels(controls: Iterable[Control], scenario: Any) -> dict[str, str]:
    """Each control's label by its path and by its update name (what a static grid's axes are
    named by)."""
    out: dict[str, str] = {}
    for c in controls:
        label = c.label_for(scenario)
        out.setdefault(c.key, label)
        for path in c.paths:
            out.setdefault(path, label)
    return out
