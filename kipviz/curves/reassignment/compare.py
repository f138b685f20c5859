"""Several KIP-73 reassignments side by side, as the lesson's tables: throttles, followers, sizes.

Each function varies one thing of a
:class:`~kipviz.scenarios.reassignment.scenario.ReassignmentScenario` and returns a small pandas
table (or the curves of each run), so a lesson cell only calls and prints. Move times come from the
trace's plan (``bytes / (T - (F + 1) x IN)``, the followers ``--throttle`` counts,
:mod:`kipviz.kafka.replication.planning`) beside KIP-73's ``bytes / (T - IN)``; a run that did not
finish says "never" or "not within this run" with its projected time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Literal

import pandas as pd

from kipviz.curves.reassignment.curves import ReassignmentCurves, reassignment_curves
from kipviz.kafka.units import MB
from kipviz.scenarios.reassignment.meta import ReassignmentMeta
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario, simulate

__all__ = ["followers_table", "response_size_table", "throttle_runs", "throttle_table"]



def _seconds(x: float) -> str:
    return "never" if x == math.inf else f"{x:.0f} s"


def _outcome(meta: ReassignmentMeta) -> str:
    if meta["move_status"] == "finished":
        return f"{meta['projected_move_time_s']:.1f} s"  # completed_ms / 1000 when finished
    if meta["move_status"] == "never":
        return "never"
    return f"not within this run (projected {meta['projected_move_time_s']:.0f} s)"


def throttle_runs(spark: Any, scenario: ReassignmentScenario,
                  throttles_bytes_per_s: Iterable[float]) -> dict[str, ReassignmentCurves]:
    """The curves of the scenario with both throttles at each rate, labelled ``"50 MB/s"``."""
    return {f"{t / MB:g} MB/s": reassignment_curves(spark, simulate(replace(
        scenario, leader_throttle_bytes_per_s=t, follower_throttle_bytes_per_s=t)))
        for t in throttles_bytes_per_s}


def throttle_table(runs: dict[str, ReassignmentCurves]) -> pd.DataFrame:
    """One row per run: simulated outcome, planned and KIP-73 move times, the client bandwidth
    left while moving and the replica lag at the end of the run."""
    return pd.DataFrame({
        label: {"simulated": c.move_text,
                "planned (followers counted)": _seconds(c.planned_move_time_s),
                "KIP-73 formula (T - IN)": _seconds(c.kip_move_time_s),
                "client MB/s left while moving": round(float(
                    c.move["client_left_moving_mean_bytes_per_s"].iloc[0]) / MB, 1),
                "replica lag at the end (MB)": round(float(
                    c.windows["replica_lag_end_bytes"].iloc[-1]) / MB, 1)}
        for label, c in runs.items()}).T


def followers_table(scenario: ReassignmentScenario, throttles_bytes_per_s: Iterable[float],
                    followers: Iterable[int | None] = (0, None)) -> pd.DataFrame:
    """Each throttle with each count of in-sync followers (None: R - 1, as ``--throttle``):
    what the new replica nets, the planned and the simulated move time."""
    rows = []
    for t in throttles_bytes_per_s:
        for f in followers:
            meta = simulate(replace(scenario, leader_throttle_bytes_per_s=t,
                                    follower_throttle_bytes_per_s=t,
                                    in_sync_followers=f)).meta
            counted = meta["in_sync_followers"]
            rows.append({"T": f"{t / MB:g} MB/s",
                         "in-sync followers counted": (f"{counted} (R - 1, --throttle)"
                                                       if f is None else
                                                       f"{counted} (KIP-73's idealisation)"
                                                       if counted == 0 else str(counted)),
                         "new replica nets (MB/s)": round(
                             (t - (counted + 1) * scenario.bytes_in_per_s) / MB, 1),
                         "planned": _seconds(meta["planned_move_time_s"]),
                         "simulated": _outcome(meta)})
    return pd.DataFrame(rows)


def response_size_table(scenario: ReassignmentScenario, response_max_bytes: Iterable[int],
                        modes: Iterable[Literal["quota", "delay"]] = ("quota", "delay"), *,
                        replica_fetch_max_bytes: int | None = None) -> pd.DataFrame:
    """The first quota window's throttled bytes over T x window, and the outcome, for each
    ``replica.fetch.response.max.bytes`` and design (KIP-73's ``quota``, the rejected
    ``delay``)."""
    rows = []
    for size in response_max_bytes:
        for mode in modes:
            s = replace(scenario, replica_fetch_response_max_bytes=size, mode=mode,
                        replica_fetch_max_bytes=(replica_fetch_max_bytes
                                                 or scenario.replica_fetch_max_bytes))
            meta = simulate(s).meta
            window = s.throttle_bytes_per_s * s.replication_quota_window_size_seconds
            rows.append({"replica.fetch.response.max.bytes": f"{size / 2**20:g} MiB",
                         "design": mode,
                         "first window / (T x window)": round(
                             meta["first_window_throttled_bytes"] / window, 3),
                         "completed": _outcome(meta)})
    return pd.DataFrame(rows)
