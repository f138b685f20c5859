"""Static HTML for design reviews: the lessons as a site, a config's run as a page, offline.

``build_site`` executes every notebook in ``notebooks/`` headless (nbclient, one kernel each)
or, with ``execute=False``, takes the outputs stored in them, and writes an index page and one
page per lesson. Plotly figures are drawn by one local copy of plotly.js (``plotly.min.js``
beside the pages; no CDN), so the site opens from a file system or any static server without a
network. Dashboards are ipywidgets, which need a kernel: during execution the environment
variable :data:`kipviz.widgets._base.STATIC_ENV` makes each one display its settings, summary
and current figure as plain HTML and a plain plotly figure instead. Pages built from stored
outputs show a note in place of a dashboard.

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

__all__ = ["NOTEBOOKS", "PLOTLY_JS", "Lesson", "build_site", "consumer_run_page",
           "find_notebooks", "html_page", "notebook_body"]

NOTEBOOKS = lessons_dir()
"""The lesson notebooks: the installed wheel's copy, or the repository's ``notebooks/``."""
PLOTLY_JS = "plotly.min.js"
"""File name of the one copy of plotly.js a site's pages share."""

_PLOTLY_MIME = "application/vnd.plotly.v1+json"
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
_CSS = """
body { font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       line-height: 1.5; color: #222; margin: 0; }
nav { background: #263238; padding: 8px 24px; }
nav a { color: #fff; text-decoration: none; margin-right: 16px; }
main { max-width: 1100px; margin: 0 auto; padding: 16px 24px 64px; }
pre { background: #f6f8fa; padding: 8px 12px; overflow-x: auto; font-size: 13px;
      border-radius: 4px; margin: 4px 0; }
code { font-size: 90%; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f0f0f0; }
.jp-InputPrompt, .jp-OutputPrompt { display: none; }
.jp-OutputArea-output { margin: 4px 0 12px; }
.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"] pre { background: #fff5f5; }
.kipviz-note { background: #e3f2fd; border-left: 4px solid #1e88e5; padding: 6px 12px; }
.kipviz-failed { color: #b71c1c; }
.kipviz-warnings li { color: #8a6d00; }
"""


@dataclass(frozen=True)
class Lesson:
    """One page of a site: the notebook's name, its title, and the error that stopped it."""

    name: str
    title: str
    error: str | None = None

    @property
    def file(self) -> str:
        """The page's file name inside the site."""
        return f"{self.name}.html"


def html_page(title: str, body: str, *, plotlyjs: str = "inline", nav: str = "") -> str:
    """A complete HTML page around ``body``; ``plotlyjs`` is ``"inline"`` (embedded, about
    4.8 MB), ``"none"``, or the relative path of a local ``plotly.min.js``."""
    from pygments.formatters import HtmlFormatter

    if plotlyjs == "inline":
        from plotly.offline import get_plotlyjs

        script = f'<script type="text/javascript">{get_plotlyjs()}</script>'
    elif plotlyjs == "none":
        script = ""
    else:
        script = f'<script type="text/javascript" src="{html.escape(plotlyjs)}"></script>'
    styles = _CSS + HtmlFormatter().get_style_defs(".highlight")
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n<style>{styles}</style>\n{script}\n</head>\n"
            f"<body>\n{nav}<main>\n{body}\n</main>\n</body>\n</html>\n")


def _figure_html(figure: Any, div_id: str) -> str:
    import plotly.io as pio

    return pio.to_html(figure, include_plotlyjs=False, full_html=False, div_id=div_id,
                       validate=False, config={"responsive": True})


_DASHBOARD_NOTE = ('<div class="kipviz-note">An interactive dashboard (ipywidgets) is here in '
                   "Jupyter. Open the notebook with <code>make lab</code> or "
                   "<code>make app</code>, or build this page with <code>kipviz report</code> "
                   "(executing) to see the dashboard's figure at its default settings.</div>")


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
            if _PLOTLY_MIME in data:
                figures += 1
                html_text = _figure_html(dict(data[_PLOTLY_MIME]), f"{page}-figure-{figures}")
                out = from_dict({**out, "data": {"text/html": html_text}})
            elif _WIDGET_MIME in data:
                out = from_dict({**out, "data": {"text/html": _DASHBOARD_NOTE}})
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

    from kipviz.widgets._base import STATIC_ENV

    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=False,
                            resources={"metadata": {"path": str(cwd)}})
    with _environment(**{STATIC_ENV: "1", "PLOTLY_RENDERER": "plotly_mimetype"}):
        try:
            client.execute()
        except CellExecutionError as err:
            return str(err).strip().splitlines()[-1] if str(err).strip() else repr(err)
    return None


def find_notebooks(directory: Path, only: Sequence[str] = ()) -> list[Path]:
    """The ``NN_name.ipynb`` notebooks of ``directory`` in order; ``only`` keeps those whose
    name starts with one of the given names (``01`` or ``01_fetch_size_limit``)."""
    found = sorted(p for p in directory.glob("*.ipynb") if re.match(r"\d", p.name))
    if only:
        found = [p for p in found if any(p.stem.startswith(o.removesuffix(".ipynb"))
                                         for o in only)]
        if not found:
            raise ValueError(f"no notebook in {directory} matches {', '.join(only)}")
    return found


def build_site(out: str | os.PathLike[str], *, notebooks: str | os.PathLike[str] = NOTEBOOKS,
               only: Sequence[str] = (), execute: bool = True, timeout: int = 1200,
               log: Callable[[str], None] = print) -> list[Lesson]:
    """Write the lessons of ``notebooks`` as a static site in ``out``; returns its pages.

    ``execute=True`` runs each notebook in a fresh kernel first (the stored ``.ipynb`` files are
    not changed); ``False`` renders the outputs stored in them. A notebook that fails still gets
    a page, showing its output up to the error, and its ``Lesson.error`` is set.
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
        lessons.append(lesson)
        nav = (f'<nav><a href="index.html">kipviz lessons</a>'
               f"<a>{html.escape(lesson.title)}</a></nav>\n")
        failed = (f'<p class="kipviz-failed">This notebook stopped with an error: '
                  f"{html.escape(error)}</p>\n" if error else "")
        page = html_page(lesson.title, failed + notebook_body(nb, path.stem), plotlyjs=PLOTLY_JS,
                         nav=nav)
        (site / lesson.file).write_text(page, encoding="utf-8")
        log(f"wrote {site / lesson.file}")
    (site / "index.html").write_text(_index(lessons, execute), encoding="utf-8")
    log(f"wrote {site / 'index.html'}")
    return lessons


def _index(lessons: Sequence[Lesson], executed: bool) -> str:
    from kipviz import __version__

    items = "".join(
        f'<li><a href="{html.escape(lesson.file)}">{html.escape(lesson.title)}</a> '
        f"<small>({html.escape(lesson.name)}.ipynb)</small>"
        + (f' <span class="kipviz-failed">failed: {html.escape(lesson.error)}</span>'
           if lesson.error else "") + "</li>\n"
        for lesson in lessons)
    how = ("executed headless by <code>kipviz report</code>; each dashboard shows its figure at "
           "its default settings" if executed else
           "the outputs stored in the notebooks (<code>kipviz report --no-execute</code>); "
           "dashboards need Jupyter")
    body = (f"<h1>kipviz: how Apache Kafka bounds memory and shares bandwidth</h1>\n"
            f"<p>The lessons as static pages for a design review (kipviz {__version__}; "
            f"{how}). Everything here works offline.</p>\n<ol>\n{items}</ol>\n")
    return html_page("kipviz lessons", body, plotlyjs="none")


def _table(df: Any, caption: str) -> str:
    return (f"<details><summary>{html.escape(caption)} ({len(df)} rows)</summary>"
            f"{df.to_html(index=False, float_format=lambda v: f'{v:,.4g}', border=0)}</details>")


def consumer_run_page(scenario: Any, curves: Any, *, warnings: Sequence[str] = (),
                      configs: Sequence[tuple[str, str]] = (), seed: int = 0) -> str:
    """The page of ``kipviz run``: settings, warnings, the numbers that matter, the figure
    (:func:`kipviz.plots.consumer_figure`) and the curve tables, plotly.js embedded."""
    from kipviz.plots import consumer_figure

    mib = 1024 * 1024
    s, c = scenario, curves
    jain = c.fairness["jain_index"].dropna()
    peak = int(c.memory["held_max_bytes"].max()) if len(c.memory) else 0
    consumed = float(c.memory["consumed_bytes_per_s"].mean()) if len(c.memory) else 0.0
    numbers = [
        ("min / mean Jain index (1 = fair)",
         f"{jain.min():.3f} / {jain.mean():.3f}" if len(jain) else "no data"),
        ("peak memory held", f"{peak:,} bytes ({peak / mib:,.1f} MiB)"),
        ("KIP-74 bound: min(brokers x fetch.max.bytes, partitions x max.partition.fetch.bytes)",
         f"{c.kip74_bound_bytes:,} bytes ({c.kip74_bound_bytes / mib:,.1f} MiB)"),
        ("pre-KIP-74 bound: partitions x max.partition.fetch.bytes",
         f"{c.pre_kip74_bound_bytes:,} bytes ({c.pre_kip74_bound_bytes / mib:,.1f} MiB)"),
        ("share of ticks above the KIP-74 bound", f"{100 * c.kip74_exceedance:.1f}%"),
        ("consumed (mean)", f"{consumed / 1e6:,.1f} MB/s"),
    ]
    w = s.workload
    setup = (f"{s.partitions} partitions on {s.brokers} brokers, {s.ticks} ticks of "
             f"{s.tick_ms} ms, producers writing {w.produce_bytes_per_s / 1e6:g} MB/s "
             f"({w.profile}), an initial backlog of {w.initial_lag_bytes:,} bytes per partition, "
             f"the application consuming {s.consume_bytes_per_s / 1e6:g} MB/s, partition order "
             f"{s.ordering.name.lower().replace('_', '-')}, seed {seed}")
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                   for k, v in numbers)
    settings = "".join(f"<h3>{html.escape(name)}</h3><pre>{html.escape(text or '(defaults)')}"
                       f"</pre>" for name, text in configs)
    notes = ("<ul class='kipviz-warnings'>"
             + "".join(f"<li>{html.escape(n)}</li>" for n in warnings) + "</ul>"
             if warnings else "<p>No risky values found.</p>")
    body = (f"<h1>KIP-74 consumer: your settings</h1>\n<p>{html.escape(setup)}.</p>\n"
            f"<h2>Settings</h2>{settings}\n<h2>Warnings</h2>{notes}\n"
            f"<h2>What the run shows</h2><table>{rows}</table>\n"
            f"{_figure_html(consumer_figure(c), 'kipviz-run-figure')}\n"
            f"<h2>Curves (computed by Spark)</h2>"
            f"{_table(c.fairness, 'fairness per window')}"
            f"{_table(c.memory, 'memory per window')}"
            f"{_table(c.lag_over_time, 'lag per window')}"
            f"{_table(c.lag_by_partition, 'lag and bytes delivered per partition')}")
    return html_page("kipviz run: KIP-74 consumer", body, plotlyjs="inline")
