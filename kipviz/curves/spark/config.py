"""What a kipviz SparkSession is configured with: the settings for every master and the local
ones, ``KIPVIZ_SPARK_CONF``'s additions, the quiet log4j2 configuration, and the small files
(that configuration, the Java wrapper of :mod:`~kipviz.curves.spark.java`) kipviz writes under
``~/.cache/kipviz`` for Spark to read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["CDS_OPTIONS", "COMMON_CONF", "LOCAL_CONF", "LOG4J2", "cached_file", "env_conf"]

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
CDS_OPTIONS = re.compile(r"-XX:(SharedArchiveFile|ArchiveClassesAtExit)=|-Xshare:")
"""JVM options that choose their own class-data sharing (then kipviz adds no archive)."""
LOG4J2 = """\
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


def cached_file(relative: str, text: str, mode: int = 0o644) -> Path:
    """Write ``text`` under ~/.cache/kipviz (atomically, only when it changed); its path."""
    path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kipviz" / relative
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_text(text)
        tmp.chmod(mode)
        tmp.replace(path)
    return path


def env_conf() -> dict[str, str]:
    """Settings from ``KIPVIZ_SPARK_CONF``: ``key=value`` entries separated by ``;`` (the test
    suite uses it to give short-lived JVMs a quick start)."""
    entries = [e.strip() for e in os.environ.get("KIPVIZ_SPARK_CONF", "").split(";") if e.strip()]
    bad = [e for e in entries if "=" not in e]
    if bad:
        raise ValueError(f"KIPVIZ_SPARK_CONF entries must be key=value, separated by ';': "
                         f"{bad[0]!r}")
    return dict(e.split("=", 1) for e in entries)
