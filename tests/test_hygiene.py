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
TEST_MODULES = sorted(TESTS.glob("test_*.py"))


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


def test_examples_scales_the_loaded_profiles_count_and_keeps_at_least_one():
    """examples(times) is the loaded profile's count times ``times``, rounded, at least 1."""
    count = settings.default.max_examples
    assert examples(1) == count and examples(2) == 2 * count
    assert examples(1e-9) == 1
    with pytest.raises(ValueError, match="times must be > 0: 0"):
        examples(0)


def test_the_reference_implementations_live_under_benchmarks_only():
    """The oracles the kernels are checked against (SimPy programs and the plain-Python loops)
    are in ``benchmarks/``: ``tests/`` holds test modules and shared test helpers, and no test
    module runs SimPy itself."""
    helpers = {p.name for p in TESTS.glob("*.py") if not p.name.startswith("test_")}
    assert helpers == {"__init__.py", "cases.py", "conftest.py", "frames.py", "strategies.py"}
    for path in TEST_MODULES:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] == "simpy" for a in node.names), path.name
            if isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] != "simpy", path.name
