"""A real Apache Kafka on loopback, and kipviz's answers held against it.

* :class:`KafkaCluster` (:mod:`.cluster`): KRaft brokers and a controller on 127.0.0.1, each its
  own JVM started and stopped by pid, from Kafka's own jars (:mod:`.jars`, Maven Central).
* the probes (:mod:`.probes`): small programs on each client that report what it holds.
* the experiments (:mod:`.experiments`): seeded workloads run on the real cluster and by kipviz's
  scenarios with the same settings, predicted beside measured, with a verdict.

The layer sits above :mod:`kipviz.scenarios` (it builds each experiment's scenario) and below
:mod:`kipviz.apps` (``kipviz reality``); nothing below it imports it.

May import: :mod:`kipviz.kafka` and :mod:`kipviz.scenarios`, the standard library, and the
clients it drives (``confluent_kafka``, ``kafka`` (kafka-python)), lazily; never Spark or plotly.
"""

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "cluster": ["KafkaCluster"],
    "jars": ["RealityError", "kafka_jars"],
})
