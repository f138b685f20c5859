"""``SCENARIOS``: every scenario kind by name, the one table the sweeps, summaries, docs and
coverage tests iterate.

Each entry is a :class:`kipviz.scenarios.contract.ScenarioKind`. The built-in kinds are loaded on
first use (their modules import this package), in this order: ``consumer`` (KIP-74, KIP-81),
``broker`` (KIP-72), ``reassignment`` (KIP-73), ``streams`` (KIP-770), ``share_group``
(KIP-932), ``tiered_fetch`` (KIP-405). A new kind is its own module (scenario, ``simulate``,
trace, meta ``TypedDict`` and a ``summarise`` giving a
:class:`~kipviz.scenarios.contract.Reduction`) plus one line in :func:`_builtin_kinds`; a test
may add one with ``monkeypatch.setitem(SCENARIOS, name, kind)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, MutableMapping
from typing import Any

import numpy as np

from kipviz.scenarios.contract import Reduction, ScenarioKind, curve_window_ms
from kipviz.scenarios.fairness import jain_by_window, share_consumer_jain, thread_demand

__all__ = ["SCENARIOS", "Registry", "kind_of"]


class Registry(MutableMapping[str, ScenarioKind]):
    """Kinds by name, in registration order; the built-in ones load on first access."""

    def __init__(self) -> None:
        self._kinds: dict[str, ScenarioKind] | None = None

    def _all(self) -> dict[str, ScenarioKind]:
        if self._kinds is None:
            self._kinds = {kind.name: kind for kind in _builtin_kinds()}
        return self._kinds

    def __getitem__(self, name: str) -> ScenarioKind:
        return self._all()[name]

    def __setitem__(self, name: str, kind: ScenarioKind) -> None:
        if not isinstance(kind, ScenarioKind) or kind.name != name:
            raise ValueError(f"SCENARIOS[{name!r}] must be a ScenarioKind named {name!r}: "
                             f"{kind!r}")
        self._all()[name] = kind

    def __delitem__(self, name: str) -> None:
        del self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._all()))

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"SCENARIOS({', '.join(self)})"


SCENARIOS = Registry()


def kind_of(scenario: Any) -> ScenarioKind | None:
    """The registered kind whose scenario class ``scenario`` is an instance of (None: none)."""
    for kind in SCENARIOS.values():
        if isinstance(scenario, kind.scenario):
            return kind
    return None


def _consumer(scenario: Any, seed: int) -> Reduction:
    from kipviz.scenarios.consumer.scenario import simulate

    t = simulate(scenario, seed=seed, record_fetches=False)
    return Reduction(
        memory_bytes=t.buffer["retained_bytes"].to_numpy(),
        consumed_bytes=t.memory["consumed_bytes"].to_numpy(), tick_ms=t.meta["tick_ms"],
        jain_index=jain_by_window(t.windows), windows=scenario.windows,
        metrics={"bound_bytes": t.meta.get("pooled_bound_bytes", math.nan),
                 "kip74_bound_bytes": t.meta["kip74_bound_bytes"],
                 "longest_starvation_fetches": t.windows["max_starvation_streak"].max()})


def _broker(scenario: Any, seed: int) -> Reduction:
    from kipviz.scenarios.broker.scenario import simulate

    t = simulate(scenario, seed=seed)
    bound = t.meta["outstanding_bound_bytes"]
    return Reduction(memory_bytes=t.ticks["pool_used_bytes"].to_numpy(),
                     consumed_bytes=t.ticks["bytes_read"].to_numpy(), tick_ms=t.meta["tick_ms"],
                     metrics={"bound_bytes": math.nan if bound is None else bound})


def _reassignment(scenario: Any, seed: int) -> Reduction:
    from kipviz.scenarios.reassignment.scenario import simulate

    t = simulate(scenario, seed=seed)
    done = t.meta["completed_ms"]
    return Reduction(memory_bytes=t.ticks["replica_lag_bytes"].to_numpy(),
                     consumed_bytes=t.ticks["throttled_bytes"].to_numpy(),
                     tick_ms=t.meta["tick_ms"],
                     metrics={"move_time_s": math.nan if done is None else done / 1000.0})


def _streams(scenario: Any, seed: int, windows: int = 20) -> Reduction:
    from kipviz.scenarios.streams.scenario import simulate

    t = simulate(scenario, seed=seed)
    memory, tick_ms = t.ticks["buffered_bytes_after_poll"].to_numpy(), t.meta["tick_ms"]
    window_ms = curve_window_ms(len(memory), windows, tick_ms)
    return Reduction(memory_bytes=memory, consumed_bytes=t.ticks["processed_bytes"].to_numpy(),
                     tick_ms=tick_ms, windows=windows,
                     jain_index=jain_by_window(thread_demand(t.threads, window_ms)),
                     metrics={"bound_bytes": t.meta["bytes_bound_bytes"]})


def _share_group(scenario: Any, seed: int, windows: int = 20) -> Reduction:
    from kipviz.scenarios.share_group.scenario import simulate

    t = simulate(scenario, seed=seed)
    share = t.consumers[t.consumers["group"] == "share"]
    width = scenario.share_consumers
    memory = share["held_bytes"].to_numpy().reshape(-1, width).max(axis=1)
    consumed = share["processed"].to_numpy().reshape(-1, width).sum(axis=1) \
        * scenario.record_bytes
    tick_ms = t.meta["tick_ms"]
    window_ms = curve_window_ms(len(memory), windows, tick_ms)
    jain = share_consumer_jain(t.consumers, window_ms)
    return Reduction(memory_bytes=memory, consumed_bytes=np.asarray(consumed), tick_ms=tick_ms,
                     jain_index=jain, windows=windows,
                     metrics={"bound_bytes": t.meta["memory_bound_bytes"]})


def _builtin_kinds() -> list[ScenarioKind]:
    """The built-in kinds, one line each (their modules import this package: loaded lazily)."""
    from kipviz.scenarios.broker import scenario as broker
    from kipviz.scenarios.broker.meta import BrokerMeta
    from kipviz.scenarios.consumer import scenario as consumer
    from kipviz.scenarios.consumer.meta import ConsumerMeta
    from kipviz.scenarios.reassignment import scenario as reassignment
    from kipviz.scenarios.reassignment.meta import ReassignmentMeta
    from kipviz.scenarios.share_group import scenario as share_group
    from kipviz.scenarios.share_group.meta import ShareGroupMeta
    from kipviz.scenarios.streams import scenario as streams
    from kipviz.scenarios.streams.meta import StreamsMeta
    from kipviz.scenarios.tiered_fetch import scenario as tiered_fetch
    from kipviz.scenarios.tiered_fetch.meta import TieredFetchMeta

    return [
        ScenarioKind("consumer", "KIP-74, KIP-81", consumer.ConsumerScenario, consumer.simulate,
                     consumer.ConsumerTrace, ConsumerMeta, _consumer),
        ScenarioKind("broker", "KIP-72", broker.BrokerScenario, broker.simulate,
                     broker.BrokerTrace, BrokerMeta, _broker),
        ScenarioKind("reassignment", "KIP-73", reassignment.ReassignmentScenario,
                     reassignment.simulate, reassignment.ReassignmentTrace, ReassignmentMeta,
                     _reassignment),
        ScenarioKind("streams", "KIP-770", streams.StreamsScenario, streams.simulate,
                     streams.StreamsTrace, StreamsMeta, _streams),
        ScenarioKind("share_group", "KIP-932", share_group.ShareGroupScenario,
                     share_group.simulate, share_group.ShareGroupTrace, ShareGroupMeta,
                     _share_group),
        ScenarioKind("tiered_fetch", "KIP-405", tiered_fetch.TieredFetchScenario,
                     tiered_fetch.simulate, tiered_fetch.TieredFetchTrace, TieredFetchMeta),
    ]
