"""The typed ``meta`` of a consumer trace (KIP-74, KIP-81): the run's settings and the memory
bounds drawn beside it, key by key in ``docs/traces.md``. A ``TypedDict`` is a plain dict at run
time, checked by mypy."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["ConsumerMeta"]


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
    client: str
    compression_ratio: float
    ordering: str
    fetch_sessions: bool
    throttled_fetches: int
    throttle_time_total_ms: int
    depleted_time_total_ms: float
    dry_ms: int
    max_heartbeat_delay_ms: int
    max_heartbeat_gap_ms: int
    session_expired: bool


class ConsumerMeta(_ConsumerRun, total=False):
    """``kipviz.scenarios.consumer.scenario.simulate`` (KIP-74, KIP-81); the last two keys only
    with a KIP-81 ``buffer.memory`` pool."""

    buffer_memory_bytes: int
    pooled_bound_bytes: int
