"""Static HTML for design reviews: the lessons as a site, a config's run as a page, offline.

``build_site`` executes every notebook in ``notebooks/`` headless (nbclient, one kernel each)
or, with ``execute=False``, takes the outputs stored in them, and writes an index page and one
page per lesson. Plotly figures are drawn by one local copy of plotly.js (``plotly.min.js``
beside the pages; no CDN), so the site opens from a file system or any static server without a
network. Dashboards are ipywidgets, which need a kernel: during execution the environment
variable :data:`kipviz.widgets._base.STATIC_ENV` makes each one display its settings, summary
and current figure as plain HTML and a plain plotly figure instead. Pages built from stored
outputs show a note in place of a dashboard.

Each dashboard a lesson shows also gets a page of its own whose sliders move (``sliders=True``,
the default when executing): its two or three main controls (:mod:`kipviz.apps.static.grids`) over a
grid of about 50 configurations that Spark computes while the site is built, redrawn in the
browser from data in the page (:mod:`kipviz.apps.static.sliders`).

``consumer_run_page`` is the page of ``kipviz run``: one KIP-74 consumer scenario from a
``consumer.properties`` (and ``server.properties``), its warnings, curves and figures, with
plotly.js embedded so the single file opens anywhere.
"""

from __future__ import annotations

import contextlib
import html
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kipviz import lessons_dir
from kipviz.apps.static.html import PLOTLY_JS, figure_html, html_page
from kipviz.apps.static.run_page import consumer_run_page

__all__ = ["NOTEBOOKS", "PLOTLY_JS", "REFERENCE_PAGES", "Lesson", "build_site", "consumer_run_page",
           "dashboards_in", "find_notebooks", "html_page", "notebook_body"]

NOTEBOOKS = lessons_dir()
"""The lesson notebooks: the installed wheel's copy, or the repository's ``notebooks/``."""
_PLOTLY_MIME = "application/vnd.plotly.v1+json"
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@dataclass(frozen=True)
class Lesson:
    """One page of a site: the notebook's name, its title, and the error that stopped it."""

    name: str
    title: str
    error: str | None = None
    sliders: tuple[tuple[str, str], ...] = ()
    """The lesson's slider pages: (file name, title) for each dashboard it shows."""

    @property
    def file(self) -> str:
        """The page's file name inside the site."""
        return f"{self.name}.html"


_DASHBOARD_NOTE = ('<div class="kipviz-note">An interactive dashboard (ipywidgets) is here in '
                   "Jupyter: <code>kipviz lab</code> (or <code>make lab</code> in a clone) opens "
                   "the lessons, <code>make app</code> this dashboard alone. A site built by "
                   "<code>kipviz report</code> (executing) shows its figure here and links a "
                   "page whose sliders move at the top.</div>")


def _static_outputs(nb: Any, page: str) -> Any:
    """A copy of ``nb`` whose outputs render without a kernel or a network: plotly figures as
    HTML drawing with the page's plotly.js, widget views as a note, Spark's stderr dropped."""
    import copy

    from nbformat import from_dict

    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)  # widget state: megabytes of scripts no page can use
    figures = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                continue  # JVM start-up lines and library warnings: not lesson content
            parts = []
            if _WIDGET_MIME in data:  # a dashboard: the note, its settings, its figure as stored
                parts += [_DASHBOARD_NOTE, data.get("text/html", "")]
            if _PLOTLY_MIME in data:
                figures += 1
                parts.append(figure_html(dict(data[_PLOTLY_MIME]), f"{page}-figure-{figures}"))
            if parts:
                out = from_dict({**out, "data": {"text/html": "".join(parts)}})
            kept.append(out)
        cell.outputs = kept
    return nb


def notebook_body(nb: Any, page: str) -> str:
    """The HTML of a notebook's cells and outputs (nbconvert's ``basic`` template: no scripts
    from a CDN), figures drawn by a plotly.js the page provides."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="basic")
    body, _ = exporter.from_notebook_node(_static_outputs(nb, page))
    return str(body)


def _title(nb: Any, fallback: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+)$", cell.source, re.MULTILINE)
            if match:
                return match[1].strip()
    return fallback


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    """Set environment variables for the kernels started inside (they inherit them)."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _execute(nb: Any, cwd: Path, timeout: int) -> str | None:
    """Run every cell in a fresh kernel; the first error's text, or None."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    from kipviz.widgets import STATIC_ENV

    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=False,
                            resources={"metadata": {"path": str(cwd)}})
    with _environment(**{STATIC_ENV: "1", "PLOTLY_RENDERER": "plotly_mimetype"}):
        try:
            client.execute()
        except CellExecutionError as err:
            return str(err).strip().splitlines()[-1] if str(err).strip() else repr(err)
    return None


REFERENCE_PAGES = ("cheatsheet", "glossary")
"""Unnumbered notebooks of the course that the site carries after the lessons."""


def find_notebooks(directory: Path, only: Sequence[str] = ()) -> list[Path]:
    """The ``NN_name.ipynb`` lessons of ``directory`` in order, then the course's cheat sheet
    and glossary (:data:`REFERENCE_PAGES`); ``only`` keeps those whose name starts with one of
    the given names (``01`` or ``01_fetch_size_limit``)."""
    found = sorted(p for p in directory.glob("*.ipynb") if re.match(r"\d", p.name))
    found += [p for name in REFERENCE_PAGES if (p := directory / f"{name}.ipynb").is_file()]
    if only:
        found = [p for p in found if any(p.stem.startswith(o.removesuffix(".ipynb"))
                                         for o in only)]
        if not found:
            raise ValueError(f"no notebook in {directory} matches {', '.join(only)}")
    return found


def build_site(out: str | os.PathLike[str], *, notebooks: str | os.PathLike[str] = NOTEBOOKS,
               only: Sequence[str] = (), execute: bool = True, timeout: int = 1200,
               sliders: bool | None = None, spark: Any = None, cache_dir: Any = None,
               log: Callable[[str], None] = print) -> list[Lesson]:
    """Write the lessons of ``notebooks`` as a static site in ``out``; returns its pages.

    ``execute=True`` runs each notebook in a fresh kernel first (the stored ``.ipynb`` files are
    not changed); ``False`` renders the outputs stored in them. A notebook that fails still gets
    a page, showing its output up to the error, and its ``Lesson.error`` is set. ``sliders``
    (default: as ``execute``) writes a slider page per dashboard, its grid swept by ``spark``
    (default :func:`kipviz.curves.spark.get_spark`) with the Parquet cache in ``cache_dir`` if
    given.
    """
    import nbformat

    source, site = Path(notebooks), Path(out)
    paths = find_notebooks(source, only)
    if not paths:
        raise ValueError(f"no lesson notebooks (NN_name.ipynb) in {source}")
    site.mkdir(parents=True, exist_ok=True)
    from plotly.offline import get_plotlyjs

    (site / PLOTLY_JS).write_text(get_plotlyjs(), encoding="utf-8")
    lessons = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        error = None
        if execute:
            log(f"executing {path.name} ...")
            error = _execute(nb, path.parent, timeout)
            if error:
                log(f"  failed: {error}")
        lesson = Lesson(path.stem, _title(nb, path.stem), error)
        nav = (f'<nav><a href="index.html">kipviz lessons</a>'
               f'<a href="{html.escape(lesson.file)}">{html.escape(lesson.title)}</a></nav>\n')
        if execute if sliders is None else sliders:
            if spark is None:
                from kipviz.curves.spark import get_spark

                spark = get_spark()
            lesson = _slider_pages(lesson, nb, site, spark, cache_dir, nav, log)
        lessons.append(lesson)
        failed = (f'<p class="kipviz-failed">This notebook stopped with an error: '
                  f"{html.escape(lesson.error)}</p>\n" if lesson.error else "")
        links = "".join(f'<li><a href="{html.escape(file)}">{html.escape(title)}</a></li>'
                        for file, title in lesson.sliders)
        moving = (f'<div class="kipviz-note">Move this lesson\'s dashboard without Jupyter (its '
                  f"main settings over a grid Spark computed when this site was built):"
                  f"<ul>{links}</ul></div>\n" if links else "")
        page = html_page(lesson.title, failed + moving + notebook_body(nb, path.stem),
                         plotlyjs=PLOTLY_JS, nav=nav)
        (site / lesson.file).write_text(page, encoding="utf-8")
        log(f"wrote {site / lesson.file}")
    (site / "index.html").write_text(_index(lessons, execute), encoding="utf-8")
    log(f"wrote {site / 'index.html'}")
    return lessons


def dashboards_in(nb: Any) -> list[str]:
    """The dashboards a notebook's code cells build that have a static grid, by class name, in
    order of first appearance (:func:`kipviz.apps.static.grids.dashboard_grids`)."""
    from kipviz.apps.static.grids import dashboard_grids

    known = dashboard_grids()
    found = re.findall(r"\b([A-Z]\w*Dashboard)\(",
                       "\n".join(c.source for c in nb.cells if c.cell_type == "code"))
    return [name for name in dict.fromkeys(found) if name in known]


def _slider_pages(lesson: Lesson, nb: Any, site: Path, spark: Any, cache_dir: Any, nav: str,
                  log: Callable[[str], None]) -> Lesson:
    """Write a slider page for each dashboard of ``nb``; the lesson with their links (and the
    first error, when a grid could not be computed)."""
    from dataclasses import replace

    from kipviz.apps.static.grids import dashboard_grids
    from kipviz.apps.static.sliders import fill_grid, slider_section

    pages, error = [], lesson.error
    for name in dashboards_in(nb):
        spec = dashboard_grids()[name]
        file = f"{lesson.name}-{name.removesuffix('Dashboard').lower()}.html"
        log(f"sweeping {name}'s grid for {file} ...")
        try:
            section = slider_section(spec, fill_grid(spec, spark, cache_dir=cache_dir),
                                     div_id=f"{lesson.name}-{name}")
        except Exception as err:  # a Spark or model error: the site is still written
            error = error or f"{name}'s grid: {err}"
            log(f"  failed: {err}")
            continue
        title = f"{spec.title}: sliders without a kernel"
        body = (f"<h1>{html.escape(lesson.title)}: the dashboard without a kernel</h1>\n"
                f"<p>The main settings of the dashboard in <a href=\"{html.escape(lesson.file)}\">"
                f"{html.escape(lesson.title)}</a>.</p>\n{section}")
        (site / file).write_text(html_page(title, body, plotlyjs=PLOTLY_JS, nav=nav),
                                 encoding="utf-8")
        log(f"wrote {site / file}")
        pages.append((file, title))
    return replace(lesson, error=error, sliders=tuple(pages))


def _index(lessons: Sequence[Lesson], executed: bool) -> str:
    from kipviz import __version__

    items = "".join(
        f'<li><a href="{html.escape(lesson.file)}">{html.escape(lesson.title)}</a> '
        f"<small>({html.escape(lesson.name)}.ipynb)</small>"
        + "".join(f' &middot; <a href="{html.escape(file)}">sliders</a>'
                  for file, _ in lesson.sliders)
        + (f' <span class="kipviz-failed">failed: {html.escape(lesson.error)}</span>'
           if lesson.error else "") + "</li>\n"
        for lesson in lessons)
    how = ("executed headless by <code>kipviz report</code>; each dashboard shows its figure at "
           "its default settings" if executed else
           "the outputs stored in the notebooks (<code>kipviz report --no-execute</code>)")
    how += ("; a dashboard's <i>sliders</i> page moves its main settings over a grid Spark "
            "computed while this site was built, no kernel needed"
            if any(lesson.sliders for lesson in lessons) else "; live dashboards need Jupyter")
    body = (f"<h1>kipviz: how Apache Kafka bounds memory and shares bandwidth</h1>\n"
            f"<p>The lessons as static pages for a design review (kipviz {__version__}; "
            f"{how}). Everything here works offline.</p>\n<ol>\n{items}</ol>\n")
    return html_page("kipviz lessons", body, plotlyjs="none")
