"""The broker scenario by Kafka release (KAFKA-20302) and the size check before the pool: what
lesson 2 compares."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from kipviz.kafka.broker.receive import TLS_HANDSHAKE_SIZE_BYTES, receive_size_refused
from kipviz.kafka.units import MiB
from kipviz.scenarios.broker.scenario import BrokerScenario, simulate

__all__ = ["invalid_request_table", "size_check_table"]



def size_check_table(socket_request_max_bytes: tuple[int, ...] = (104857600, 500_000_000),
                     size_bytes: int = TLS_HANDSHAKE_SIZE_BYTES) -> pd.DataFrame:
    """Per ``socket.request.max.bytes``: whether ``NetworkReceive`` refuses a request of
    ``size_bytes`` (default: a TLS handshake's first bytes read as a size) before allocating."""
    return pd.DataFrame({"socket.request.max.bytes": list(socket_request_max_bytes),
                         "size": size_bytes, "size MiB": round(size_bytes / MiB, 1),
                         "refused before allocating": [receive_size_refused(size_bytes, limit)
                                                       for limit in socket_request_max_bytes]})


def invalid_request_table(scenario: BrokerScenario, versions: tuple[str, ...] = ("4.1", "4.2"),
                          invalid_share: float = 0.01, *, seed: int = 0) -> pd.DataFrame:
    """Per release, ``scenario`` with ``invalid_share`` of its requests invalid: the invalid
    requests read, the MiB never returned to the pool (KAFKA-20302) and the pool available at
    the end of the run."""
    rows = []
    for version in versions:
        t = simulate(replace(scenario, invalid_share=invalid_share, kafka_version=version),
                     seed=seed)
        rows.append({"kafka": version, "requests": len(t.requests),
                     "invalid": t.meta["invalid_requests"],
                     "never returned MiB": round(t.meta["leaked_bytes"] / MiB, 1),
                     "available at the end MiB": round(
                         int(t.ticks.pool_available_bytes.iloc[-1]) / MiB, 1),
                     "pool MiB": round(scenario.queued_max_request_bytes / MiB, 1)})
    return pd.DataFrame(rows)
