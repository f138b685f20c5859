"""Build the lesson notebooks from their cell lists (then `make notebooks` executes them).

Keeping each lesson's cells as plain text in ``tools/lessons/`` (one module per notebook) lets a
reviewer read a lesson without Jupyter and keeps the notebooks' structure (question, experiment,
picture, conclusion, what Kafka does today) uniform.
Run: .venv/bin/python tools/build_notebooks.py [NAME ...]
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# notebook name -> module of tools/lessons holding its CELLS
LESSONS = {
    "00_tour": "tour",
    "01_fetch_size_limit": "fetch",
    "02_memory_pool": "memory_pool",
    "03_consumer_buffer_memory": "consumer_buffer_memory",
    "04_replication_quotas": "replication_quotas",
    "05_streams_input_buffer": "streams_input_buffer",
    "06_sweeps": "sweeps",
    "08_tiered_storage": "tiered_storage",
}


def main(names: list[str]) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    for name in names or list(LESSONS):
        nb = nbformat.v4.new_notebook()
        nb.cells = importlib.import_module(f"lessons.{LESSONS[name]}").CELLS
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        nbformat.write(nb, NOTEBOOKS / f"{name}.ipynb")
        print(f"wrote notebooks/{name}.ipynb")


if __name__ == "__main__":
    main(sys.argv[1:])
