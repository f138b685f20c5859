"""One memory answer for every client: ``client="java" | "librdkafka" | "franz-go" |
"kafka-python"``."""

from __future__ import annotations

from typing import Any

from kipviz.kafka.clients.franz_go import franz_go_memory_bound
from kipviz.kafka.clients.kafka_python import kafka_python_memory_bound
from kipviz.kafka.clients.librdkafka import librdkafka_memory_bound

__all__ = ["CLIENT_NAMES", "client_memory_bounds"]

CLIENT_NAMES = ("java", "librdkafka", "franz-go", "kafka-python")


def client_memory_bounds(client: str, *args: Any, **kwargs: Any) -> Any:
    """The memory bound of ``client``: ``"java"`` is
    :func:`kipviz.kafka.consumer.memory.consumer_memory_bounds` unchanged (a scenario and its
    keywords); the others take ``(partitions, brokers, settings, *, max_batch_bytes,
    compression_ratio)`` and return a ``ClientMemoryBound``.

    >>> client_memory_bounds("franz-go", 1000, 3).bound_bytes
    157286400
    """
    if client == "java":
        from kipviz.kafka.consumer.memory import consumer_memory_bounds
        return consumer_memory_bounds(*args, **kwargs)
    functions = {"librdkafka": librdkafka_memory_bound, "franz-go": franz_go_memory_bound,
                 "kafka-python": kafka_python_memory_bound}
    if client not in functions:
        raise ValueError(f"client must be one of {', '.join(CLIENT_NAMES)}: {client!r}")
    return functions[client](*args, **kwargs)
