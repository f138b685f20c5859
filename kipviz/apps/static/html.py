"""The HTML shell of every static page: styles, plotly.js kept local, figures without a CDN.

Used by :mod:`kipviz.apps.report` (a lesson site), :mod:`kipviz.apps.static.sliders` (pages whose
sliders move over a precomputed grid) and :mod:`kipviz.apps.static.run_page` (``kipviz run``).
"""

from __future__ import annotations

import html
from typing import Any

__all__ = ["PLOTLY_JS", "figure_html", "html_page"]

PLOTLY_JS = "plotly.min.js"
"""File name of the one copy of plotly.js a site's pages share."""

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
.kipviz-controls label { display: flex; align-items: center; gap: 12px; margin: 6px 0; }
.kipviz-controls .kipviz-setting { width: 260px; font-family: monospace; }
.kipviz-controls input[type=range] { width: 360px; }
.kipviz-controls output { font-weight: bold; min-width: 140px; }
.kipviz-grid-message { color: #b71c1c; min-height: 1.5em; }
.kipviz-grid-summary { font-size: 14px; }
"""


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


def figure_html(figure: Any, div_id: str) -> str:
    """A plotly figure (or its dict) as a ``div`` drawn by the page's plotly.js."""
    import plotly.io as pio

    return pio.to_html(figure, include_plotlyjs=False, full_html=False, div_id=div_id,
                       validate=False, config={"responsive": True})
