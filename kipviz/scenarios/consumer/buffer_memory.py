"""KIP-81 side by side: one consumer workload under today's consumer, the pool, and the cap.

KIP-81 (accepted, never merged into Apache Kafka) proposed a ``buffer.memory`` pool for the bytes a
consumer reads from brokers; its "Rejected Alternatives" name the obvious other way, capping the
fetch requests in flight, and reject it for the throughput it loses. :func:`buffer_modes` makes
the three consumers from one :class:`~kipviz.scenarios.consumer.scenario.ConsumerScenario`, with the
cap sized to the same memory: as many responses as fit in ``buffer.memory``. :func:`simulate_modes`
runs them on the same record batches, so only the memory rule differs.

:func:`heap_estimate_bytes` turns a trace into the heap a JVM consumer needs: a baseline (the JVM,
the client's other objects and the application) plus the peak bytes of fetch responses retained.
The lesson's calibration uses it against the measurement published with KIP-81's pull request.
"""

from __future__ import annotations

from dataclasses import replace

from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.consumer.buffer_memory import consumer_pool
from kipviz.scenarios.consumer.scenario import ConsumerScenario, ConsumerTrace, simulate
from kipviz.scenarios.workload import produce

__all__ = ["MODES", "buffer_modes", "equivalent_in_flight_cap", "heap_estimate_bytes",
           "simulate_modes"]

MODES = ("today", "kip81_pool", "in_flight_cap")
"""The three consumers, in the order the lesson shows them."""


def equivalent_in_flight_cap(scenario: ConsumerScenario, buffer_memory_bytes: int,
                             max_batch_bytes: int = 0) -> int:
    """How many whole responses fit in ``buffer.memory``: the cap that bounds memory alike."""
    consumer_pool(buffer_memory_bytes, scenario.fetch_max_bytes)  # validates, names the rule
    largest = scenario.largest_response_bytes(max_batch_bytes)
    return max(1, buffer_memory_bytes // max(1, largest))


def buffer_modes(scenario: ConsumerScenario,
                 buffer_memory_bytes: int | None = None) -> dict[str, ConsumerScenario]:
    """Today's consumer, KIP-81's pool of ``buffer_memory_bytes`` (default: the scenario's) and
    the in-flight cap of the same memory, keyed by :data:`MODES`."""
    memory = scenario.buffer_memory_bytes if buffer_memory_bytes is None else buffer_memory_bytes
    if memory is None:
        raise ValueError("buffer_memory_bytes (buffer.memory) must be set to compare the modes")
    today = replace(scenario, buffer_memory_bytes=None, max_in_flight_fetches=None)
    return {
        "today": today,
        "kip81_pool": replace(today, buffer_memory_bytes=memory),
        "in_flight_cap": replace(
            today, max_in_flight_fetches=equivalent_in_flight_cap(today, memory)),
    }


def simulate_modes(scenario: ConsumerScenario, buffer_memory_bytes: int | None = None, *,
                   seed: int = 0, record_fetches: bool = False,
                   modes: tuple[str, ...] = MODES) -> dict[str, ConsumerTrace]:
    """Run :func:`buffer_modes` (those of ``modes``) on one set of record batches; traces keyed
    by mode."""
    unknown = sorted(set(modes) - set(MODES))
    if unknown:
        raise ValueError(f"modes must be among {', '.join(MODES)}: {unknown[0]!r}")
    scenarios = buffer_modes(scenario, buffer_memory_bytes)
    batches = produce(scenario.workload, scenario.partitions, scenario.ticks, scenario.tick_ms,
                      seed=seed)
    return {mode: simulate(scenarios[mode], seed=seed, batches=batches,
                           record_fetches=record_fetches) for mode in modes}


def heap_estimate_bytes(trace: ConsumerTrace, baseline_heap_bytes: int) -> int:
    """The heap a consumer needs: ``baseline_heap_bytes`` plus its peak retained responses.

    Retained responses are what the JVM cannot collect: every fetch response read and not yet
    wholly handed to the application (``trace.buffer.retained_bytes``). Decompressed records and
    garbage-collector headroom are in the baseline; the estimate is a shape, not a JVM model.
    """
    baseline = _check_int("baseline_heap_bytes", baseline_heap_bytes, 0)
    return baseline + int(trace.buffer["retained_bytes"].max())
