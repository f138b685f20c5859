"""Static pages whose sliders move: a grid Spark computed, redrawn in the browser with no kernel.

The grids are small versions of the lessons' (a 12-partition consumer, 200 ticks): the page, its
data and its script are the same. The browser test opens a page from disk in Debian's Chromium
(``/usr/bin/chromium``, driven by Playwright; no server, no kernel), moves the fetch.max.bytes
slider with the keyboard and checks that the figure's data changed.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from kipviz.apps.report import build_site, dashboards_in
from kipviz.apps.static.grids import SliderGrid, dashboard_grids
from kipviz.apps.static.html import PLOTLY_JS, html_page
from kipviz.apps.static.sliders import fill_grid, grid_payload, slider_section
from kipviz.kafka.fetch.request import Ordering
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.workload import Workload
from tests.widgets.test_browser import ARTIFACTS, CHROMIUM, launch_chromium

MiB = 1024 * 1024
# a page from disk, no kernel: about 1 s in an idle Chromium; sized for a 2-core machine busy
# with another make test (Chromium parses 4 MB of plotly.js first)
PAGE_MS = 60_000
FETCHED = re.compile(r"""<(?:script|link|img)[^>]+(?:src|href)=["']?(?:https?:)?//""")
SMALL = ConsumerScenario(partitions=12, brokers=3, fetch_max_bytes=MiB, ticks=200, windows=5,
                         consume_bytes_per_s=1e9,
                         workload=Workload(profile="zipf", produce_bytes_per_s=50e6,
                                           initial_lag_bytes=4 * MiB))
SPEC = SliderGrid("FetchDashboard", "A small KIP-74 grid", SMALL,
                  {"fetch_max_bytes": [256 * 1024, MiB, 4 * MiB],
                   "buffer_memory_bytes": [None, 2 * MiB],
                   "ordering": [Ordering.FIXED, Ordering.ROUND_ROBIN]},
                  {"fetch_max_bytes": "fetch.max.bytes", "buffer_memory_bytes": "buffer.memory",
                   "ordering": "partition order"}, "<code>FetchDashboard()</code>")


@pytest.fixture(scope="module")
def small_grid(spark):
    """SPEC swept through Spark: 10 valid configurations (2 rejected: buffer.memory 2 MiB
    below fetch.max.bytes 4 MiB)."""
    return fill_grid(SPEC, spark)


def test_each_lesson_dashboard_has_a_grid_of_about_fifty_points_and_two_or_three_controls():
    """Every dashboard the lessons build (discovered from the notebooks) has a static grid of
    40-60 combinations over 2-3 of its scenario's fields, starting at the lesson's setting."""
    from kipviz import lessons_dir

    lessons = sorted(lessons_dir().glob("[0-9]*.ipynb"))
    shown = {name for path in lessons for name in dashboards_in(nbformat.read(path, 4))}
    grids = dashboard_grids()
    assert shown and shown <= set(grids)
    for spec in grids.values():
        combos = 1
        for name, values in spec.axes.items():
            assert hasattr(spec.base, name) and len(set(map(repr, values))) == len(values)
            combos *= len(values)
        assert 2 <= len(spec.axes) <= 3 and 40 <= combos <= 60, spec.name


def test_the_payload_holds_every_valid_combination_and_says_why_the_others_are_rejected(
        small_grid):
    """12 combinations: 10 points with the figure's seven traces (heatmap with z), two
    rejected with Kafka's rule; the sliders offer exactly the grid's values, labelled."""
    payload = grid_payload(SPEC, small_grid)
    assert [a["values"] for a in payload["axes"]] == [
        ["256 KiB", "1 MiB", "4 MiB"], ["none", "2 MiB"], ["fixed", "round-robin"]]
    assert [a["start"] for a in payload["axes"]] == [1, 0, 1]  # SMALL: 1 MiB, round-robin
    assert len(payload["points"]) == 10 and sorted(payload["rejected"]) == ["2-1-0", "2-1-1"]
    for reason in payload["rejected"].values():
        assert "buffer_memory_bytes (buffer.memory) must be >= fetch.max.bytes" in reason
    for point in payload["points"].values():
        assert len(point["traces"]) == 7 and "z" in point["traces"][0]
        assert len(point["traces"][2]["y"]) == SMALL.windows and "peak memory" in point["summary"]
    fixed, round_robin = payload["points"]["0-0-0"], payload["points"]["0-0-1"]
    heatmap, marker = fixed["traces"][0], fixed["traces"][1]
    assert (heatmap["x"], heatmap["y"]) == (["256 KiB", "1 MiB", "4 MiB"], ["none", "2 MiB"])
    assert (marker["x"], marker["y"]) == (["256 KiB"], ["none"])
    assert fixed["traces"][6]["y"] != round_robin["traces"][6]["y"]  # Jain's index differs


def _page(site: Path, small_grid) -> Path:
    site.mkdir(parents=True, exist_ok=True)
    from plotly.offline import get_plotlyjs

    (site / PLOTLY_JS).write_text(get_plotlyjs(), encoding="utf-8")
    section = slider_section(SPEC, small_grid, div_id="small")
    page = site / "small.html"
    page.write_text(html_page("small", section, plotlyjs=PLOTLY_JS), encoding="utf-8")
    return page


def test_a_slider_page_is_offline_and_says_what_was_precomputed(tmp_path, small_grid):
    """No CDN or network reference; the page names the sweep, the downsampling and the live
    dashboard, and its figure starts at the scenario's own settings."""
    text = _page(tmp_path, small_grid).read_text()
    assert not FETCHED.search(text) and "cdn.plot.ly" not in text
    assert "Spark simulated and summarised 10 configurations" in text
    assert "2 of them rejected" in text and "downsampled to 5 windows" in text
    assert "values between the grid's are not offered" in text
    assert "<code>FetchDashboard()</code>" in text and "kipvizSliders(" in text
    data = re.search(r'class="kipviz-grid-data">(.*?)</script>', text, re.S)
    assert data and len(json.loads(data[1])["points"]) == 10


def test_a_report_writes_a_slider_page_per_dashboard_and_links_it(tmp_path, spark, monkeypatch):
    """``build_site(..., sliders=True)``: a lesson building a FetchDashboard gets a slider page
    (its grid from :func:`dashboard_grids`), linked from the lesson page and the index."""
    monkeypatch.setattr("kipviz.apps.static.grids.dashboard_grids",
                        lambda: {"FetchDashboard": SPEC})
    lessons_dir = tmp_path / "lessons"
    lessons_dir.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Fetch lesson"),
                nbformat.v4.new_code_cell("from kipviz.widgets import FetchDashboard\n"
                                          "FetchDashboard(spark=spark)")]
    nbformat.write(nb, lessons_dir / "01_fetch.ipynb")
    (lesson,) = build_site(tmp_path / "site", notebooks=lessons_dir, execute=False,
                           sliders=True, spark=spark, log=lambda _: None)
    assert lesson.error is None and lesson.sliders == (
        ("01_fetch-fetch.html", "A small KIP-74 grid: sliders without a kernel"),)
    assert 'href="01_fetch-fetch.html"' in (tmp_path / "site" / "01_fetch.html").read_text()
    assert 'href="01_fetch-fetch.html"' in (tmp_path / "site" / "index.html").read_text()
    assert "kipvizSliders(" in (tmp_path / "site" / "01_fetch-fetch.html").read_text()


FIGURE_DATA_JS = """() => JSON.stringify(Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(div => (div.data || []).map(
        t => [t.name, Array.from(t.x || []), Array.from(t.y || [])])))"""


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: apt-get install chromium")
def test_moving_a_slider_on_a_page_from_disk_redraws_the_figure_with_no_kernel(
        tmp_path, small_grid, request):
    """In Chromium, from file:// (no server, no kernel): ArrowRight on fetch.max.bytes moves it
    1 MiB -> 4 MiB and the figure's data changes; buffer.memory 2 MiB there is rejected (a
    message, the figure kept); no JavaScript error."""
    playwright = pytest.importorskip("playwright.sync_api", reason="needs the dev extra")
    page_file = _page(tmp_path / "site", small_grid)
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    with playwright.sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1400})
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.on("request", lambda req: req.url.startswith("file:") or errors.append(
                f"network request: {req.url}"))
            page.goto(page_file.as_uri(), timeout=PAGE_MS)
            page.wait_for_function(f"({FIGURE_DATA_JS})().includes('[[')", timeout=PAGE_MS)
            before = page.evaluate(FIGURE_DATA_JS)
            fetch = page.locator('input[data-axis="fetch_max_bytes"]')
            shown = fetch.locator("xpath=following-sibling::output")
            assert shown.inner_text() == "1 MiB"
            fetch.focus()
            fetch.press("ArrowRight")
            page.wait_for_function(f"b => ({FIGURE_DATA_JS})() !== b", arg=before, timeout=PAGE_MS)
            after = page.evaluate(FIGURE_DATA_JS)
            moved = shown.inner_text()
            memory = page.locator('input[data-axis="buffer_memory_bytes"]')
            memory.focus()
            memory.press("ArrowRight")  # buffer.memory 2 MiB < fetch.max.bytes 4 MiB
            message = page.locator(".kipviz-grid-message").inner_text()
            kept = page.evaluate(FIGURE_DATA_JS)
            page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
        finally:
            browser.close()
    assert moved == "4 MiB" and json.loads(after) != json.loads(before)
    (figure,) = json.loads(after)
    assert all(x and y for name, x, y in figure if name not in ("this setting",
                                                                "the mechanism's bound"))
    assert "Kafka rejects this combination" in message and kept == after
    assert not errors, errors


def test_a_copied_site_keeps_working_without_its_source(tmp_path, small_grid):
    """The page needs only itself and plotly.min.js beside it: a copy elsewhere is complete."""
    page = _page(tmp_path / "site", small_grid)
    copy = shutil.copytree(page.parent, tmp_path / "elsewhere")
    text = (copy / "small.html").read_text()
    assert f'src="{PLOTLY_JS}"' in text and (copy / PLOTLY_JS).is_file()
    assert replace(SMALL) == SMALL  # the grid's base scenario is untouched by the sweep


def test_kipviz_run_adds_sliders_around_the_users_own_fetch_settings(tmp_path, spark, capsys):
    """``kipviz run``'s page has a grid whose fetch.max.bytes and max.partition.fetch.bytes
    sliders include the values read from the file (16 MiB and 2 MiB in the sample) and start
    there; ``--no-sliders`` leaves the section out."""
    from kipviz import data_file
    from kipviz.apps.cli import main

    page = tmp_path / "run.html"
    args = ["run", "--config", str(data_file("consumer.properties")), "--out", str(page),
            "--partitions", "12", "--ticks", "200"]
    assert main(args) == 0
    text = page.read_text()
    data = re.search(r'class="kipviz-grid-data">(.*?)</script>', text, re.S)
    assert data
    axes = {a["name"]: a for a in json.loads(data[1])["axes"]}
    fetch, partition = axes["fetch_max_bytes"], axes["max_partition_fetch_bytes"]
    assert fetch["values"][fetch["start"]] == "16 MiB"
    assert partition["values"][partition["start"]] == "2 MiB"
    assert main([*args, "--no-sliders"]) == 0
    assert "kipviz-grid-data" not in page.read_text()
    capsys.readouterr()
