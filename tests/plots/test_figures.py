"""Every figure teaches (issue 29): the checker on small figures, then every figure the lessons
keep in their outputs. The dashboards' figures are checked where they are built
(tests/widgets/test_widget_coverage.py, with their static fallback)."""

from __future__ import annotations

import json
from pathlib import Path

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from kipviz.plots.checks import figure_problems
from kipviz.plots.grid import explain_flat_panel

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def _lesson_figures() -> list[tuple[str, dict]]:
    found = []
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text())["cells"]
        for number, cell in enumerate(cells):
            for output in cell.get("outputs", []):
                figure = output.get("data", {}).get("application/vnd.plotly.v1+json")
                if figure:
                    found.append((f"{path.stem} cell {number}", figure))
    return found


def test_a_legend_entry_with_nothing_to_draw_is_a_problem():
    """A named trace whose y is empty or all NaN still shows in the legend: it teaches nothing."""
    fig = go.Figure([go.Scatter(name="thread 1", x=[0, 1], y=[1, 2]),
                     go.Scatter(name="thread 7", x=[0, 1], y=[float("nan")] * 2)])
    fig.update_layout(xaxis_title="time (s)", yaxis_title="buffered records")
    assert figure_problems(fig) == ["legend entry 'thread 7' has nothing to draw"]
    fig.data[1].showlegend = False
    assert figure_problems(fig) == []


def _two_panels(titles: tuple[str, str], left: list[float], right: list[float]) -> go.Figure:
    """A dashboard-like pair of panels: titles in words above, units on the y axes."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles)
    fig.add_trace(go.Scatter(name="a", x=[0, 1], y=left), row=1, col=1)
    fig.add_trace(go.Scatter(name="a", x=[0, 1], y=right, showlegend=False), row=1, col=2)
    fig.update_xaxes(title_text="time (s)")
    fig.update_yaxes(title_text="MiB", row=1, col=1)
    fig.update_yaxes(title_text="ms", row=1, col=2)
    return fig


def test_a_flat_panel_passes_only_when_the_figure_says_why():
    """Every series at one value: a problem, unless the reason is recorded and shown."""
    fig = _two_panels(("Memory", "Heartbeat delay"), [3, 4], [0, 0])
    assert figure_problems(fig) == [
        "panel y2 is flat at 0 for every series, and the figure does not say why"]
    explain_flat_panel(fig, 1, 2, "no heartbeat waits: it bypasses the pool")
    assert figure_problems(fig) == []


def test_series_on_top_of_each_other_need_more_than_a_colour():
    """Two runs with the same points: the one drawn last hides the other unless a dash or a
    marker sets them apart; one series whose points all sit at one place is flagged too."""
    fig = go.Figure([go.Scatter(name="4.1", x=[0, 1], y=[5, 6], line={"color": "red"}),
                     go.Scatter(name="4.2", x=[0, 1], y=[5, 6], line={"color": "blue"}),
                     go.Scatter(name="caught up", x=[2, 2, 2], y=[9, 9, 9], mode="markers")])
    fig.update_layout(xaxis_title="time (s)", yaxis_title="latency (ms)")
    assert figure_problems(fig) == [
        "series '4.2' and '4.1' are drawn on top of each other in panel y with nothing to tell "
        "them apart",
        "all 3 points of series 'caught up' are drawn at one place in panel y"]
    fig.data[1].line.dash = "dash"
    assert len(figure_problems(fig)) == 1


@pytest.mark.parametrize("title, problem", [
    ("peak_memory_bytes (MiB)", "xaxis title 'peak_memory_bytes (MiB)' reads like a field name"),
    ("MiB", "xaxis title 'MiB' names no quantity in words, and its panel has no title"),
    ("", "xaxis title '' names no quantity in words, and its panel has no title"),
])
def test_axis_titles_are_words_with_units(title, problem):
    """A single panel's axes say what they show in words (the unit in brackets); legend entries
    are not column names."""
    fig = go.Figure([go.Scatter(name="mode = kip81_pool", x=[1, 2], y=[3, 4])])
    fig.update_layout(xaxis_title=title, yaxis_title="throughput (MB/s)")
    assert figure_problems(fig) == ["legend entry 'mode = kip81_pool' reads like a field name",
                                    problem]


def test_a_units_only_axis_is_fine_under_a_panel_title_in_words():
    """The dashboards' grid: short panel titles in words above, units on the axes."""
    assert figure_problems(_two_panels(("Pool used", "p99 wait"), [1, 2], [3, 2])) == []


@pytest.mark.parametrize("where, figure", _lesson_figures(), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_every_lesson_figure_teaches(where, figure):
    """No empty legend entry, no unexplained flat panel, no hidden series, axis titles in words
    in any figure a lesson keeps (what the notebook viewer and the static report show)."""
    assert figure_problems(figure) == [], where


def test_a_static_slider_page_titles_its_grid_by_kafkas_keys():
    """Issue 29: the static pages' grid axes read as the settings, not scenario field names
    (``leader_throttle_bytes_per_s``); without labels, a declared setting reads as its key."""
    from kipviz.plots.sweep import grid_point_figure

    fig = grid_point_figure("leader_throttle_bytes_per_s", "policy",
                            labels={"leader_throttle_bytes_per_s":
                                    "leader.replication.throttled.rate",
                                    "policy": "pause/resume policy"})
    assert fig.layout.xaxis.title.text == "leader.replication.throttled.rate"
    assert fig.layout.yaxis.title.text == "pause/resume policy"
    plain = grid_point_figure("fetch_max_bytes", "max_partition_fetch_bytes")
    assert (plain.layout.xaxis.title.text, plain.layout.yaxis.title.text) == (
        "fetch.max.bytes", "max.partition.fetch.bytes")
