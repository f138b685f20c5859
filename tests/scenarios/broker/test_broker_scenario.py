"""The KIP-72 broker network scenario: worked timelines, pool bounds, recovery, bad input."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from kipviz.kafka.broker import pool as rules
from kipviz.kafka.broker.network import should_shuffle_keys
from kipviz.kafka.broker.pool import NO_POOL, SimpleMemoryPool, pool_state
from kipviz.kafka.config.settings import BrokerConfig
from kipviz.scenarios.broker import kernel
from kipviz.scenarios.broker.scenario import (
    BrokerScenario,
    generate_requests,
    request_wait_ms,
    simulate,
)
from tests.strategies import examples, pool_workloads, recovering_broker_scenarios, seeds

# Three connections, a 1000-byte pool whose largest single allocation is 1000 bytes, one I/O
# thread that processes 600 bytes in exactly one 10 ms tick.
TINY = BrokerScenario(connections=3, queued_max_request_bytes=1000, socket_request_max_bytes=1000,
                      num_io_threads=1, handler_bytes_per_s=60_000, tick_ms=10, ticks=6,
                      small_request_bytes=600, large_request_bytes=600, shuffle=False)


def requests(*rows: tuple[int, int, int]) -> pd.DataFrame:
    """(connection, arrival_ms, size_bytes) rows."""
    return pd.DataFrame(rows, columns=["connection", "arrival_ms", "size_bytes"])


THREE_AT_ONCE = requests((0, 0, 600), (1, 0, 600), (2, 0, 600))


def test_a_non_strict_pool_lets_the_second_request_in_and_goes_negative():
    """t=0: 0 takes 600 (400 left), 1 takes 600 as 400 >= 1 (-200 left), 2 is muted.
    t=10: 0's request is done (400 left, no longer out of memory): 2 is unmuted and read."""
    trace = simulate(TINY, requests=THREE_AT_ONCE)
    r = trace.requests
    assert r.read_ms.tolist() == [0, 0, 10]
    assert r.done_ms.tolist() == [10, 20, 30]
    t = trace.ticks
    assert t.pool_used_bytes.tolist()[:4] == [1200, 1200, 600, 0]
    assert t.pool_available_bytes.tolist()[:4] == [-200, -200, 400, 1000]
    assert t.muted_for_memory.tolist()[:2] == [1, 0]
    assert t.bytes_read.tolist()[:3] == [1200, 600, 0]
    assert request_wait_ms(trace).tolist() == [0.0, 0.0, 10.0]


def test_a_strict_pool_lets_one_600_byte_request_in_at_a_time():
    """Strict: 400 < 600, so each request waits for the one before it to release its memory."""
    trace = simulate(replace(TINY, strict=True), requests=THREE_AT_ONCE)
    r = trace.requests
    assert r.read_ms.tolist() == [0, 10, 20]
    assert r.done_ms.tolist() == [10, 20, 30]
    assert trace.ticks.pool_used_bytes.max() == 600
    assert trace.ticks.muted_for_memory.tolist()[:3] == [2, 1, 0]


def test_a_strict_pool_starves_a_large_request_behind_a_stream_of_small_ones():
    """Strict, 1000-byte pool: connection 0 sends 100-byte requests every tick; connection 1's
    950-byte request fits only in a tick where connection 0 holds nothing. Non-strict lets it in
    at once (available 900 >= 1)."""
    rows = [(0, 10 * k, 100) for k in range(6)] + [(1, 0, 950)]
    stream = requests(*rows)
    s = replace(TINY, num_io_threads=1, handler_bytes_per_s=10_000, ticks=12)  # 100 B per tick
    strict = simulate(replace(s, strict=True), requests=stream).requests
    loose = simulate(s, requests=stream).requests
    assert loose.set_index("connection").read_ms.loc[1] == 0
    large_read = strict.set_index("connection").read_ms.loc[1]
    assert large_read == 60  # only after the small stream stops
    assert (strict[strict.connection == 0].read_ms == strict[strict.connection == 0].arrival_ms
            ).all()


def test_a_full_request_queue_stops_the_network_thread():
    """queued.max.requests = 1, no pool, one handler that needs three ticks per request: at t=0
    request 0 fills the queue, the handler takes it, 1 fills the queue again and 2 must wait in
    its socket until the handler is free at 30 and takes 1."""
    s = replace(TINY, queued_max_request_bytes=-1, queued_max_requests=1,
                handler_bytes_per_s=20_000, ticks=12)
    trace = simulate(s, requests=THREE_AT_ONCE)
    assert trace.requests.read_ms.tolist() == [0, 0, 30]
    assert trace.ticks.requests_in_queue.max() == 1
    assert trace.meta["no_pool"] and trace.meta["outstanding_bound_bytes"] is None


def test_one_request_per_connection_is_read_at_a_time():
    """A connection's second request is read only after its first response is sent."""
    trace = simulate(TINY, requests=requests((0, 0, 100), (0, 0, 100)))
    assert trace.requests.read_ms.tolist() == [0, 10]


def test_without_a_pool_memory_passes_the_bound_a_pool_would_keep():
    """The KIP's spike: with queued.max.request.bytes 20 MiB the pool keeps reads under
    20 MiB + 10 MiB - 1; with -1 (Kafka's default) the same requests hold far more."""
    mib = 1024 * 1024
    s = BrokerScenario(connections=40, socket_request_max_bytes=10 * mib,
                       large_request_bytes=5 * mib, large_share=0.5, spike_start_ms=1000,
                       spike_duration_ms=1000, ticks=400, handler_bytes_per_s=20e6)
    pooled = simulate(replace(s, queued_max_request_bytes=20 * mib), seed=3)
    bound = pooled.meta["outstanding_bound_bytes"]
    assert bound == 30 * mib - 1
    assert pooled.ticks.pool_used_bytes.max() <= bound
    unbounded = simulate(s, seed=3)
    assert unbounded.ticks.pool_used_bytes.max() > bound
    assert unbounded.ticks.pool_used_bytes.max() <= unbounded.meta["per_connection_bound_bytes"]
    assert unbounded.meta["no_pool"] and unbounded.ticks.muted_for_memory.max() == 0


def test_the_same_seed_gives_the_same_trace_and_shuffling_uses_it():
    """Deterministic for a seed; under memory pressure the shuffled key order depends on it."""
    s = BrokerScenario(connections=30, queued_max_request_bytes=40 * 1024 * 1024,
                       socket_request_max_bytes=10 * 1024 * 1024, large_request_bytes=4_000_000,
                       spike_start_ms=500, spike_duration_ms=1500, ticks=300,
                       handler_bytes_per_s=20e6)
    a, b = simulate(s, seed=5), simulate(s, seed=5)
    assert a.ticks.equals(b.ticks) and a.requests.equals(b.requests) and a.meta == b.meta
    assert a.ticks.shuffled.any()
    assert not simulate(replace(s, shuffle=False), seed=5).ticks.shuffled.any()
    fixed = a.requests[["connection", "arrival_ms", "size_bytes"]]
    other = simulate(s, seed=6, requests=fixed).requests
    assert not other.read_ms.equals(a.requests.read_ms)


def test_the_trace_has_the_documented_dtypes_and_meta():
    """Fixed dtypes (docs/traces.md), and meta carries the bounds and flags."""
    trace = simulate(replace(TINY, ticks=4), requests=THREE_AT_ONCE)
    assert dict(trace.ticks.dtypes.astype(str)) == {
        "time_ms": "int64", "pool_used_bytes": "int64", "pool_available_bytes": "int64",
        "requests_in_queue": "int32", "muted_for_memory": "int32", "bytes_read": "int64",
        "shuffled": "bool"}
    assert dict(trace.requests.dtypes.astype(str)) == {
        "connection": "int32", "request_id": "int64", "size_bytes": "int64",
        "arrival_ms": "int64", "read_ms": "int64", "done_ms": "int64"}
    m = trace.meta
    assert (m["queued_max_request_bytes"], m["outstanding_bound_bytes"]) == (1000, 1999)
    assert (m["no_pool"], m["strict"], m["low_memory_threshold_bytes"]) == (False, False, 100)
    assert m["per_connection_bound_bytes"] == 3 * 600


@settings(max_examples=examples(1.2))
@given(recovering_broker_scenarios(), seeds)
def test_the_pool_never_holds_more_than_kafkas_bound(scenario, seed):
    """Used <= size + max_single - 1 (non-strict) or size (strict); available + used = size;
    the queue never passes queued.max.requests; no channel has two requests out at once."""
    trace = simulate(scenario, seed=seed)
    t, r = trace.ticks, trace.requests
    assert (t.requests_in_queue <= scenario.queued_max_requests).all()
    if scenario.has_pool:
        size, largest = scenario.queued_max_request_bytes, scenario.socket_request_max_bytes
        bound = size if scenario.strict else size + largest - 1
        assert trace.meta["outstanding_bound_bytes"] == bound
        assert (t.pool_used_bytes <= bound).all()
        assert (t.pool_used_bytes + t.pool_available_bytes == size).all()
    else:
        assert (t.muted_for_memory == 0).all()
    read = r[r.read_ms >= 0]
    assert (read.read_ms >= read.arrival_ms).all()
    assert ((read.done_ms == -1) | (read.done_ms > read.read_ms)).all()
    for _, own in read.sort_values("read_ms", kind="stable").groupby("connection"):
        done = own.done_ms.to_numpy()
        assert (own.read_ms.to_numpy()[1:] >= done[:-1]).all() and (done[:-1] >= 0).all()
        assert own.arrival_ms.is_monotonic_increasing  # each socket is read in order


@settings(max_examples=examples(1.2))
@given(recovering_broker_scenarios(strict=False), seeds)
def test_every_request_of_the_spike_is_served_once_the_spike_ends(scenario, seed):
    """Muted channels are unmuted when memory returns, and a non-strict pool (Kafka's) lets any
    request in once available > 0: with spare capacity after the spike, every request that arrived
    by the spike's end has been read and answered by the end of the run. (A strict pool gives no
    such promise to large requests: see the starvation timeline above.)"""
    trace = simulate(scenario, seed=seed)
    r = trace.requests
    spike_end = scenario.spike_start_ms + scenario.spike_duration_ms
    early = r[r.arrival_ms < spike_end]
    assert (early.read_ms >= 0).all() and (early.done_ms >= 0).all()


def test_a_scenario_takes_its_pool_settings_from_a_broker_config():
    """queued.max.request.bytes, socket.request.max.bytes, queued.max.requests, num.io.threads."""
    b = BrokerConfig(queued_max_request_bytes=300 * 1024 * 1024, queued_max_requests=100)
    s = BrokerScenario.from_configs(b, connections=7)
    assert (s.queued_max_request_bytes, s.socket_request_max_bytes, s.queued_max_requests,
            s.num_io_threads, s.connections) == (314572800, 104857600, 100, 8, 7)
    assert s.has_pool and not BrokerScenario().has_pool


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"queued_max_request_bytes": 1000, "socket_request_max_bytes": 2000},
         r"queued_max_request_bytes \(queued.max.request.bytes\) must be <= 0 \(no pool\) or "
         r">= socket.request.max.bytes \(2000, .*\): 1000"),
        ({"queued_max_request_bytes": 1.5},
         r"queued_max_request_bytes \(queued.max.request.bytes\) must be an integer"),
        ({"socket_request_max_bytes": 0},
         r"socket_request_max_bytes \(socket.request.max.bytes\) must be an integer >= 1: 0"),
        ({"large_request_bytes": 104857601},
         r"large_request_bytes must be <= socket.request.max.bytes \(104857600; .*\): 104857601"),
        ({"queued_max_requests": 0},
         r"queued_max_requests \(queued.max.requests\) must be an integer >= 1"),
        ({"num_io_threads": 0}, r"num_io_threads \(num.io.threads\) must be an integer >= 1: 0"),
        ({"connections": 0}, "connections must be an integer >= 1: 0"),
        ({"large_share": 1.5}, "large_share must be a number >= 0 and <= 1: 1.5"),
        ({"large_share": float("nan")}, "large_share must be a number"),
        ({"handler_bytes_per_s": 0}, "handler_bytes_per_s must be a number > 0"),
        ({"requests_per_s_per_connection": -1.0},
         "requests_per_s_per_connection must be a number >= 0"),
        ({"strict": "yes"}, "strict must be True or False"),
        ({"ticks": 0}, "ticks must be an integer >= 1: 0"),
    ],
)
def test_bad_scenarios_are_rejected_with_the_kafka_setting_and_rule(kwargs, message):
    """Nothing is clamped: bad settings raise and say which rule they break."""
    with pytest.raises(ValueError, match=message):
        BrokerScenario(**kwargs)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([(3, 0, 10)], r"connections outside 0..2"),
        ([(0, -10, 10)], "arrival_ms must be >= 0"),
        ([(0, 0, 1001)], r"size_bytes must be between 1 and socket.request.max.bytes \(1000\)"),
    ],
)
def test_bad_explicit_requests_are_rejected(rows, message):
    """Given requests must name a connection, a time and a size a broker would accept."""
    with pytest.raises(ValueError, match=message):
        simulate(TINY, requests=requests(*rows))


def test_a_run_with_no_requests_is_quiet():
    """No traffic: nothing read, the pool stays full."""
    trace = simulate(replace(TINY, requests_per_s_per_connection=0.0))
    assert trace.requests.empty and (trace.ticks.pool_available_bytes == 1000).all()
    assert np.array_equal(trace.ticks.time_ms, np.arange(6) * 10)


# --- the kernel: compiled and plain, its inline pool and Kafka's shuffle -----------------------

KERNEL_HELPERS = pytest.mark.parametrize("compiled", [False, True], ids=["plain", "compiled"])


def helper(name: str, compiled: bool):
    return kernel.compiled_kernel(name) if compiled else getattr(kernel, name)


MiB = 1024 * 1024
PRESSURE = BrokerScenario(connections=30, queued_max_request_bytes=40 * MiB,
                          socket_request_max_bytes=10 * MiB, large_request_bytes=4_000_000,
                          spike_start_ms=500, spike_duration_ms=1500, ticks=300,
                          handler_bytes_per_s=20e6)


@pytest.mark.parametrize("scenario", [
    PRESSURE, replace(PRESSURE, strict=True), replace(PRESSURE, shuffle=False),
    replace(PRESSURE, queued_max_request_bytes=-1, queued_max_requests=4, num_io_threads=2),
], ids=["shuffling", "strict", "no-shuffle", "no-pool-full-queue"])
def test_the_compiled_kernel_gives_the_plain_python_kernels_trace(scenario):
    """numba's kernel and the same function run as plain Python agree on every value."""
    a, b = simulate(scenario, seed=7), simulate(scenario, seed=7, compiled=False)
    assert a.ticks.equals(b.ticks) and a.requests.equals(b.requests) and a.meta == b.meta


@settings(max_examples=examples(0.4))
@given(recovering_broker_scenarios(), seeds)
def test_the_compiled_and_plain_kernels_agree_on_any_small_scenario(scenario, seed):
    """Hypothesis varies every setting; compiled or not, the trace is the same."""
    a, b = simulate(scenario, seed=seed), simulate(scenario, seed=seed, compiled=False)
    assert a.ticks.equals(b.ticks) and a.requests.equals(b.requests) and a.meta == b.meta


def test_passing_the_generated_workload_gives_the_same_trace():
    """The shuffles' Random has its own stream of the seed, so the workload generated beforehand
    (as the benchmark does) and passed in changes nothing."""
    rng = np.random.default_rng(5)
    given_requests = simulate(PRESSURE, seed=5, requests=generate_requests(PRESSURE, rng))
    generated = simulate(PRESSURE, seed=5)
    assert generated.ticks.shuffled.any()
    assert generated.ticks.equals(given_requests.ticks)
    assert generated.requests.equals(given_requests.requests)


# Collections.shuffle(a list of 0..n-1, new java.util.Random(seed)), printed by OpenJDK 17.
JAVA_SHUFFLES = [
    (0, 2, [0, 1]),
    (0, 5, [4, 2, 1, 3, 0]),
    (0, 10, [4, 8, 9, 6, 3, 5, 2, 1, 7, 0]),
    (0, 16, [0, 7, 12, 9, 6, 5, 10, 4, 3, 1, 2, 14, 8, 15, 13, 11]),
    (42, 5, [1, 2, 3, 4, 0]),
    (42, 10, [4, 6, 2, 1, 7, 9, 8, 5, 3, 0]),
    (42, 16, [15, 4, 0, 1, 7, 10, 14, 9, 2, 5, 8, 13, 12, 6, 3, 11]),
    (123456789, 10, [9, 2, 1, 6, 4, 8, 7, 3, 0, 5]),
]


@KERNEL_HELPERS
@pytest.mark.parametrize(("seed", "n", "expected"), JAVA_SHUFFLES)
def test_the_key_shuffle_is_javas_collections_shuffle(seed, n, expected, compiled):
    """Kafka's Selector shuffles ready keys with Collections.shuffle; the kernel's shuffle gives
    Java's order for the same java.util.Random seed (a power-of-two length takes Java's other
    nextInt branch)."""
    keys = np.arange(n + 3, dtype=np.int64)  # only the first n are shuffled
    helper("java_shuffle", compiled)(keys, n, kernel.java_random(seed))
    assert keys.tolist() == [*expected, n, n + 1, n + 2]


@KERNEL_HELPERS
def test_one_random_shuffles_poll_after_poll(compiled):
    """The Random's state carries over: three shuffles of six keys, as Java gives them."""
    shuffle, state, orders = helper("java_shuffle", compiled), kernel.java_random(0), []
    for _ in range(3):
        keys = np.arange(10, 16, dtype=np.int64)
        state = shuffle(keys, 6, state)
        orders.append(keys.tolist())
    assert orders == [[14, 11, 12, 15, 13, 10], [12, 14, 13, 10, 11, 15],
                      [10, 14, 13, 11, 12, 15]]


def test_every_order_of_four_ready_keys_is_equally_likely():
    """24,000 shuffles of four keys: each of the 24 orders comes up 1,000 times give or take
    five standard deviations (about 31 each)."""
    shuffle, state = kernel.compiled_kernel("java_shuffle"), kernel.java_random(
        kernel.shuffle_seed(0))
    counts: dict[tuple[int, ...], int] = {}
    keys = np.zeros(4, np.int64)
    for _ in range(24_000):
        keys[:] = (0, 1, 2, 3)
        state = shuffle(keys, 4, state)
        counts[tuple(keys.tolist())] = counts.get(tuple(keys.tolist()), 0) + 1
    assert len(counts) == 24
    assert all(845 <= c <= 1155 for c in counts.values()), counts


def test_nearby_seeds_give_unrelated_shuffles():
    """The shuffles' Random seed is drawn from the run's seed (an independent SeedSequence
    child), not the seed itself: java.util.Random's first draws of nearby seeds are alike."""
    seeds = [kernel.shuffle_seed(s) for s in range(5)]
    assert len(set(seeds)) == 5 and all(0 <= s < 2**48 for s in seeds)
    firsts = []
    for s in range(5):
        keys = np.arange(16, dtype=np.int64)
        kernel.java_shuffle(keys, 16, kernel.java_random(kernel.shuffle_seed(s)))
        firsts.append(int(keys[15]))
    assert len(set(firsts)) > 1


@KERNEL_HELPERS
@given(pool_workloads())
def test_the_kernels_pool_row_follows_simple_memory_pool(compiled, workload):
    """The same allocations and releases on SimpleMemoryPool and on the kernel's int64 state row
    (the shared rules, compiled or not) give the same grants, available bytes, out-of-memory
    flag, shuffle decision and dry spells."""
    size, max_single, strict, steps = workload
    pool, held, now = SimpleMemoryPool(size, max_single, strict), [], 0
    row = pool_state(pool)
    allocate, release = helper("pool_try_allocate", compiled), helper("pool_release", compiled)
    out_of_memory = helper("pool_out_of_memory", compiled)
    should_shuffle = helper("pool_should_shuffle", compiled)
    for op, value, dt in steps:
        now += dt
        if op == "allocate":
            granted = pool.try_allocate(value, now_ms=now)
            assert bool(allocate(row, value, now)) is granted
            if granted:
                held.append(value)
        elif held:
            n = held.pop(value % len(held))
            pool.release(n, now_ms=now)
            release(row, n, now)
        assert row[rules.AVAILABLE] == pool.available_bytes
        assert bool(out_of_memory(row)) is pool.is_out_of_memory
        for muted in (False, True):
            assert bool(should_shuffle(row, muted)) is should_shuffle_keys(
                pool, muted_for_memory=muted)
        start = pool.depletion.dry_spell_start_ms
        assert (row[rules.DRY_START] if row[rules.DRY] else None) == start
        assert row[rules.DEPLETED] == pool.depleted_time_total_ms


@KERNEL_HELPERS
def test_the_kernels_no_pool_always_allocates_and_never_runs_out(compiled):
    """NO_POOL's row: every allocation granted, available stays Long.MAX, never shuffles."""
    row = pool_state(NO_POOL)
    allocate, release = helper("pool_try_allocate", compiled), helper("pool_release", compiled)
    assert all(allocate(row, 10 * 2**40, t) for t in range(3))
    release(row, 10 * 2**40, 3)
    assert row[rules.AVAILABLE] == NO_POOL.available_bytes == 2**63 - 1
    assert not helper("pool_out_of_memory", compiled)(row)
    assert not helper("pool_should_shuffle", compiled)(row, False)
    assert row[rules.DEPLETED] == 0


def test_the_kernels_pool_row_starts_from_a_fresh_pool():
    """A used pool or some other object has no row: the kernel would start from wrong state."""
    used = SimpleMemoryPool(100, 60)
    used.try_allocate(10)
    with pytest.raises(ValueError, match="pool_state needs a pool that has not been used"):
        pool_state(used)
    with pytest.raises(ValueError, match="pool must be a SimpleMemoryPool or NO_POOL"):
        pool_state(object())  # type: ignore[arg-type]
