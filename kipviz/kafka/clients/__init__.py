"""Clients other than Java's (issue 31): librdkafka (confluent-kafka), franz-go (``pkg/kgo``) and
kafka-python, each client's fetch settings declared once by its own names, with default, range,
unit and rule, read at the tags in ``/work/helpers/RESEARCH-31.md`` (librdkafka v2.15.0, franz-go
v1.21.5, kafka-python 3.0.11), and readers for a user's own config written the client's way.

* :mod:`kipviz.kafka.clients.settings`: ``LIBRDKAFKA``, ``FRANZ_GO``, ``KAFKA_PYTHON`` and
  :func:`~kipviz.kafka.clients.settings.read_client_config` (a confluent-kafka dict or
  ``.properties`` file, franz-go ``kgo.`` option calls, kafka-python keyword arguments).
* :mod:`kipviz.kafka.clients.librdkafka`, :mod:`~kipviz.kafka.clients.franz_go`,
  :mod:`~kipviz.kafka.clients.kafka_python`: each client's request limits as it sends them,
  fetches in flight, what stays in memory, and its memory bound with the sentence naming the
  term that binds (each module's docstring gives the rule in two sentences and where the code
  contradicts the issue's text).
* :mod:`kipviz.kafka.clients.fetching`: each client's fetching as the consumer kernel runs it
  (``client_fetch``, and the rules the kernel compiles: the client's fetch gate, bytes held,
  the request's rotation).
* :mod:`kipviz.kafka.clients.bounds`: ``client_memory_bounds(client, ...)``; ``"java"`` is
  :func:`kipviz.kafka.consumer.memory.consumer_memory_bounds` unchanged, which answers a
  scenario on another client with ``scenario_client_bounds``.

May import: the standard library, numpy, ``javaproperties``, :mod:`kipviz.kafka.config`,
:mod:`kipviz.kafka.fetch` (the orderings) and :mod:`kipviz.kafka.consumer` (the Java answer).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "_bound": ["ClientMemoryBound", "DEFAULT_RECORD_BYTES"],
    "bounds": ["CLIENT_NAMES", "client_memory_bounds", "scenario_client_bounds"],
    "fetching": ["ClientFetch", "client_fetch"],
    "franz_go": ["franz_go_concurrent_fetches", "franz_go_memory_bound",
                 "franz_go_partition_max_bytes"],
    "kafka_python": ["kafka_python_memory_bound", "kafka_python_receive_max_bytes"],
    "librdkafka": ["librdkafka_decompression_bytes", "librdkafka_fetch_max_bytes",
                   "librdkafka_memory_bound",
                   "librdkafka_queue_gate_bytes", "librdkafka_receive_max_bytes"],
    "settings": ["CLIENTS", "FRANZ_GO", "KAFKA_PYTHON", "LIBRDKAFKA", "NOT_MEMORY",
                 "parse_kgo_options", "read_client_config"],
})
