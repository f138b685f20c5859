"""A Streams instance's input memory (kipviz.kafka.streams.memory): worked numbers, the one consumer
answer reused, bad input."""

from __future__ import annotations

import doctest
from dataclasses import replace

import pytest
from hypothesis import given

import kipviz.kafka.streams.memory as streams_memory_module
from kipviz.kafka.consumer.memory import consumer_memory_bounds
from kipviz.kafka.streams.memory import (
    StreamsInstance,
    input_bounds_table,
    streams_memory,
    streams_memory_table,
    thread_partitions,
    thread_shares_table,
)
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from tests.strategies import streams_splits

MiB = 1024 * 1024
APP = StreamsInstance(partitions=2000, threads=4, brokers=3, key_bytes=16, value_bytes=1000,
                      topic="orders")


def test_a_1_kb_record_on_orders_costs_1042_bytes_and_2000_partitions_may_buffer_3_9_gib():
    """16 + 1000 + 8 + 8 + len("orders") + 4 = 1042 bytes. Per partition
    ``buffered.records.per.partition``: 1000 x 1042 plus one fetch of 1006 whole records
    (1048576 // 1042) = 2,090,252 bytes; 2000 partitions: 4,180,504,000 bytes."""
    m = streams_memory(APP, "4.3")
    assert m.record_bytes == 1042
    assert m.records_bound_bytes == 2000 * (1000 * 1042 + 1006 * 1042) == 4_180_504_000


def test_10_kb_records_raise_the_record_bound_to_over_20_gib():
    """10042-byte records: 1000 x 10042 + 104 x 10042 per partition, x 2000 = 22,172,736,000."""
    m = streams_memory(replace(APP, value_bytes=10000), "4.3")
    assert m.records_bound_bytes == 2000 * (1000 + 104) * 10042 == 22_172_736_000


def test_kip770s_byte_bound_is_the_budget_plus_one_fetch_per_partition():
    """Four threads of 128 MiB (536870912 // 4) plus one fetch (1006 x 1042 bytes) for each of
    the 2000 partitions: 536,870,912 + 2,096,504,000 bytes, whatever the split per thread."""
    m = streams_memory(APP, "4.3")
    assert m.bytes_bound_bytes == 536_870_912 + 2000 * 1006 * 1042 == 2_633_374_912


def test_the_embedded_consumers_hold_one_fetch_per_partition_before_4_0():
    """Kafka 3.9, lagging: each thread's consumer may hold 500 x max.partition.fetch.bytes and
    the whole 50 MiB response it is draining, and each of those 501 responses' own fields (6,549
    bytes for 167 partitions at fetch v17), so the four hold 2,319,991,396 bytes."""
    m = streams_memory(APP, "3.9")
    assert m.consumer.rule == "one completed fetch per partition"
    assert m.consumer.bound_bytes == 550 * MiB + 501 * 6549
    assert m.consumer_bytes == 4 * m.consumer.bound_bytes == 2_319_991_396


def test_from_4_0_each_consumer_holds_one_response_per_broker_unless_partitions_are_paused():
    """Kafka 4.x (KAFKA-17182): 3 brokers x fetch.max.bytes (50 MiB) per thread and the drained
    response still next in line, 200 MiB and 4 frames per thread; with every partition paused
    holding a fetch (paused partitions keep their data and do not block their broker) each may
    pin a whole 50 MiB response: 500 x 50 MiB per thread, and the drained one."""
    m = streams_memory(APP, "4.3")
    assert (m.consumer.rule, m.consumer.bound_bytes) == ("one response per broker",
                                                         200 * MiB + 4 * 6549)
    assert m.consumer_bytes == 4 * m.consumer.bound_bytes
    assert m.consumer_paused.bound_bytes == 501 * 50 * MiB + 501 * 6549
    assert m.consumer_paused_bytes == 4 * m.consumer_paused.bound_bytes


@pytest.mark.parametrize("version", ["2.4", "3.9", "4.0", "4.3"])
@pytest.mark.parametrize("fetch_max_bytes", [52428800, 100 * MiB, 4 * MiB])
def test_each_threads_consumer_gets_the_one_answer_a_consumer_scenario_gets(version,
                                                                           fetch_max_bytes):
    """The thread's bound is ``consumer_memory_bounds`` of a lagging ConsumerScenario with the
    thread's partitions and brokers (the broker's fetch.max.bytes caps responses from 2.5)."""
    s = replace(APP, fetch_max_bytes=fetch_max_bytes)
    scenario = ConsumerScenario(partitions=500, brokers=3, kafka_version=version,
                                fetch_max_bytes=fetch_max_bytes)
    assert streams_memory(s, version).consumer == consumer_memory_bounds(scenario, lagging=True)


def test_partitions_are_split_evenly_over_the_threads_the_first_taking_the_remainder():
    """2000 over 4 threads: 500 each; 10 over 4: 3, 3, 2, 2; the busiest thread is reported."""
    assert thread_partitions(2000, 4) == [500] * 4
    assert thread_partitions(10, 4) == [3, 3, 2, 2]
    m = streams_memory(replace(APP, partitions=10), "3.9")
    # 3 + 3 + 2 + 2 partitions of 1 MiB, each thread's drained response and frames
    assert m.consumer.partitions == 3 and m.consumer_bytes == 14_681_100


@given(**streams_splits)
def test_the_split_covers_every_partition_and_differs_by_at_most_one(partitions, threads):
    """Every partition goes to one thread; thread loads differ by at most one partition."""
    split = thread_partitions(partitions, threads)
    assert sum(split) == partitions and max(split) - min(split) <= 1


def test_the_lesson_table_shows_both_record_sizes_and_both_releases():
    """Columns per value size; rows for the input buffer, the consumers of 3.9 and 4.3 with every
    partition paused and the one answer of each release, in MiB."""
    table = streams_memory_table(APP)
    assert list(table.columns) == ["value 1,000 B (MiB)", "value 10,000 B (MiB)"]
    assert table.iloc[0].tolist() == [1042.0, 10042.0]
    assert table.loc["consumers, Kafka 4.3: every partition paused (Kafka's one response per "
                     "broker rule)"].round(1).tolist() == [100212.5, 100212.5]
    assert table.loc["the one answer, Kafka 4.3"].round(1).tolist() == [104199.4, 121358.1]
    assert len(table) == 6


def test_the_one_answer_is_the_input_buffer_plus_the_consumers_with_every_partition_paused():
    """Default back-pressure (StreamTask pauses a full queue): 4,180,504,000 bytes of input
    buffer plus four threads x (500 partitions x a 50 MiB response each may pin, the drained one
    and their frames); the sentence prints that number and says a poll hands over at most
    max.poll.records records."""
    paused = 4 * (501 * 50 * MiB + 501 * 6549)
    for version in ("3.9", "4.3"):
        m = streams_memory(APP, version)
        assert m.bound_bytes == 4_180_504_000 + paused == 109_260_943_396
        assert "at most 104,199.4 MiB (109,260,943,396 bytes)" in m.sentence()
        assert "at most max.poll.records records" in m.sentence()
    m = streams_memory(APP, "4.3")
    assert m.kip770_bound_bytes == 2_633_374_912 + paused
    # the thread's bound is capped at one response per partition and the drained one
    assert "501 responses x 50.0 MiB, one pinned by each partition and one drained" in \
        m.consumer_paused.sentence()


def test_the_partition_sweep_and_the_share_table_use_the_same_rules():
    """512 partitions of 142-byte records: the record bound is 581.3 MiB; one thread's share is
    512 MiB, four threads' 128 MiB, with a global thread 102.4 MiB (and 2.0 MiB of cache)."""
    sweep = input_bounds_table(partitions=(512,), value_bytes=(100,))
    assert round(sweep["records bound (MiB)"].iloc[0], 1) == 581.3
    shares = thread_shares_table()
    assert shares["input buffer share (MiB)"].round(1).tolist() == [512.0, 128.0, 102.4]
    assert shares["cache share (MiB)"].tolist() == [10.0, 2.5, 2.0]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("threads", 0, r"threads \(num.stream.threads\) must be an integer >= 1: 0"),
    ("partitions", 0, r"partitions must be an integer >= 1: 0"),
    ("buffered_records_per_partition", 0,
     r"buffered_records_per_partition \(buffered.records.per.partition\) must be an integer "
     r">= 1: 0"),
    ("fetch_max_bytes", -1, r"fetch_max_bytes \(fetch.max.bytes\) must be an integer >= 0: -1"),
    ("topic", "", r"topic must be a non-empty string"),
    ("global_thread", 1, r"global_thread must be True or False: 1"),
])
def test_bad_settings_are_refused_naming_the_setting(field, value, message):
    """Each setting is checked when the instance is made, its Kafka name in the error."""
    with pytest.raises(ValueError, match=message):
        replace(APP, **{field: value})


def test_an_unknown_kafka_version_is_refused():
    """Versions are release names the model knows."""
    with pytest.raises(ValueError, match="kafka_version must be one of"):
        streams_memory(APP, "5.0")


def test_the_modules_examples_run_and_its_names_are_documented():
    """Doctests pass; ``__all__`` is sorted isort-style and every public name has a docstring."""
    result = doctest.testmod(streams_memory_module)
    assert result.attempted > 0 and result.failed == 0
    names = list(streams_memory_module.__all__)
    kind = [0 if n.isupper() else 1 if n[:1].isupper() else 2 for n in names]
    assert list(zip(kind, names, strict=True)) == sorted(zip(kind, names, strict=True))
    assert all(getattr(streams_memory_module, n).__doc__ for n in names if not n.isupper())


@pytest.mark.parametrize("name", ["kipviz.kafka.streams.input_buffer",
                                  "kipviz.curves.broker.compare",
                                  "kipviz.curves.streams.compare"])
def test_the_new_modules_list_their_public_names_sorted_and_document_them(name):
    """As tests/test_package.py asks of every module (isort-style ``__all__``, docstrings)."""
    import importlib

    module = importlib.import_module(name)
    assert module.__doc__
    names = list(module.__all__)
    kind = [0 if n.isupper() else 1 if n[:1].isupper() else 2 for n in names]
    assert list(zip(kind, names, strict=True)) == sorted(zip(kind, names, strict=True))
    assert all(getattr(module, n).__doc__ for n in names if not n.isupper())
