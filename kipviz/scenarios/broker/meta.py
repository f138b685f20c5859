"""The typed ``meta`` of a broker trace (KIP-72): the run's settings, the pool and its bounds
(``docs/traces.md``); a plain dict at run time, checked by mypy."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["BrokerMeta"]


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
    kafka_version: str
    invalid_requests: int  # read, then refused by processCompletedReceives
    leaked_bytes: int  # their buffers never returned to the pool (KAFKA-20302, 4.0 and 4.1)
    outstanding_bound_bytes: int | None
    per_connection_bound_bytes: int
