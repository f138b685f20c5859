"""Kafka's settings and releases: declared once, validated in one place.

* :mod:`~kipviz.kafka.config.declarations`: every setting kipviz models (``CONSUMER``,
  ``BROKER``, ``STREAMS``): Kafka key, Python name with its unit, Java type, ``ConfigDef``
  range, default, unit, rule and source class.
* :mod:`~kipviz.kafka.config.fields`: the one path from a declaration to a field of a scenario
  or config class and its check (``kafka_field``, ``knob``, ``flag``, ``choice``, ``text``,
  ``nested``, ``items``; ``check_declared``, ``check_setting``).
* :mod:`~kipviz.kafka.config.checks`: the checks under it, in one error shape
  (``<python_name> (<kafka.key>) must be <rule>: <value>``), and the one table of Java ranges
  (``JAVA_RANGES``).
* :mod:`~kipviz.kafka.config.settings` and :mod:`~kipviz.kafka.config.base`: the config classes
  (``ConsumerConfig``, ``BrokerConfig``) and what they share, ``.properties`` import; the rules
  that relate two settings (``check_buffer_memory``, ``check_request_pool``).
* :mod:`~kipviz.kafka.config.properties`: Java ``.properties`` text.
* :mod:`~kipviz.kafka.config.keys`: every key Kafka defines, per role and release.
* :mod:`~kipviz.kafka.config.versions`: which release does what (``BEHAVIOURS``).

May import: the standard library, ``numpy``, ``javaproperties``, and
:mod:`kipviz.kafka.fetch.request` (the partition orders a release uses).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "declarations": ["BROKER", "CONSUMER", "STREAMS", "Setting", "SettingTable"],
    "checks": ["JAVA_RANGES"],
    "fields": ["FieldRule", "check_declared", "check_setting", "choice", "flag", "items",
               "kafka_field", "knob", "nested", "text", "values_from"],
    "settings": ["BrokerConfig", "ConsumerConfig", "check_buffer_memory", "check_request_pool"],
    "base": ["KafkaSettings", "LoadedConfig"],
    "keys": ["KafkaConfigWarning", "kafka_keys", "kafka_versions"],
    "properties": ["parse_properties", "read_properties"],
    "versions": [
        "BEHAVIOURS", "KAFKA_VERSIONS", "NEWEST_KAFKA_VERSION", "Behaviour",
        "check_kafka_version", "fetch_request_version", "has", "kafka_version_field",
        "request_ordering",
    ],
})
