"""The typed ``meta`` of a tiered-fetch trace (KIP-405): the run's settings, recorded with its
``seed`` although nothing is random (``docs/traces.md``); a plain dict at run time, checked by
mypy."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["TieredFetchMeta"]


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
    remote_log_reader_max_pending_tasks: int
    remote_read_latency_ms: float
    remote_fetch_max_bytes_per_s: float | None
    several_remote_partitions: bool
    charged_up_front: bool
    produce_bytes_per_s: float
