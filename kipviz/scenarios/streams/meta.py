"""The typed ``meta`` of a Streams trace (KIP-770): the run's settings, the threads' shares and
both bounds (``docs/traces.md``); a plain dict at run time, checked by mypy."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["StreamsMeta"]


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
