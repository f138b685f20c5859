"""The typed ``meta`` of each scenario kind's trace: the settings of the run and the analytic
bounds drawn beside it (documented key by key in ``docs/traces.md``).

Each is a ``TypedDict``: a plain dict at run time (``meta["tick_ms"]``, ``meta.get(...)``,
``dict(meta)`` keep working), checked by mypy. Every one records the run's ``seed``, also where
nothing is random (a reassignment, a tiered fetch).
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["BrokerMeta", "ConsumerMeta", "MoveOutcome", "MovePlan", "ReassignmentMeta",
           "ShareGroupMeta", "StreamsMeta", "TieredFetchMeta"]


class _ConsumerRun(TypedDict):
    """What every consumer trace's meta has."""

    partitions: int
    brokers: int
    tick_ms: int
    window_ms: int
    ticks: int
    seed: int
    max_batch_bytes: int
    pre_kip74_bound_bytes: int
    kip74_bound_bytes: int
    in_flight_bound_bytes: int
    buffered_bound_bytes: int
    largest_response_bytes: int
    mode: str
    coordinator_bypass: bool
    max_in_flight_fetches: int | None
    kafka_version: str
    fetch_version: int
    memory_bound_bytes: int
    memory_rule: str
    memory_lagging: bool
    memory_lagging_bytes: int
    memory_sentence: str
    ordering: str
    throttled_fetches: int
    throttle_time_total_ms: int
    depleted_time_total_ms: float
    dry_ms: int
    max_heartbeat_delay_ms: int
    max_heartbeat_gap_ms: int
    session_expired: bool


class ConsumerMeta(_ConsumerRun, total=False):
    """``kipviz.scenarios.consumer.simulation.simulate`` (KIP-74, KIP-81); the last two keys only
    with a KIP-81 ``buffer.memory`` pool."""

    buffer_memory_bytes: int
    pooled_bound_bytes: int


class BrokerMeta(TypedDict):
    """``kipviz.scenarios.broker.scenario.simulate`` (KIP-72)."""

    connections: int
    tick_ms: int
    ticks: int
    seed: int
    queued_max_request_bytes: int
    socket_request_max_bytes: int
    queued_max_requests: int
    no_pool: bool
    strict: bool
    shuffle: bool
    low_memory_threshold_bytes: int | None
    depleted_time_total_ms: float
    max_request_bytes: int
    outstanding_bound_bytes: int | None
    per_connection_bound_bytes: int


class MovePlan(TypedDict):
    """A reassignment's settings and plan, known before it runs."""

    mode: str
    seed: int
    tick_ms: int
    ticks: int
    brokers: int
    network_bytes_per_s: float
    bytes_in_per_s: float
    replication_factor: int
    leader_throttle_bytes_per_s: float | None
    follower_throttle_bytes_per_s: float | None
    throttle_bytes_per_s: float
    bytes_to_move: int
    in_sync_followers: int
    throttle_schedule: list[tuple[float, float | None]]
    replica_fetch_max_bytes: int
    replica_fetch_response_max_bytes: int
    window_total_s: float
    window_size_s: float
    catch_up_bytes_per_s: float
    catch_up_schedule: list[tuple[float, float]]
    planned_move_time_s: float
    kip_move_time_s: float
    safe_response_max_bytes: float | None
    finishes: bool
    reason: str


class MoveOutcome(TypedDict):
    """How a reassignment's run ended."""

    completed_ms: int | None
    move_status: str
    projected_move_time_s: float


class ReassignmentMeta(MovePlan, MoveOutcome):
    """``kipviz.scenarios.reassignment.scenario.simulate`` (KIP-73)."""

    first_window_throttled_bytes: int


class StreamsMeta(TypedDict):
    """``kipviz.scenarios.streams.scenario.simulate`` (KIP-770)."""

    tick_ms: int
    ticks: int
    seed: int
    policy: str
    input_buffer_max_bytes: int
    buffered_records_per_partition: int
    max_partition_fetch_bytes: int
    threads: int
    max_threads: int
    global_thread: bool
    thread_changes: list[list[int]]
    task_moves: int
    partitions: int
    tasks: int
    topics: int
    value_bytes: list[int]
    record_bytes: list[int]
    share_bytes: dict[int, int]
    bytes_bound_bytes: int
    records_bound_bytes: int
    one_poll_bytes: int


class ShareGroupMeta(TypedDict):
    """``kipviz.scenarios.share_group.scenario.simulate`` (KIP-932)."""

    tick_ms: int
    ticks: int
    seed: int
    partitions: int
    brokers: int
    share_consumers: int
    classic_consumers: int
    stalled_consumers: int
    record_bytes: int
    batch_records: int
    max_poll_records: int
    max_record_locks: int
    in_flight_bound_records: int
    record_lock_duration_ms: int
    delivery_count_limit: int
    acquire_mode: str
    response_max_bytes: int
    leaders: int
    memory_bound_bytes: int
    max_records_bytes: int


class TieredFetchMeta(TypedDict):
    """``kipviz.scenarios.tiered_fetch.scenario.simulate`` (KIP-405)."""

    kafka_version: str
    seed: int
    duration_ms: int
    consumers: int
    catch_up_consumers: int
    fetch_max_bytes: int
    max_partition_fetch_bytes: int
    remote_fetch_wait_ms: int
    remote_log_reader_threads: int
    remote_read_latency_ms: float
    remote_fetch_max_bytes_per_s: float | None
    several_remote_partitions: bool
    charged_up_front: bool
    produce_bytes_per_s: float
