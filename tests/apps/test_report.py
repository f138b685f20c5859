"""The static site: an index, one page per lesson, figures drawn offline by one local plotly.js."""

from __future__ import annotations

import re

import nbformat
import pytest

from kipviz.apps.exercises import EXERCISES
from kipviz.apps.report import NOTEBOOKS, build_site, find_notebooks
from kipviz.apps.static.html import PLOTLY_JS

# Anything a page would fetch from the network (links in the lesson text are not fetched).
FETCHED = re.compile(r"""<(?:script|link|img)[^>]+(?:src|href)=["']?(?:https?:)?//""")


def _quiet(_: str) -> None:
    pass


def test_stored_outputs_render_as_an_offline_site(tmp_path):
    """--no-execute: the committed outputs, plotly figures as divs drawn by ./plotly.min.js,
    no widget state, no CDN, dashboards replaced by a note; the index links each page; the
    exercises' answers stay inside their collapsed ``<details>``."""
    out = tmp_path / "site"
    lessons = build_site(out, only=["01"], execute=False, log=_quiet)
    assert [lesson.name for lesson in lessons] == ["01_fetch_size_limit"]
    assert lessons[0].title and lessons[0].error is None
    page = (out / "01_fetch_size_limit.html").read_text()
    assert f'<script type="text/javascript" src="{PLOTLY_JS}"></script>' in page
    assert page.count("Plotly.newPlot(") == 3  # the lesson's diagram and its two figures
    assert 'id="01_fetch_size_limit-figure-1"' in page
    assert "widget-state" not in page and "cdn.plot.ly" not in page
    assert not FETCHED.search(page)
    assert "An interactive dashboard" in page
    assert len(page) < 500_000  # plotly.js is shared, not embedded in each page
    assert (out / PLOTLY_JS).stat().st_size > 1_000_000
    index = (out / "index.html").read_text()
    assert 'href="01_fetch_size_limit.html"' in index and not FETCHED.search(index)
    shown = re.sub(r"<details>.*?</details>", "", page, flags=re.S)
    assert "Right: " not in shown  # no exercise's answer shows before it is opened
    for number in (1, 2, 3, 4):
        # the longest stretch of the answer's "why" that HTML escaping leaves alone
        why = max(re.split(r"[^\w ,.]", EXERCISES[("01", number)].why), key=len)
        assert why in page and why not in shown


def _notebook(path, *sources):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# A small lesson\n\nText.")]
    nb.cells += [nbformat.v4.new_code_cell(source) for source in sources]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, path)


def test_executed_notebooks_are_run_headless_and_failures_are_reported(tmp_path):
    """Each notebook runs in a fresh kernel (plotly as its mimetype, drawn offline); one that
    raises still gets a page, up to the error, and its error is returned; the .ipynb files are
    not changed."""
    lessons_dir = tmp_path / "lessons"
    lessons_dir.mkdir()
    _notebook(lessons_dir / "01_ok.ipynb",
              "import os, plotly.graph_objects as go\n"
              "print('static dashboards:', os.environ.get('KIPVIZ_STATIC_DASHBOARDS'))",
              "go.Figure(go.Bar(x=['a', 'b'], y=[3, 4]))")
    _notebook(lessons_dir / "02_broken.ipynb", "print('before')", "1 / 0",
              "print('unreached'.upper())")
    (lessons_dir / "README.ipynb").write_text("{}")  # not a lesson: not NN_name
    stored = (lessons_dir / "01_ok.ipynb").read_text()
    lessons = build_site(tmp_path / "site", notebooks=lessons_dir, timeout=120, sliders=False,
                         log=_quiet)  # no dashboards here: no Spark (test_static_pages has them)
    assert [(lesson.name, lesson.title) for lesson in lessons] == [
        ("01_ok", "A small lesson"), ("02_broken", "A small lesson")]
    assert lessons[0].error is None and "ZeroDivisionError" in (lessons[1].error or "")
    ok = (tmp_path / "site" / "01_ok.html").read_text()
    assert "static dashboards: 1" in ok and ok.count("Plotly.newPlot(") == 1
    broken = (tmp_path / "site" / "02_broken.html").read_text()
    assert "before" in broken and "ZeroDivisionError" in broken and "UNREACHED" not in broken
    assert "failed: " in (tmp_path / "site" / "index.html").read_text()
    assert (lessons_dir / "01_ok.ipynb").read_text() == stored


def test_only_picks_lessons_by_name_prefix_and_says_when_none_match():
    """``--only 02`` or ``--only 02_memory_pool``; a name that matches nothing is an error."""
    assert [p.stem for p in find_notebooks(NOTEBOOKS, ["02"])] == ["02_memory_pool"]
    assert [p.stem for p in find_notebooks(NOTEBOOKS, ["02_memory_pool.ipynb"])] == [
        "02_memory_pool"]
    with pytest.raises(ValueError, match=r"no notebook in .* matches 99"):
        find_notebooks(NOTEBOOKS, ["99"])
