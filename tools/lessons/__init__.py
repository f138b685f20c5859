"""The lessons' cells, one module per notebook; ``md`` and ``code`` make the cells."""

from __future__ import annotations

import nbformat


def md(text: str) -> nbformat.NotebookNode:
    """A markdown cell (surrounding blank lines stripped)."""
    return nbformat.v4.new_markdown_cell(text.strip())


def code(text: str) -> nbformat.NotebookNode:
    """A code cell (surrounding blank lines stripped)."""
    return nbformat.v4.new_code_cell(text.strip())
