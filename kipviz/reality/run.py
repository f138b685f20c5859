"""``kipviz reality``: every experiment on one real cluster per Kafka release, its rows written
as data and as a table.

One cluster per release (:data:`CLUSTER_BROKERS` brokers; an experiment's broker counts are made
by topic assignment), each experiment's topics produced once, then each experiment's cases run
on them. ``out/results.jsonl`` holds the rows (:class:`~kipviz.reality.results.Row`),
``out/results.md`` the table; a run in CI writes elsewhere than the committed snapshot
(``data/reality/``) and checks the verdicts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from kipviz.reality.cluster import KafkaCluster
from kipviz.reality.experiments import EXPERIMENTS, experiment
from kipviz.reality.jars import RELEASES, release
from kipviz.reality.results import Row, table, write_rows

__all__ = ["CLUSTER_BROKERS", "run_reality"]

CLUSTER_BROKERS = 3


def run_reality(out: Path, *, only: Sequence[str] | None = None,
                kafka_versions: Sequence[str] = tuple(RELEASES), quick: bool = False,
                say: Callable[[str], None] = print) -> list[Row]:
    """Run the experiments (``only``: some of :data:`EXPERIMENTS`) on each release, write
    ``out/results.jsonl`` and ``out/results.md``, and return the rows."""
    names = list(only or EXPERIMENTS)
    modules = [experiment(n) for n in names]  # ValueError for an unknown name, before any work
    versions = [release(v).name for v in kafka_versions]
    rows: list[Row] = []
    started = time.monotonic()
    for version in versions:
        t0 = time.monotonic()
        with KafkaCluster(brokers=CLUSTER_BROKERS, kafka_version=version) as cluster:
            say(f"Kafka {cluster.release.version}: {CLUSTER_BROKERS} brokers up in "
                f"{time.monotonic() - t0:.0f} s ({cluster.bootstrap_servers})")
            states = []
            for m in modules:
                t1 = time.monotonic()
                states.append(m.setup(cluster))
                say(f"  {m.NAME}: topics produced in {time.monotonic() - t1:.0f} s")
            for m, state in zip(modules, states, strict=True):
                t1 = time.monotonic()
                got = m.run(cluster, state, quick=quick)
                failed = sum(r.verdict != "pass" for r in got)
                say(f"  {m.NAME}: {len(got)} rows, {failed} failed, "
                    f"{time.monotonic() - t1:.0f} s")
                rows += got
    out.mkdir(parents=True, exist_ok=True)
    write_rows(rows, out / "results.jsonl")
    (out / "results.md").write_text(table(rows))
    say(f"{len(rows)} rows, {sum(r.verdict != 'pass' for r in rows)} failed, in "
        f"{time.monotonic() - started:.0f} s: {out / 'results.md'}")
    return rows
