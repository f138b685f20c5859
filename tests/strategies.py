"""Shared Hypothesis strategies (one place, as attrs does it)."""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st

from kipviz.kafka.replication.cluster import make_move


def examples(times: float) -> int:
    """``max_examples`` for a property test: ``times`` the loaded profile's count (see
    ``tests/conftest.py``), at least 1, so a test that needs more examples than the others (or
    fewer, each being costly) still scales with ``HYPOTHESIS_PROFILE``.

    Read when the test module is imported, after conftest has loaded the profile: under ``ci``
    (50 examples) ``examples(1.2)`` is 60, under ``dev`` (10) it is 12.
    """
    if times <= 0:
        raise ValueError(f"times must be > 0: {times}")
    return max(1, round(settings.default.max_examples * times))


batch_sizes = st.integers(min_value=1, max_value=5_000)
partition_logs = st.lists(st.lists(batch_sizes, max_size=6), min_size=1, max_size=12)
byte_limits = st.integers(min_value=0, max_value=20_000)


@st.composite
def pool_workloads(draw: st.DrawFn) -> tuple[int, int, bool, list[tuple[str, int, int]]]:
    """A pool ``(size, max single, strict)`` and ``(op, value, ms later)`` steps to run on it.

    ``("allocate", n, dt)`` asks for 1 <= n <= max single bytes; ``("release", i, dt)`` gives back
    the allocation at index ``i`` modulo those still held (nothing when none is held).
    """
    size = draw(st.integers(min_value=1, max_value=1_000))
    max_single = draw(st.integers(min_value=1, max_value=size))
    strict = draw(st.booleans())
    step = st.tuples(st.sampled_from(["allocate", "allocate", "release"]),
                     st.integers(min_value=1, max_value=max_single),
                     st.integers(min_value=0, max_value=50))
    return size, max_single, strict, draw(st.lists(step, max_size=60))


# kipviz.kafka.quotas.rate: a timeline of (ms since the previous step, value, measure instead
# of record)
rate_steps = st.lists(
    st.tuples(st.integers(0, 4_000), st.integers(0, 1_000_000), st.booleans()), max_size=40
)
quota_samples = st.integers(min_value=1, max_value=11)  # replication.quota.window.num
quota_windows_ms = st.sampled_from([100, 250, 1_000, 2_000])  # whole ms, like Kafka's windows


KAFKA_VERSIONS = ("0.10.0", "0.10.1", "2.0", "2.8", "3.6", "3.7", "3.9", "4.0", "4.3")


def consumer_scenarios(*, partitions: tuple[int, int] = (1, 12), ticks: tuple[int, int] = (5, 60),
                       windows: tuple[int, int] = (1, 5), orderings=None,
                       kafka_versions: tuple[str, ...] = KAFKA_VERSIONS,
                       network_bytes_per_s: tuple[float, float] = (1e5, 1e10),
                       quotas: bool = True, pauses: bool = True):
    """Small KIP-74 consumer scenarios over every setting the kernel reads, across the Kafka
    versions whose fetch rules differ (pre-KIP-74, hash order, fetch sessions before and after
    KAFKA-12330, KAFKA-17182), with and without incremental fetch sessions, fetch quotas and
    paused partitions."""
    from kipviz.kafka.fetch.request import Ordering
    from kipviz.scenarios.consumer.scenario import ConsumerScenario
    from kipviz.scenarios.workload import Workload

    @st.composite
    def build(draw):
        kafka_version = draw(st.sampled_from(kafka_versions))
        options = [None, *(orderings or Ordering)]
        if kafka_version < "1.1":  # no fetch sessions before KIP-227
            options = [o for o in options if o != Ordering.SESSION]
        n = draw(st.integers(*partitions))
        ordering = draw(st.sampled_from(options))
        sessions = ordering == Ordering.SESSION or draw(st.booleans())
        return draw(st.builds(
            ConsumerScenario,
            partitions=st.just(n),
            brokers=st.integers(1, 4),
            fetch_max_bytes=st.integers(0, 200_000),
            max_partition_fetch_bytes=st.integers(0, 100_000),
            fetch_min_bytes=st.integers(0, 50_000),
            fetch_max_wait_ms=st.integers(0, 100),
            ordering=st.just(ordering),
            incremental_fetch_sessions=st.just(sessions),
            kafka_version=st.just(kafka_version),
            consume_bytes_per_s=st.floats(1e4, 1e9),
            rtt_ms=st.integers(1, 40),
            network_bytes_per_s=st.floats(*network_bytes_per_s),
            ticks=st.integers(*ticks),
            windows=st.integers(*windows),
            fetch_quota_bytes_per_s=(st.none() | st.floats(1e4, 1e8)) if quotas else st.none(),
            paused_partitions=(st.lists(st.integers(0, n - 1), max_size=3).map(tuple)
                               if pauses else st.just(())),
            pause_at_ms=st.integers(0, 600),
            workload=st.builds(
                Workload,
                profile=st.sampled_from(["uniform", "zipf", "fast_slow", "bursts"]),
                produce_bytes_per_s=st.floats(0, 5e7),
                record_bytes=st.integers(10, 5000),
                initial_lag_bytes=st.integers(0, 500_000),
                large_record_bytes=st.sampled_from([0, 300_000]),
            ),
        ))

    return build()


def reassignment_scenarios(*, ticks: tuple[int, int] = (1, 300),
                           in_sync_followers: tuple[int, int] = (0, 0)):
    """Small KIP-73 reassignments over every setting the kernel reads, with the edges: empty
    logs, a throttle of 0, no throttle, a network too slow for one byte a tick, int or float;
    in_sync_followers drawn from the range (at most R - 1; None, i.e. R - 1, too when the
    range is not just 0), and a throttle schedule now and then."""
    from dataclasses import replace

    from kipviz.scenarios.reassignment.scenario import ReassignmentScenario

    mb = 1_000_000
    throttles = st.none() | st.just(0) | st.integers(1, 20 * mb) | st.floats(1e5, 2e7)
    sizes = st.lists(st.integers(0, 4 * mb) | st.just(0), min_size=1, max_size=8).map(tuple)
    schedule = st.lists(st.tuples(st.integers(0, 3000).map(lambda ms: ms / 1000), throttles),
                        max_size=3, unique_by=lambda step: step[0]).map(
                            lambda steps: tuple(sorted(steps, key=lambda step: step[0])))
    base = st.builds(
        ReassignmentScenario,
        brokers=st.integers(5, 8),
        network_bytes_per_s=st.sampled_from([50, 1e6, 2e7, 125e6, 1e10]),
        bytes_in_per_s=st.sampled_from([0, 0.0, 1_000, 100_000.0, 500_000, 2e6, 1e7 / 3]),
        replication_factor=st.integers(1, 4),
        partitions=st.integers(1, 8),
        log_bytes=st.integers(0, 8 * mb),
        sizes=st.none() | sizes,
        leader_throttle_bytes_per_s=throttles,
        follower_throttle_bytes_per_s=throttles,
        replica_fetch_max_bytes=st.sampled_from([1, 4096, 65536, 1048576, 4194304]),
        replica_fetch_response_max_bytes=st.sampled_from([1, 100_000, 1048576, 10485760]),
        replication_quota_window_num=st.integers(1, 11),
        replication_quota_window_size_seconds=st.integers(1, 3),
        tick_ms=st.sampled_from([1, 7, 10, 50, 100, 250, 1000]),
        ticks=st.integers(*ticks),
        mode=st.sampled_from(["quota", "delay"]),
        in_sync_followers=st.just(0),
        throttle_schedule=st.just(()) | schedule,
    )
    lo, hi = in_sync_followers
    if (lo, hi) == (0, 0):
        return base

    def followers(s):
        top = min(hi, s.replication_factor - 1)
        drawn = st.integers(min(lo, top), top) | st.none()
        return drawn.map(lambda f: replace(s, in_sync_followers=f))

    return base.flatmap(followers)


def buffered_consumer_scenarios(**kwargs):
    """Small consumer scenarios with KIP-81's pool (strict or not, with or without the
    coordinator bypass) or the rejected in-flight cap, and heartbeats every few ticks."""
    from dataclasses import replace

    def with_buffer(scenario):
        # at least a heartbeat response, which a pool without the bypass must hold
        largest = max(16, scenario.fetch_max_bytes, scenario.largest_response_bytes(400_000))
        pool = st.builds(
            lambda extra, strict, bypass: replace(
                scenario, buffer_memory_bytes=largest + extra, strict_pool=strict,
                coordinator_bypass=bypass),
            st.integers(0, 300_000), st.booleans(), st.booleans())
        cap = st.integers(1, 6).map(lambda n: replace(scenario, max_in_flight_fetches=n))
        return st.one_of(pool, cap)

    heartbeats = st.integers(0, 200)
    return st.tuples(consumer_scenarios(**kwargs), heartbeats).map(
        lambda s_hb: replace(s_hb[0], heartbeat_interval_ms=s_hb[1], tick_ms=10)
    ).flatmap(with_buffer)


# kipviz.kafka.quotas.token_bucket: (ms since the previous step, value); values may be negative
# (unrecord)
bucket_steps = st.lists(st.tuples(st.integers(0, 30_000), st.integers(-50, 400)), max_size=40)
bucket_quotas = st.sampled_from([0.5, 1, 5, 10, 1_000])


@st.composite
def share_partition_runs(draw: st.DrawFn):
    """A share partition's log (records per batch), its settings and steps on it: ``("acquire",
    member, max records, ms later)``, ``("ack", member, ack type, ms later)`` (the member's
    oldest acquired run) and ``("expire", 0, 0, ms later)``."""
    batches = draw(st.lists(st.integers(1, 12), min_size=1, max_size=25))
    settings = {
        "max_in_flight_records": draw(st.integers(1, 40)),
        "max_delivery_count": draw(st.integers(1, 5)),
        "lock_duration_ms": draw(st.sampled_from([50, 100, 1_000])),
        "acquire_mode": draw(st.sampled_from(["batch_optimized", "record_limit"])),
        "batch_size": draw(st.integers(1, 20)),
    }
    step = st.tuples(st.sampled_from(["acquire", "acquire", "ack", "expire"]),
                     st.integers(0, 3), st.integers(1, 30), st.integers(0, 80))
    return batches, settings, draw(st.lists(step, max_size=40))


@st.composite
def mixed_partition_logs(draw: st.DrawFn) -> tuple[list[list[int]], list[bool]]:
    """``partition_logs`` with a flag per partition: True for a remote (tiered) partition."""
    logs = draw(partition_logs)
    return logs, draw(st.lists(st.booleans(), min_size=len(logs), max_size=len(logs)))


uniform_splits = st.tuples(st.integers(1, 3_000), st.integers(1, 12), st.integers(0, 12))
"""(request max bytes, partitions read, acquired partitions beyond them) for the UNIFORM split."""


def small_share_group_scenarios():
    """Small share-group scenarios over the settings the kernel reads, with the edges: budgets
    below the partition count, record_limit (4.2 on), stalled consumers, tight lock caps, each
    share-group release (4.0's PartitionMaxBytes from fetch_max_bytes' choices)."""
    from kipviz.scenarios.share_group.scenario import ShareGroupScenario

    return st.builds(
        lambda partitions, brokers, consumers, stalled, fetch_max_bytes, mode, locks, version:
        ShareGroupScenario(partitions=partitions, brokers=brokers, share_consumers=consumers,
                           classic_consumers=2, stalled_consumers=min(stalled, consumers),
                           fetch_max_bytes=fetch_max_bytes, kafka_version=version,
                           max_partition_fetch_bytes=fetch_max_bytes,
                           acquire_mode=mode if version >= "4.2" else "batch_optimized",
                           max_record_locks=locks, batch_records=4, max_poll_records=9,
                           record_bytes=100, initial_lag_records=40, produce_records_per_s=800,
                           record_lock_duration_ms=100, delivery_count_limit=2, ticks=40),
        st.integers(1, 4), st.integers(1, 3), st.integers(1, 6), st.integers(0, 2),
        st.sampled_from([1, 3, 999, 10_000, 52428800]),
        st.sampled_from(["batch_optimized", "record_limit"]), st.integers(5, 60),
        st.sampled_from(["4.0", "4.1", "4.2", "4.3"]))
share_seeds = st.integers(0, 3)  # seeds for the share-group scenario's random byte split


# --- shared scalars ---------------------------------------------------------------------------

seeds = st.integers(0, 2**16)
"""A simulation's seed."""
booleans = st.booleans()
"""A flag (include defaults, SimpleRate or Rate, legacy or not)."""
draws = st.data()
"""Draws made inside the test, from strategies that depend on other drawn values."""
JAVA_INT_MAX = 2**31 - 1
JAVA_LONG_MAX = 2**63 - 1


# --- kipviz.kafka.config
# ----------------------------------------------------------------------------

java_ints = st.integers(min_value=0, max_value=JAVA_INT_MAX)


@st.composite
def consumer_configs(draw: st.DrawFn):
    """Valid consumer configs, with and without a KIP-81 pool."""
    from kipviz.kafka.config.settings import ConsumerConfig

    fetch_max = draw(java_ints)
    memory = draw(st.none() | st.integers(min_value=fetch_max, max_value=JAVA_LONG_MAX))
    return ConsumerConfig(
        fetch_max_bytes=fetch_max,
        max_partition_fetch_bytes=draw(java_ints),
        fetch_min_bytes=draw(java_ints),
        fetch_max_wait_ms=draw(java_ints),
        max_poll_records=draw(st.integers(1, JAVA_INT_MAX)),
        heartbeat_interval_ms=draw(java_ints),
        request_timeout_ms=draw(java_ints),
        receive_buffer_bytes=draw(st.integers(-1, JAVA_INT_MAX)),
        buffer_memory_bytes=memory,
    )


@st.composite
def broker_configs(draw: st.DrawFn):
    """Valid broker configs, with and without a request pool and throttles."""
    from kipviz.kafka.config.settings import BrokerConfig

    socket_max = draw(st.integers(1, JAVA_INT_MAX))
    queued = draw(st.integers(-(2**63), 0) | st.integers(socket_max, JAVA_LONG_MAX))
    rates = st.none() | st.integers(1, JAVA_LONG_MAX)
    return BrokerConfig(
        fetch_max_bytes=draw(st.integers(1024, JAVA_INT_MAX)),
        replica_fetch_max_bytes=draw(java_ints),
        replica_fetch_response_max_bytes=draw(java_ints),
        message_max_bytes=draw(java_ints),
        queued_max_request_bytes=queued,
        socket_request_max_bytes=socket_max,
        queued_max_requests=draw(st.integers(1, JAVA_INT_MAX)),
        num_network_threads=draw(st.integers(1, 64)),
        num_io_threads=draw(st.integers(1, 64)),
        replication_quota_window_num=draw(st.integers(1, 100)),
        replication_quota_window_size_seconds=draw(st.integers(1, 60)),
        quota_window_num=draw(st.integers(1, 100)),
        quota_window_size_seconds=draw(st.integers(1, 60)),
        leader_replication_throttled_rate_bytes_per_s=draw(rates),
        follower_replication_throttled_rate_bytes_per_s=draw(rates),
    )


_properties_keys = st.from_regex(r"[a-z][a-z0-9.]{0,30}", fullmatch=True)
_properties_values = (st.from_regex(r"[^ \t\f=:\\\r\n][^\\\r\n]{0,40}", fullmatch=True)
                      | st.just(""))
properties_entries = st.dictionaries(_properties_keys, _properties_values)
"""``.properties`` keys and values that need no escaping."""
properties_separators = st.sampled_from(["=", ": ", " ", " = ", "\t"])


# --- kipviz.kafka.fetch.response, kipviz.curves, kipviz.kafka.consumer.buffer_memory,
# kipviz.scenarios.workload ------------------------------

round_robin_logs = st.lists(st.lists(st.integers(1, 3000), min_size=1, max_size=4), min_size=1,
                            max_size=10)
"""Partition logs that all hold data (1 to 4 batches each)."""
fetch_limits = st.integers(0, 5000)

demands = st.integers(min_value=0, max_value=10_000)
"""A partition's demand in a window, in bytes."""
window_demands = st.lists(demands, min_size=1, max_size=12)
fractions = st.floats(min_value=0, max_value=1)


@st.composite
def window_batches(draw: st.DrawFn) -> list[tuple[int, int, int, int]]:
    """Up to 30 windows of 1 to 8 partitions, each with delivered <= demand."""
    windows = draw(st.lists(st.lists(demands, min_size=1, max_size=8), min_size=1, max_size=30))
    return [(w, p, d, draw(st.integers(min_value=0, max_value=d)))
            for w, ds in enumerate(windows) for p, d in enumerate(ds)]


# --- kipviz.scenarios.fairness against the curves' Spark SQL ------------------------------


@st.composite
def thread_ticks(draw: st.DrawFn) -> list[tuple[int, int, int, int, int]]:
    """(time_ms, thread, threads, demand_records, processed_records) of 1 to 4 Streams threads
    over 1 to 12 ticks of 10 ms, each processing at most what it could."""
    threads, ticks = draw(st.integers(1, 4)), draw(st.integers(1, 12))
    rows = []
    for t in range(ticks):
        for thread in range(threads):
            demand = draw(st.integers(0, 50))
            rows.append((10 * t, thread, threads, demand, draw(st.integers(0, demand))))
    return rows


@st.composite
def consumer_ticks(draw: st.DrawFn) -> tuple[list[tuple[int, str, int, int]], int]:
    """(time_ms, group, consumer, processed) of 1 to 4 share and 1 to 3 classic consumers over 1
    to 12 ticks of 10 ms (some idle), and the ticks."""
    ticks = draw(st.integers(1, 12))
    groups = (("share", draw(st.integers(1, 4))), ("classic", draw(st.integers(1, 3))))
    return [(10 * t, group, c, draw(st.integers(0, 3)))
            for group, n in groups for c in range(n) for t in range(ticks)], ticks


curve_windows = st.integers(1, 6)
thread_window_ms = st.sampled_from([10, 20, 30])
broker_requests = st.lists(st.tuples(st.integers(0, 5), st.integers(1, 100), st.integers(0, 50),
                                     st.integers(-1, 200)), min_size=1, max_size=30)
"""(connection, size_bytes, arrival_ms, wait_ms) of a broker's requests; wait -1: unread."""
wait_ticks_ms = st.integers(1, 20)
wait_ends_ms = st.none() | st.integers(0, 300)


partition_sizes = st.lists(st.integers(0, 1000), max_size=12)
"""Bytes buffered per partition (KIP-770's biggest-partitions rule)."""
thread_shares = st.integers(0, 5000)
buffered_partition_sizes = st.lists(st.integers(0, 10_000), max_size=40)
"""Bytes buffered per partition, up to 40 partitions (the biggest-partitions pick)."""
share_bytes_per_thread = st.integers(0, 200_000)

streams_splits = {"partitions": st.integers(1, 5000), "threads": st.integers(1, 64)}
"""Partitions and stream threads for ``thread_partitions`` (keyword strategies for ``given``)."""

workload_shapes = (st.integers(1, 8), st.integers(1, 50), st.floats(0, 5e6), st.integers(0, 3))
"""(partitions, ticks, produce rate in bytes/s, seed) for ``produce``."""


# --- kipviz.kafka.replication.quota, kipviz.apps.planner
# ---------------------------------------------------------------

optimistic_throttles = {
    "quota_bytes_per_s": st.integers(1_000, 1_000_000), "samples": quota_samples,
    "window_ms": quota_windows_ms,
    "responses": st.lists(st.integers(1, 3_000_000), min_size=1, max_size=8),
    "poll_ms": st.integers(1, 400), "windows": st.integers(3, 25)}
"""A quota, responses sent while it is not exceeded, a poll interval and a horizon in windows."""

move_times = {"ratio": st.floats(0.01, 1), "log_bytes": st.integers(1, 10**12),
              "brokers": st.integers(1, 1000), "inbound": st.floats(0, 1e9),
              "above": st.floats(1, 1e9), "more": st.floats(1, 1e9)}
"""KIP-73's move-time inputs with two throttles above the inbound rate."""

throttle_ranges = {"inbound": st.integers(0, 10**9), "extra": st.integers(1, 10**9),
                   "r": st.integers(1, 5), "moved": st.integers(0, 10**12),
                   "a": st.floats(0, 1), "b": st.floats(0, 1)}
"""A cluster and two points of the throttle range IN < T <= N - IN/R (``plan_throttle``)."""

quota_windows_s = st.sampled_from([0.1, 0.25, 1, 1.5, 2])
replication_quotas = st.none() | st.integers(0, 2_000_000) | st.floats(0, 2e6)
"""A replication throttle: none, int or float bytes/s, 0 included."""
java_round_inputs = (st.floats(allow_nan=True, allow_infinity=True)
                     | st.sampled_from([0.49999999999999994, 2.5, -2.5, -0.5, 2.0**63,
                                        -(2.0**63)]))
"""Any double, with the ties and the long range's edges."""


# --- scenarios ----------------------------------------------------------------------------------

@st.composite
def recovering_broker_scenarios(draw: st.DrawFn, strict: bool | None = None):
    """Small KIP-72 scenarios with spare capacity after the spike: traffic uses at most a
    quarter of the handlers, the largest request takes at most five ticks, and every
    connection's small request fits in the pool at once, four times over. So every backlog can
    drain within the run."""
    from kipviz.scenarios.broker.scenario import BrokerScenario

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


@st.composite
def small_broker_scenarios(draw: st.DrawFn):
    """Small KIP-72 scenarios of any kind: with or without a pool, under pressure or not,
    handlers from very slow to so fast a request takes less than a float's step of time."""
    from kipviz.scenarios.broker.scenario import BrokerScenario

    largest = draw(st.integers(100, 5_000))
    pooled = draw(st.booleans())
    ticks = draw(st.integers(20, 200))
    tick_ms = draw(st.sampled_from([1, 7, 10]))
    return BrokerScenario(
        connections=draw(st.integers(1, 10)),
        queued_max_request_bytes=largest * draw(st.integers(1, 4)) if pooled else -1,
        socket_request_max_bytes=largest, strict=draw(st.booleans()),
        shuffle=draw(st.booleans()), queued_max_requests=draw(st.integers(1, 8)),
        small_request_bytes=draw(st.integers(1, largest)),
        large_request_bytes=draw(st.integers(1, largest)),
        large_share=draw(st.floats(0.0, 1.0)),
        spike_start_ms=draw(st.integers(0, ticks * tick_ms)),
        spike_duration_ms=draw(st.integers(0, ticks * tick_ms)),
        requests_per_s_per_connection=draw(st.floats(0.0, 300.0)),
        num_io_threads=draw(st.integers(1, 4)),
        handler_bytes_per_s=draw(st.sampled_from([1e4, 3e5, 1e6, 1e7, 1e9, 1e20])),
        tick_ms=tick_ms, ticks=ticks)


def broker_arrivals(s):
    """Up to 60 ``(connection, arrival_ms, size_bytes)`` requests for broker scenario ``s``,
    arriving at any ms of the run (not only on ticks)."""
    return st.lists(st.tuples(st.integers(0, s.connections - 1),
                              st.integers(0, s.ticks * s.tick_ms),
                              st.integers(1, s.socket_request_max_bytes)),
                    max_size=60)


def simpy_consumer_scenarios(orderings):
    """Consumer scenarios small enough for the SimPy program, in one of ``orderings`` (or the
    release's own order)."""
    return consumer_scenarios(partitions=(4, 12), ticks=(30, 100), windows=(1, 6),
                              orderings=orderings, network_bytes_per_s=(1e5, 1e9))


fetch_versions = st.sampled_from([2, 3, 12])
"""Fetch request versions either side of KIP-74 (v3) and a recent one."""


def throttled_reassignments():
    """Small KIP-73 reassignments of 300 ticks, always throttled on the leader."""
    from kipviz.scenarios.reassignment.scenario import ReassignmentScenario

    mb, mib = 1_000_000, 1024 * 1024
    return st.builds(
        ReassignmentScenario,
        partitions=st.integers(1, 6),
        log_bytes=st.integers(0, 20 * mb),
        bytes_in_per_s=st.sampled_from([0.0, 100_000.0, 500_000.0]),
        leader_throttle_bytes_per_s=st.integers(mb // 2, 8 * mb).map(float),
        follower_throttle_bytes_per_s=st.none() | st.integers(mb // 2, 8 * mb).map(float),
        replica_fetch_max_bytes=st.sampled_from([65536, mib, 4 * mib]),
        replica_fetch_response_max_bytes=st.sampled_from([mib, 10 * mib]),
        replication_quota_window_num=st.integers(2, 11),
        tick_ms=st.sampled_from([10, 50, 100]),
        ticks=st.just(300),
        mode=st.sampled_from(["quota", "delay"]),
    )


throttle_raises = st.integers(1, 4_000_000)
"""Bytes/s added to a throttle."""


@st.composite
def small_streams_scenarios(draw: st.DrawFn, policies=None, changes: bool = True):
    """Small KIP-770 instances over every setting the kernel reads (``policies``: all of
    ``STREAMS_POLICIES`` by default; ``changes``: thread count changes), with their value
    sizes: ``(scenario, values)``."""
    from kipviz.kafka.streams.input_buffer import STREAMS_POLICIES
    from kipviz.scenarios.streams.scenario import StreamsScenario

    tasks, topics = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    threads = draw(st.integers(1, 3))
    steps = draw(st.lists(st.integers(1, 3), max_size=2)) if changes else []
    s = StreamsScenario(
        input_buffer_max_bytes=draw(st.integers(0, 40_000)),
        buffered_records_per_partition=draw(st.integers(1, 30)),
        policy=draw(st.sampled_from(STREAMS_POLICIES if policies is None else policies)),
        threads=threads,
        global_thread=draw(st.booleans()),
        thread_changes=tuple((70 * (j + 1), n) for j, n in enumerate(steps)),
        tasks=tasks, topics=topics, key_bytes=draw(st.integers(0, 20)),
        produce_records_per_s=draw(st.sampled_from([0.0, 150.0, 1000.0])),
        initial_lag_records=draw(st.integers(0, 60)),
        process_records_per_s=draw(st.sampled_from([50.0, 100.0, 250.0, 1000.0, 4000.0])),
        max_partition_fetch_bytes=draw(st.sampled_from([0, 500, 3000, 100_000])),
        tick_ms=10, ticks=draw(st.integers(1, 40)))
    values = draw(st.lists(st.integers(0, 3000), min_size=s.partitions,
                           max_size=s.partitions))
    return s, values



@st.composite
def streams_task_queues(draw: st.DrawFn):
    """Two Streams tasks' queues for the processing round (task 1 is the one checked), N and
    how many records to take: ``(topics, fetched, consumed, end, paused, n_records, take)``,
    consumed <= fetched <= end per partition."""
    import numpy as np

    topics = draw(st.integers(1, 3))
    n = 2 * topics
    consumed = np.array(draw(st.lists(st.integers(0, 8), min_size=n, max_size=n)), np.int64)
    queued = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), np.int64)
    lag = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), np.int64)
    paused = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), np.bool_)
    return (topics, consumed + queued, consumed, consumed + queued + lag, paused,
            draw(st.integers(0, 3)), draw(st.integers(0, 20)))


@st.composite
def round_robin_turns(draw: st.DrawFn) -> tuple[list[int], int, int]:
    """A stream thread's processing round: each task's capacity, the record budget and the
    task next in turn: ``(capacities, budget, pos)``."""
    capacities = draw(st.lists(st.integers(0, 5), min_size=1, max_size=5))
    return capacities, draw(st.integers(0, 20)), draw(st.integers(0, len(capacities) - 1))


def tiered_scenarios():
    """Small KIP-405 tiered-fetch scenarios over the settings the kernel reads."""
    from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario

    return st.builds(
        TieredFetchScenario,
        kafka_version=st.sampled_from(["3.6", "3.7", "3.8", "4.1", "4.2", "4.3"]),
        catch_up_consumers=st.integers(0, 3), tail_consumers=st.integers(1, 2),
        remote_partitions=st.integers(0, 6), local_partitions=st.integers(0, 3),
        backlog_bytes=st.sampled_from([0, 16_384, 1_048_576, 8_388_608, 5_000_000]),
        fetch_max_bytes=st.sampled_from([0, 10_000, 1_048_576, 3_000_000, 52_428_800]),
        max_partition_fetch_bytes=st.sampled_from([0, 1_000, 65_536, 1_048_576]),
        remote_log_reader_threads=st.integers(1, 4),
        remote_fetch_max_wait_ms=st.integers(1, 400), fetch_max_wait_ms=st.integers(0, 500),
        remote_read_latency_ms=st.floats(0, 300), rtt_ms=st.floats(0.5, 5),
        remote_fetch_max_bytes_per_s=st.none() | st.sampled_from([1e5, 2e6, 5e7]),
        duration_ms=st.integers(1, 1_500))


@st.composite
def declared_setting_values(draw: st.DrawFn, cls):
    """A field of Kafka config class ``cls`` and an integer near its declared range (the
    bounds, one either side, and anything in its Java type)."""
    import dataclasses

    from kipviz.kafka.config.fields import field_setting

    f = draw(st.sampled_from(dataclasses.fields(cls)))
    setting = field_setting(f)
    top = 2**31 - 1 if setting.java == "int" else 2**63 - 1
    edges = [b + d for b in (setting.at_least, setting.at_most) if b is not None
             for d in (-1, 0, 1)]
    value = draw(st.one_of(st.sampled_from(edges or [0]), st.integers(-top - 1, top)))
    return f.name, setting, value


@st.composite
def cluster_reassignment_plans(draw: st.DrawFn):
    """A plan on 3-6 brokers of 1-5 partitions (0.2-1 GB, IN 0-2 MB/s), each replacing 1..RF of
    its replicas, and one rate T for every broker."""
    n_brokers = draw(st.integers(3, 6))
    moves = []
    for p in range(draw(st.integers(1, 5))):
        rf = draw(st.integers(1, min(3, n_brokers - 1)))
        sources = draw(st.permutations(range(n_brokers)))[:rf]
        others = [b for b in range(n_brokers) if b not in sources]
        k = draw(st.integers(1, min(rf, len(others))))
        added = draw(st.permutations(others))[:k]
        targets = draw(st.permutations(list(sources[:rf - k]) + list(added)))
        moves.append(make_move("t", p, sources, targets,
                               size_bytes=draw(st.integers(200, 1000)) * 10**6,
                               bytes_in_per_s=draw(st.floats(0, 2e6))))
    return tuple(moves), draw(st.floats(15e6, 60e6))


@st.composite
def client_workloads(draw: st.DrawFn) -> tuple[str, int, int, int, float]:
    """One of issue 31's clients with ``(partitions, brokers, per-partition limit, compression
    ratio)``."""
    client = draw(st.sampled_from(["franz-go", "kafka-python", "librdkafka"]))
    return (client, draw(st.integers(1, 3000)), draw(st.integers(1, 12)),
            draw(st.integers(1, 64 << 20)), draw(st.floats(1.0, 10.0)))


CLIENT_SETTINGS: dict[str, Any] = {  # each client's settings, by its own names
    "java": st.just({}),
    "librdkafka": st.fixed_dictionaries({}, optional={
        "queued.max.messages.kbytes": st.integers(1, 4000),
        "fetch.message.max.bytes": st.integers(1000, 4 << 20),
        "fetch.max.bytes": st.integers(1_000_000, 8 << 20)}),
    "franz-go": st.fixed_dictionaries({}, optional={
        "MaxConcurrentFetches": st.integers(-1, 4),
        "FetchMaxPartitionBytes": st.integers(1000, 4 << 20),
        "FetchMaxBytes": st.integers(1 << 20, 8 << 20)}),
    "kafka-python": st.fixed_dictionaries({}, optional={
        "fetch_max_bytes": st.integers(1000, 8 << 20),
        "max_partition_fetch_bytes": st.integers(1000, 4 << 20)}),
}


@st.composite
def client_scenarios(draw: st.DrawFn) -> Any:
    """A small lagging ``ConsumerScenario`` on one of the four clients (issue 31), with some of
    its settings by their own names."""
    from kipviz.scenarios.consumer.scenario import ConsumerScenario
    from kipviz.scenarios.workload import Workload

    client = draw(st.sampled_from(list(CLIENT_SETTINGS)))
    return ConsumerScenario(
        partitions=draw(st.integers(1, 24)), brokers=draw(st.integers(1, 4)), ticks=60,
        windows=4, client=client, client_settings=draw(CLIENT_SETTINGS[client]),
        compression_ratio=draw(st.sampled_from([1.0, 2.5, 6.0])),
        consume_bytes_per_s=draw(st.sampled_from([5e6, 50e6, 500e6])),
        workload=Workload(initial_lag_bytes=draw(st.sampled_from([0, 4_000_000, 60_000_000])),
                          produce_bytes_per_s=draw(st.sampled_from([1e6, 40e6])),
                          batch_size_bytes=draw(st.sampled_from([16 << 10, 256 << 10]))))
