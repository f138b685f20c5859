# ---
# jupyter:
#   jupytext:
#     notebook_metadata_filter: kernelspec,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Glossary
#
# The terms the course uses ([the tour](00_tour.ipynb), the [cheat sheet](cheatsheet.ipynb)),
# defined once in `kipviz.apps.cheatsheet.GLOSSARY`.

# %%
import pandas as pd

from kipviz.apps.cheatsheet import glossary_table

pd.set_option("display.max_colwidth", None)
glossary_table()
