"""The one place kipviz makes a SparkSession.

Embedded ``local[*]`` Spark by default, tuned for interactive notebook use (tiny shuffles, no
adaptive re-planning, Arrow on, no UI, quiet logs: :mod:`~kipviz.curves.spark.config`). A Spark
cluster is chosen by configuration: ``remote=`` or ``SPARK_REMOTE`` for Spark Connect,
``master=`` or ``KIPVIZ_SPARK_MASTER`` (then ``MASTER``) for ``spark://``, ``yarn`` or
``k8s://`` masters; ``KIPVIZ_SPARK_CONF`` adds settings (``key=value;key=value``). pyspark is
imported lazily, so ``import kipviz`` works without Java.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from kipviz.curves.spark.archive import java_options
from kipviz.curves.spark.config import (
    CDS_OPTIONS,
    COMMON_CONF,
    LOCAL_CONF,
    LOG4J2,
    cached_file,
    env_conf,
)
from kipviz.curves.spark.java import ensure_java, wrapped_home

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["get_spark", "stop_spark"]


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
    maps the class-data archive of Spark's classes (:mod:`kipviz.curves.spark.archive`) when
    ``tools/build_jvm_archive.py`` has built one.
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
    settings.update(env_conf())
    settings.update(conf or {})
    home = None
    if not remote or remote.startswith("local"):  # a local JVM runs the driver (or server)
        home = wrapped_home(ensure_java())
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
    log4j = f"-Dlog4j.configurationFile=file:{cached_file('log4j2.properties', LOG4J2)}"
    own_sharing = CDS_OPTIONS.search(own) is not None
    archive = java_options(java_home) if java_home is not None and not own_sharing else ""
    return " ".join(part for part in (log4j, archive, own.strip()) if part)


def stop_spark() -> None:
    """Stop the active SparkSession, if any (the next ``get_spark`` starts a new one)."""
    if "pyspark" in sys.modules:
        from pyspark.sql import SparkSession

        if (spark := SparkSession.getActiveSession()) is not None:
            spark.stop()
