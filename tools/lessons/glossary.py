"""The glossary: the terms the lessons use, defined once."""

from __future__ import annotations

from lessons import code, md

CELLS = [
    md("""
# Glossary

The terms the course uses ([the tour](00_tour.ipynb), the [cheat sheet](cheatsheet.ipynb)),
defined once in `kipviz.cheatsheet.GLOSSARY`.
"""),
    code("""
import pandas as pd

from kipviz.cheatsheet import glossary_table

pd.set_option("display.max_colwidth", None)
glossary_table()
"""),
]
