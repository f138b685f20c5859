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
    "07_share_groups": "share_groups",
    "08_tiered_storage": "tiered_storage",
    "cheatsheet": "cheatsheet",
    "glossary": "glossary",
}


def _title(name: str) -> str:
    return name[:2].lstrip("0") + " · " + name[3:].replace("_", " ") if name[:2] != "00" \
        else "the tour"


def navigation(name: str) -> str:
    """The course bar of a numbered lesson: previous, next, cheat sheet and glossary."""
    numbered = [n for n in LESSONS if n[:2].isdigit()]
    i = numbered.index(name)
    parts = []
    if i > 0:
        parts.append(f"← [{_title(numbered[i - 1])}]({numbered[i - 1]}.ipynb)")
    if i + 1 < len(numbered):
        parts.append(f"[{_title(numbered[i + 1])}]({numbered[i + 1]}.ipynb) →")
    parts += ["[cheat sheet](cheatsheet.ipynb)", "[glossary](glossary.ipynb)"]
    return "**Course:** " + " · ".join(parts)


# lesson -> the cluster its "your cluster" cell describes (kipviz.your_cluster.your_cluster)
YOUR_CLUSTER = {
    "01": 'brokers=6, partitions=120',
    "02": 'brokers=6, partitions=120',
    "03": 'brokers=6, partitions=120, kafka_version="4.3"',
    "04": 'replication_factor=3, bytes_in_per_s=10e6, bytes_to_move=200e9',
    "05": 'partitions=2000, threads=4, brokers=3',
    "06": 'brokers=6, partitions=120',
}


def exercise_cells(lesson: str) -> list[nbformat.NotebookNode]:
    """The lesson's exercises (kipviz.exercises): the questions, then one collapsed answer cell
    each, which asks kipviz.exercises.check, so a changed model shows as a changed verdict."""
    from kipviz.exercises import exercises_for

    found = exercises_for(lesson)
    if not found:
        return []
    questions = "\n".join(f"{n}. {e.question}" for n, e in found)
    cells = [nbformat.v4.new_markdown_cell(
        f"## Exercises\n\n{questions}\n\nWork them out with the lesson's numbers, then "
        f"expand the answer cells below (each asks `kipviz.exercises.check`).")]
    for n, e in found:
        cell = nbformat.v4.new_code_cell(
            f"from kipviz.exercises import check\n\n"
            f'print(check("{lesson}", {n}, {e.solution}))  # exercise {n}')
        cell.metadata["jupyter"] = {"source_hidden": True}
        cells.append(cell)
    return cells


def your_cluster_cells(lesson: str) -> list[nbformat.NotebookNode]:
    """The closing section: the lesson's formula with the reader's settings, what to watch and
    which knob to turn (kipviz.your_cluster)."""
    return [
        nbformat.v4.new_markdown_cell(
            "## Your cluster\n\nThe lesson's formula with your own settings, the metric to "
            "watch and the knob to turn. Replace the sample files with your `consumer.properties` "
            "and `server.properties` (paths, or mappings of Kafka keys) and the numbers with your "
            "cluster's; settings Kafka would refuse are reported as notes."),
        nbformat.v4.new_code_cell(
            "from kipviz import data_file\nfrom kipviz.your_cluster import your_cluster\n\n"
            f'print(your_cluster("{lesson}", data_file("consumer.properties"), '
            f'data_file("server.properties"),\n                   {YOUR_CLUSTER[lesson]}))'),
    ]


def main(names: list[str]) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    for name in names or list(LESSONS):
        nb = nbformat.v4.new_notebook()
        nb.cells = list(importlib.import_module(f"lessons.{LESSONS[name]}").CELLS)
        if name[:2] in YOUR_CLUSTER:  # exercises, then the lesson applied to your own files
            nb.cells += exercise_cells(name[:2])
            nb.cells += your_cluster_cells(name[:2])
        if name[:2].isdigit():  # a numbered lesson: links to its neighbours, top and bottom
            bar = nbformat.v4.new_markdown_cell(navigation(name))
            nb.cells[1:1] = [bar]
            nb.cells.append(nbformat.v4.new_markdown_cell(navigation(name)))
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        nbformat.write(nb, NOTEBOOKS / f"{name}.ipynb")
        print(f"wrote notebooks/{name}.ipynb")


if __name__ == "__main__":
    main(sys.argv[1:])
