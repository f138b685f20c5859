"""The README and the docs as a reader meets them: the README's Python blocks that need no Spark
run as written and print what their comments promise, and every ``kipviz.…`` path in the
README, ``docs/`` and the lesson sources names a module or a name that exists.

The blocks that start Spark (``get_spark()``, a dashboard) are left to the lessons' own tests;
run them by hand after changing one.
"""

from __future__ import annotations

import ast
import importlib
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from kipviz import data_file

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PATH_SOURCES = [README, *sorted((ROOT / "docs").glob("*.md")),
                *sorted((ROOT / "tools" / "lessons").glob("*.py"))]
NEEDS_SPARK = re.compile(r"get_spark\(|Dashboard\(")
KIPVIZ_PATH = re.compile(r"\bkipviz(?:\.[A-Za-z_]\w*)+")
# a comment after an expression that states its value: a whole number, or a string's beginning
NUMBER_COMMENT = re.compile(r"#\s*([\d,]+)\b")
STRING_COMMENT = re.compile(r"^\s*#\s?(.*)$")


def _python_blocks(text: str) -> list[tuple[int, str]]:
    """Each fenced ``python`` block of a Markdown text: (its first code line's number, code)."""
    blocks, lines = [], text.splitlines()
    start = None
    for number, line in enumerate(lines, 1):
        if start is None and line.strip() == "```python":
            start = number
        elif start is not None and line.strip() == "```":
            blocks.append((start + 1, "\n".join(lines[start:number - 1]) + "\n"))
            start = None
    return blocks


BLOCKS = _python_blocks(README.read_text(encoding="utf-8"))
NO_SPARK = [(line, code) for line, code in BLOCKS if not NEEDS_SPARK.search(code)]


def _promised(code: str, stmt: ast.stmt) -> tuple[str, Any] | None:
    """What a comment says an expression statement gives: ``("int", n)`` for ``expr  # 1042``,
    ``("str", beginning)`` for comment lines below it that quote a string (up to `` ...``)."""
    lines = code.splitlines()
    last = lines[stmt.end_lineno - 1]
    tail = last[stmt.end_col_offset:]
    number = NUMBER_COMMENT.match(tail.strip())
    if number:
        return "int", int(number.group(1).replace(",", ""))
    quoted = []
    for line in lines[stmt.end_lineno:]:
        comment = STRING_COMMENT.match(line)
        if not comment:
            break
        quoted.append(comment.group(1).strip())
    text = " ".join(quoted)
    if text.startswith(("'", '"')):
        return "str", text[1:].split(" ...")[0]
    return None


def test_the_readme_has_blocks_that_need_spark_and_blocks_that_do_not():
    """The split below finds both kinds (a block renamed out of the pattern would go untested)."""
    assert NO_SPARK and len(NO_SPARK) < len(BLOCKS)


@pytest.mark.parametrize(("line", "code"), NO_SPARK, ids=[f"README.md:{n}" for n, _ in NO_SPARK])
def test_a_readme_block_that_needs_no_spark_runs_as_written(line, code, tmp_path, monkeypatch):
    """Each block runs on its own (it brings its imports) in a folder holding the sample
    ``consumer.properties`` and ``server.properties``, as a user's would; an expression whose
    comment states its value (``# 1042``, or a quoted string's beginning) gives that value."""
    for name in ("consumer.properties", "server.properties"):
        shutil.copy(data_file(name), tmp_path / name)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    for stmt in ast.parse(code).body:
        where = f"README.md:{line + stmt.lineno - 1}"
        promised = _promised(code, stmt) if isinstance(stmt, ast.Expr) else None
        if promised is None:
            exec(compile(ast.Module([stmt], []), where, "exec"), namespace)
            continue
        value = eval(compile(ast.Expression(stmt.value), where, "eval"), namespace)
        kind, expected = promised
        if kind == "int":
            assert value == expected, where
        else:
            assert isinstance(value, str) and value.startswith(expected), (where, value)


def _resolves(path: str) -> bool:
    """``path`` names a module, or a name reached by attributes from the longest module prefix."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


@pytest.mark.parametrize("source", PATH_SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_kipviz_path_a_reader_sees_exists(source):
    """``kipviz.kafka.fetch.fill_response``, ``kipviz.curves.sweep``...: each dotted path in the
    README, ``docs/`` and the lesson sources imports, or is a name its module or package has."""
    paths = sorted(set(KIPVIZ_PATH.findall(source.read_text(encoding="utf-8"))))
    assert paths or source.parent.name == "lessons"
    missing = [p for p in paths if not _resolves(p)]
    assert not missing, f"{source.relative_to(ROOT)} names what does not exist: {missing}"
