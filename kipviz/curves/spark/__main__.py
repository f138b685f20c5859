"""``python -m kipviz.curves.spark --check`` runs a smoke test of the SparkSession;
``--find-java`` prints the java Spark will use (exit status 1 and what to install if none)."""

from __future__ import annotations

import sys

from kipviz.curves.spark.java import ensure_java
from kipviz.curves.spark.session import get_spark, stop_spark


def main(argv: list[str]) -> int | str:
    """The command's exit status, or the message it exits with."""
    if argv not in ([], ["--check"], ["--find-java"]):
        return "usage: python -m kipviz.curves.spark [--check | --find-java]"
    try:
        java = ensure_java()
    except RuntimeError as err:
        return str(err)
    if argv == ["--find-java"]:
        print(java)
        return 0
    session = get_spark()
    ok = session.range(10).count() == 10
    print(f"spark {'ok' if ok else 'FAILED'}: {session.version} java: {java}")
    stop_spark()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
