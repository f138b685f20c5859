"""How a dashboard's controls are laid out: Kafka's full setting names, sliders lined up.

Labels are Kafka's setting names, some long ("remote.log.manager.fetch.max.bytes.per.second",
"replication.quota.window.size.seconds"), and ipywidgets cuts a label at its
``description_width`` with an ellipsis. So every label of a dashboard gets the width its longest
text needs (the sliders line up, no name is cut) and each control grows by as much, keeping
:data:`SLIDER_PX` for its slider. The JupyterLab browser test checks no label is cut.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

__all__ = ["LABEL_PX_PER_CHAR", "MIN_CONTROL_PX", "SLIDER_PX", "TEXT_BOX_PX", "control_width_px",
           "fit_label", "label_width_px"]

LABEL_PX_PER_CHAR = 7.5  # JupyterLab's 13 px widget font, rounded up (dots are narrower)
SLIDER_PX = 340          # track and readout (or the text box's share) beside the label
MIN_CONTROL_PX = 520
TEXT_BOX_PX = 110


def label_width_px(controls: Any) -> int:
    """The width of the longest label of ``controls`` at :data:`LABEL_PX_PER_CHAR`."""
    return max((round(len(str(getattr(c, "description", "") or "")) * LABEL_PX_PER_CHAR)
                for c in controls), default=0)


def control_width_px(control: w.Widget, label_px: int | None = None) -> int:
    """The width a control gets: its label (``label_px``, default its own text) plus the
    slider."""
    if label_px is None:
        label_px = label_width_px([control])
    return max(MIN_CONTROL_PX, label_px + SLIDER_PX)


def fit_label(control: w.Widget, label_px: int | None = None) -> None:
    """The one rule for every dashboard's controls: labels one width (``label_px``: the
    dashboard's longest label, so the sliders line up), the full text always, room for the
    slider; toggle buttons as wide as their own text (under their label when the row is full)."""
    if label_px is None:
        label_px = label_width_px([control])
    label = f"{label_px}px" if label_px else "initial"
    if isinstance(control, w.ToggleButtons):  # ipywidgets' 148 px buttons cut longer options
        control.style = {"description_width": label, "button_width": "auto"}
        control.layout = w.Layout(width="auto")
        return
    control.style = {"description_width": label}
    control.layout = w.Layout(width=f"{control_width_px(control, label_px)}px")
