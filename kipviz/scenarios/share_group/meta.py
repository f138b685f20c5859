"""The typed ``meta`` of a share-group trace (KIP-932): the run's settings and its memory and
in-flight bounds (``docs/traces.md``); a plain dict at run time, checked by mypy."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["ShareGroupMeta"]


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
    in_flight_bound_records: int | None  # None before 4.2: nothing bounds them
    record_lock_duration_ms: int
    delivery_count_limit: int
    acquire_mode: str
    response_max_bytes: int
    leaders: int
    memory_bound_bytes: int
    max_records_bytes: int
    kafka_version: str
    fetch_nodes: int
