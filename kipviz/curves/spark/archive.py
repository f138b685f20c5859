"""The class-data sharing (CDS) archive of the classes a Spark driver loads, mapped so that its
JVM starts on less CPU.

A local Spark session's JVM loads, parses and verifies thousands of classes from PySpark's jars
before its first results come back. HotSpot's dynamic class-data sharing (JDK 13+, JEP 350)
writes the classes one run loaded into an archive when that JVM exits
(``-XX:ArchiveClassesAtExit``); a later JVM maps the archive (``-XX:SharedArchiveFile``) instead
of reading and verifying those classes again. The classes and the work are the same either way:
only where the JVM reads its classes from changes.

kipviz only maps an archive that exists: ``tools/build_jvm_archive.py`` (``make``'s Java step,
once per ``.venv``) trains one per Java runtime and PySpark installation at
:func:`archive_path`, in the virtual environment kipviz runs from (so ``make clean`` removes
it), else under ``~/.cache/kipviz``. :func:`java_options` gives
:func:`kipviz.curves.spark.get_spark` the flags that use it, when it exists. The JVM checks an
archive against its own build and class path and, where they differ (another JDK, PySpark
upgraded, another ``SPARK_CONF_DIR`` at the head of the class path), starts without it; the
options silence that check's message (:data:`QUIET`), which would otherwise be printed into a
notebook's cell.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

__all__ = ["QUIET", "archive_path", "java_options"]

QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"
"""The archive check's messages off: they go to the JVM's stdout, which ipykernel forwards into a
cell."""


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
