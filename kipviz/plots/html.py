"""HTML that goes beside a figure: the warnings list every dashboard and page shows.

Used by the dashboards (:mod:`kipviz.widgets`) and the static pages (:mod:`kipviz.apps.static`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from kipviz.kafka.config.advice import RISKY, first_clause

__all__ = ["warnings_html"]


def warnings_html(notes: Sequence[str], *, box: bool = False) -> str:
    """Warnings as a list, one line each, most important first, the full text a click away.

    A :class:`kipviz.kafka.config.advice.Note` gives its ``headline`` and ``rank``; a plain string
    is ranked as a risk (its order kept) and headed by its first clause. A line that says it all has
    no ``<details>``. ``box``: in the dashboards' amber box.
    """
    items = []
    for note in sorted(notes, key=lambda n: getattr(n, "rank", RISKY)):
        headline = getattr(note, "headline", "") or first_clause(note)
        if headline.rstrip(".") == note.rstrip("."):
            items.append(f"<li>{html.escape(note)}</li>")
        else:
            items.append(f'<li><details><summary style="cursor:pointer">{html.escape(headline)}'
                         f'</summary><div style="margin:2px 0 4px">{html.escape(note)}</div>'
                         f"</details></li>")
    style = (' style="background:#fff8e1;color:#8a6d00;padding:4px 10px 4px 1.6em;'
             'border-radius:4px;margin:4px 0"' if box else "")
    return f'<ul class="kipviz-warnings"{style}>{"".join(items)}</ul>'
