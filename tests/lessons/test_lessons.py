"""Lesson cells call the package; the package computes (issue 18's "no logic in a cell"); each
notebook has the same cells as its jupytext source ``tools/lessons/NAME.py``.

A cell may import, call, read attributes, write literals and arithmetic on literals (``2 * MiB``),
and assign those. It may not loop, build comprehensions, define functions or classes, use
``lambda``, or chain pandas ``groupby`` / ``apply``. Cells that still compute are listed in
:data:`STILL_COMPUTING` by lesson and cell index: the list may only shrink, and a new lesson cell
with logic fails the suite.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = ROOT / "tools" / "lessons"  # jupytext percent files paired with the notebooks
FORBIDDEN = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp,
             ast.GeneratorExp, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
CHAINS = ("groupby", "apply")

# Cells written before the check, still to be moved into the package (lesson, cell index).
STILL_COMPUTING: dict[str, set[int]] = {}


def logic_in(source: str) -> list[str]:
    """What in a cell's code computes instead of calling the package (empty: nothing)."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError as err:
        return [f"does not parse: {err.msg}"]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, FORBIDDEN):
            found.append(f"{type(node).__name__} on line {node.lineno}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in CHAINS):
            found.append(f".{node.func.attr}() on line {node.lineno}")
    return found


def lesson_cells() -> list[tuple[str, int, str]]:
    """(lesson, cell index, source) of every code cell of every notebook."""
    cells = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for k, cell in enumerate(nb["cells"]):
            if cell["cell_type"] == "code":
                cells.append((path.stem, k, "".join(cell["source"])))
    return cells


@pytest.mark.parametrize(("lesson", "index", "source"), lesson_cells(),
                         ids=lambda v: str(v)[:30] if isinstance(v, str) else str(v))
def test_a_lesson_cell_calls_the_package_and_computes_nothing(lesson, index, source):
    """Loops, comprehensions, def, class, lambda and groupby/apply chains belong in kipviz."""
    found = logic_in(source)
    if index in STILL_COMPUTING.get(lesson, set()):
        pytest.xfail(f"{lesson} cell {index} still computes: {', '.join(found) or 'now clean'}")
    assert not found, f"{lesson} cell {index} computes: {', '.join(found)}"


def test_the_checker_refuses_logic_and_allows_calls():
    """``2 * MiB`` and calls pass; a comprehension, a loop, a lambda and groupby do not."""
    assert logic_in("x = 2 * MiB\nprint(simulate(replace(s, ticks=10)).meta['peak'])") == []
    assert logic_in("[p for p in range(3)]") == ["ListComp on line 1"]
    assert logic_in("for p in ps:\n    print(p)")[0].startswith("For")
    assert logic_in("f = lambda x: x")[0].startswith("Lambda")
    assert logic_in("t.groupby('a').sum()") == [".groupby() on line 1"]


def test_every_listed_cell_still_computes():
    """A cleaned cell leaves :data:`STILL_COMPUTING`: the list only shrinks."""
    by_lesson = {(lesson, index): source for lesson, index, source in lesson_cells()}
    clean = [f"{lesson} cell {index}" for lesson, indexes in STILL_COMPUTING.items()
             for index in indexes if not logic_in(by_lesson.get((lesson, index), ""))]
    assert not clean, f"no longer computing, remove from STILL_COMPUTING: {clean}"


def test_every_lesson_links_its_neighbours_the_cheat_sheet_and_the_glossary():
    """Lessons read as one course: each numbered notebook links the previous and next ones."""
    lessons = sorted(p for p in NOTEBOOKS.glob("*.ipynb") if p.name[:2].isdigit())
    for i, path in enumerate(lessons):
        text = "".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                       if c["cell_type"] == "markdown")
        wanted = [p.name for p in lessons[max(0, i - 1):i + 2] if p != path]
        wanted += ["cheatsheet.ipynb", "glossary.ipynb"]
        missing = [name for name in wanted if f"({name})" not in text]
        assert not missing, f"{path.name} does not link {missing}"


def test_every_numbered_lesson_ends_with_your_cluster():
    """Lessons 1 to 6 close by applying their formula to the reader's own files."""
    from kipviz.apps.your_cluster import LESSONS

    for lesson in LESSONS:
        (path,) = NOTEBOOKS.glob(f"{lesson}_*.ipynb")
        sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
        assert any(s.startswith("## Your cluster") for s in sources), path.name
        assert any(f'your_cluster("{lesson}"' in s for s in sources), path.name


def test_every_exercise_is_a_card_in_its_lesson_with_a_right_solution():
    """One format (issue 29): each exercise is a cell ``exercise("LL", N, my_answer=None)`` in
    its lesson, and the solution the catalogue gives is right by kipviz's checker."""
    from kipviz.apps.exercises import EXERCISES, check

    for (lesson, number), exercise in EXERCISES.items():
        assert check(lesson, number, eval(exercise.solution)), (lesson, number)
        (path,) = NOTEBOOKS.glob(f"{lesson}_*.ipynb")
        cells = json.loads(path.read_text())["cells"]
        call = f'exercise("{lesson}", {number}, my_answer=None)'
        assert any(call in "".join(c["source"]) for c in cells if c["cell_type"] == "code"), (
            path.name, number)


def test_no_stored_output_shows_an_answer_before_it_is_asked_for():
    """An exercise card's answer sits in a collapsed ``<details>``: its text and the page around
    it (text/plain, the HTML outside ``<details>``) never show it, in any cell of the lesson."""
    import re

    from kipviz.apps.exercises import EXERCISES, answer

    for (lesson, number), exercise in EXERCISES.items():
        (path,) = NOTEBOOKS.glob(f"{lesson}_*.ipynb")
        shown = answer(lesson, number)
        solved = f"{shown:,.10g} {exercise.unit}"
        for cell in json.loads(path.read_text())["cells"]:
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                plain = "".join(data.get("text/plain", "")) + "".join(output.get("text", ""))
                page = re.sub(r"<details>.*?</details>", "", "".join(data.get("text/html", "")),
                              flags=re.S)
                assert f"Right: {solved}" not in plain + page, (path.name, number)
                if "kipviz-exercise" in page:
                    assert solved not in page and exercise.why not in page, (path.name, number)


def test_every_notebook_has_a_paired_source_and_every_source_a_notebook():
    """``tools/lessons/NAME.py`` and ``notebooks/NAME.ipynb`` come in pairs (pyproject's
    ``[tool.jupytext]``), so a lesson is edited as a linted .py file."""
    notebooks = {p.stem for p in NOTEBOOKS.glob("*.ipynb")}
    sources = {p.stem for p in SOURCES.glob("*.py")}
    assert notebooks == sources, {"no source": notebooks - sources,
                                  "no notebook": sources - notebooks}


@pytest.mark.parametrize("name", sorted(p.stem for p in SOURCES.glob("*.py")))
def test_a_notebook_has_the_cells_of_its_source(name):
    """Same cells, types, sources and hidden-answer metadata: after editing a lesson's .py, run
    ``jupytext --sync tools/lessons/NAME.py`` (``make notebooks NB=NAME`` also executes it)."""
    jupytext = pytest.importorskip("jupytext")
    source = jupytext.read(SOURCES / f"{name}.py")
    notebook = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))

    def cells(nb_cells):
        return [(c["cell_type"], "".join(c["source"]),
                 bool(c["metadata"].get("jupyter", {}).get("source_hidden"))) for c in nb_cells]

    assert cells(notebook["cells"]) == cells(source.cells), (
        f"notebooks/{name}.ipynb is out of sync: jupytext --sync tools/lessons/{name}.py")


def _numbered_lessons() -> list[Path]:
    return sorted(p for p in NOTEBOOKS.glob("*.ipynb")
                  if p.name[:2].isdigit() and p.name[:2] != "00")


def test_every_numbered_lesson_draws_its_mechanism_near_the_top():
    """Issue 18: a static diagram of the lesson's mechanism (kipviz.plots.diagrams) in one of the
    first code cells, before the experiments."""
    for path in _numbered_lessons():
        code = [("".join(c["source"])) for c in json.loads(path.read_text())["cells"]
                if c["cell_type"] == "code"]
        assert any(f'diagram("{path.name[:2]}")' in source for source in code[:4]), path.name


def test_what_kafka_does_today_names_the_release_it_describes():
    """Each numbered lesson's "What Kafka does today" says which release it describes: the
    newest the package models (kipviz.kafka.config.versions.NEWEST_KAFKA_VERSION)."""
    from kipviz.kafka.config.versions import NEWEST_KAFKA_VERSION

    for path in _numbered_lessons():
        text = "".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                       if c["cell_type"] == "markdown")
        today = text.split("## What Kafka does today", 1)
        assert len(today) == 2, f"{path.name} has no 'What Kafka does today'"
        assert f"Kafka {NEWEST_KAFKA_VERSION}" in today[1].split("\n## ", 1)[0], path.name


@pytest.mark.parametrize("name", sorted(p.stem for p in SOURCES.glob("*.py")))
def test_lesson_code_stays_within_the_line_length(name):
    """Ruff lints the sources but lets prose, links and tables in markdown cells run long (E501 in
    pyproject's per-file ignores); code cells keep the project's 100 characters."""
    jupytext = pytest.importorskip("jupytext")
    long = [line for cell in jupytext.read(SOURCES / f"{name}.py").cells
            if cell.cell_type == "code" for line in cell.source.splitlines() if len(line) > 100]
    assert not long, long
