"""The kernels' column blocks are named, not positional (issue 25, item 5).

Every kernel's inputs, settings, state and outputs are namedtuples that ``simulate`` builds by
keyword and the kernel reads by attribute. Were one built or unpacked by position somewhere
(``Block(*arrays)``, ``a, b = block``, ``block[3]``, a zip over ``_fields``), reordering its
fields would slide a column into the wrong slot silently. So each block is replaced by one
whose fields are declared in reverse order, and every kind must still give the same trace
(run as plain Python: the same functions numba compiles). The constructors are also checked to
be called with keywords only, in the package and in the SimPy references.
"""

from __future__ import annotations

import ast
import collections
import importlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import fields, is_dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario
from kipviz.scenarios.share_group.scenario import ShareGroupScenario
from kipviz.scenarios.streams.scenario import StreamsScenario
from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario
from kipviz.scenarios.workload import Workload
from tests.scenarios.broker.test_simpy_broker import SMALL

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("broker", "consumer", "reassignment", "share_group", "streams", "tiered_fetch")
# where the blocks are declared: each kind's kernel and columns, the workload's batches, the
# share rules' state and settings
BLOCK_MODULES = ("kipviz.scenarios.workload", "kipviz.kafka.share.partition",
                 "kipviz.kafka.share.acquire",
                 *(f"kipviz.scenarios.{kind}.{part}" for kind in KINDS
                   for part in ("kernel", "columns")
                   if (ROOT / "kipviz" / "scenarios" / kind / f"{part}.py").exists()))


def blocks() -> list[type]:
    """Every namedtuple class declared in :data:`BLOCK_MODULES`."""
    found = []
    for name in BLOCK_MODULES:
        module = importlib.import_module(name)
        found += [value for value in vars(module).values()
                  if isinstance(value, type) and issubclass(value, tuple)
                  and hasattr(value, "_fields") and value.__module__ == name]
    return found


def reversed_block(cls: type) -> type:
    """``cls`` with the same field names declared in reverse order."""
    new = collections.namedtuple(cls.__name__, tuple(reversed(cls._fields)))
    new.__module__, new.__qualname__ = cls.__module__, cls.__qualname__
    return new


@pytest.fixture
def reordered(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """Each block replaced, in every kipviz, benchmarks and oracle module that holds it, by its
    reversed twin; yields how many blocks were replaced."""
    swap = {id(cls): reversed_block(cls) for cls in blocks()}
    for module in list(sys.modules.values()):
        name = getattr(module, "__name__", "")
        if not name.startswith(("kipviz.", "benchmarks.", "tools.oracles.")):
            continue
        for attr, value in list(vars(module).items()):
            if id(value) in swap and isinstance(value, type):
                monkeypatch.setattr(module, attr, swap[id(value)])
    yield len(swap)


def _simulate(kind: str) -> Callable[..., Any]:
    return importlib.import_module(f"kipviz.scenarios.{kind}.scenario").simulate


# Small runs that reach every block's fields: a pool, a quota, paused partitions, heartbeats,
# thread changes, remote reads and their quota, a throttle schedule, stalled share consumers.
CASES: dict[str, Any] = {
    "broker": replace(SMALL["non-strict pool under a spike"], spike_start_ms=100,
                      spike_duration_ms=300, ticks=60),
    "consumer": ConsumerScenario(
        partitions=6, brokers=2, fetch_max_bytes=40_000, max_partition_fetch_bytes=15_000,
        consume_bytes_per_s=2e6, ticks=60, windows=3, fetch_quota_bytes_per_s=4e5,
        paused_partitions=(1, 2), pause_at_ms=200, buffer_memory_bytes=100_000,
        heartbeat_interval_ms=50,
        workload=Workload(produce_bytes_per_s=2e6, record_bytes=800, initial_lag_bytes=80_000)),
    "reassignment": ReassignmentScenario(
        partitions=3, log_bytes=3_000_000, bytes_in_per_s=300_000,
        leader_throttle_bytes_per_s=2_000_000, follower_throttle_bytes_per_s=3_000_000,
        throttle_schedule=((0.5, 1_000_000),), tick_ms=10, ticks=150),
    "share_group": ShareGroupScenario(
        partitions=3, share_consumers=5, classic_consumers=3, acquire_mode="record_limit",
        fetch_max_bytes=100_003, max_record_locks=30, batch_records=7, max_poll_records=13,
        initial_lag_records=700, produce_records_per_s=3000, stalled_consumers=1,
        record_lock_duration_ms=200, delivery_count_limit=2, ticks=60),
    "streams": StreamsScenario(
        input_buffer_max_bytes=2_000_000, threads=2, global_thread=True,
        thread_changes=((100, 3), (300, 1)), tasks=5, topics=2, initial_lag_records=3000,
        produce_records_per_s=500.0, process_records_per_s=30000.0,
        max_partition_fetch_bytes=100_000, ticks=50),
    "tiered_fetch": TieredFetchScenario(
        duration_ms=1_500, catch_up_consumers=2, remote_log_reader_threads=2,
        backlog_bytes=40 * 1024 * 1024, segment_bytes=8 * 1024 * 1024,
        remote_fetch_max_bytes_per_s=20 * 1024 * 1024),
}


def _tables(trace: Any) -> dict[str, Any]:
    """A trace's tables and meta by name (tables with their columns in name order)."""
    out = {}
    for f in fields(trace) if is_dataclass(trace) else ():
        value = getattr(trace, f.name)
        out[f.name] = value.sort_index(axis=1) if isinstance(value, pd.DataFrame) else value
    return out


def test_every_kind_has_a_case_and_blocks_to_reorder():
    """The cases cover every kernel kind, and there are blocks of each to reorder."""
    assert set(CASES) == set(KINDS)
    declared = {cls.__module__.split(".")[2] for cls in blocks()
                if cls.__module__.startswith("kipviz.scenarios.")
                and cls.__module__.count(".") == 3}
    assert declared == set(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_a_kernel_block_declared_in_another_order_gives_the_same_trace(kind, request):
    """With every block's fields reversed, each kind's plain-Python run gives the same tables:
    nothing builds or reads a block by position."""
    simulate = _simulate(kind)
    before = _tables(simulate(CASES[kind], seed=3, compiled=False))
    assert request.getfixturevalue("reordered") > 20
    after = _tables(simulate(CASES[kind], seed=3, compiled=False))
    assert before and before.keys() == after.keys()
    for name, table in before.items():
        if isinstance(table, pd.DataFrame):
            pd.testing.assert_frame_equal(table, after[name], check_exact=True, obj=name)
        else:
            assert table == after[name], name


def _sources() -> list[Path]:
    """The modules that build or read kernel blocks: each kind's folder, the workload, the
    share rules and the SimPy references."""
    scenarios = ROOT / "kipviz" / "scenarios"
    paths = [p for kind in KINDS for p in sorted((scenarios / kind).glob("*.py"))]
    paths += [ROOT / "kipviz" / "scenarios" / "workload.py",
              *sorted((ROOT / "kipviz" / "kafka" / "share").glob("*.py")),
              *sorted((ROOT / "tools" / "oracles").glob("simpy_*.py"))]
    return paths


def test_kernel_blocks_are_built_by_keyword_only():
    """No call of a block's constructor passes a positional (or starred) argument: each is
    ``Block(name=value, ...)`` or ``Block(**{name: value})``."""
    names = {cls.__name__ for cls in blocks()}
    offenders = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else None)
            if called in names and node.args:  # Block(**by_name) is by keyword
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {called}(...)")
    assert offenders == []
