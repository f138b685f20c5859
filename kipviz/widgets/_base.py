"""What every dashboard shares: controls wired to ``update``, warnings instead of tracebacks.

A dashboard is thin wiring: sliders -> ``dataclasses.replace`` on a frozen scenario (whose
``__post_init__`` validates it, naming the Kafka setting and the rule) -> simulate -> Spark
curves -> a plotly ``FigureWidget`` redrawn in place. Subclasses say which scenario, which
controls (a table of :class:`~kipviz.widgets.controls.Control`, ``CONTROLS``), how to compute and
draw, and what to say about the result; the base builds the widgets, reads the values by
attribute path and applies a move with one nested ``replace``.
"""

from __future__ import annotations

import enum
import html
import os
from collections.abc import Mapping
from dataclasses import fields
from typing import Any, ClassVar

import ipywidgets as w
import plotly.graph_objects as go

from kipviz.plots.html import warnings_html
from kipviz.plots.sweep import byte_label, setting_label
from kipviz.scenarios.workload import Batches, produce
from kipviz.widgets._figure import FigureWidget
from kipviz.widgets._labels import TEXT_BOX_PX, control_width_px, fit_label, label_width_px
from kipviz.widgets.controls import Control, read_path, replace_paths

__all__ = ["NOT_SET", "STATIC_ENV", "Dashboard", "byte_options", "notice", "notice_list",
           "selectable", "with_option"]

STATIC_ENV = "KIPVIZ_STATIC_DASHBOARDS"
"""Set (non-empty) to display dashboards as static HTML and figures, as ``kipviz report`` does."""


class _NotSet:
    def __repr__(self) -> str:
        return "NOT_SET"


NOT_SET: Any = _NotSet()
"""What a selection control holds for a setting left at None ("as this Kafka version does",
"R - 1", "no quota", "unlimited": a control's ``unset`` choice): ipywidgets shows a None value as
no selection at all. ``update`` reads it back as None, the scenario's one encoding of "unset"."""


def selectable(value: Any) -> Any:
    """``value`` as a selection control holds it (None as :data:`NOT_SET`)."""
    return NOT_SET if value is None else value


def byte_options(*values: int) -> list[tuple[str, int]]:
    """Slider options labelled in KiB/MiB, exact byte values (Kafka defaults included)."""
    return [(byte_label(v), v) for v in sorted(set(values))]


def with_option(options: list[tuple[str, Any]], value: Any, label: str | None = None,
                ) -> list[tuple[str, Any]]:
    """Options of a selection slider that include ``value`` (a value set from code or a file):
    the others keep their labels, ``value`` gets ``label`` (default: a byte label) and its
    place in order."""
    if any(v == value for _, v in options):
        return options
    new = (label if label is not None else byte_label(value), value)
    at, after = None, 0  # before the first larger value, else after the last smaller one
    for i, (_, v) in enumerate(options):
        if v is NOT_SET:  # the unset choice keeps its place (first or last)
            continue
        try:
            if v > value:
                at = i
                break
        except TypeError:  # values without an order (mixed kinds): at the end
            at = len(options)
            break
        after = i + 1
    at = after if at is None else at
    return [*options[:at], new, *options[at:]]


def notice(text: str, *, error: bool = False) -> str:
    """An HTML box: red for rejected settings, amber for legal but risky ones."""
    background, colour = ("#fdecea", "#b71c1c") if error else ("#fff8e1", "#8a6d00")
    return (f'<div style="background:{background};color:{colour};padding:6px 10px;'
            f'border-radius:4px;margin:4px 0">{html.escape(text)}</div>')


def notice_list(notes: list[str]) -> str:
    """Warnings as a short amber list, one line each, most important first, each line's full
    text a click away (:func:`kipviz.plots.html.warnings_html`); "" when there are none."""
    return warnings_html(notes, box=True) if notes else ""


class Dashboard:
    """Base of the lesson dashboards; see the subclasses for what each one shows.

    ``update(**params)`` applies settings by scenario field name, control name (``CONTROLS``) or
    alias (``ALIASES``), re-simulates, recomputes the Spark curves and redraws; it returns the
    curves, or None when the settings were rejected (the reason then shows in ``self.warning``
    and the figure keeps its last good curves).
    Display a dashboard as the last expression of a cell (or ``display(d.widget)``).
    """

    #: the controls, one line each (:class:`~kipviz.widgets.controls.Control`), in screen order
    CONTROLS: ClassVar[tuple[Control, ...]] = ()
    #: extra names ``update`` accepts beside the scenario's fields and the controls' names: name ->
    #: the attribute path it sets (None: the subclass's ``_apply`` reads it)
    ALIASES: ClassVar[Mapping[str, str | None]] = {}

    def __init__(self, scenario: Any, *, seed: int = 0, spark: Any = None,
                 **overrides: Any) -> None:
        if spark is None:
            from kipviz.curves.spark import get_spark

            spark = get_spark()
        self.spark = spark
        self.seed = seed
        self._batches_made: tuple[tuple[Any, ...], Batches] | None = None
        self.scenario = self._apply(scenario, overrides)
        self.trace: Any = None
        self.curves: Any = None
        # A plain Figure until the first curves are in: a FigureWidget syncs only the data it is
        # made with, and restyle messages sent before a browser shows it are lost (the page
        # showed empty axes: Voila, plotly 7). The widget is made once, from the first curves.
        self.figure: Any = self._figure()
        self.warning = w.HTML()
        self.summary = w.HTML()
        self.controls: dict[str, w.ValueWidget] = self._controls(self.scenario)
        #: the number boxes beside the int / float sliders (what a person types into)
        self.text_boxes: dict[str, w.ValueWidget] = {}
        rows = []
        self._label_px = label_width_px(self.controls.values())
        for name, control in self.controls.items():
            fit_label(control, self._label_px)
            if hasattr(control, "continuous_update"):
                control.continuous_update = False  # Spark-backed: redraw on release
            control.observe(self._on_change(name), names="value")
            rows.append(self._with_text_box(name, control))
        self._syncing = False
        self.update()
        self.figure = FigureWidget(self.figure)
        self.widget = w.VBox([w.VBox(rows), self.warning, self.summary, self.figure])

    # --- what a subclass provides -------------------------------------------------------------
    def _figure(self) -> go.Figure:
        raise NotImplementedError

    def _compute(self, scenario: Any) -> Any:
        """Simulate ``scenario`` (setting ``self.trace``) and return its Spark curves."""
        raise NotImplementedError

    def _redraw(self, curves: Any) -> None:
        raise NotImplementedError

    def _advice(self, scenario: Any, curves: Any) -> list[str]:
        """Warnings for legal but risky or surprising settings (none by default)."""
        return []

    def _summary(self, curves: Any) -> str:
        return ""

    # --- the controls, from the table -------------------------------------------------------
    def _table(self) -> dict[str, Control]:
        return {c.key: c for c in self.CONTROLS}

    def _controls(self, scenario: Any) -> dict[str, w.ValueWidget]:
        """The widgets of :attr:`CONTROLS`, at ``scenario``'s values."""
        values = self._control_values(scenario)
        return {name: _widget(c, scenario, values[name]) for name, c in self._table().items()}

    def _control_values(self, scenario: Any) -> dict[str, Any]:
        """Each control's value in ``scenario`` (read by path; None as :data:`NOT_SET`)."""
        return {name: selectable(read_path(scenario, c.path))
                for name, c in self._table().items()}

    def _option_label(self, name: str, value: Any) -> str:
        """How a selection control labels a value set from code (its table's ``fmt``, else by
        the unit of ``name``)."""
        control = self._table().get(name)
        return control.option_label(value) if control is not None else setting_label(name, value)

    def batches(self, scenario: Any) -> Batches:
        """The record batches the producers of a consumer ``scenario`` write, made once per
        workload (workload, partitions, ticks, tick, seed): a move of a fetch setting, the order,
        the memory or the Kafka version re-runs the consumer on the same batches, as
        ``simulate`` would make them (:func:`kipviz.scenarios.workload.produce` with the seed)."""
        key = (scenario.workload, scenario.partitions, scenario.ticks, scenario.tick_ms,
               self.seed)
        if self._batches_made is None or self._batches_made[0] != key:
            self._batches_made = (key, produce(scenario.workload, scenario.partitions,
                                               scenario.ticks, scenario.tick_ms, seed=self.seed))
        return self._batches_made[1]

    # --- the shared wiring --------------------------------------------------------------------
    def _ipython_display_(self) -> None:
        from IPython.display import HTML, display

        if os.environ.get(STATIC_ENV):  # a static page (kipviz report): no widgets there
            display(HTML(self.static_html()), self.static_figure())
            return
        display(self.widget)
        self.figure.fit_width_soon()  # the cell's full width, once the browser has shown it

    # --- static output, for pages without a kernel (opt-in, see STATIC_ENV) ----------------------
    def static_figure(self) -> go.Figure:
        """The figure as drawn now, as a plain plotly ``Figure`` (not a widget)."""
        return go.Figure(self.figure)

    def static_html(self) -> str:
        """The settings in use, the warning and the summary, as an HTML fragment."""
        settings = "".join(
            f"<li>{html.escape(str(control.description or name))} = "
            f"<code>{html.escape(_shown(control))}</code></li>"
            for name, control in self.controls.items())
        return (f'<div class="kipviz-dashboard"><p><b>{type(self).__name__}</b> at these '
                f"settings (move the sliders in Jupyter or <code>make app</code>):</p>"
                f"<ul>{settings}</ul>{self.warning.value}<p>{self.summary.value}</p></div>")

    def to_html(self, *, include_plotlyjs: bool | str = True, div_id: str | None = None) -> str:
        """:meth:`static_html` and the current figure as one HTML fragment.

        ``include_plotlyjs`` as in :func:`plotly.io.to_html`: True embeds plotly.js (the
        fragment then works offline), a path refers to a local copy, False leaves it out.
        """
        import plotly.io as pio

        figure = pio.to_html(self.static_figure(), full_html=False, div_id=div_id,
                             include_plotlyjs=include_plotlyjs)
        return self.static_html() + figure

    def _with_text_box(self, name: str, control: w.ValueWidget) -> w.Widget:
        """A number slider with a box to type into instead of its readout, which would clamp a
        typed value to the slider's range without a word; the box refuses it visibly."""
        if not isinstance(control, w.IntSlider | w.FloatSlider):
            return control
        box_type = w.IntText if isinstance(control, w.IntSlider) else w.FloatText
        box = box_type(value=control.value, layout=w.Layout(width=f"{TEXT_BOX_PX}px"))
        control.readout = False
        control.layout = w.Layout(
            width=f"{control_width_px(control, self._label_px) - TEXT_BOX_PX}px")
        self.text_boxes[name] = box

        def show(change: dict[str, Any]) -> None:
            box.value = control.value  # not change["new"]: a refused move was put back already

        control.observe(show, names="value")
        box.observe(self._on_typed(name), names="value")
        return w.HBox([control, box])

    def _on_typed(self, name: str) -> Any:
        def handler(change: dict[str, Any]) -> None:
            control, value = self.controls[name], change["new"]
            if value == control.value:
                return
            if not control.min <= value <= control.max:
                label = control.description or name
                self.warning.value = notice(
                    f"Not applied: {label} {value} is outside the slider range "
                    f"{control.min}..{control.max}; it was not clamped. Set it from code with "
                    f"update({name}=...) to run it anyway.", error=True)
                self.text_boxes[name].value = control.value  # the box shows the setting in use
                return
            control.value = value  # the slider's observer runs update()
        return handler

    def _on_change(self, name: str) -> Any:
        def handler(change: dict[str, Any]) -> None:
            if not self._syncing:
                self.update(**{name: change["new"]})
        return handler

    def _apply(self, scenario: Any, params: dict[str, Any]) -> Any:
        """``scenario`` with ``params`` (by field, control or alias name; :data:`NOT_SET` read as
        None, a control's option by its label), in one nested ``replace``; unknown names and
        invalid values raise ValueError."""
        table = self._table()
        paths: dict[str, tuple[str, ...]] = {f.name: (f.name,) for f in fields(scenario)}
        paths.update({k: (p,) for k, p in self.ALIASES.items() if p is not None})
        paths.update({name: c.paths for name, c in table.items()})
        unknown = sorted(set(params) - set(paths))
        if unknown:
            raise ValueError(f"unknown setting {unknown[0]!r}; the dashboard knows "
                             f"{', '.join(sorted(paths))}")
        values: dict[str, Any] = {}
        for name, value in params.items():
            if name in table:
                value = _by_label(name, table[name].choices(scenario), value)
            for path in paths[name]:
                values[path] = None if value is NOT_SET else value
        return replace_paths(scenario, values)

    def update(self, **params: Any) -> Any:
        """Apply settings, re-simulate, recompute the Spark curves, redraw; see the class."""
        trace = self.trace
        try:
            scenario = self._apply(self.scenario, params)
            curves = self._compute(scenario)  # a run may reject a combination too
        except Exception as err:  # a dashboard shows every failure, never raises
            self.trace = trace
            self._refuse(err)
            return None
        try:
            self.scenario, self.curves = scenario, curves
            self._sync_controls()
            self._redraw(self.curves)
            notes = self._advice(scenario, self.curves)
            self.warning.value = notice_list(notes)
            self.summary.value = self._summary(self.curves)
        except Exception as err:  # as above: the reason, on screen
            self._refuse(err, "Applied, but the figure could not be redrawn")
            return None
        return self.curves

    def _refuse(self, err: BaseException, what: str = "Not applied") -> None:
        """Show ``err`` as the red warning and put the controls back to the settings in use."""
        kind = "" if isinstance(err, ValueError | TypeError) else f"{type(err).__name__}: "
        self.warning.value = notice(f"{what}: {kind}{err}", error=True)
        try:
            self._sync_controls()  # a control moved by the user goes back to the setting in use
        except Exception as sync_err:  # the warning above already says what
            self.warning.value += notice(f"The controls could not be reset: {sync_err}",
                                         error=True)

    def _sync_controls(self) -> None:
        """Show settings applied from code on the controls, without triggering updates."""
        self._syncing = True
        try:
            table = self._table()
            for name, value in self._control_values(self.scenario).items():
                control = self.controls[name]
                if name in table and callable(table[name].label):
                    control.description = table[name].label_for(self.scenario)
                if isinstance(control, w.SelectionSlider | w.Dropdown | w.ToggleButtons) \
                        and value is not NOT_SET:  # NOT_SET is one of its options already
                    control.options = with_option(list(control.options), value,
                                                  self._option_label(name, value))
                elif isinstance(control, w.IntSlider | w.FloatSlider):
                    control.max = max(control.max, value)
                    control.min = min(control.min, value)
                control.value = value
        finally:
            self._syncing = False


def _shown(control: w.ValueWidget) -> str:
    """A control's value as it reads on screen (a selection's label, a slider's number)."""
    label = getattr(control, "label", None)
    if label is not None:
        return str(label)
    value = control.value
    return f"{value:g}" if isinstance(value, float) else str(value)


def _widget(c: Control, scenario: Any, value: Any) -> w.ValueWidget:
    """The ipywidgets control of ``c``, showing ``value``."""
    label = c.label_for(scenario)
    if c.range is not None:
        low, high = c.range
        number = w.FloatSlider if any(isinstance(v, float) for v in (low, high, c.step)) \
            else w.IntSlider
        extra = {"readout_format": c.readout_format} if c.readout_format else {}
        return number(value=value, min=min(low, value), max=max(high, value),
                      step=c.step if c.step is not None else 1, description=label, **extra)
    options = [(text, selectable(v)) for text, v in c.choices(scenario)]
    if value is not NOT_SET:
        options = with_option(options, value, c.option_label(value))
    if c.kind == "toggle":
        return w.ToggleButtons(options=options, value=value, description=label,
                               tooltips=list(c.tooltips))
    kind = w.Dropdown if c.kind == "dropdown" else w.SelectionSlider
    return kind(options=options, value=value, description=label)


def _by_label(name: str, options: list[tuple[str, Any]], value: Any) -> Any:
    """``value``, or the option a text ``value`` names (its label, any case, ``-`` or ``_``) when
    the options are enum members (``ordering="round-robin"``); a name that is none of them raises
    ValueError. Other text goes to the scenario, whose check names the rule."""
    if not isinstance(value, str) or not any(isinstance(v, enum.Enum) for _, v in options):
        return value
    def norm(text: str) -> str:
        return text.lower().replace("_", "-")

    for text, v in options:
        if norm(text) == norm(value):
            return NOT_SET if v is None else v
    raise ValueError(f"{name} must be one of {', '.join(text for text, _ in options)}: "
                     f"{value!r}")
