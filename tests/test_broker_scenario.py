"""The KIP-72 broker network scenario: worked timelines, pool bounds, recovery, bad input."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipviz.config import BrokerConfig
from kipviz.scenarios.broker import BrokerScenario, request_wait_ms, simulate

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


@st.composite
def recovering_scenarios(draw, strict: bool | None = None):
    """Small scenarios with spare capacity after the spike: traffic uses at most a quarter of the
    handlers, the largest request takes at most five ticks, and every connection's small request
    fits in the pool at once, four times over. So every backlog can drain within the run."""
    connections = draw(st.integers(1, 8))
    largest = draw(st.integers(50, 3000))
    pooled = draw(st.booleans())
    size = largest * draw(st.integers(1, 3))
    small = draw(st.integers(1, max(1, size // (4 * connections))))
    large = draw(st.integers(1, largest))
    rate = draw(st.floats(0.0, 20.0))  # per connection; <= 0.2 per 10 ms tick
    threads = draw(st.integers(1, 4))
    per_thread = max(20 * large, 4 * connections * rate * small / threads) * draw(
        st.floats(1.0, 4.0))
    spike_start = draw(st.integers(0, 20)) * 10
    spike = draw(st.integers(0, 30)) * 10
    return BrokerScenario(
        connections=connections, queued_max_request_bytes=size if pooled else -1,
        socket_request_max_bytes=largest,
        strict=draw(st.booleans()) if strict is None else strict, shuffle=draw(st.booleans()),
        queued_max_requests=draw(st.integers(1, 10)), small_request_bytes=small,
        large_request_bytes=large, large_share=draw(st.floats(0.0, 1.0)),
        spike_start_ms=spike_start, spike_duration_ms=spike, requests_per_s_per_connection=rate,
        num_io_threads=threads, handler_bytes_per_s=per_thread, tick_ms=10,
        ticks=(spike_start + spike) // 10 + 600)


@settings(max_examples=60)
@given(recovering_scenarios(), st.integers(0, 2**16))
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


@settings(max_examples=60)
@given(recovering_scenarios(strict=False), st.integers(0, 2**16))
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
         r"queued.max.request.bytes must be -1 \(disabled\) or >= socket.request.max.bytes .*"
         r"1000 < 2000"),
        ({"queued_max_request_bytes": 1.5},
         r"queued_max_request_bytes \(queued.max.request.bytes\) must be an integer"),
        ({"socket_request_max_bytes": 0},
         r"socket_request_max_bytes \(socket.request.max.bytes\) must be >= 1: 0"),
        ({"large_request_bytes": 104857601},
         r"large_request_bytes must be <= socket.request.max.bytes .*104857601 > 104857600"),
        ({"queued_max_requests": 0}, r"queued_max_requests \(queued.max.requests\) must be >= 1"),
        ({"num_io_threads": 0}, r"num_io_threads \(num.io.threads\) must be >= 1: 0"),
        ({"connections": 0}, "connections must be >= 1: 0"),
        ({"large_share": 1.5}, "large_share must be <= 1: 1.5"),
        ({"large_share": float("nan")}, "large_share must be a number"),
        ({"handler_bytes_per_s": 0}, "handler_bytes_per_s must be > 0"),
        ({"requests_per_s_per_connection": -1.0}, "requests_per_s_per_connection must be >= 0"),
        ({"strict": "yes"}, "strict must be True or False"),
        ({"ticks": 0}, "ticks must be >= 1: 0"),
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
