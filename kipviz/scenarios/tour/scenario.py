"""One cluster seen through the four mechanisms at once: the tour's scenario.

A ``ClusterScenario`` holds three scenarios of the same cluster: a consumer catching up
(KIP-74's fetch limits, and KIP-81's ``buffer.memory`` as proposed), one broker's request memory
under a spike of large produce requests (KIP-72) and a partition reassignment under replication
throttles (KIP-73). The tour's knobs (:data:`TOUR_SETTINGS`) are Kafka settings, each owned by one
of them; :meth:`ClusterScenario.with_settings` applies them by name and validates them as the
scenarios do. :meth:`ClusterScenario.from_configs` takes a consumer's and a broker's Kafka
configs (a ``consumer.properties`` / ``server.properties``), so people see their own settings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kipviz.kafka.config.fields import check_declared, nested, values_from
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.kafka.units import MiB
from kipviz.scenarios.broker.scenario import BrokerScenario
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario
from kipviz.scenarios.workload import Workload

__all__ = ["BROKERS", "TOUR_SETTINGS", "ClusterScenario"]

BROKERS = 6
"""The tour cluster's brokers."""

TOUR_SETTINGS = {
    "kafka_version": ("consumer", "the consumer's Kafka version (its fetch rules)"),
    "fetch_max_bytes": ("consumer", "fetch.max.bytes (consumer, KIP-74)"),
    "max_partition_fetch_bytes": ("consumer", "max.partition.fetch.bytes (consumer, KIP-74)"),
    "buffer_memory_bytes": ("consumer", "buffer.memory (consumer, KIP-81 as proposed)"),
    "queued_max_request_bytes": ("broker", "queued.max.request.bytes (broker, KIP-72)"),
    "socket_request_max_bytes": ("broker", "socket.request.max.bytes (broker, KIP-72)"),
    "leader_throttle_bytes_per_s": ("reassignment", "leader.replication.throttled.rate (KIP-73)"),
    "follower_throttle_bytes_per_s": (
        "reassignment", "follower.replication.throttled.rate (KIP-73)"),
    "bytes_in_per_s": ("reassignment", "bytes in per broker (the inbound rate IN)"),
}
"""The tour's knobs: scenario field -> (which scenario owns it, the Kafka setting it is)."""


def _consumer() -> ConsumerScenario:
    # 120 partitions with a 16 MiB backlog each, produced with a Zipf skew; the application
    # processes 50 MB/s, slower than the network, so fetched data piles up in the consumer.
    return ConsumerScenario(
        partitions=120, brokers=BROKERS, fetch_max_bytes=16 * MiB, consume_bytes_per_s=50e6,
        buffer_memory_bytes=32 * MiB, ticks=1000, windows=20,
        workload=Workload(profile="zipf", produce_bytes_per_s=20e6, initial_lag_bytes=16 * MiB))


def _broker() -> BrokerScenario:
    # lesson 2's spike: 100 clients, 4 MiB requests one in ten from 2 s to 6 s
    return BrokerScenario(
        connections=100, queued_max_request_bytes=40 * MiB, socket_request_max_bytes=10 * MiB,
        small_request_bytes=16 * 1024, large_request_bytes=4 * MiB, large_share=0.1,
        spike_start_ms=2000, spike_duration_ms=4000, requests_per_s_per_connection=20.0,
        num_io_threads=8, handler_bytes_per_s=100e6, tick_ms=10, ticks=1000)


def _reassignment() -> ReassignmentScenario:
    # lesson 4's move on this cluster: 10 partitions of 200 MB, R = 3, 10 MB/s in per broker,
    # 50 MB/s throttles: the 2 in-sync followers --throttle counts leave 50 - 3 x 10 = 20 MB/s
    return ReassignmentScenario(
        brokers=BROKERS, network_bytes_per_s=125e6, bytes_in_per_s=10e6, replication_factor=3,
        partitions=10, log_bytes=200_000_000, leader_throttle_bytes_per_s=50e6,
        follower_throttle_bytes_per_s=50e6, tick_ms=100, ticks=1500)


@dataclass(frozen=True)
class ClusterScenario:
    """A consumer, a broker and a reassignment of one cluster; see the module docstring."""

    consumer: ConsumerScenario = nested(ConsumerScenario, _consumer)
    broker: BrokerScenario = nested(BrokerScenario, _broker)
    reassignment: ReassignmentScenario = nested(ReassignmentScenario, _reassignment)

    def __post_init__(self) -> None:
        check_declared(self)  # each part is a scenario of its kind, which checks itself

    def settings(self) -> dict[str, Any]:
        """The value of every knob of :data:`TOUR_SETTINGS`."""
        return {name: getattr(getattr(self, part), name)
                for name, (part, _) in TOUR_SETTINGS.items()}

    def with_settings(self, **settings: Any) -> ClusterScenario:
        """This cluster with knobs set by field name; unknown names and bad values raise
        ``ValueError`` (naming the Kafka setting and the rule, as the scenarios do)."""
        unknown = sorted(set(settings) - set(TOUR_SETTINGS))
        if unknown:
            raise ValueError(f"unknown setting {unknown[0]!r}; the tour knows "
                             f"{', '.join(sorted(TOUR_SETTINGS))}")
        parts: dict[str, dict[str, Any]] = {}
        for name, value in settings.items():
            parts.setdefault(TOUR_SETTINGS[name][0], {})[name] = value
        return replace(self, **{part: replace(getattr(self, part), **values)
                                for part, values in parts.items()})

    @classmethod
    def from_configs(cls, consumer: ConsumerConfig | None = None,
                     broker: BrokerConfig | None = None,
                     base: ClusterScenario | None = None) -> ClusterScenario:
        """``base`` (default: the tour cluster) with the settings of a consumer's and a broker's
        Kafka configs: every setting a part's fields declare (:func:`kipviz.kafka.config.fields.
        values_from`): the consumer's fetch and ``buffer.memory`` settings, the broker's
        ``fetch.max.bytes``, request pool and queue, replication throttles and quota windows."""
        cluster = base or cls()
        for part in ("consumer", "broker", "reassignment"):
            scenario = getattr(cluster, part)
            values = values_from(type(scenario), consumer, broker)  # the declared settings
            if values:
                cluster = replace(cluster, **{part: replace(scenario, **values)})
        return cluster
