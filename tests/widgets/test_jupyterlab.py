"""A person in JupyterLab itself: Run All on a notebook holding every dashboard, one control moved
in each, then the log console read.

Errors raised while the kernel handles a widget's message (a slider moved, plotly's deltas sent
back after a redraw) reach no cell: JupyterLab shows them only in its log console, which the
Voila test (``test_browser.py``) never sees. This test starts JupyterLab on 127.0.0.1 (a free
port, a token), opens a fixture notebook in ``/usr/bin/chromium`` through Playwright, runs all
cells, moves the first slider of each dashboard with the keyboard, waits for every figure to
redraw and fails on anything in the log console or any error output. Every process started here
is stopped by its pid (``test_browser._stop``).

The same page (no second browser run) then checks that each dashboard reads at JupyterLab's
width: in every figure no two subplot titles (plotly's ``.annotation`` texts and the
``.g-gtitle``) intersect, titles stay inside the figure, the figure takes the output's width,
its legend is inside it, and no control label or button text is cut (a ``scrollWidth`` above
its ``clientWidth`` is an ellipsis). A screenshot of each dashboard goes to a temporary directory.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.widgets.test_browser import (
    ARTIFACTS,
    CHROMIUM,
    _free_port,
    _stop,
    _wait_for_port,
    chromium_page,
)
from tests.widgets.test_widget_coverage import DASHBOARDS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
START_S = 600  # every dashboard's first run, Spark included, on a busy 2-core machine
KERNEL_IDLE_JS = """() => { const w = window.jupyterapp.shell.currentWidget;
    const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
    return !!k && k.status === 'idle'; }"""
# What a reader would see wrong in one dashboard's output area (a list of sentences).
LAYOUT_JS = """area => {
    const problems = [];
    const cut = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
                          && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    area.querySelectorAll('.js-plotly-plot').forEach(div => {
        const plot = div.getBoundingClientRect();
        const output = (div.closest('.jp-OutputArea-output') || area).getBoundingClientRect();
        if (plot.width < 0.95 * output.width)
            problems.push(`figure ${Math.round(plot.width)} px wide in a ${
                Math.round(output.width)} px output`);
        const titles = Array.from(div.querySelectorAll('.g-gtitle text, .annotation text'))
            .map(t => ({text: t.textContent, box: t.getBoundingClientRect()}))
            .filter(t => t.text && t.box.width > 0);
        titles.forEach((a, i) => {
            if (a.box.left < plot.left - 1 || a.box.right > plot.right + 1)
                problems.push(`title "${a.text}" runs out of the figure`);
            titles.slice(i + 1).forEach(b => {
                if (cut(a.box, b.box)) problems.push(`titles overlap: "${a.text}" / "${b.text}"`);
            });
        });
        const legend = div.querySelector('.legend');
        if (legend && legend.getBoundingClientRect().height > 0) {
            const box = legend.getBoundingClientRect();
            if (box.bottom > plot.bottom + 1 || box.top < plot.top - 1)
                problems.push("the legend is cut by the figure's edge");
        }
    });
    area.querySelectorAll('.widget-label, .jupyter-button').forEach(label => {
        if (label.textContent.trim() && label.scrollWidth > label.clientWidth + 1)
            problems.push(`label cut: "${label.textContent.trim()}" (${label.scrollWidth} px `
                          + `in ${label.clientWidth} px)`);
    });
    return problems;
}"""
FIGURES_JS = """root => Array.from((root || document).querySelectorAll(
        '.jp-OutputArea .js-plotly-plot'))
    .map(div => JSON.stringify((div.data || []).map(t => [Array.from(t.x || []),
                                                          Array.from(t.y || [])])))"""


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """JupyterLab serving the fixture notebook; yields (its URL, the notebook name)."""
    pytest.importorskip("jupyterlab", reason="needs the lab extra: pip install -e '.[lab]'")
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from tests.widgets.test_widget_coverage import _make\nimport kipviz.widgets as kw")]
    nb.cells += [nbformat.v4.new_code_cell(f"_make(kw.{cls.__name__}, None)")
                 for cls in DASHBOARDS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, tmp_path / "dashboards.ipynb")
    # JupyterLab 4 lays out only the cells in view ('contentVisibility', the default since 4.2):
    # a dashboard below the fold may not draw until scrolled to; this test checks every figure
    tracker = tmp_path / "settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    port, token = _free_port(), secrets.token_hex(16)
    log = (tmp_path / "lab.log").open("wb")
    env = {**{k: v for k, v in os.environ.items() if k != "KIPVIZ_SPARK_CONF"},
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
         "--allow-root", "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    try:
        _wait_for_port(proc, port, 60, "JupyterLab", tmp_path / "lab.log")
        yield f"http://127.0.0.1:{port}/lab/tree/dashboards.ipynb?token={token}", "dashboards"
    finally:
        _stop(proc)
        log.close()


def _log_console_text(page: object) -> str:
    """Open JupyterLab's log console (all levels) and return what it shows."""
    page.evaluate("() => window.jupyterapp.commands.execute('logconsole:open')")
    page.wait_for_selector(".jp-LogConsolePanel", timeout=10_000)
    page.wait_for_timeout(1000)
    return str(page.inner_text(".jp-LogConsolePanel"))


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: apt-get install chromium")
def test_every_dashboard_in_jupyterlab_moves_without_a_logged_error(lab, request, tmp_path):
    """Run All, one slider moved per dashboard, every figure redrawn: the log console holds no
    traceback (plotly's "truth value of an array" included) and no cell shows an error; then
    every dashboard reads at this width (no overlapping subplot titles, figures as wide as the
    output, legends inside, full control labels), with a screenshot of each."""
    playwright = pytest.importorskip("playwright.sync_api", reason="needs the dev extra")
    url, _ = lab
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"{request.node.name}.png"
    shots = tmp_path / "screenshots"
    shots.mkdir()
    errors: list[str] = []
    viewport = {"width": 1400, "height": 1200}
    with playwright.sync_playwright() as p, chromium_page(p, shot, errors, viewport) as page:
        page.goto(url, timeout=60_000)
        page.wait_for_selector(".jp-Notebook", timeout=60_000)
        page.wait_for_function("() => window.jupyterapp && document.querySelector("
                               "'.jp-Notebook .jp-Cell')", timeout=60_000)
        page.wait_for_timeout(3000)  # the kernel connects
        page.evaluate("() => window.jupyterapp.commands.execute("
                      "'notebook:run-all-cells')")
        _wait_for_every_figure(page, playwright.TimeoutError)
        before = page.evaluate(FIGURES_JS)
        outputs = page.locator(".jp-Cell-outputArea")
        for i in range(outputs.count()):
            handles = outputs.nth(i).locator(".widget-slider .noUi-handle")
            if handles.count():
                handles.first.focus()
                handles.first.press("ArrowLeft")
        # every move is a message the kernel handles (a simulation and a Spark job each): wait
        # until the kernel has been idle for a while, then give the redraws a moment (a move
        # may leave some curves as they were, so no figure is required to change)
        for _ in range(2):
            page.wait_for_timeout(2000)
            page.wait_for_function(KERNEL_IDLE_JS, timeout=300_000)
        _wait_until_settled(page, before)
        page.wait_for_timeout(3000)  # deltas from the browser, handled by the kernel
        layout = _layout_problems(page, outputs, shots)
        logged = _log_console_text(page)
        text = page.inner_text(".jp-Notebook")
    for marker in ("Traceback", "Error", "ambiguous"):
        assert marker not in logged, f"{marker!r} in the log console:\n{logged[:3000]}"
        assert marker not in text, f"{marker!r} in the notebook:\n{text[:3000]}"
    assert "Not applied" not in text
    assert not errors, errors
    assert not layout, f"screenshots in {shots}:\n" + "\n".join(layout)
    assert len(list(shots.glob("*.png"))) == len(DASHBOARDS)


def _wait_for_every_figure(page: object, timeout_error: type[Exception]) -> None:
    """Wait until every dashboard's figure has drawn its data: first for the kernel to run every
    cell (:data:`START_S`), then, each output scrolled into view, 60 s more for the figures.
    On failure, say which dashboards have no drawn figure and what the page logged."""
    drawn_js = f"n => ({FIGURES_JS})().filter(d => d.includes('[[')).length >= n"
    logged: list[str] = []
    page.on("console", lambda msg: logged.append(f"{msg.type}: {msg.text}"))
    with contextlib.suppress(timeout_error):
        page.wait_for_function(drawn_js, arg=len(DASHBOARDS), timeout=START_S * 1000)
        return
    page.wait_for_function(KERNEL_IDLE_JS, timeout=60_000)  # Run All has finished
    outputs = page.locator(".jp-Cell-outputArea")
    for i in range(outputs.count()):
        outputs.nth(i).scroll_into_view_if_needed()
    with contextlib.suppress(timeout_error):
        page.wait_for_function(drawn_js, arg=len(DASHBOARDS), timeout=60_000)
        return
    figures = page.evaluate(f"() => Array.from(document.querySelectorAll('.jp-Cell-outputArea'))"
                            f".map({FIGURES_JS})")
    missing = [cls.__name__ for cls, drawn in zip(DASHBOARDS, figures[1:], strict=False)
               if not any("[[" in d for d in drawn)]
    pytest.fail(f"the kernel is idle but {missing or 'some dashboards'} drew no figure; the "
                f"page logged:\n" + "\n".join(logged[-40:]))


def _wait_until_settled(page: object, before: list[str], seconds: float = 10) -> None:
    """Wait until the figures' drawn data has changed from ``before`` and then read the same
    twice a second apart (a move may leave a figure as it was: at most ``seconds``)."""
    deadline = time.monotonic() + seconds
    last = before
    while time.monotonic() < deadline:
        page.wait_for_timeout(1000)
        now = page.evaluate(FIGURES_JS)
        if now == last and now != before:
            return
        last = now


def _layout_problems(page: object, outputs: object, shots: Path) -> list[str]:
    """:data:`LAYOUT_JS` on each dashboard's output area (the cells after the import, in
    :data:`DASHBOARDS` order), scrolled into view first (JupyterLab lays out what is shown),
    and a screenshot of each into ``shots``."""
    import playwright.sync_api

    toast = page.locator(".jp-toast-button", has_text="No")  # JupyterLab's news toast, if shown
    if toast.count():
        with contextlib.suppress(playwright.sync_api.Error):
            toast.first.click(timeout=2000)
    problems = []
    for i, cls in enumerate(DASHBOARDS, start=1):
        area = outputs.nth(i)
        area.scroll_into_view_if_needed()
        page.wait_for_timeout(500)  # plotly's resize after the scroll
        problems += [f"{cls.__name__}: {p}" for p in area.evaluate(LAYOUT_JS)]
        area.screenshot(path=str(shots / f"{cls.__name__}.png"))
    return problems
