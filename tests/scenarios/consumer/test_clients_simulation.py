"""The consumer scenario on each client (issue 31): held memory under each client's bound,
issue 31's Show item (1,000 partitions on 3 brokers, lagging), and bad input in the one error
shape."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

from kipviz.kafka.clients import client_memory_bounds
from kipviz.kafka.clients.fetching import rotate_by_one
from kipviz.scenarios.consumer import ConsumerScenario, simulate
from kipviz.scenarios.consumer.clients import catching_up, jain_index, memory_by_client
from tests.strategies import client_scenarios, examples, share_seeds

THREADS = {  # the settings the issue's threads quote
    "java": {},
    "librdkafka": {"queued.max.messages.kbytes": 10000},  # #4137 / #5141: the one queue's gate
    "franz-go": {"FetchMaxPartitionBytes": 10 << 20},  # #701: 1 MiB -> 10 MiB
    "kafka-python": {"fetch_max_bytes": 10 << 20},  # #2437: dpkp's "try tuning fetch_max_bytes"
}


@settings(max_examples=examples(0.3))
@given(client_scenarios(), share_seeds)
def test_the_simulated_peak_held_memory_never_exceeds_the_clients_bound(scenario, seed):
    """For every client, the bytes it holds once read (whole responses or parts, decompressed
    where it decompresses) stay under its bound from ``client_memory_bounds``."""
    trace = simulate(scenario, seed=seed, record_fetches=False)
    assert trace.meta["client"] == scenario.client
    assert int(trace.memory.held_bytes.max()) <= trace.meta["memory_bound_bytes"]


def test_a_response_with_one_partitions_whole_batch_beside_anothers_limit_stays_under():
    """The example Hypothesis found (franz-go, FetchMaxPartitionBytes 1,085, MaxConcurrentFetches
    0): a response of one partition's whole 16,445-byte batch (the first-batch exception) and the
    other partition's 1,085 bytes, 17,530, held while the bound allowed one batch, 16,445 (KIP-74's
    ``max(min(...), batch)``); the bound now takes the broker's rule, ``min(max(response limit,
    batch), partitions x max(limit, batch))``, the one Java's answer uses."""
    from kipviz.scenarios.workload import Workload

    s = ConsumerScenario(partitions=2, brokers=1, ticks=60, windows=4, client="franz-go",
                         client_settings={"MaxConcurrentFetches": 0,
                                          "FetchMaxPartitionBytes": 1085},
                         consume_bytes_per_s=5e6,
                         workload=Workload(produce_bytes_per_s=40e6, batch_size_bytes=16 << 10))
    trace = simulate(s, seed=2, record_fetches=False)
    assert int(trace.memory.held_bytes.max()) == 16445 + 1085
    assert trace.meta["max_batch_bytes"] == 16445
    assert trace.meta["memory_bound_bytes"] >= 2 * 16445  # a response of two whole batches


def test_issue_31s_thousand_partitions_on_three_brokers_lagging_stay_under_each_bound():
    """Show item 1: for each client, the bound and the simulated peak for 1,000 partitions on 3
    brokers, lagging, at defaults and at the quoted threads' settings (a short run, one set of
    record batches)."""
    runs = {f"{c} {label}": (c, chosen) for c in THREADS
            for label, chosen in (("defaults", {}), ("threads", THREADS[c]))}
    table = memory_by_client(catching_up(ticks=60, lag_bytes=160_000_000), runs).set_index("label")
    for label, (client, chosen) in runs.items():
        if client != "java":
            assert table.bound_bytes[label] == client_memory_bounds(
                client, 1000, 3, chosen,
                max_batch_bytes=table.max_batch_bytes[label]).bound_bytes
        assert 0 < table.peak_held_bytes[label] <= table.bound_bytes[label]
    # tests/kafka/clients/test_clients.py works these out: the gate's messages, (3 + 1) responses
    # and 320-byte ops; 3 fetches buffered and 3 polled, each with its Record structs
    assert table.bound_bytes["librdkafka defaults"] == 350681867
    assert table.bound_bytes["franz-go defaults"] == 382291758
    # the gate at 10,000 kbytes holds librdkafka's queue under 10 MB plus one response a broker
    assert table.peak_held_bytes["librdkafka threads"] <= 10_000_000 + 3 * 10_240_000


def test_a_compressed_topic_makes_librdkafka_and_franz_go_hold_decompressed_bytes():
    """At a compression ratio of 4 librdkafka and franz-go hold about 4x the wire bytes, Java's
    consumer and kafka-python the compressed batches as they came."""
    base = catching_up(partitions=60, ticks=60, lag_bytes=200_000_000)
    plain = memory_by_client(base).set_index("label").peak_held_bytes
    packed = memory_by_client(replace(base, compression_ratio=4.0)).set_index("label")
    assert packed.peak_held_bytes["java"] == plain["java"]
    assert packed.peak_held_bytes["kafka-python"] == plain["kafka-python"]
    assert packed.peak_held_bytes["franz-go"] > 3 * plain["franz-go"]
    assert (packed.peak_held_bytes <= packed.bound_bytes).all()


def test_java_is_todays_consumer_whatever_the_compression_ratio():
    """``client="java"`` with a compression ratio gives today's trace, byte for byte."""
    base = ConsumerScenario(partitions=8, ticks=60, windows=3)
    a = simulate(base, record_fetches=False)
    b = simulate(replace(base, compression_ratio=3.0), record_fetches=False)
    assert a.memory.equals(b.memory) and a.windows.equals(b.windows)


def test_librdkafka_and_franz_go_start_each_request_one_partition_later():
    """``rotate_by_one``: librdkafka's ``rkb_active_toppar_next``, franz-go's ``cursorsStart``."""
    order = np.arange(5)
    rotate_by_one(order)
    assert order.tolist() == [1, 2, 3, 4, 0]


def test_jains_index_is_one_for_equal_shares_and_one_over_n_for_one_taker():
    """Jain's fairness index of the bytes each partition got."""
    assert jain_index(np.array([3, 3, 3])) == 1.0
    assert jain_index(np.array([9, 0, 0])) == pytest.approx(1 / 3)


@pytest.mark.parametrize("kwargs, message", [
    ({"client": "rust"}, "client must be one of 'java', 'librdkafka', 'franz-go', "
                         "'kafka-python': 'rust'"),
    ({"client": "franz-go", "client_settings": {"fetch.max.bytes": 1 << 20}},
     "client_settings (fetch.max.bytes) must be a franz-go setting"),
    ({"client": "kafka-python", "client_settings": {"FetchMaxBytes": 1 << 20}},
     "client_settings (FetchMaxBytes) must be a kafka-python setting"),
    ({"client": "java", "client_settings": {"fetch_max_bytes": 1 << 20}},
     "client_settings must be empty for client 'java'"),
    ({"client": "librdkafka", "client_settings": {"queued.min.messages": 0}},
     "queued_min_messages (queued.min.messages) must be an integer >= 1"),
    ({"client": "librdkafka", "buffer_memory_bytes": 1 << 30},
     "buffer_memory_bytes must be None for client 'librdkafka'"),
    ({"compression_ratio": 0.5}, "compression_ratio must be"),
])
def test_bad_client_input_is_refused_in_the_one_error_shape(kwargs, message):
    """An unknown client, a setting passed to the wrong client, Java with client settings, an
    out-of-range value, a Java what-if on another client: ``<name> (<key>) must be <rule>:
    <value>``."""
    with pytest.raises(ValueError, match=r"must be") as caught:
        ConsumerScenario(**kwargs)
    assert str(caught.value).startswith(message)
