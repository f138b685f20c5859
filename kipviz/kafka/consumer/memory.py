"""How much memory will my consumer use? One answer, by Kafka version, with its source.

Bytes of fetch responses a consumer holds (landed and not yet handed to the application, or in
flight), bounded by the rule of the Kafka release it runs:

Each partition's records are a slice of its response's one receive buffer
(``Readable.readRecords`` -> ``ByteBufferAccessor.readByteBuffer`` -> ``buf.slice()``, kept by
``CompletedFetch``), so a response stays on the heap, whole, while any of its partitions is
buffered (paused ones included):

* **Kafka 4.0 and later** (KAFKA-17182, ``AbstractFetch.prepareFetchRequests``'s
  ``bufferedNodes``): no fetch goes to a broker while any fetchable partition it serves has
  buffered data, so a consumer holds at most one response per broker for its unpaused
  partitions, however far its application lags, and one more: a drained ``CompletedFetch``
  stays ``FetchBuffer.nextInLineFetch`` until the next ``collectFetch`` replaces it
  (FetchCollector.java:98-104, 108, 121) while ``bufferedPartitions()`` ignores it
  (FetchBuffer.java:250), so a new response to its broker lands beside it. Measured on real
  4.4.0 and 3.9.2 consumers (``kipviz reality``): two responses held with one broker.
  ``(brokers + 1) x largest response`` (a response is
  at most ``max(fetch.max.bytes, one record batch)`` and at most the broker's partitions x
  ``max(max.partition.fetch.bytes, batch)``). Paused partitions keep their buffered data without
  blocking their broker: each one with data pins one *whole* response more. (A leader or
  preferred-read-replica change can also let two responses of one broker overlap for a moment:
  not modelled.)
* Every response held also carries its own fields (header, topics, partitions: 113 bytes for
  one topic and two partitions at fetch v17, measured), :mod:`kipviz.kafka.fetch.frame`; the
  bound counts them for every response it counts.
* **Before 4.0** every fetchable partition with nothing buffered is fetched again
  (``fetchablePartitions``). The application drains completed fetches in order, so what a
  lagging consumer holds is the responses whose partitions are all still buffered (at most
  ``partitions x max(max.partition.fetch.bytes, batch)`` together), the one it is draining, and
  one whole response per paused partition with data; and never more responses than partitions.
  While the application keeps up about one round of responses is held: KIP-74's
  ``min(brokers x fetch.max.bytes, partitions x max.partition.fetch.bytes)``, a typical figure
  printed beside the bound, not a bound.
* KIP-81's ``buffer.memory`` pool (as proposed, never shipped) caps what is read at
  ``buffer.memory + largest response - 1`` (non-strict pool); its rejected alternative, a cap of
  N fetches, at N x the largest response.

KIP-74's one round (:func:`one_round`, the one copy of ``min(brokers x fetch.max.bytes,
partitions x max.partition.fetch.bytes)`` and of its two terms) is what the answer, the
scenarios' drawn bounds and :func:`consumer_memory_bound_bytes` compute from.

>>> b = memory_bounds(kafka_version="4.0", brokers=3, partitions=60, fetch_max_bytes=4 * 2**20,
...                   max_partition_fetch_bytes=2**20, largest_response_bytes=4 * 2**20,
...                   lagging=True)
>>> b.bound_bytes // 2**20, b.responses, b.rule
(16, 4, 'one response per broker')
>>> memory_bounds(kafka_version="3.9", brokers=3, partitions=60, fetch_max_bytes=4 * 2**20,
...               max_partition_fetch_bytes=2**20, largest_response_bytes=4 * 2**20,
...               lagging=True).bound_bytes // 2**20
64
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kipviz.kafka.config.checks import check_int, check_number
from kipviz.kafka.config.declarations import CONSUMER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.config.versions import (
    check_kafka_version,
    fetch_request_version,
    has,
    version_key,
)
from kipviz.kafka.consumer.buffer_memory import pooled_bytes_bound
from kipviz.kafka.fetch.frame import largest_frame_bytes
from kipviz.kafka.fetch.response import largest_response_bytes, response_limit_bytes
from kipviz.kafka.units import mib_or_kib

if TYPE_CHECKING:
    from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig

__all__ = ["ConsumerMemoryBounds", "OneRound", "config_memory_bounds",
           "consumer_memory_bound_bytes", "consumer_memory_bounds", "memory_bounds",
           "one_round", "poll_heap_sentence"]

_SOURCES = {
    "one response per broker": "AbstractFetch.prepareFetchRequests skips a broker while any "
                               "fetchable partition it serves has buffered data (KAFKA-17182, "
                               "Kafka 4.0); a drained fetch stays next in line "
                               "(FetchCollector) until the next poll",
    "one completed fetch per partition": "AbstractFetch.fetchablePartitions fetches every "
                                         "partition with nothing buffered (Kafka before 4.0); "
                                         "a buffered partition pins its whole response "
                                         "(CompletedFetch)",
    "buffer.memory pool": "KIP-81 as proposed (never shipped): buffer.memory + largest "
                          "response - 1",
    "in-flight cap": "KIP-81's rejected alternative: N fetches x largest response",
}


@dataclass(frozen=True)
class OneRound:
    """KIP-74's one round of fetch responses ("Motivation", KIP-81): one response in flight per
    broker, at most ``response_bytes`` each, and one buffered part per partition, at most
    ``partition_bytes`` each; the first-batch exception raises either to one record batch."""

    brokers: int
    partitions: int
    response_bytes: int
    partition_bytes: int

    @property
    def in_flight_bytes(self) -> int:
        """``brokers x max(fetch.max.bytes, batch)``: the responses in flight at once."""
        return self.brokers * self.response_bytes

    @property
    def buffered_bytes(self) -> int:
        """``partitions x max(max.partition.fetch.bytes, batch)``: one completed fetch per
        partition (the pre-KIP-74 bound, without a batch above the partition limit)."""
        return self.partitions * self.partition_bytes

    @property
    def bound_bytes(self) -> int:
        """KIP-74's figure: the smaller of the two terms."""
        return min(self.in_flight_bytes, self.buffered_bytes)


def one_round(brokers: int, fetch_max_bytes: int, max_partition_fetch_bytes: int,
              partitions: int, max_batch_bytes: int = 0) -> OneRound:
    """KIP-74's one round of responses from these settings, unchecked (callers hold checked
    settings; :func:`consumer_memory_bound_bytes` checks its arguments).

    >>> r = one_round(3, 52428800, 1048576, 10)
    >>> r.in_flight_bytes, r.buffered_bytes, r.bound_bytes
    (157286400, 10485760, 10485760)
    """
    return OneRound(brokers, partitions, max(fetch_max_bytes, max_batch_bytes),
                    max(max_partition_fetch_bytes, max_batch_bytes))


def consumer_memory_bound_bytes(brokers: int, fetch_max_bytes: int,
                                max_partition_fetch_bytes: int, partitions: int, *,
                                max_batch_bytes: int = 0) -> int:
    """Worst-case bytes of fetch responses a consumer holds in one round (KIP-74 "Motivation",
    KIP-81): ``min(brokers * fetch.max.bytes, partitions * max.partition.fetch.bytes)``; before
    KIP-74 only the second term existed. ``max_batch_bytes`` adds the first-batch exception: a
    response may reach ``max(fetch.max.bytes, batch)`` and a partition
    ``max(max.partition.fetch.bytes, batch)``. :func:`one_round` with checked arguments.
    """
    brokers = check_int("brokers", brokers, 1)
    partitions = check_int("partitions", partitions, 0)
    fmb = check_setting("fetch_max_bytes", fetch_max_bytes, CONSUMER["fetch.max.bytes"])
    mpfb = check_setting("max_partition_fetch_bytes", max_partition_fetch_bytes,
                         CONSUMER["max.partition.fetch.bytes"])
    batch = check_int("max_batch_bytes", max_batch_bytes, 0)
    return one_round(brokers, fmb, mpfb, partitions, batch).bound_bytes


@dataclass(frozen=True)
class ConsumerMemoryBounds:
    """The answer: ``bound_bytes`` by ``rule`` (from ``source``), with the figures behind it.

    ``kip74_bytes`` is KIP-74's one-round figure (what a pre-4.0 consumer that keeps up holds,
    typically), ``lagging_bytes`` what the release's rule lets a lagging application reach
    (before any pool or cap), ``bound_bytes`` what holds for this scenario, lagging or not (pool
    and cap included).
    """

    kafka_version: str
    lagging: bool
    brokers: int
    partitions: int
    per_broker_bytes: int
    per_partition_bytes: int
    kip74_bytes: int
    lagging_bytes: int
    bound_bytes: int
    rule: str
    max_batch_bytes: int = 0
    buffer_memory_bytes: int | None = None
    max_in_flight_fetches: int | None = None
    paused_partitions: int = 0
    responses: int = 0          # the responses the rule counts (the drained one included)
    frame_bytes: int = 0        # the most one of them carries beyond its records

    @property
    def source(self) -> str:
        """The Kafka code, JIRA or KIP the bound comes from."""
        return _SOURCES[self.rule]

    def sentence(self) -> str:
        """The one sentence every lesson, dashboard, warning and command prints."""
        state = "lagging" if self.lagging else "keeping up"
        response = mib_or_kib(self.per_broker_bytes)
        paused = (f" + {self.paused_partitions} paused x {response} (whole responses)"
                  if self.paused_partitions else "")
        figure = {
            "one response per broker": (
                f"{self.partitions + 1} responses x {response}, one pinned by each partition "
                f"and one drained"
                if self.lagging_bytes - self.responses * self.frame_bytes
                == (self.partitions + 1) * self.per_broker_bytes
                else _one_per_broker(self) + f" + 1 x {response} drained, still next in line"
                + paused),
            "one completed fetch per partition": (
                f"{self.partitions + 1} responses x {response}"
                if self.lagging_bytes - self.responses * self.frame_bytes
                == (self.partitions + 1) * self.per_broker_bytes
                else f"{self.partitions} x {mib_or_kib(self.per_partition_bytes)} + 1 x {response} "
                     f"being drained{paused}"),
            "buffer.memory pool": f"buffer.memory + largest response - 1 = "
                                  f"{self.buffer_memory_bytes or 0:,} + "
                                  f"{self.per_broker_bytes:,} - 1 bytes",
            "in-flight cap": f"{self.max_in_flight_fetches} x {response}",
        }[self.rule]
        if self.responses and self.rule in ("one response per broker",
                                             "one completed fetch per partition"):
            figure += (f"; + {self.responses} x {self.frame_bytes:,} bytes, each response's own "
                       f"fields (FetchResponse)")
        text = (f"Kafka {self.kafka_version} consumer, {state}: at most "
                f"{mib_or_kib(self.bound_bytes)} "
                f"({self.bound_bytes:,} bytes) of fetch responses "
                f"({self.rule}: {figure}; {self.source})")
        if self.max_batch_bytes > self.per_partition_bytes - 1 and self.max_batch_bytes:
            text += (f", with record batches of up to {self.max_batch_bytes:,} bytes returned "
                     f"whole (the first-batch exception)")
        if not self.lagging and not has(self.kafka_version, "buffered_nodes") \
                and self.kip74_bytes < self.bound_bytes:
            text += (f"; about {mib_or_kib(self.kip74_bytes)} while the application keeps up "
                     f"(KIP-74's one round)")
        return text + "."


def _one_per_broker(b: ConsumerMemoryBounds) -> str:
    """The 4.x figure for unpaused partitions: brokers x largest response, or every partition's
    limit when that is smaller."""
    unpaused = b.lagging_bytes - b.responses * b.frame_bytes \
        - (b.paused_partitions + 1) * b.per_broker_bytes
    if unpaused == b.partitions * b.per_partition_bytes:
        return f"{b.partitions} x {mib_or_kib(b.per_partition_bytes)}"
    return f"{b.brokers} x {mib_or_kib(b.per_broker_bytes)}"


def memory_bounds(*, kafka_version: str, brokers: int, partitions: int, fetch_max_bytes: int,
                  max_partition_fetch_bytes: int, largest_response_bytes: int, lagging: bool,
                  max_batch_bytes: int = 0, paused_partitions: int = 0,
                  buffer_memory_bytes: int | None = None, strict_pool: bool = False,
                  max_in_flight_fetches: int | None = None,
                  version: int | None = None) -> ConsumerMemoryBounds:
    """The bound from plain settings; :func:`consumer_memory_bounds` fills them from a scenario.

    ``brokers`` counts the brokers serving the consumer's partitions; ``largest_response_bytes``
    is the largest response one of them can send (``ConsumerScenario.largest_response_bytes``).
    Responses are held whole while any of their partitions is buffered (module docstring): 4.x
    holds one per broker for its unpaused partitions plus one per paused partition; earlier
    releases the responses whose partitions are all buffered, the one being drained and one per
    paused partition; never more responses than partitions.
    """
    serving = min(brokers, partitions)
    paused = min(paused_partitions, partitions)
    kip74 = one_round(serving, fetch_max_bytes, max_partition_fetch_bytes, partitions,
                      max_batch_bytes)
    per_partition, everything = kip74.partition_bytes, kip74.buffered_bytes
    pinned = paused * largest_response_bytes  # a paused partition's data pins its response
    # + 1: a drained CompletedFetch stays FetchBuffer.nextInLineFetch, its response reachable,
    # until the next collectFetch replaces it (4.4 FetchCollector.java:98-104, 108, 121), while
    # bufferedPartitions() ignores it (FetchBuffer.java:250; 3.9 :254), so a new response to
    # its broker can land beside it: measured on real 3.9.2 and 4.4.0 consumers
    if has(kafka_version, "buffered_nodes"):
        rule = "one response per broker"
        reach = min(serving * largest_response_bytes, everything) + largest_response_bytes \
            + pinned
        responses = min(serving + paused, partitions) + 1
    else:
        rule = "one completed fetch per partition"
        reach = everything + largest_response_bytes + pinned  # all buffered, draining, paused
        responses = partitions + 1
    # each response pinned by a partition, and the drained one
    reach = min(reach, (partitions + 1) * largest_response_bytes)
    # every response held carries its own fields beside its records (kipviz.kafka.fetch.frame;
    # its size as measured on real brokers)
    frame = largest_frame_bytes(-(-partitions // serving),
                                version=fetch_request_version(kafka_version)
                                if version is None else version,
                                partition_records_bytes=per_partition)
    reach += responses * frame
    bound = reach
    if buffer_memory_bytes is not None:
        pooled = pooled_bytes_bound(buffer_memory_bytes, largest_response_bytes,
                                    strict=strict_pool)
        if pooled < reach:
            rule, bound = "buffer.memory pool", pooled
    elif max_in_flight_fetches is not None:
        capped = max_in_flight_fetches * largest_response_bytes
        if capped < reach:
            rule, bound = "in-flight cap", capped
    return ConsumerMemoryBounds(kafka_version=kafka_version, lagging=lagging, brokers=serving,
                                partitions=partitions, per_broker_bytes=largest_response_bytes,
                                per_partition_bytes=per_partition,
                                kip74_bytes=kip74.bound_bytes,
                                lagging_bytes=reach, bound_bytes=bound, rule=rule,
                                max_batch_bytes=max_batch_bytes,
                                buffer_memory_bytes=buffer_memory_bytes,
                                max_in_flight_fetches=max_in_flight_fetches,
                                paused_partitions=paused, responses=responses,
                                frame_bytes=frame)


def consumer_memory_bounds(scenario: Any, *, lagging: bool | None = None,
                           max_batch_bytes: int = 0) -> Any:
    """The bound that holds for a :class:`~kipviz.scenarios.consumer.scenario.ConsumerScenario`.

    ``lagging=None`` decides from the scenario: the application lags when it consumes more
    slowly than the producers write (``workload.produce_bytes_per_s``), or, with a backlog to
    catch up on (``initial_lag_bytes``), more slowly than the brokers can send
    (``brokers x network_bytes_per_s``): then fetched data waits for it. Pass ``lagging=True``
    where no consume rate is known. A :class:`ConsumerMemoryBounds`; for a scenario on another
    ``client``, that client's own (lagging) bound,
    :func:`kipviz.kafka.clients.bounds.scenario_client_bounds`, which reads as this one does
    (``bound_bytes``, ``rule``, ``lagging``, ``lagging_bytes``, ``sentence()``).
    """
    s = scenario
    if getattr(s, "client", "java") != "java":
        from kipviz.kafka.clients.bounds import scenario_client_bounds
        return scenario_client_bounds(s, max_batch_bytes=max_batch_bytes)
    if lagging is None:
        lagging = (s.consume_bytes_per_s < s.workload.produce_bytes_per_s
                   or (s.workload.initial_lag_bytes > 0
                       and s.consume_bytes_per_s < min(s.brokers, s.partitions)
                       * s.network_bytes_per_s))
    return memory_bounds(
        kafka_version=s.kafka_version, brokers=s.brokers, partitions=s.partitions,
        fetch_max_bytes=s.response_max_bytes, max_partition_fetch_bytes=s.max_partition_fetch_bytes,
        largest_response_bytes=s.largest_response_bytes(max_batch_bytes), lagging=lagging,
        max_batch_bytes=max_batch_bytes, paused_partitions=len(set(s.paused_partitions)),
        buffer_memory_bytes=s.buffer_memory_bytes, strict_pool=s.strict_pool,
        max_in_flight_fetches=s.max_in_flight_fetches, version=s.fetch_version)


def config_memory_bounds(consumer: ConsumerConfig, broker: BrokerConfig, *, kafka_version: str,
                         brokers: int, partitions: int, lagging: bool = True,
                         max_batch_bytes: int = 0) -> ConsumerMemoryBounds:
    """The bound for a consumer's and a broker's Kafka configs, ``partitions`` on ``brokers``:
    what :func:`consumer_memory_bounds` gives a scenario made from them, with no fetch quota,
    nothing paused and the fetch request version the release sends."""
    check_kafka_version(kafka_version)
    check_int("brokers", brokers, 1)
    check_int("partitions", partitions, 1)
    limit = response_limit_bytes(kafka_version, consumer.fetch_max_bytes, broker.fetch_max_bytes)
    largest = largest_response_bytes(partitions, brokers, limit,
                                     consumer.max_partition_fetch_bytes,
                                     max_batch_bytes=max_batch_bytes,
                                     version=fetch_request_version(kafka_version))
    return memory_bounds(kafka_version=kafka_version, brokers=brokers, partitions=partitions,
                         fetch_max_bytes=limit,
                         max_partition_fetch_bytes=consumer.max_partition_fetch_bytes,
                         largest_response_bytes=largest, lagging=lagging,
                         max_batch_bytes=max_batch_bytes,
                         buffer_memory_bytes=consumer.buffer_memory_bytes)


def poll_heap_sentence(kafka_version: str, *, record_bytes: int, compression_ratio: float = 1.0,
                       max_poll_records: int = CONSUMER.default_of("max.poll.records"),
                       batch_bytes: int = 16384,
                       max_partition_fetch_bytes: int = CONSUMER.default_of(
                           "max.partition.fetch.bytes")) -> str:
    """What the bytes on the wire become on the heap, beside the fetch responses (the sentence
    printed next to :meth:`ConsumerMemoryBounds.sentence`).

    Since 0.11 ``CompletedFetch`` (``Fetcher.PartitionRecords`` in 2.0 and earlier) decompresses
    one record batch at a time as ``poll()`` drains it (``RecordBatch.streamingIterator``): about
    ``batch_bytes x compression_ratio`` at once. 0.10.x decompressed a partition's whole
    completed fetch at once (``Fetcher.parseCompletedFetch`` over ``deepEntries``: up to
    ``max.partition.fetch.bytes x compression_ratio``). The application holds what one
    ``poll()`` returned: at most ``max.poll.records`` deserialized records of ``record_bytes``
    (uncompressed) each.

    >>> poll_heap_sentence("4.3", record_bytes=1000, compression_ratio=4.0)[:72]
    'Kafka 4.3 consumer: beside the fetch responses, one poll() hands over at'
    """
    check_kafka_version(kafka_version)
    record_bytes = check_int("record_bytes", record_bytes, 1)
    ratio = check_number("compression_ratio", compression_ratio, 1.0, finite=True)
    max_poll_records = check_setting("max_poll_records", max_poll_records,
                                     CONSUMER["max.poll.records"])
    batch_bytes = check_int("batch_bytes", batch_bytes, 1)
    polled = max_poll_records * record_bytes
    if version_key(kafka_version) >= (0, 11):
        working = int(batch_bytes * ratio)
        how = (f"one record batch is decompressed at a time as poll() drains it, about "
               f"{batch_bytes:,} x {ratio:g} = {mib_or_kib(working)} (CompletedFetch -> "
               f"streamingIterator, since 0.11)")
    else:
        working = int(max_partition_fetch_bytes * ratio)
        how = (f"a partition's whole completed fetch is decompressed at once, up to "
               f"{max_partition_fetch_bytes:,} x {ratio:g} = {mib_or_kib(working)} (0.10.x)")
    return (f"Kafka {kafka_version} consumer: beside the fetch responses, one poll() hands over "
            f"at most max.poll.records x record size = {max_poll_records:,} x {record_bytes:,} "
            f"= {mib_or_kib(polled)} of deserialized records, and {how}.")
