"""The tree shows the architecture and imports point down only, read from the source with ``ast``.

Layers, lowest first (the rank table below): ``kafka`` (the rules), ``scenarios``, ``reality``
(a real Kafka on loopback, which builds scenarios to predict), ``curves``
(Spark), ``plots``, ``widgets``, ``apps`` (the front doors). A module imports from its own layer
or a lower one, counting imports inside functions (lazy) and under ``TYPE_CHECKING``; only
``__init__.py`` and ``__main__.py`` sit at ``kipviz/``'s top, and ``kipviz/__init__`` imports no
kipviz module (packages re-export lazily, :func:`kipviz.lazy_exports`). A private module
(``_name.py``) is imported only inside its own package, no module imports another module's
private ``_name``, and the module-level import graph has no cycle.
"""

from __future__ import annotations

import ast
import importlib
import warnings
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "kipviz"

RANKS = {"kafka": 0, "scenarios": 1, "reality": 1.5, "curves": 2, "plots": 3, "widgets": 4,
         "apps": 5}
"""Each layer's rank: an import may point to the same rank or a lower one."""

NOT_BELOW_CURVES = ("pyspark", "plotly", "ipywidgets", "simpy", "anywidget")
MAX_LINES = 400
"""Past this a module is named in a warning (300 lines is the hint): one concept a module."""


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


def _targets(nodes: list[ast.stmt]) -> set[str]:
    """The kipviz modules these import statements load, with the packages above each (importing
    ``a.b.c`` runs ``a.b``'s ``__init__``), ``kipviz`` itself left out."""
    targets: set[str | None] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            targets |= {_resolve(a.name) for a in node.names if a.name.startswith("kipviz")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.startswith("kipviz"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                targets.add(full if full in MODULES else _resolve(node.module))
    out = set()
    for t in filter(None, targets):
        parts = t.split(".")
        out |= {".".join(parts[:i]) for i in range(2, len(parts) + 1)}
    return out


def import_graph(*, everywhere: bool = False) -> dict[str, set[str]]:
    """Module -> the kipviz modules it imports at module level (``everywhere``: also inside
    functions)."""
    graph = {}
    for name, tree in MODULES.items():
        nodes = ([n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
                 if everywhere else _module_level_imports(tree.body))
        graph[name] = {t for t in _targets(nodes) if t != name
                       and not (name.startswith(t + ".") and t.count(".") >= 1)}
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
        for w in graph.get(v, ()):
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


def layer(module: str) -> str:
    """The layer a module belongs to: its first package under ``kipviz``."""
    return module.split(".")[1] if module.count(".") >= 1 else ""


def upward_imports() -> set[tuple[str, str]]:
    """(importer, imported) where the imported module's layer ranks above the importer's."""
    found = set()
    for importer, targets in import_graph(everywhere=True).items():
        if importer in ("kipviz", "kipviz.__main__"):
            continue
        for target in targets:
            if RANKS[layer(target)] > RANKS[layer(importer)]:
                found.add((importer, target))
    return found


def test_kipvizs_top_holds_only_init_and_main_and_every_module_sits_in_a_layer():
    """A newcomer reads the plan from ``ls kipviz``: one folder per layer."""
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py"]
    assert {layer(m) for m in MODULES} - {"", "__main__"} == set(RANKS)
    assert sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__") \
        == sorted(RANKS)


def test_the_rules_live_in_one_folder_per_kafka_area():
    """``kipviz/kafka/`` holds at least five areas, each a package whose docstring says what lives
    there and what it may import."""
    areas = [p for p in (PACKAGE / "kafka").iterdir() if (p / "__init__.py").is_file()]
    assert len(areas) >= 5
    for package in [PACKAGE / "kafka", *areas]:
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        assert "May import" in doc, package


def test_every_package_says_what_lives_there_and_what_it_may_import():
    """Each package's ``__init__`` docstring names its modules' purpose and its allowed imports."""
    for init in PACKAGE.rglob("__init__.py"):
        if init.parent == PACKAGE:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert "May import" in doc, init


def test_imports_point_to_the_same_layer_or_lower_lazy_and_type_checking_ones_too():
    """The rank table holds for every import statement anywhere in a module."""
    assert upward_imports() == set()


def test_kipvizs_init_imports_no_kipviz_module():
    """``import kipviz`` adds no edges: packages re-export lazily through ``lazy_exports``."""
    assert import_graph(everywhere=True)["kipviz"] == set()


def test_nothing_below_the_curves_imports_spark_plotly_ipywidgets_or_simpy():
    """The rules and the scenarios run without Java, a browser or SimPy."""
    found = []
    for name, tree in MODULES.items():
        if layer(name) not in ("kafka", "scenarios", "reality"):
            continue
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [(name, n) for n in names if n.split(".")[0] in NOT_BELOW_CURVES]
    assert found == []


def test_a_private_module_is_imported_only_inside_its_own_package():
    """``kipviz/widgets/_base.py`` is the widgets' own; another package uses public names."""
    found = []
    for importer, targets in import_graph(everywhere=True).items():
        for target in targets:
            if target.rpartition(".")[2].startswith("_") and not target.endswith("__"):
                package = target.rpartition(".")[0]
                if not (importer == package or importer.startswith(package + ".")):
                    found.append((importer, target))
    assert found == []


def test_no_module_imports_a_private_name_of_another_module():
    """``from kipviz.x import _name`` only for private submodules."""
    assert private_imports() == set()


def test_the_import_graph_has_no_cycle_not_even_for_type_checking():
    """Imports point down only: e.g. the reassignment's meta reads its scenario through a
    Protocol rather than importing the module that imports it."""
    assert cycles(import_graph()) == []


def test_a_module_longer_than_the_limit_is_named_in_a_warning():
    """One concept a module: 300 lines is a hint, 400 a warning (issue 43), not a failure: a
    module is split only where a concept ends, never to get under a number. The long modules
    are listed in a ``UserWarning`` (pytest's summary shows it) and the test passes."""
    long = {str(p.relative_to(PACKAGE)): n for p in sorted(PACKAGE.rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    if long:
        listed = ", ".join(f"{name} ({n})" for name, n in long.items())
        warnings.warn(f"modules longer than {MAX_LINES} lines (split one only where a concept "
                      f"ends): {listed}", UserWarning, stacklevel=1)


@pytest.mark.parametrize("package", sorted(m for m in MODULES if m != "kipviz"
                                           and (PACKAGE.parent / m.replace(".", "/")).is_dir()))
def test_every_lazily_exported_name_is_defined_by_the_module_the_package_names(package):
    """A package's ``__all__`` resolves: each name comes from the submodule its table names,
    where it is defined (not re-exported there)."""
    module = importlib.import_module(package)
    for name in getattr(module, "__all__", ()):
        value = getattr(module, name)
        defined_in = getattr(value, "__module__", None)
        if defined_in is not None and callable(value):
            assert defined_in.startswith(package + "."), (package, name, defined_in)


def test_the_checks_see_a_private_import_a_cycle_and_an_upward_edge():
    """The helpers find what they look for (here, in made-up modules)."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]
    tree = ast.parse("from kipviz.curves.sql import _hidden\nfrom kipviz.scenarios import jit")
    names = [(n.module, a.name) for n in _imports_from(tree) for a in n.names]
    assert names == [("kipviz.curves.sql", "_hidden"), ("kipviz.scenarios", "jit")]
    assert "kipviz.scenarios.jit" in MODULES and "kipviz.curves.sql._hidden" not in MODULES
    assert layer("kipviz.kafka.fetch.response") == "kafka"
    assert RANKS[layer("kipviz.widgets.tour")] > RANKS[layer("kipviz.plots.tour")]
