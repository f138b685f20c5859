"""The share-group scenario by Kafka release (KIP-932, 4.0 to 4.3): what a lesson compares.

:func:`release_table` runs one scenario under each release's rules
(:mod:`kipviz.kafka.share.releases`) and lock cap; :func:`fetch_nodes_table` shows KAFKA-19767's
one node per poll in ``record_limit`` mode.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from kipviz.scenarios.share_group.scenario import ShareGroupScenario, simulate

__all__ = ["SHARE_RELEASES", "fetch_nodes_table", "release_table"]

SHARE_RELEASES = ("4.0", "4.1", "4.2", "4.3")


def release_table(scenario: ShareGroupScenario, versions: tuple[str, ...] = SHARE_RELEASES,
                  lock_caps: tuple[int | None, ...] = (None,), *, seed: int = 0) -> pd.DataFrame:
    """Per release and lock cap (None: the release's default): the cap in effect, the peak
    records in flight on a partition and the release's bound ("none" before 4.2), a share
    consumer's peak held KiB, the share records processed and the records archived."""
    rows = []
    for version in versions:
        for locks in lock_caps:
            t = simulate(replace(scenario, kafka_version=version, max_record_locks=locks),
                         seed=seed)
            share = t.consumers[t.consumers.group == "share"]
            archived = t.partitions.groupby("partition").archived_records.max()
            rows.append({"kafka": version, "lock cap": t.meta["max_record_locks"],
                         "in flight, peak": int(t.partitions.in_flight_records.max()),
                         "bound": t.meta["in_flight_bound_records"] or "none",
                         "held per consumer, peak KiB": int(share.held_bytes.max()) // 1024,
                         "share records processed": int(share.processed.sum()),
                         "archived": int(archived.sum())})
    return pd.DataFrame(rows)


def fetch_nodes_table(scenario: ShareGroupScenario,
                      modes: tuple[str, ...] = ("batch_optimized", "record_limit"),
                      *, seed: int = 0) -> pd.DataFrame:
    """Per ``share.acquire.mode``: the most leaders a member's partitions have, the nodes one poll
    fetches records from (1 in ``record_limit`` from 4.2, KAFKA-19767) and the memory bound."""
    rows = []
    for mode in modes:
        meta = simulate(replace(scenario, acquire_mode=mode), seed=seed).meta
        rows.append({"share.acquire.mode": mode, "leaders": meta["leaders"],
                     "nodes fetched per poll": meta["fetch_nodes"],
                     "memory bound MiB": meta["memory_bound_bytes"] / 2**20})
    return pd.DataFrame(rows)
