"""The ``kipviz`` command: ``kipviz report`` (the lessons as a static site) and ``kipviz run``
(one KIP-74 consumer scenario from your ``consumer.properties`` as an HTML page) and
``kipviz lab [DIR]`` (the lessons copied into DIR, then JupyterLab there: :mod:`kipviz.apps.lab`)
and ``kipviz plan`` (when a reassignment finishes under a throttle, per broker:
:func:`kipviz.apps.planner.reassignment.plan_reassignment`).

``kipviz report --out site/`` executes every lesson notebook headless and writes an index and one
page per lesson that open offline (:func:`kipviz.apps.report.build_site`); ``--no-execute`` renders
the outputs stored in the notebooks instead, in seconds; ``--only 01`` keeps some lessons.

``kipviz run --config consumer.properties [--broker server.properties] --out page.html`` reads
real Kafka config files (:meth:`kipviz.kafka.config.settings.ConsumerConfig.from_properties`),
prints warnings for risky values (:func:`kipviz.kafka.config.advice.config_warnings`), runs
:meth:`kipviz.scenarios.consumer.scenario.ConsumerScenario.from_configs` and has Spark compute its
curves. Sizes take Java's ``-Xmx`` units (``512m``, ``4g``: powers of 1024) or SI ones (``10MB``);
rates may end in ``/s``. Exit status: 0 done, 1 a lesson failed, 2 bad arguments or settings.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from kipviz.kafka.config.versions import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION

__all__ = ["main", "parse_size"]

_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4,
          "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4,
          "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-z]*)\s*(?:/s)?\s*",
                   re.IGNORECASE)


def parse_size(text: str) -> float:
    """``"512m"`` -> 536870912.0, ``"10MB/s"`` -> 1e7, ``"1e9"`` -> 1e9 (bytes, or bytes/s).

    ``k``/``m``/``g``/``t`` and ``KiB``... are powers of 1024 (as Java's ``-Xmx``), ``KB``...
    powers of 1000; case does not matter; a trailing ``/s`` is allowed.
    """
    if text.strip().startswith("-"):
        raise argparse.ArgumentTypeError(f"not a size: {text!r} must not be negative")
    match = _SIZE.fullmatch(text)
    unit = match[2].lower() if match else ""
    if not match or unit not in _UNITS:
        raise argparse.ArgumentTypeError(
            f"not a size: {text!r} (use bytes, or a unit: 512m, 4g, 64MiB, 10MB, 10MB/s)")
    return float(match[1]) * _UNITS[unit]


_DURATION = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*(s|m|min|h|d)?\s*", re.IGNORECASE)
_SECONDS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def _duration(text: str) -> float:
    """``"1h"`` -> 3600.0, ``"90m"`` -> 5400.0, ``"600"`` -> 600.0 (seconds)."""
    match = _DURATION.fullmatch(text)
    if not match or float(match[1]) <= 0:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (use 3600, 90m, 1.5h)")
    return float(match[1]) * _SECONDS[(match[2] or "s").lower()]


def _rates(text: str) -> dict[str, float] | list[str]:
    """``orders=10MB/s,payments=2MB/s`` -> ``{"orders": 1e7, "payments": 2e6}``; anything else
    is one or more files (comma-separated): a JSON object or Prometheus scrapes, one per broker."""
    if "=" not in text:
        return [part for part in text.split(",") if part]
    out: dict[str, float] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if not name.strip():
            raise argparse.ArgumentTypeError(f"not a rate per topic: {part!r} "
                                             f"(use orders=10MB/s,payments=2MB/s)")
        out[name.strip()] = parse_size(value)
    return out


def _int_size(text: str) -> int:
    return int(parse_size(text))


def _seed(text: str) -> int:
    """A workload seed: an integer in 0 .. 2**32 - 1 (the kernels' generator takes 32 bits)."""
    from kipviz.scenarios.limits import check_seed

    try:
        return check_seed(int(text))
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err).replace("seed must", "must")) from None


class _Parser(argparse.ArgumentParser):
    """argparse with its errors on one line (no usage block), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _joined_values(argv: Sequence[str]) -> list[str]:
    """``--lag -5m`` as ``--lag=-5m``: argparse takes a value starting with '-' for an option
    (and says "expected one argument"); joined, the value reaches its check and its message."""
    out: list[str] = []
    for item in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and _NEGATIVE.match(item):
            out[-1] = f"{out[-1]}={item}"
        else:
            out.append(item)
    return out


_NEGATIVE = re.compile(r"-[0-9.]")


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse an output that cannot be written before any work is done (OSError naming it)."""
    out: Path = args.out
    folder = out if args.command in ("report", "reality") else out.parent
    if args.command == "run" and out.is_dir():
        raise IsADirectoryError(f"--out {out} is a directory; give the HTML page's file name")
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"--out {out}: {folder} is a file, not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    target = out if args.command == "run" and out.exists() else folder
    if not os.access(target, os.W_OK):
        raise PermissionError(f"--out {out}: {target} is not writable")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="kipviz", description="See how Apache Kafka bounds memory and shares bandwidth.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    report = commands.add_parser(
        "report", help="the lessons as a static HTML site that opens offline",
        description="Execute the lesson notebooks headless and write them as static HTML pages "
                    "with an index; plotly figures draw offline from one local plotly.js.")
    report.add_argument("--out", default="site", type=Path, help="site folder (default: site)")
    report.add_argument("--notebooks", type=Path, default=None,
                        help="folder of NN_name.ipynb lessons (default: the repository's)")
    report.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="only lessons whose name starts with NAME (01, 01_fetch_size_limit);"
                             " repeatable")
    report.add_argument("--no-execute", dest="execute", action="store_false",
                        help="render the outputs stored in the notebooks (fast; no Spark)")
    report.add_argument("--timeout", type=int, default=1200,
                        help="seconds a cell may run (default: 1200)")
    report.add_argument("--sliders", action=argparse.BooleanOptionalAction, default=None,
                        help="write a page per dashboard whose sliders move over a grid Spark "
                             "computes now (default: when executing)")
    report.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                        help="Parquet cache of the sliders' grids (kipviz.curves.sweep), reused "
                             "next time (default: none)")

    run = commands.add_parser(
        "run", help="one KIP-74 consumer scenario from your config files, as an HTML page",
        description="Run the KIP-74 consumer scenario with the settings of a consumer.properties "
                    "(and server.properties), print warnings for risky values and write one "
                    "self-contained HTML page with the Spark-computed curves and the figure.")
    run.add_argument("--config", required=True, type=Path, help="consumer.properties")
    run.add_argument("--broker", type=Path, help="server.properties (default: Kafka's defaults)")
    run.add_argument("--out", required=True, type=Path, help="the HTML page to write")
    run.add_argument("--partitions", type=int, default=100, help="partitions assigned (100)")
    run.add_argument("--brokers", type=int, default=3, help="brokers leading them (3)")
    run.add_argument("--ticks", type=int, default=2000, help="10 ms ticks to simulate (2000)")
    run.add_argument("--seed", type=_seed, default=0, help="workload seed, 0 .. 2**32-1 (0)")
    run.add_argument("--kafka-version", default=NEWEST_KAFKA_VERSION, metavar="X.Y",
                     help=f"the consumer's Kafka release, whose fetch rules apply "
                          f"({KAFKA_VERSIONS[0]} to {NEWEST_KAFKA_VERSION}; default "
                          f"{NEWEST_KAFKA_VERSION})")
    run.add_argument("--profile", default="zipf",
                     choices=["uniform", "zipf", "fast_slow", "bursts"],
                     help="how produce traffic is spread over partitions (zipf)")
    run.add_argument("--produce-rate", type=parse_size, default=100e6, metavar="RATE",
                     help="producers' total rate (100MB/s)")
    run.add_argument("--consume-rate", type=parse_size, default=1e9, metavar="RATE",
                     help="the application's processing rate (1GB/s)")
    run.add_argument("--lag", type=_int_size, default=8 * 1024**2, metavar="SIZE",
                     help="backlog per partition at the start (8MiB)")
    run.add_argument("--heap", type=_int_size, metavar="SIZE",
                     help="the consumer's JVM heap (-Xmx), to check the memory bound against")
    run.add_argument("--bytes-in", type=parse_size, metavar="RATE",
                     help="inbound rate for the replication-throttle checks "
                          "(default: --produce-rate)")
    run.add_argument("--network", type=parse_size, default=125e6, metavar="RATE",
                     help="each broker's network (125MB/s, 1 Gbit/s)")
    run.add_argument("--replication-factor", type=int, default=3, metavar="R",
                     help="replication factor, for KIP-73's workable throttle range (3)")
    run.add_argument("--no-sliders", dest="sliders", action="store_false",
                     help="leave out the sliders over a grid around your fetch settings "
                          "(about 50 more runs, through Spark)")
    lab = commands.add_parser(
        "lab", help="copy the lessons into a folder and open JupyterLab there",
        description="Copy the lesson notebooks that ship with kipviz into DIR (never "
                    "overwriting a lesson you changed: asked on a terminal, kept otherwise) and "
                    "open JupyterLab there. Needs the lab extra: pip install 'kipviz[lab]'.")
    lab.add_argument("dir", nargs="?", type=Path, default=None, metavar="DIR",
                     help="folder for the lessons (default: ./kipviz-lessons)")
    lab.add_argument("--port", type=int, default=None, help="JupyterLab's port (default: 8888)")
    lab.add_argument("--no-browser", dest="browser", action="store_false",
                     help="do not open a web browser")
    lab.add_argument("--copy-only", action="store_true",
                     help="copy the lessons and stop, without starting JupyterLab")
    from kipviz.apps import reality_cli
    reality_cli.add_parser(commands)
    plan = commands.add_parser(
        "plan", help="when a reassignment finishes under a throttle, per broker",
        description="Plan a kafka-reassign-partitions move per broker: each broker's leader and "
                    "follower quota (as --throttle sets them), moves between different brokers "
                    "in parallel; print the per-broker table, the bottleneck and the commands.")
    plan.add_argument("--reassignment", required=True, type=Path,
                      help="the proposed assignment, or the whole saved --generate output "
                           "(both assignments)")
    plan.add_argument("--current", type=Path,
                      help="the current assignment (--generate output; not needed when "
                           "--reassignment holds the whole output)")
    plan.add_argument("--log-dirs", required=True, type=Path,
                      help="kafka-log-dirs --describe output (partition sizes)")
    plan.add_argument("--bytes-in", required=True, type=_rates, metavar="RATES|FILE[,FILE...]",
                      help="IN per topic or partition (orders=10MB/s,payments=2MB/s), a JSON "
                           "file of them, or the JMX exporter's Prometheus scrapes, one file "
                           "per broker")
    goal = plan.add_mutually_exclusive_group(required=True)
    goal.add_argument("--throttle", type=parse_size, metavar="RATE",
                      help="T on every broker's two quotas (35MB/s)")
    goal.add_argument("--target", type=_duration, metavar="TIME",
                      help="finish within TIME (1h): the smallest T that does")
    plan.add_argument("--broker-throttle", action="append", default=[], metavar="BROKER=RATE",
                      help="a lower T on one broker (4=20MB/s); repeatable")
    plan.add_argument("--network", type=parse_size, default=125e6, metavar="RATE",
                      help="each broker's network (125MB/s)")
    plan.add_argument("--simulate", action="store_true",
                      help="also simulate the move (per broker, tick by tick)")
    plan.add_argument("--json", action="store_true", help="print JSON for machines")
    plan.add_argument("--bootstrap-server", default="localhost:9092",
                      help="for the printed commands (localhost:9092)")
    return parser


def _plan(args: argparse.Namespace) -> int:
    import json

    from kipviz.apps.planner.reassignment import plan_reassignment

    overrides: dict[int, float] = {}
    for item in args.broker_throttle:
        broker, _, rate = item.partition("=")
        if not broker.strip().isdigit():
            raise ValueError(f"--broker-throttle must be BROKER=RATE (4=20MB/s): {item!r}")
        try:
            overrides[int(broker)] = parse_size(rate)
        except argparse.ArgumentTypeError as err:
            raise ValueError(f"--broker-throttle {item!r}: {err}") from None
    forecast = plan_reassignment(
        args.reassignment, current=args.current, partition_sizes=args.log_dirs,
        bytes_in_per_s=args.bytes_in, throttle_bytes_per_s=args.throttle,
        target_completion_s=args.target, network_bytes_per_s=args.network,
        simulate=args.simulate, broker_throttle_bytes_per_s=overrides)
    if forecast.reason:  # a plan that never finishes is an error: no commands to run it
        print(f"kipviz: the plan never finishes: {' '.join(forecast.reason.split())}",
              file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(forecast.to_json(), indent=2))
    else:
        print(forecast.to_text(bootstrap_server=args.bootstrap_server,
                               reassignment_json_file=str(args.reassignment)))
    return 0


def _lab(args: argparse.Namespace) -> int:
    from kipviz.apps.lab import DEFAULT_DIR, copy_lessons, open_lab

    folder = args.dir or DEFAULT_DIR
    done = copy_lessons(folder)
    for verb, names in (("copied", done.copied), ("updated", done.updated)):
        if names:
            print(f"{verb} {len(names)} lesson(s) into {folder}: {', '.join(names)}")
    if done.kept:
        print(f"kept your changed lesson(s) in {folder}: {', '.join(done.kept)}")
    if args.copy_only:
        return 0
    try:
        return open_lab(folder, port=args.port, browser=args.browser)
    except RuntimeError as err:
        print(f"kipviz: {err}", file=sys.stderr)
        return 2


def _report(args: argparse.Namespace) -> int:
    from kipviz.apps.report import NOTEBOOKS, build_site

    lessons = build_site(args.out, notebooks=args.notebooks or NOTEBOOKS, only=args.only,
                         execute=args.execute, timeout=args.timeout, sliders=args.sliders,
                         cache_dir=args.cache_dir)
    failed = [lesson for lesson in lessons if lesson.error]
    for lesson in failed:
        print(f"kipviz: {lesson.name} failed: {lesson.error}", file=sys.stderr)
    print(f"open {args.out / 'index.html'}")
    return 1 if failed else 0


def _run(args: argparse.Namespace) -> int:
    from kipviz.apps.static.run_page import consumer_run_page
    from kipviz.kafka.config.advice import config_warnings, load_config
    from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
    from kipviz.kafka.consumer.memory import consumer_memory_bounds
    from kipviz.scenarios.consumer.scenario import ConsumerScenario
    from kipviz.scenarios.workload import Workload

    consumer, notes = load_config(ConsumerConfig, args.config)
    broker, broker_notes = load_config(BrokerConfig, args.broker)
    notes += broker_notes
    if consumer is None or (args.broker is not None and broker is None):
        reasons = " ".join(" ".join(note.split()) for note in notes)
        print(f"kipviz: cannot run: {reasons}", file=sys.stderr)
        return 2
    workload = Workload(profile=args.profile, produce_bytes_per_s=args.produce_rate,
                        initial_lag_bytes=args.lag)
    scenario = ConsumerScenario.from_configs(
        consumer, broker, partitions=args.partitions, brokers=args.brokers, ticks=args.ticks,
        windows=min(20, args.ticks), consume_bytes_per_s=args.consume_rate, workload=workload,
        kafka_version=args.kafka_version)
    notes += config_warnings(
        consumer, broker, heap_bytes=args.heap, brokers=args.brokers, partitions=args.partitions,
        bytes_in_per_s=args.produce_rate if args.bytes_in is None else args.bytes_in,
        network_bytes_per_s=args.network, replication_factor=args.replication_factor,
        kafka_version=args.kafka_version)
    for note in notes:
        print(f"warning: {note}")
    print(f"memory: {consumer_memory_bounds(scenario).sentence()}")

    from kipviz.curves.consumer import consumer_curves
    from kipviz.curves.spark import get_spark
    from kipviz.scenarios.consumer.scenario import simulate

    trace = simulate(scenario, seed=args.seed, record_fetches=False)
    curves = consumer_curves(get_spark(), trace)
    sliders = ""
    if args.sliders:
        from kipviz.apps.static.grids import run_grid
        from kipviz.apps.static.sliders import fill_grid, slider_section

        spec = run_grid(scenario)
        sliders = slider_section(spec, fill_grid(spec, get_spark(), seed=args.seed),
                                 div_id="kipviz-run-grid")
    configs = [(str(args.config), consumer.to_properties())]
    if broker is not None:
        configs.append((str(args.broker), broker.to_properties()))
    page = consumer_run_page(scenario, curves, warnings=notes, configs=configs, seed=args.seed,
                             sliders=sliders)
    args.out.write_text(page, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``kipviz`` command line (``argv`` defaults to ``sys.argv[1:]``)."""
    args = _parser().parse_args(_joined_values(sys.argv[1:] if argv is None else argv))
    try:
        if args.command in ("report", "run", "reality"):
            _check_outputs(args)
        from kipviz.apps import reality_cli
        commands = {"report": _report, "run": _run, "lab": _lab, "plan": _plan,
                    "reality": reality_cli.run}
        return commands[args.command](args)
    except KeyboardInterrupt:
        print("kipviz: interrupted", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader stopped (`kipviz plan ... | head`): end quietly
        devnull = os.open(os.devnull, os.O_WRONLY)  # the interpreter's last flush goes nowhere
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as err:  # every error is one line and exit status 2, never a traceback
        kind = "" if isinstance(err, ValueError | OSError) else f"{type(err).__name__}: "
        print(f"kipviz: {kind}{' '.join(str(err).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
