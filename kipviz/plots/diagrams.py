"""Static diagrams of each lesson's mechanism, drawn from a tiny worked example.

``diagram("01")`` ... ``diagram("09")`` return a small plotly figure (one panel, readable at
JupyterLab's default width and in the static report). Every number in a diagram comes from the
package's mechanism functions run on the example (:func:`kipviz.kafka.fetch.response.fill_response`,
:class:`kipviz.kafka.broker.pool.SimpleMemoryPool`,
:func:`kipviz.kafka.consumer.memory.memory_bounds`,
:class:`kipviz.kafka.replication.quota.ReplicationQuotaManager`,
:mod:`kipviz.kafka.streams.input_buffer`'s record-queue rules,
:class:`kipviz.kafka.share.fetch.SharePartition`, :func:`kipviz.kafka.tiered.fetch.read_from_log`,
:func:`kipviz.kafka.clients.client_memory_bounds`),
never typed in. :func:`example` returns the example's numbers as a table, which the tests check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from kipviz.kafka.units import MB, KiB, MiB

__all__ = ["DIAGRAMS", "diagram", "example"]

_BLUE, _RED, _GREEN, _GREY, _ORANGE = "#1f77b4", "#d62728", "#2ca02c", "#7f7f7f", "#ff7f0e"


def _fetch() -> pd.DataFrame:
    """KIP-74: A, B, C in request order, 1 MiB response, 512 KiB per partition."""
    from kipviz.kafka.fetch.response import fill_response

    batches = {"A": [400 * KiB, 400 * KiB], "B": [300 * KiB, 300 * KiB], "C": [200 * KiB]}
    parts = fill_response(list(batches.values()), response_max_bytes=MiB,
                          partition_max_bytes=512 * KiB)
    whole = [sum(b[: p.complete_batches]) for b, p in zip(batches.values(), parts, strict=True)]
    return pd.DataFrame({"partition": list(batches), "raw_kib": [p.raw_bytes / KiB for p in parts],
                         "whole_batches_kib": [w / KiB for w in whole],
                         "fetch_max_kib": 1024, "partition_max_kib": 512})


def _pool() -> pd.DataFrame:
    """KIP-72: a non-strict 10 MiB pool takes 4 MiB requests while any byte is free."""
    from kipviz.kafka.broker.pool import SimpleMemoryPool, max_outstanding_bytes

    pool = SimpleMemoryPool(10 * MiB, 4 * MiB, strict=False)
    rows: list[dict[str, Any]] = []
    for step in ("read 4 MiB",) * 4 + ("release 4 MiB", "read 4 MiB"):
        done = step.startswith("release")
        if done:
            pool.release(4 * MiB)
        else:
            done = pool.try_allocate(4 * MiB)
        rows.append({"step": f"{len(rows) + 1}. {step}" + ("" if done else " (refused)"),
                     "available_mib": pool.available_bytes / MiB, "done": done})
    table = pd.DataFrame(rows)
    table["lowest_mib"] = (10 * MiB - max_outstanding_bytes(10 * MiB, 4 * MiB)) / MiB
    return table


def _buffer() -> pd.DataFrame:
    """A lagging consumer of 100 partitions on 3 brokers, fetch.max.bytes 10 MiB: what bounds it."""
    from kipviz.kafka.config.versions import NEWEST_KAFKA_VERSION
    from kipviz.kafka.consumer.memory import memory_bounds
    from kipviz.kafka.fetch.response import largest_response_bytes

    settings: dict[str, Any] = {"brokers": 3, "partitions": 100, "fetch_max_bytes": 10 * MiB,
                "max_partition_fetch_bytes": MiB, "lagging": True}
    largest = largest_response_bytes(100, 3, 10 * MiB, MiB)
    cases: dict[str, dict[str, Any]] = {
        "Kafka 3.9: one completed fetch per partition": {"kafka_version": "3.9"},
        "KIP-81 (proposed): buffer.memory 16 MiB": {"kafka_version": "3.9",
                                                    "buffer_memory_bytes": 16 * MiB},
        f"Kafka {NEWEST_KAFKA_VERSION}: one response per broker":
            {"kafka_version": NEWEST_KAFKA_VERSION}}
    rows = [{"case": name, "bound_mib": memory_bounds(**settings, **extra,
                                                       largest_response_bytes=largest)
             .bound_bytes / MiB} for name, extra in cases.items()]
    return pd.DataFrame(rows)


def _quota() -> pd.DataFrame:
    """KIP-73: a 10 MB/s throttle, the leader sending 2 MB each 100 ms while within the quota."""
    from kipviz.kafka.replication.quota import ReplicationQuotaManager

    quota = ReplicationQuotaManager(10 * MB)
    rows: list[dict[str, Any]] = []
    for now_ms in range(0, 5000, 100):
        before = quota.measure(now_ms) / MB
        sent = not quota.is_quota_exceeded(now_ms)
        if sent:
            quota.record(int(2 * MB), now_ms)
        rows.append({"t_s": now_ms / 1000, "sent_mb": 2.0 if sent else 0.0,
                     "rate_before_mb_per_s": before,
                     "measured_mb_per_s": quota.measure(now_ms) / MB, "quota_mb_per_s": 10.0})
    return pd.DataFrame(rows)


def _streams() -> pd.DataFrame:
    """buffered.records.per.partition = 5: a poll adds 4 records, a round processes 1."""
    from kipviz.kafka.streams.input_buffer import record_queue_pauses, record_queue_resumes

    queue, paused, rows = 0, False, list[dict[str, Any]]()
    for step in range(16):
        if not paused:
            queue += 4
            paused = record_queue_pauses(queue, 5)
        queue -= 1
        if paused and record_queue_resumes(queue, 5):
            paused = False
        rows.append({"round": step + 1, "queue_records": queue, "paused": paused,
                     "buffered_records_per_partition": 5})
    return pd.DataFrame(rows)


def _sweep() -> pd.DataFrame:
    """A lagging consumer's bound (MiB) over fetch.max.bytes x partitions: 3 brokers, 4.x."""
    from kipviz.kafka.config.versions import NEWEST_KAFKA_VERSION
    from kipviz.kafka.consumer.memory import memory_bounds
    from kipviz.kafka.fetch.response import largest_response_bytes

    rows = [{"fetch_max_mib": f, "partitions": p, "bound_mib": memory_bounds(
        kafka_version=NEWEST_KAFKA_VERSION, brokers=3, partitions=p, fetch_max_bytes=f * MiB,
        max_partition_fetch_bytes=MiB, lagging=True,
        largest_response_bytes=largest_response_bytes(p, 3, f * MiB, MiB)).bound_bytes / MiB}
        for f in (1, 5, 10, 50) for p in (3, 30, 300)]
    return pd.DataFrame(rows)


def _share() -> pd.DataFrame:
    """KIP-932: 3 consumers share one partition of four 5-record batches (locks 100 ms)."""
    from kipviz.kafka.share.fetch import SharePartition
    from kipviz.kafka.share.partition import ACQUIRED

    sp = SharePartition([5, 5, 5, 5], lock_duration_ms=100)
    rows: list[dict[str, Any]] = []
    for label, member, now_ms in (("consumer 1 fetches", 1, 0), ("consumer 2 fetches", 2, 10),
                                  ("consumer 3 fetches", 3, 20), ("locks expire", None, 150),
                                  ("consumer 2 fetches", 2, 160)):
        if member is None:
            sp.expire_locks(now_ms)
        else:
            sp.acquire(member, max_fetch_records=5, now_ms=now_ms)
        for offset in range(20):
            held = sp.state(offset) == ACQUIRED
            rows.append({"step": f"{len(rows) // 20 + 1}. {label}", "offset": offset,
                         "owner": int(sp.owner[offset]) if held else 0,
                         "delivery_count": sp.delivery_count(offset)})
    return pd.DataFrame(rows)


def _remote_fetch() -> pd.DataFrame:
    """KIP-405: one fetch request, A and D local, B and C remote, 1 MiB per partition, a 3 MiB
    response limit, under 4.1 (one remote read, not charged) and 4.2 (every one, charged)."""
    from kipviz.kafka.tiered import fetch as rf

    names, remote = ["A", "B", "C", "D"], np.array([False, True, True, False])
    batch, log = np.full(4, 256 * KiB), np.full(4, 8 * MiB)
    rows: list[dict[str, Any]] = []
    for version in ("4.1", "4.2"):
        raw, remote_max = np.zeros(4, np.int64), np.zeros(4, np.int64)
        min_one = np.zeros(4, np.bool_)
        rf.read_from_log(
            rf.RequestPartitions(first_batch_bytes=batch, log_bytes=log, remote=remote,
                                 throttled=np.zeros(4, np.bool_),
                                 partition_max_bytes=np.full(4, MiB)),
            rf.ReadLimits(response_max_bytes=3 * MiB,
                          several_remote=rf.reads_several_remote_partitions(version),
                          charge_remote=rf.charges_remote_fetch_up_front(version)),
            rf.LogRead(raw_bytes=raw, remote_max_bytes=remote_max, remote_min_one=min_one))
        for i, name in enumerate(names):
            read = rf.remote_read_bytes(int(batch[i]), int(log[i]), int(remote_max[i]),
                                        bool(min_one[i])) if remote[i] else 0
            rows.append({"kafka_version": version, "partition": name,
                         "where": "remote" if remote[i] else "local",
                         "mib": (raw[i] + read) / MiB, "remote_read": bool(remote_max[i])})
    return pd.DataFrame(rows)


def _clients() -> pd.DataFrame:
    """Issue 31: each client's bound, term by term, for 1,000 partitions on 3 brokers at
    defaults, data compressed 4:1 (:func:`kipviz.kafka.clients.client_memory_bounds`)."""
    from kipviz.kafka.clients import client_memory_bounds

    rows = [{"client": name, "term": term,
             "mib": size / MiB}
            for name in ("librdkafka", "franz-go", "kafka-python")
            for term, size in client_memory_bounds(name, 1000, 3,
                                                   compression_ratio=4.0).terms if size]
    return pd.DataFrame(rows)


def _layout(fig: go.Figure, title: str, x: str, y: str, **extra: Any) -> go.Figure:
    fig.update_layout(title={"text": title, "font": {"size": 14}}, height=320,
                      margin={"l": 60, "r": 20, "t": 50, "b": 50}, template="plotly_white",
                      legend={"orientation": "h", "y": -0.25}, xaxis_title=x, yaxis_title=y,
                      **extra)
    return fig


def _draw_fetch(t: pd.DataFrame) -> go.Figure:
    fig = go.Figure([go.Bar(y=t.partition, x=t.whole_batches_kib, orientation="h",
                            name="whole batches", marker_color=_GREEN),
                     go.Bar(y=t.partition, x=t.raw_kib - t.whole_batches_kib, orientation="h",
                            name="partial batch (dropped, fetched again)", marker_color=_ORANGE)])
    fig.add_vline(x=float(t.partition_max_kib[0]), line_dash="dash", line_color=_GREY,
                  annotation_text="max.partition.fetch.bytes")
    fig.add_annotation(x=float(t.raw_kib.sum()), y="C", text=f"response full at "
                       f"{t.raw_kib.sum():,.0f} KiB = fetch.max.bytes: C gets nothing",
                       showarrow=False, xanchor="right")
    return _layout(fig, "A response fills partitions in request order", "KiB returned",
                   "partition (request order)", barmode="stack",
                   yaxis={"autorange": "reversed"})


def _draw_pool(t: pd.DataFrame) -> go.Figure:
    fig = go.Figure(go.Bar(x=t.step, y=t.available_mib, name="available after the step",
                           marker_color=[_BLUE if d else _GREY for d in t.done],
                           text=[f"{v:g}" for v in t.available_mib], textposition="outside"))
    fig.add_hline(y=float(t.lowest_mib[0]), line_dash="dash", line_color=_RED,
                  annotation_text="lowest possible: -(max single request - 1 byte)")
    fig.add_hline(y=0, line_color="black")
    return _layout(fig, "queued.max.request.bytes = 10 MiB: a read while any byte is free",
                   "", "available (MiB)")


def _draw_buffer(t: pd.DataFrame) -> go.Figure:
    fig = go.Figure(go.Bar(y=t.case, x=t.bound_mib, orientation="h", marker_color=_BLUE,
                           text=[f"{v:,.0f} MiB" for v in t.bound_mib], textposition="auto"))
    return _layout(fig, "A lagging consumer: 100 partitions, 3 brokers, fetch.max.bytes 10 MiB",
                   "most fetched bytes held (MiB)", "case", yaxis={"autorange": "reversed"})


def _draw_quota(t: pd.DataFrame) -> go.Figure:
    fig = go.Figure([go.Bar(x=t.t_s, y=t.sent_mb, name="MB sent in the 100 ms",
                            marker_color=_GREEN),
                     go.Scatter(x=t.t_s, y=t.measured_mb_per_s, name="measured rate (MB/s)",
                                line_color=_BLUE),
                     go.Scatter(x=t.t_s, y=t.quota_mb_per_s, name="throttle (MB/s)",
                                line={"color": _RED, "dash": "dash"})])
    return _layout(fig, "Replication quota: send while the 11 x 1 s window's rate is within it",
                   "time (s)", "sent (MB), rate (MB/s)")


def _draw_streams(t: pd.DataFrame) -> go.Figure:
    fig = go.Figure([go.Scatter(x=t["round"], y=t.queue_records, mode="lines+markers",
                                name="records queued", marker={"size": 9, "color": [
                                    _RED if p else _GREEN for p in t.paused]}),
                     go.Scatter(x=t["round"], y=t.buffered_records_per_partition,
                                name="buffered.records.per.partition", mode="lines",
                                line={"color": _GREY, "dash": "dash"})])
    return _layout(fig, "Pause above the threshold (red), resume when back at it", "round",
                   "records in the partition's queue")


def _draw_sweep(t: pd.DataFrame) -> go.Figure:
    grid = t.pivot(index="fetch_max_mib", columns="partitions", values="bound_mib")
    fig = go.Figure(go.Heatmap(z=grid.to_numpy(), x=[str(c) for c in grid.columns],
                               y=[str(i) for i in grid.index], colorscale="Blues",
                               text=grid.to_numpy(), texttemplate="%{text:,.0f}",
                               colorbar={"title": "MiB"}))
    return _layout(fig, "A lagging consumer's bound (MiB): 3 brokers, 1 MiB per partition",
                   "partitions", "fetch.max.bytes (MiB)")


def _draw_share(t: pd.DataFrame) -> go.Figure:
    grid = t.pivot(index="step", columns="offset", values="owner")
    counts = t.pivot(index="step", columns="offset", values="delivery_count")
    fig = go.Figure(go.Heatmap(z=grid.to_numpy(), x=list(grid.columns), y=list(grid.index),
                               text=counts.to_numpy(), texttemplate="%{text}", zmin=-0.5,
                               zmax=3.5, colorscale=[[0, "#eeeeee"], [0.25, "#eeeeee"],
                                                     [0.25, _BLUE], [0.5, _BLUE], [0.5, _ORANGE],
                                                     [0.75, _ORANGE], [0.75, _GREEN], [1, _GREEN]],
                               showscale=False, xgap=1, ygap=1))
    return _layout(fig, "Acquired by consumer 1 / 2 / 3 (colour); delivery count in each cell",
                   "offset", "step", yaxis={"autorange": "reversed"})


def _draw_remote_fetch(t: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    for (version, rows), colour in zip(t.groupby("kafka_version"), (_BLUE, _ORANGE), strict=True):
        fig.add_trace(go.Bar(
            x=[f"{p} ({w})" for p, w in zip(rows["partition"], rows["where"], strict=True)],
            y=rows.mib, name=f"Kafka {version}", marker_color=colour, textposition="outside",
            text=[f"{m:g} MiB" if m else ("not read" if w == "remote" else "no room left")
                  for m, w in zip(rows["mib"], rows["where"], strict=True)]))
    return _layout(fig, "One fetch request, fetch.max.bytes 3 MiB, 1 MiB per partition",
                   "partition, in request order", "MiB in the response", barmode="group",
                   yaxis={"range": [0, 1.35]})


def _draw_clients(t: pd.DataFrame) -> go.Figure:
    fig = go.Figure([go.Bar(y=rows.client, x=rows.mib, orientation="h", name=term)
                     for term, rows in t.groupby("term", sort=False)])
    return _layout(fig, "What each client's bound adds up (1,000 partitions, 3 brokers, 4:1)",
                   "memory the bound allows (MiB)", "client", barmode="stack")


DIAGRAMS: dict[str, tuple[Callable[[], pd.DataFrame], Callable[[pd.DataFrame], go.Figure]]] = {
    "01": (_fetch, _draw_fetch),
    "02": (_pool, _draw_pool),
    "03": (_buffer, _draw_buffer),
    "04": (_quota, _draw_quota),
    "05": (_streams, _draw_streams),
    "06": (_sweep, _draw_sweep),
    "07": (_share, _draw_share),
    "08": (_remote_fetch, _draw_remote_fetch),
    "09": (_clients, _draw_clients),
}  # lesson -> (its worked example, the figure drawn from it)


def _lesson(lesson: str | int) -> str:
    key = f"{int(lesson):02d}" if isinstance(lesson, int) or str(lesson).isdigit() else lesson
    if key not in DIAGRAMS:
        raise ValueError(f"no diagram for lesson {lesson!r}; there are {sorted(DIAGRAMS)}")
    return str(key)


def example(lesson: str | int) -> pd.DataFrame:
    """The worked example behind ``diagram(lesson)``, computed by the mechanism functions."""
    return DIAGRAMS[_lesson(lesson)][0]()


def diagram(lesson: str | int) -> go.Figure:
    """A small static figure of lesson ``lesson``'s mechanism ("01" ... "09")."""
    build, draw = DIAGRAMS[_lesson(lesson)]
    return draw(build())
