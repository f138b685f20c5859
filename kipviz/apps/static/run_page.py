"""The page of ``kipviz run``: one KIP-74 consumer scenario from your Kafka configs, offline.

Settings, warnings (:func:`kipviz.kafka.config.advice.config_warnings`), the numbers that matter
against KIP-74's bound, the figure (:func:`kipviz.plots.consumer.consumer_figure`), the
Spark-computed curve tables and, when given, a section whose sliders move over a grid computed
around your settings (:mod:`kipviz.apps.static.sliders`); plotly.js is embedded so the single file
opens anywhere.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from kipviz.apps.static.html import figure_html, html_page
from kipviz.kafka.units import MiB
from kipviz.plots.html import warnings_html

__all__ = ["consumer_run_page"]


def _table(df: Any, caption: str) -> str:
    return (f"<details><summary>{html.escape(caption)} ({len(df)} rows)</summary>"
            f"{df.to_html(index=False, float_format=lambda v: f'{v:,.4g}', border=0)}</details>")


def consumer_run_page(scenario: Any, curves: Any, *, warnings: Sequence[str] = (),
                      configs: Sequence[tuple[str, str]] = (), seed: int = 0,
                      sliders: str = "") -> str:
    """The page of ``kipviz run``: settings, warnings, the numbers that matter, the figure
    (:func:`kipviz.plots.consumer.consumer_figure`), ``sliders`` (an HTML section from
    :func:`kipviz.apps.static.sliders.slider_section`, or nothing) and the curve tables, plotly.js
    embedded."""
    from kipviz.kafka.consumer.memory import consumer_memory_bounds
    from kipviz.plots.consumer import consumer_figure

    s, c = scenario, curves
    jain = c.fairness["jain_index"].dropna()
    peak = int(c.memory["held_max_bytes"].max()) if len(c.memory) else 0
    consumed = float(c.memory["consumed_bytes_per_s"].mean()) if len(c.memory) else 0.0
    numbers = [
        ("min / mean Jain index (1 = fair)",
         f"{jain.min():.3f} / {jain.mean():.3f}" if len(jain) else "no data"),
        ("peak memory held", f"{peak:,} bytes ({peak / MiB:,.1f} MiB)"),
        ("the memory bound for this consumer", consumer_memory_bounds(s).sentence()),
        ("KIP-74 bound: min(brokers x fetch.max.bytes, partitions x max.partition.fetch.bytes)",
         f"{c.kip74_bound_bytes:,} bytes ({c.kip74_bound_bytes / MiB:,.1f} MiB)"),
        ("pre-KIP-74 bound: partitions x max.partition.fetch.bytes",
         f"{c.pre_kip74_bound_bytes:,} bytes ({c.pre_kip74_bound_bytes / MiB:,.1f} MiB)"),
        ("share of ticks above the KIP-74 bound", f"{100 * c.kip74_exceedance:.1f}%"),
        ("consumed (mean)", f"{consumed / 1e6:,.1f} MB/s"),
    ]
    w = s.workload
    setup = (f"{s.partitions} partitions on {s.brokers} brokers, {s.ticks} ticks of "
             f"{s.tick_ms} ms, producers writing {w.produce_bytes_per_s / 1e6:g} MB/s "
             f"({w.profile}), an initial backlog of {w.initial_lag_bytes:,} bytes per partition, "
             f"the application consuming {s.consume_bytes_per_s / 1e6:g} MB/s, partition order "
             f"{s.request_ordering.name.lower().replace('_', '-')} (Kafka {s.kafka_version}'s "
             f"rules), seed {seed}")
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                   for k, v in numbers)
    settings = "".join(f"<h3>{html.escape(name)}</h3><pre>{html.escape(text or '(defaults)')}"
                       f"</pre>" for name, text in configs)
    notes = warnings_html(warnings) if warnings else "<p>No risky values found.</p>"
    body = (f"<h1>KIP-74 consumer: your settings</h1>\n<p>{html.escape(setup)}.</p>\n"
            f"<h2>Settings</h2>{settings}\n<h2>Warnings</h2>{notes}\n"
            f"<h2>What the run shows</h2><table>{rows}</table>\n"
            f"{figure_html(consumer_figure(c), 'kipviz-run-figure')}\n{sliders}\n"
            f"<h2>Curves (computed by Spark)</h2>"
            f"{_table(c.fairness, 'fairness per window')}"
            f"{_table(c.memory, 'memory per window')}"
            f"{_table(c.lag_over_time, 'lag per window')}"
            f"{_table(c.lag_by_partition, 'lag and bytes delivered per partition')}")
    return html_page("kipviz run: KIP-74 consumer", body, plotlyjs="inline")
