"""Layers that point down only (issue 16, item 4), read from the source with ``ast``: no module
imports another module's private ``_name`` (private *modules* such as ``widgets/_base.py`` are
fine), and the import graph has no cycle, counting ``TYPE_CHECKING`` imports too."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kipviz"

KNOWN_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()  # none may be added
KNOWN_CYCLES: list[set[str]] = []


def _modules() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = ast.parse(path.read_text(), str(path))
    return out


MODULES = _modules()


def _imports_from(tree: ast.Module) -> list[ast.ImportFrom]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0
            and n.module is not None and n.module.split(".")[0] == "kipviz"]


def private_imports() -> set[tuple[str, str, str]]:
    """(importer, module, name) for every ``from kipviz.x import _name`` naming a private name
    defined in ``kipviz.x`` (not a private submodule ``kipviz.x._name``)."""
    found = set()
    for importer, tree in MODULES.items():
        for node in _imports_from(tree):
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and f"{node.module}.{alias.name}" not in MODULES:
                    found.add((importer, str(node.module), alias.name))
    return found


def _module_level_imports(body: list[ast.stmt]) -> list[ast.stmt]:
    """Imports run when the module is (or, under ``TYPE_CHECKING``, is checked as) imported:
    top level and inside top-level ``if`` / ``try`` blocks, not inside functions."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.append(node)
        elif isinstance(node, ast.If):
            out += _module_level_imports(node.body) + _module_level_imports(node.orelse)
        elif isinstance(node, ast.Try):
            out += _module_level_imports(node.body)
    return out


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the kipviz modules it imports at module level."""
    graph: dict[str, set[str]] = {}
    for name, tree in MODULES.items():
        targets = set()
        for node in _module_level_imports(tree.body):
            if isinstance(node, ast.Import):
                targets |= {_resolve(a.name) for a in node.names if a.name.startswith("kipviz")}
            elif node.level == 0 and node.module and node.module.startswith("kipviz"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in MODULES else _resolve(node.module))
        graph[name] = {t for t in targets if t and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_imports_a_private_name_of_another_module():
    """``from kipviz.x import _name`` only for private submodules; the Spark SQL plumbing of the
    reassignment curves is public in ``kipviz.curves.reassignment_sql``."""
    assert private_imports() - KNOWN_PRIVATE_IMPORTS == set()


def test_the_import_graph_has_no_cycle_not_even_for_type_checking():
    """Imports point down only: e.g. the reassignment's meta reads its scenario through a
    Protocol rather than importing the module that imports it."""
    assert [c for c in cycles(import_graph()) if c not in KNOWN_CYCLES] == []


def test_the_planner_takes_nothing_from_the_scenarios():
    """``kipviz.planner`` answers from Kafka's JSON and the planning arithmetic of
    ``kipviz.quota_planning``; it imports no scenario module (nor internals of one)."""
    graph = import_graph()
    for name in ("kipviz.planner", "kipviz.planner_input"):
        assert not {m for m in graph[name] if m.startswith("kipviz.scenarios")}, name


def test_the_checks_see_a_private_import_and_a_cycle():
    """The helpers find what they look for (here, in made-up modules)."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]
    tree = ast.parse("from kipviz.curves.sql import _hidden\nfrom kipviz.scenarios import _jit")
    names = [(n.module, a.name) for n in _imports_from(tree) for a in n.names]
    assert names == [("kipviz.curves.sql", "_hidden"), ("kipviz.scenarios", "_jit")]
    assert "kipviz.scenarios._jit" in MODULES and "kipviz.curves.sql._hidden" not in MODULES
