"""Shared Hypothesis strategies (one place, as attrs does it)."""

from __future__ import annotations

from hypothesis import strategies as st

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


# kipviz.quota: a timeline of (ms since the previous step, value, measure instead of record)
rate_steps = st.lists(
    st.tuples(st.integers(0, 4_000), st.integers(0, 1_000_000), st.booleans()), max_size=40
)
quota_samples = st.integers(min_value=1, max_value=11)  # replication.quota.window.num
quota_windows_ms = st.sampled_from([100, 250, 1_000, 2_000])  # whole ms, like Kafka's windows


KAFKA_VERSIONS = ("0.10.0", "0.10.1", "2.0", "3.6", "3.7", "3.9", "4.0", "4.3")


def consumer_scenarios(*, partitions: tuple[int, int] = (1, 12), ticks: tuple[int, int] = (5, 60),
                       windows: tuple[int, int] = (1, 5), orderings=None,
                       kafka_versions: tuple[str, ...] = KAFKA_VERSIONS,
                       network_bytes_per_s: tuple[float, float] = (1e5, 1e10),
                       quotas: bool = True, pauses: bool = True):
    """Small KIP-74 consumer scenarios over every setting the kernel reads, across the Kafka
    versions whose fetch rules differ (pre-KIP-74, hash order, KAFKA-17182), with fetch quotas
    and paused partitions."""
    from kipviz.fetch import Ordering
    from kipviz.scenarios.consumer import ConsumerScenario
    from kipviz.workload import Workload

    @st.composite
    def build(draw):
        kafka_version = draw(st.sampled_from(kafka_versions))
        options = [None, *(orderings or Ordering)]
        if kafka_version < "1.1":  # no fetch sessions before KIP-227
            options = [o for o in options if o != Ordering.SESSION]
        n = draw(st.integers(*partitions))
        return draw(st.builds(
            ConsumerScenario,
            partitions=st.just(n),
            brokers=st.integers(1, 4),
            fetch_max_bytes=st.integers(0, 200_000),
            max_partition_fetch_bytes=st.integers(0, 100_000),
            fetch_min_bytes=st.integers(0, 50_000),
            fetch_max_wait_ms=st.integers(0, 100),
            ordering=st.sampled_from(options),
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

    from kipviz.scenarios.reassignment import ReassignmentScenario

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


# kipviz.token_bucket: (ms since the previous step, value); values may be negative (unrecord)
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
    below the partition count, record_limit, stalled consumers, tight lock caps."""
    from kipviz.scenarios.share_group import ShareGroupScenario

    return st.builds(
        lambda partitions, brokers, consumers, stalled, fetch_max_bytes, mode, locks:
        ShareGroupScenario(partitions=partitions, brokers=brokers, share_consumers=consumers,
                           classic_consumers=2, stalled_consumers=min(stalled, consumers),
                           fetch_max_bytes=fetch_max_bytes, acquire_mode=mode,
                           max_record_locks=locks, batch_records=4, max_poll_records=9,
                           record_bytes=100, initial_lag_records=40, produce_records_per_s=800,
                           record_lock_duration_ms=100, delivery_count_limit=2, ticks=40),
        st.integers(1, 4), st.integers(1, 3), st.integers(1, 6), st.integers(0, 2),
        st.sampled_from([1, 3, 999, 10_000, 52428800]),
        st.sampled_from(["batch_optimized", "record_limit"]), st.integers(5, 60))
share_seeds = st.integers(0, 3)  # seeds for the share-group scenario's random byte split


@st.composite
def declared_setting_values(draw: st.DrawFn, cls):
    """A field of Kafka config class ``cls`` and an integer near its declared range (the
    bounds, one either side, and anything in its Java type)."""
    import dataclasses

    from kipviz.config.fields import field_setting

    f = draw(st.sampled_from(dataclasses.fields(cls)))
    setting = field_setting(f)
    top = 2**31 - 1 if setting.java == "int" else 2**63 - 1
    edges = [b + d for b in (setting.at_least, setting.at_most) if b is not None
             for d in (-1, 0, 1)]
    value = draw(st.one_of(st.sampled_from(edges or [0]), st.integers(-top - 1, top)))
    return f.name, setting, value
