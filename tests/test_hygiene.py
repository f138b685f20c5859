"""The test suite's own rules: strategies in one place, example counts that scale with the
Hypothesis profile (read from the test modules' source, so a module added later is covered)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import settings

from tests.conftest import PROFILE_EXAMPLES
from tests.strategies import examples

TESTS = Path(__file__).parent
MAKEFILE = TESTS.parent / "Makefile"
TEST_MODULES = sorted(TESTS.rglob("test_*.py"))  # tests/<layer>/<area>/ mirror the package


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


@pytest.mark.parametrize("path", TEST_MODULES, ids=lambda p: p.stem)
def test_test_modules_take_their_hypothesis_strategies_from_tests_strategies(path):
    """No test module imports ``hypothesis.strategies``: every strategy is built in
    ``tests/strategies.py`` and imported from there."""
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.module == "hypothesis":
            assert "strategies" not in {a.name for a in node.names}, path.name
        if isinstance(node, ast.ImportFrom) and node.module == "hypothesis.strategies":
            pytest.fail(f"{path.name} imports hypothesis.strategies")
        if isinstance(node, ast.Import):
            assert not any(a.name == "hypothesis.strategies" for a in node.names), path.name


@pytest.mark.parametrize("path", TEST_MODULES, ids=lambda p: p.stem)
def test_example_counts_are_multiples_of_the_profiles(path):
    """``max_examples=`` is always ``examples(times)``, never a number, so ``dev``, ``ci`` and
    ``thorough`` scale every test's count together."""
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.keyword) and node.arg == "max_examples":
            call = node.value
            assert (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id == "examples"), f"{path.name}:{node.value.lineno}"


def test_the_profiles_are_registered_and_ordered_by_size():
    """dev < ci < thorough, each registered with Hypothesis under its name."""
    assert PROFILE_EXAMPLES["dev"] < PROFILE_EXAMPLES["ci"] < PROFILE_EXAMPLES["thorough"]
    for name, count in PROFILE_EXAMPLES.items():
        assert settings.get_profile(name).max_examples == count


def test_ci_draws_the_same_examples_every_run_and_the_others_draw_at_random():
    """The ``ci`` profile (``make test``'s) is derandomized, so a failure in CI fails again on a
    rerun; ``dev`` and ``thorough`` stay random, so they keep finding new cases. No test module
    overrides it (``derandomize=`` or ``database=`` in a test's ``@settings``)."""
    for name in PROFILE_EXAMPLES:
        assert settings.get_profile(name).derandomize is (name == "ci"), name
    for path in TEST_MODULES:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.keyword):
                assert node.arg not in {"derandomize", "database"}, f"{path.name}:{node.lineno}"


def _recipe(target: str) -> str:
    """The Makefile recipe of ``target``, its continuation lines joined."""
    lines = MAKEFILE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip().removesuffix("\\"))
    return " ".join(recipe)


def _variable(name: str) -> str:
    """The value of the Makefile variable ``name`` (``NAME = ...`` or ``NAME ?= ...``)."""
    for line in MAKEFILE.read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.rstrip(" ?") == name:
            return value.strip()
    raise AssertionError(f"no {name} in the Makefile")


def test_make_test_runs_the_ci_profile_and_test_fast_leaves_the_network_out():
    """``make test`` runs ``ci`` unless ``HYPOTHESIS_PROFILE`` says otherwise and takes every
    marker: all but ``ALONE_TESTS`` on ``TEST_WORKERS`` xdist workers, then those alone (each an
    existing browser or real-Kafka test file); ``make test-fast`` runs ``dev`` and leaves out
    Spark, the browser, the clusters and the network (the wheel's build downloads setuptools)."""
    test, fast = _recipe("test"), _recipe("test-fast")
    assert "HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci}" in _variable("PYTEST_ENV")
    phases = test.split("$(PYTEST_ENV)")[1:]
    assert len(phases) == 2, test
    assert '-m "' not in phases[0] and "-n $(TEST_WORKERS) --dist load" in phases[0]
    assert "notebooks tests $(NBVAL) $(ALONE_TESTS:%=--ignore=%)" in phases[0]
    assert "--nbval" in _variable("NBVAL")
    assert "pytest $(ALONE_TESTS) " in phases[1] and "-n " not in phases[1]
    alone = _variable("ALONE_TESTS").split()
    marked = [any(f"pytest.mark.{m}" in (MAKEFILE.parent / path).read_text(encoding="utf-8")
                  for m in ("browser", "reality")) for path in alone]
    assert alone and all(marked), alone
    assert "HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-dev}" in fast
    assert '-m "not spark and not browser and not cluster and not network and not reality"' \
        in fast


def test_examples_scales_the_loaded_profiles_count_and_keeps_at_least_one():
    """examples(times) is the loaded profile's count times ``times``, rounded, at least 1."""
    count = settings.default.max_examples
    assert examples(1) == count and examples(2) == 2 * count
    assert examples(1e-9) == 1
    with pytest.raises(ValueError, match="times must be > 0: 0"):
        examples(0)


def test_the_reference_implementations_live_under_tools_oracles_only():
    """The oracles the kernels are checked against (SimPy programs and the plain-Python loops)
    are in ``tools/oracles/``: ``tests/`` holds test modules and shared test helpers (its
    subfolders, test modules only), and no test module runs SimPy itself."""
    helpers = {p.name for p in TESTS.glob("*.py") if not p.name.startswith("test_")}
    assert helpers == {"__init__.py", "cases.py", "conftest.py", "frames.py", "strategies.py"}
    nested = {p.relative_to(TESTS).as_posix() for p in TESTS.glob("*/**/*.py")
              if not p.name.startswith("test_") and p.name != "__init__.py"}
    assert not nested, nested
    for path in TEST_MODULES:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] == "simpy" for a in node.names), path.name
            if isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] != "simpy", path.name
