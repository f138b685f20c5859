"""``kipviz reality``: kipviz's answers held against a real Kafka cluster on this machine
(:func:`kipviz.reality.run.run_reality`). Exit status 0 when every row passes, 1 when a row
fails, 2 for bad input or a cluster, jar or probe that could not be had (one line).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """The ``reality`` subcommand on the CLI's subparsers."""
    from kipviz.reality.experiments.registry import EXPERIMENTS, PENDING
    from kipviz.reality.jars import RELEASES

    p = commands.add_parser(
        "reality", help="run the experiments on a real Kafka cluster here and compare",
        description="Start a real Apache Kafka cluster on 127.0.0.1 (KRaft, Kafka's own jars "
                    "from Maven Central, cached), run seeded workloads on it and by kipviz's "
                    "scenarios with the same settings, and write predicted beside measured "
                    "with a verdict per row (results.jsonl and results.md in --out).")
    p.add_argument("--only", action="append", choices=(*EXPERIMENTS, *PENDING), metavar="NAME",
                   help=f"run only this experiment (repeatable): {', '.join(EXPERIMENTS)}"
                        + (f"; also {', '.join(PENDING)} (measured, its rules not yet fixed)"
                           if PENDING else ""))
    p.add_argument("--kafka-version", action="append", choices=list(RELEASES), metavar="V",
                   help=f"run only on this release (repeatable): {', '.join(RELEASES)}")
    p.add_argument("--out", type=Path, default=Path("reality-results"), metavar="DIR",
                   help="where results.jsonl and results.md go (./reality-results)")
    p.add_argument("--quick", action="store_true",
                   help="a few cases of each experiment (the smoke test's size)")


def run(args: argparse.Namespace) -> int:
    """Run `kipviz reality` with its parsed arguments; the exit status."""
    from kipviz.reality.jars import RELEASES
    from kipviz.reality.run import run_reality

    rows = run_reality(args.out, only=args.only,
                       kafka_versions=args.kafka_version or tuple(RELEASES), quick=args.quick)
    failed = [r for r in rows if r.verdict != "pass"]
    for r in failed:
        print(f"FAIL {r.experiment} [{r.kafka_version}, {r.client}] {r.case}: predicted "
              f"{r.predicted}, measured {r.measured} ({r.tolerance})")
    return 1 if failed else 0
