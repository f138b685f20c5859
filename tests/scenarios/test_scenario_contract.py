"""One contract for every scenario kind in ``kipviz.scenarios.registry.SCENARIOS``, and a registry
that makes a new kind work in the summaries and sweeps without editing them (issue 16, item 3)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
import pandas as pd
import pytest

from kipviz.curves import summary
from kipviz.scenarios import SCENARIOS, Reduction, ScenarioKind, kind_of
from kipviz.scenarios.broker.scenario import BrokerScenario
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.contract import input_rng
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario
from kipviz.scenarios.share_group.scenario import ShareGroupScenario
from kipviz.scenarios.streams.scenario import StreamsScenario
from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario

DOCS = Path(__file__).resolve().parents[2] / "docs" / "traces.md"

# a small run of each kind; a kind registered later adds its line here
SMALL: dict[str, Any] = {
    "consumer": ConsumerScenario(partitions=12, ticks=200, windows=5),
    "broker": BrokerScenario(connections=20, ticks=300),
    "reassignment": ReassignmentScenario(partitions=4, log_bytes=25_000_000, ticks=300),
    "streams": StreamsScenario(ticks=100, initial_lag_records=1000),
    "share_group": ShareGroupScenario(ticks=100, initial_lag_records=2000),
    "tiered_fetch": TieredFetchScenario(duration_ms=2_000),
}


def test_every_registered_kind_has_a_small_run_here():
    """The table below covers the registry, in its order: consumer, broker, reassignment,
    Streams, share group, tiered fetch."""
    assert list(SCENARIOS) == list(SMALL)
    assert [SCENARIOS[name].kip for name in ("consumer", "broker", "reassignment")] == [
        "KIP-74, KIP-81", "KIP-72", "KIP-73"]


@pytest.mark.parametrize("name", list(SMALL))
def test_every_kind_simulates_with_a_keyword_seed_that_defaults_to_zero(name):
    """``simulate(scenario, *, seed=0, ...)``, a frozen scenario dataclass, a trace whose
    ``meta`` is the kind's TypedDict."""
    kind = SCENARIOS[name]
    seed = inspect.signature(kind.simulate).parameters["seed"]
    assert seed.kind is inspect.Parameter.KEYWORD_ONLY and seed.default == 0
    assert dataclasses.is_dataclass(kind.scenario)
    assert kind.scenario.__dataclass_params__.frozen  # type: ignore[attr-defined]
    hints = typing.get_type_hints(kind.trace)
    assert hints["meta"] is kind.meta and typing.is_typeddict(kind.meta)
    assert isinstance(SMALL[name], kind.scenario) and kind_of(SMALL[name]) is kind


@pytest.mark.parametrize("name", list(SMALL))
def test_every_kind_records_its_seed_and_exactly_its_typed_meta_keys(name):
    """The trace's ``meta`` has every required key of its TypedDict, no key it does not declare,
    and the seed given, also where nothing is random."""
    kind = SCENARIOS[name]
    trace = kind.simulate(SMALL[name], seed=7)
    assert isinstance(trace, kind.trace)
    keys = set(trace.meta)
    assert kind.meta.__required_keys__ <= keys <= set(typing.get_type_hints(kind.meta))
    assert trace.meta["seed"] == 7


@pytest.mark.parametrize("seed", [-1, 2**32, "1", 1.0, True])
@pytest.mark.parametrize("name", list(SMALL))
def test_a_bad_seed_is_refused_by_every_kind_even_where_nothing_is_random(name, seed):
    """The seed is part of every run's identity, so every kind checks it alike: an int in
    0 .. 2**32 - 1."""
    with pytest.raises(ValueError, match="seed must be"):
        SCENARIOS[name].simulate(SMALL[name], seed=seed)


def test_inputs_come_from_the_runs_seed_sequence_as_default_rng_draws_them():
    """``input_rng(seed)`` is ``Generator(PCG64(SeedSequence(seed)))``: numpy's
    ``default_rng(seed)`` stream, so traces made before the contract keep their numbers."""
    assert np.array_equal(input_rng(5).integers(0, 2**31 - 1, 8),
                          np.random.default_rng(5).integers(0, 2**31 - 1, 8))
    with pytest.raises(ValueError, match="seed must be an integer >= 0 and <= 4294967295"):
        input_rng(2**32)


# numpy's seeded, local generators; anything else under np.random is the global one
_LOCAL_RANDOM = {"default_rng", "SeedSequence", "Generator", "PCG64", "BitGenerator"}
_GLOBAL_RANDOM_KNOWN: set[str] = set()  # none may be added


def test_no_module_draws_from_numpys_global_generator():
    """No ``np.random.seed`` / ``np.random.random`` ...: inputs come from a SeedSequence."""
    import ast

    package = Path(__file__).resolve().parents[2]
    found = set()
    for path in sorted((package / "kipviz").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and node.attr not in _LOCAL_RANDOM
                    and ast.unparse(node.value) in ("np.random", "numpy.random")):
                found.add(str(path.relative_to(package)))
    assert found <= _GLOBAL_RANDOM_KNOWN, sorted(found - _GLOBAL_RANDOM_KNOWN)


@pytest.mark.parametrize("name", list(SMALL))
def test_the_trace_schema_docs_name_every_kind_its_trace_and_each_meta_key(name):
    """``docs/traces.md`` has a section per registered kind naming its ``simulate`` by the path a
    reader types (its kind's package, which re-exports it) and its trace class, and documents
    every key of its meta."""
    kind = SCENARIOS[name]
    text = DOCS.read_text()
    package = f"kipviz.scenarios.{name}"
    assert importlib.import_module(package).simulate is kind.simulate
    assert f"`{package}.simulate`" in text
    assert f"`{kind.trace.__name__}`" in text
    missing = [key for key in typing.get_type_hints(kind.meta) if f"`{key}`" not in text]
    assert not missing, f"{kind.trace.__name__}.meta keys not in docs/traces.md: {missing}"


def _curves() -> dict[str, list[Any]]:
    from kipviz.curves.broker import broker_curves
    from kipviz.curves.consumer import consumer_curves
    from kipviz.curves.consumer.buffer import buffer_curves
    from kipviz.curves.reassignment import reassignment_curves
    from kipviz.curves.share_group import share_group_curves
    from kipviz.curves.streams import streams_curves
    from kipviz.curves.tiered_fetch import tiered_curves

    return {"consumer": [consumer_curves, buffer_curves], "broker": [broker_curves],
            "reassignment": [reassignment_curves], "streams": [streams_curves],
            "share_group": [share_group_curves], "tiered_fetch": [tiered_curves]}


def test_every_kinds_curves_take_the_same_windows_argument():
    """``*_curves(spark, trace, *, windows=...)`` for every registered kind."""
    curves = _curves()
    assert list(curves) == list(SCENARIOS)
    for functions in curves.values():
        for function in functions:
            windows = inspect.signature(function).parameters["windows"]
            assert windows.kind is inspect.Parameter.KEYWORD_ONLY, function.__name__


def test_a_consumers_windows_are_the_simulations_and_a_tiered_run_takes_windows_or_ms():
    """A consumer trace is windowed by its scenario (``windows`` must match it, or be None);
    tiered curves take ``windows`` or ``window_ms``, not both. Refused before any Spark job."""
    from kipviz.curves.consumer import consumer_curves
    from kipviz.curves.tiered_fetch import tiered_curves

    trace = SCENARIOS["consumer"].simulate(SMALL["consumer"], record_fetches=False)
    with pytest.raises(ValueError, match=r"^windows must be None or the 5 windows"):
        consumer_curves(None, trace, windows=20)
    tiered = {"4.3": SCENARIOS["tiered_fetch"].simulate(SMALL["tiered_fetch"])}
    with pytest.raises(ValueError, match="'windows' or 'window_ms', not both"):
        tiered_curves(None, tiered, windows=4, window_ms=500)
    with pytest.raises(ValueError, match=r"^windows must be an integer >= 1: 0"):
        tiered_curves(None, tiered, windows=0)


def test_tiered_curves_cut_the_run_into_the_windows_asked_for(spark):
    """``windows=4`` over a 2 s run: 500 ms windows, as ``window_ms=500`` gives."""
    from kipviz.curves.tiered_fetch import tiered_curves

    tiered = {"4.3": SCENARIOS["tiered_fetch"].simulate(SMALL["tiered_fetch"])}
    by_count = tiered_curves(spark, tiered, windows=4)
    by_ms = tiered_curves(spark, tiered, window_ms=500)
    pd.testing.assert_frame_equal(by_count.throughput, by_ms.throughput)


# --- a toy kind, registered for one test only -------------------------------------------

class ToyMeta(TypedDict):
    seed: int
    tick_ms: int


@dataclass(frozen=True)
class ToyScenario:
    """A queue that holds ``level_bytes`` and drains ``rate_bytes_per_tick``."""

    level_bytes: int = 1000
    rate_bytes_per_tick: int = 10
    ticks: int = 40


@dataclass(frozen=True)
class ToyTrace:
    ticks: pd.DataFrame
    meta: ToyMeta


def toy_simulate(scenario: ToyScenario, *, seed: int = 0) -> ToyTrace:
    held = np.maximum(scenario.level_bytes - scenario.rate_bytes_per_tick
                      * np.arange(scenario.ticks), 0)
    return ToyTrace(pd.DataFrame({"held_bytes": held}), {"seed": seed, "tick_ms": 10})


def toy_summarise(scenario: ToyScenario, seed: int) -> Reduction:
    t = toy_simulate(scenario, seed=seed)
    held = t.ticks["held_bytes"].to_numpy()
    return Reduction(memory_bytes=held, consumed_bytes=-np.diff(held, prepend=held[0]),
                     tick_ms=t.meta["tick_ms"], windows=4,
                     metrics={"bound_bytes": float(scenario.level_bytes)})


TOY = ScenarioKind("toy", "none", ToyScenario, toy_simulate, ToyTrace, ToyMeta, toy_summarise)


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setitem(SCENARIOS, "toy", TOY)
    return TOY


def test_a_kind_added_to_the_registry_is_summarised_with_no_other_edit(toy_registered):
    """Registering a kind is all ``summarise`` and ``check_sweepable`` need: the row has the
    kind's metrics, NaN for those it lacks, and curves over its own windows."""
    assert summary.check_sweepable(ToyScenario()) is TOY
    row = summary.summarise(ToyScenario(), seed=3)
    assert row["peak_memory_bytes"] == 1000.0 and row["bound_bytes"] == 1000.0
    assert math.isnan(row["move_time_s"]) and math.isnan(row["min_jain_index"])
    assert row["throughput_bytes_per_s"] == pytest.approx(390 / 40 * 100)
    assert list(row["curve_window_ms"]) == [0, 100, 200, 300]


def test_a_kind_that_is_not_registered_is_refused_naming_the_kinds_that_are():
    """The message lists the sweepable kinds from the registry, in its order."""
    with pytest.raises(ValueError, match=r"cannot sweep a ToyScenario: a ConsumerScenario, "
                                          r"BrokerScenario, .* or ShareGroupScenario is needed"):
        summary.check_sweepable(ToyScenario())
    with pytest.raises(ValueError, match="cannot sweep a TieredFetchScenario"):
        summary.summarise(SMALL["tiered_fetch"])


def test_only_scenario_kinds_can_be_registered():
    """A registry entry is a ScenarioKind under its own name."""
    with pytest.raises(ValueError, match="must be a ScenarioKind named 'toy'"):
        SCENARIOS["toy"] = dataclasses.replace(TOY, name="other")
    assert "toy" not in SCENARIOS


def test_a_kind_added_to_the_registry_is_swept_and_cached_with_no_other_edit(
        toy_registered, spark, tmp_path):
    """The Spark tasks get the kind with each configuration, so a kind registered in the
    driver only is swept; its rows are cached and read back like any other kind's."""
    from kipviz.curves.sweep import grid, sweep

    configs = grid(ToyScenario(), rate_bytes_per_tick=[10, 50])
    first = sweep(spark, configs, cache_dir=tmp_path)
    assert first.computed == 2 and list(first.table["kind"]) == ["ToyScenario"] * 2
    assert list(first.table["bound_bytes"]) == [1000.0, 1000.0]
    again = sweep(spark, configs, cache_dir=tmp_path)
    assert again.computed == 0
    pd.testing.assert_frame_equal(first.table.drop(columns=list(summary.CURVES)),
                                  again.table.drop(columns=list(summary.CURVES)))
