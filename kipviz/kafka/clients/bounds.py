"""One memory answer for every client: ``client="java" | "librdkafka" | "franz-go" |
"kafka-python"``, from plain figures (:func:`client_memory_bounds`) or from a consumer scenario
(:func:`scenario_client_bounds`, what
:func:`kipviz.kafka.consumer.memory.consumer_memory_bounds` answers for a scenario whose
``client`` is not Java's)."""

from __future__ import annotations

from typing import Any

from kipviz.kafka.clients._bound import ClientMemoryBound
from kipviz.kafka.clients.franz_go import franz_go_memory_bound
from kipviz.kafka.clients.kafka_python import kafka_python_memory_bound
from kipviz.kafka.clients.librdkafka import librdkafka_memory_bound

__all__ = ["CLIENT_NAMES", "client_memory_bounds", "scenario_client_bounds"]

CLIENT_NAMES = ("java", "librdkafka", "franz-go", "kafka-python")


def client_memory_bounds(client: str, *args: Any, **kwargs: Any) -> Any:
    """The memory bound of ``client``: ``"java"`` is
    :func:`kipviz.kafka.consumer.memory.consumer_memory_bounds` unchanged (a scenario and its
    keywords); the others take ``(partitions, brokers, settings, *, max_batch_bytes,
    compression_ratio, record_bytes)`` (librdkafka also ``codec``) and return a
    ``ClientMemoryBound``.

    >>> client_memory_bounds("franz-go", 1000, 3).bound_bytes
    382291758
    """
    if client == "java":
        from kipviz.kafka.consumer.memory import consumer_memory_bounds
        return consumer_memory_bounds(*args, **kwargs)
    functions = {"librdkafka": librdkafka_memory_bound, "franz-go": franz_go_memory_bound,
                 "kafka-python": kafka_python_memory_bound}
    if client not in functions:
        raise ValueError(f"client must be one of {', '.join(CLIENT_NAMES)}: {client!r}")
    return functions[client](*args, **kwargs)


def scenario_client_bounds(scenario: Any, *, max_batch_bytes: int = 0) -> ClientMemoryBound:
    """The bound of a ``ConsumerScenario`` whose ``client`` is not ``"java"``: its partitions,
    brokers, ``client_settings`` and ``compression_ratio``, its workload's records
    (``workload.record_bytes``, the smallest of them with ``large_record_bytes``) and
    ``max_batch_bytes``, the largest batch (0: none above the limits). The codec is not a
    scenario's: librdkafka's bound takes the one it allocates most for."""
    s = scenario
    sizes = [s.workload.record_bytes] + ([s.workload.large_record_bytes]
                                         if s.workload.large_record_bytes else [])
    return client_memory_bounds(s.client, s.partitions, s.brokers, dict(s.client_settings),
                                max_batch_bytes=max_batch_bytes,
                                compression_ratio=s.compression_ratio,
                                record_bytes=min(sizes))
