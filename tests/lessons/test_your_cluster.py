"""Each lesson's "your cluster" cell: the formula filled in, the metric to watch, the knob."""

from __future__ import annotations

import pytest

from kipviz import data_file
from kipviz.apps.your_cluster import LESSONS, your_cluster
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig

MiB = 1024 * 1024


def test_every_lesson_names_a_formula_a_metric_and_a_knob():
    """The sample files on a 6-broker, 120-partition cluster: every answer complete."""
    for lesson in LESSONS:
        advice = your_cluster(lesson, data_file("consumer.properties"),
                              data_file("server.properties"), brokers=6, partitions=120)
        assert advice.formula and advice.watch and advice.knob
        assert str(advice).startswith(f"Your cluster (lesson {lesson}):")


def test_lesson_3_gives_the_versions_memory_answer():
    """4 MiB responses, 60 partitions on 3 brokers: 3 x 4 MiB and the drained 4 MiB on 4.3,
    60 + 4 MiB on 3.9 (and each response's own fields)."""
    consumer = ConsumerConfig(fetch_max_bytes=4 * MiB)
    new = your_cluster("03", consumer, brokers=3, partitions=60)
    old = your_cluster("03", consumer, brokers=3, partitions=60, kafka_version="3.9")
    assert "at most 16.0 MiB" in new.formula and new.knob.startswith("fetch.max.bytes")
    assert "at most 64.0 MiB" in old.formula and old.knob.startswith("max.partition.fetch.bytes")


def test_lesson_2_fills_in_the_non_strict_pool_bound():
    """queued.max.request.bytes 200 MiB + socket.request.max.bytes 100 MiB - 1."""
    advice = your_cluster("02", broker=BrokerConfig(queued_max_request_bytes=200 * MiB))
    assert "209,715,200 + 104,857,600 - 1 = 314,572,799 bytes" in advice.formula


def test_lesson_4_counts_the_in_sync_followers():
    """T = 40 MB/s, R = 3, IN = 10 MB/s, 1 GB: 1e9 / (40e6 - 30e6) = 100 s (0.0 h)."""
    broker = BrokerConfig(leader_replication_throttled_rate_bytes_per_s=40_000_000)
    advice = your_cluster("04", broker=broker, bytes_in_per_s=10e6, bytes_to_move=1e9)
    assert "(40,000,000 - 3 x 10,000,000)" in advice.formula
    slow = your_cluster("04", broker=BrokerConfig(
        leader_replication_throttled_rate_bytes_per_s=30_000_000), bytes_in_per_s=10e6)
    assert "= never" in slow.formula


def test_an_unknown_lesson_or_version_is_named():
    """Lessons 01 to 06, 08 and 09 have the cell; a release the model does not know is
    refused."""
    with pytest.raises(ValueError, match="lesson must be one of 01"):
        your_cluster("10")
    with pytest.raises(ValueError, match="kafka_version must be one of"):
        your_cluster("03", kafka_version="9.9")


@pytest.mark.parametrize("kafka_version", ["4.1", "4.3"])
def test_lesson_8_catch_up_rate_is_the_simulated_one(kafka_version):
    """Reads per request x max.partition.fetch.bytes over one read's round (the store's latency,
    the transfer, the consumer's round trip): within 2% of the tiered scenario's remote MB/s for
    a catch-up consumer of 4 remote partitions, one read per request on 4.1, four on 4.3."""
    import re
    from dataclasses import replace

    from kipviz.scenarios.tiered_fetch.scenario import simulate, trace_summary
    from kipviz.widgets import TIERED_LESSON_SCENARIO

    advice = your_cluster("08", kafka_version=kafka_version, partitions=4)
    (rate,) = re.findall(r"= ([\d.]+) MB/s", advice.formula)
    scenario = replace(TIERED_LESSON_SCENARIO, kafka_version=kafka_version, remote_partitions=4)
    simulated = trace_summary(simulate(scenario)).loc["catch_up", "remote MB/s"]
    assert float(rate) == pytest.approx(simulated, rel=0.02)
    assert "RemoteFetchBytesPerSec" in advice.watch and "RemoteLogReaderTaskQueueSize" in \
        advice.watch and "remote-fetch-throttle-time" in advice.watch


def test_lesson_5_reads_the_consumer_settings_it_is_given():
    """The Streams answer uses the consumer.properties' fetch limits (the sample's 16 MiB
    fetch.max.bytes and 2 MiB max.partition.fetch.bytes), not the consumer's defaults."""
    advice = your_cluster("05", data_file("consumer.properties"), data_file("server.properties"),
                          partitions=2000, threads=4, brokers=3)
    assert "a response of up to 16.0 MiB" in advice.formula
    default = your_cluster("05", partitions=2000, threads=4, brokers=3)
    assert "a response of up to 50.0 MiB" in default.formula and advice.formula != default.formula


def test_lesson_9_reads_the_clients_own_config_and_fits_a_container():
    """A confluent-kafka dict: librdkafka's bound, and the queued.max.messages.kbytes that keeps
    it within half of a 256 MiB container."""
    advice = your_cluster("09", {"queued.max.messages.kbytes": 65536}, client="librdkafka",
                          partitions=1000, brokers=3, memory_limit_bytes=256 * MiB)
    assert "librdkafka holds at most 350,681,867 bytes" in advice.formula
    assert advice.knob.startswith("queued.max.messages.kbytes = 20,775 keeps the bound")
