"""KIP-73 reassignment: kipviz's compiled kernel against SimPy and plain Python, and the dashboard.

Throughput is counted in *ticks* (one fetch round of the destination follower, with the leader's
answer, both quotas and a row of the ticks table) per second. The setting is a reassignment at
scale: 1,000 moving partitions of 0 to 100 MB (partition i holds i x 100 kB, 50 GB in all),
producers writing 10 MB/s into them, both throttles at 50 MB/s, R = 3 with the two in-sync
followers ``--throttle`` puts under the leader's quota (the move nets 50 - 3 x 10 = 20 MB/s),
Kafka's default fetch sizes and quota windows (11 x 1 s), a fetch every 10 ms tick. Small
partitions join the ISR early and then fetch their share of IN every tick unthrottled; the rest
move at the throttle. The SimPy program counts the followers the same way.

The speedups compare the three implementations on the *same* run, the first 500 ticks (5 s) of that
setting: the compiled kernel, the SimPy program (:mod:`tools.oracles.simpy_reassignment`, the same
model, checked value for value by ``tests/scenarios/reassignment/test_simpy_reassignment.py``) and
the kernel run as plain Python (``compiled=False``). Whole ``simulate`` calls are timed (tables and
``meta`` included), each the median of several runs after a warm-up. The compiled kernel is also
timed on the whole setting (100,000 ticks, 1,000 s of reassignment) for scale.

Much of the speedup over SimPy is the kernel measuring each quota once per fetch where the SimPy
program, like Kafka, asks ``should_throttle`` (a windowed-rate measurement) per partition; the
answers are the same because measuring twice at one instant changes nothing. The plain-Python
figure isolates what numba adds to the same algorithm.

The cluster figures (issue 26) run a 50-broker plan of 2,000 partitions (R = 3, each moving one
replica to another broker, 0 to 1 GB each, IN 50 MB/s split by size, T = 50 MB/s on every broker)
through :func:`kipviz.scenarios.reassignment.cluster.simulate_cluster` and the SimPy program of the
same model (:mod:`tools.oracles.simpy_cluster_reassignment`, checked table for table by
``tests/scenarios/reassignment/test_simpy_cluster_reassignment.py``) on the same first
``CLUSTER_REFERENCE_TICKS`` ticks: ``cluster_speedup_vs_simpy`` (the tables only: the flow schedule
that plans ``meta`` is left out of both, ``plan=False``); the compiled kernel also on the whole
move, and the flow schedule that plans it (``cluster_flow_schedule_median_s``: an event-driven
schedule, its max-min fair rates recomputed only when a replica catches up, compiled by numba).

The dashboard figure is the latency of one slider move on ``ReassignmentDashboard()`` (the
single pair of lesson 4's sections 3 to 7): re-simulate, recompute the Spark curves, redraw.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks.harness import (
    cycle_moves,
    dashboard_latency,
    emit,
    note,
    time_call,
    timed_rate,
)
from kipviz.kafka.replication.cluster import make_move
from kipviz.kafka.replication.flow import flow_schedule
from kipviz.scenarios.reassignment.cluster import ClusterReassignmentScenario, simulate_cluster
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario, simulate
from tools.oracles.simpy_cluster_reassignment import simulate_cluster_simpy
from tools.oracles.simpy_reassignment import simulate_simpy

NAME = "kip73_reassignment"
PARTITIONS = 1000
AT_SCALE_TICKS = 100_000
REFERENCE_TICKS = 500
COMPILED_REPEAT = 5
REFERENCE_REPEAT = 3
WARMUP = 1
MB = 1_000_000
CLUSTER_BROKERS = 50
CLUSTER_PARTITIONS = 2000
CLUSTER_REFERENCE_TICKS = 200
CLUSTER_WHOLE_TICKS = 120_000  # 20 minutes of 10 ms ticks: the move takes about 10


def scenario(ticks: int) -> ReassignmentScenario:
    """The benchmark setting: 1,000 partitions of 0..100 MB, IN 10 MB/s, throttles 50 MB/s."""
    return ReassignmentScenario(
        brokers=5, network_bytes_per_s=125e6, bytes_in_per_s=10e6, replication_factor=3,
        sizes=tuple(i * 100_000 for i in range(PARTITIONS)),
        leader_throttle_bytes_per_s=50e6, follower_throttle_bytes_per_s=50e6,
        tick_ms=10, ticks=ticks)


def _rate(label: str, run: Callable[[], Any], ticks: int, repeat: int) -> float:
    """Time ``run``; print its median and p95 seconds; return ticks per second."""
    return timed_rate(NAME, label, run, ticks, "ticks", repeat=repeat, warmup=WARMUP)


def throughput() -> None:
    """Ticks per second: compiled kernel, SimPy program, plain Python; the kernel at scale."""
    short, long = scenario(REFERENCE_TICKS), scenario(AT_SCALE_TICKS)
    note(NAME, f"{PARTITIONS} partitions of i x 100 kB, IN 10 MB/s, throttles 50 MB/s, a fetch "
               f"every 10 ms; compiled kernel, SimPy and plain Python each on the same "
               f"{REFERENCE_TICKS} ticks (compiled median of {COMPILED_REPEAT}, others of "
               f"{REFERENCE_REPEAT}, {WARMUP} warm-up run each); speedups are ratios of ticks/s "
               f"measured in this run; the compiled kernel also on {AT_SCALE_TICKS} ticks")

    reference = simulate(short)
    ticks, partitions = simulate_simpy(short)
    if not (ticks.equals(reference.ticks) and partitions.equals(reference.partitions)):
        note(NAME, "WARNING: the SimPy program's tables differ from the kernel's on the "
                   "benchmark setting: the speedup compares different models")
    compiled = _rate("compiled", lambda: simulate(short), REFERENCE_TICKS, COMPILED_REPEAT)
    simpy_rate = _rate("simpy", lambda: simulate_simpy(short), REFERENCE_TICKS,
                       REFERENCE_REPEAT)
    python_rate = _rate("python", lambda: simulate(short, compiled=False), REFERENCE_TICKS,
                        REFERENCE_REPEAT)
    emit(NAME, "speedup_vs_simpy", compiled / simpy_rate, "x", target=">= 100")
    emit(NAME, "speedup_vs_python", compiled / python_rate, "x")

    at_scale = simulate(long)
    emit(NAME, "at_scale_partitions_caught_up", int((at_scale.partitions.caught_up_ms >= 0).sum()),
         "partitions")
    _rate("compiled_at_scale", lambda: simulate(long), AT_SCALE_TICKS, COMPILED_REPEAT)


def cluster_scenario(ticks: int) -> ClusterReassignmentScenario:
    """50 brokers, 2,000 partitions of R = 3 each moving one replica (seeded), 0..1 GB each,
    IN 50 MB/s over them by size, T = 50 MB/s on every broker, a sample row per second."""
    import numpy as np

    rng = np.random.default_rng(26)
    sizes = rng.integers(0, 10**9, CLUSTER_PARTITIONS)
    moves = []
    for p in range(CLUSTER_PARTITIONS):
        sources = [int(b) for b in rng.choice(CLUSTER_BROKERS, 3, replace=False)]
        dest = int(rng.choice([b for b in range(CLUSTER_BROKERS) if b not in sources]))
        replaced = int(rng.integers(3))
        targets = [dest if i == replaced else b for i, b in enumerate(sources)]
        moves.append(make_move("t", p, sources, targets, size_bytes=int(sizes[p]),
                               bytes_in_per_s=50e6 * sizes[p] / sizes.sum()))
    return ClusterReassignmentScenario(tuple(moves), leader_throttle_bytes_per_s=50e6,
                                       follower_throttle_bytes_per_s=50e6, ticks=ticks,
                                       sample_ticks=100)


def cluster() -> None:
    """Ticks per second of the cluster kernel against its SimPy program on the same ticks; the
    whole move, simulated and planned."""
    short = cluster_scenario(CLUSTER_REFERENCE_TICKS)
    note(NAME, f"cluster: {CLUSTER_BROKERS} brokers, {CLUSTER_PARTITIONS} partitions (R = 3, "
               f"one replica each moving), 0..1 GB each, IN 50 MB/s, T = 50 MB/s; compiled and "
               f"SimPy on the same {CLUSTER_REFERENCE_TICKS} ticks")
    kernel = simulate_cluster(short, plan=False)
    simpy = simulate_cluster_simpy(short, plan=False)
    if not all(getattr(kernel, n).equals(getattr(simpy, n))
               for n in ("brokers", "replicas", "partitions")):
        note(NAME, "WARNING: the SimPy program's cluster tables differ from the kernel's: the "
                   "speedup compares different models")
    compiled = _rate("cluster_compiled", lambda: simulate_cluster(short, plan=False),
                     CLUSTER_REFERENCE_TICKS, COMPILED_REPEAT)
    simpy_rate = _rate("cluster_simpy", lambda: simulate_cluster_simpy(short, plan=False),
                       CLUSTER_REFERENCE_TICKS, 1)
    emit(NAME, "cluster_speedup_vs_simpy", compiled / simpy_rate, "x", target=">= 100")
    whole = cluster_scenario(CLUSTER_WHOLE_TICKS)
    meta = simulate_cluster(whole, plan=False).meta
    _rate("cluster_compiled_whole_move", lambda: simulate_cluster(whole, plan=False),
          round(meta["run_s"] * 1000 / whole.tick_ms), 1)
    if meta["move_time_s"] is not None:
        emit(NAME, "cluster_move_time_s", meta["move_time_s"], "s")
    lead, follow = whole.rates()
    plan = flow_schedule(whole.moves, leader_rates=lead, follower_rates=follow)  # numba compiles
    timing = time_call(lambda: flow_schedule(whole.moves, leader_rates=lead,
                                             follower_rates=follow), repeat=3, warmup=0)
    emit(NAME, "cluster_flow_schedule_median_s", timing.median_s, "s", target="< 1")
    emit(NAME, "cluster_planned_move_time_s", plan.move_time_s, "s")


def slider_moves(count: int) -> list[dict[str, Any]]:
    """``count`` slider moves, one control at a time, cycling through the six controls.

    Some throttles are at or below R x IN (the move never finishes: the dashboard says so and
    still draws it); every brokers value leaves room for R = 3 current replicas and a new one."""
    values: dict[str, list[Any]] = {
        "leader_throttle_bytes_per_s": [20 * MB, 8 * MB, 50 * MB, 12 * MB, 30 * MB],
        "follower_throttle_bytes_per_s": [15 * MB, 40 * MB, 9 * MB, 25 * MB],
        "bytes_in_per_s": [2 * MB, 0, 5 * MB, 1 * MB],
        "brokers": [4, 10, 6, 5],
        "replication_quota_window_num": [5, 20, 2, 11],
        "replication_quota_window_size_seconds": [2, 1, 3],
    }
    return cycle_moves(values, count)


def dashboard(warmup: int = 10, moves: int = 20) -> None:
    """Latency of a slider move: re-simulate, Spark curves, redraw (median and p95)."""
    dashboard_latency(NAME, "ReassignmentDashboard", slider_moves(warmup + moves), warmup=warmup,
                      what="both throttles, bytes-in, brokers and the quota window number and size")


def run() -> None:
    throughput()
    cluster()
    dashboard()
