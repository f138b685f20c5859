"""Risky-value warnings: each names the Kafka setting, the rule and the numbers; none raises."""

from __future__ import annotations

import pytest

from kipviz import data_file
from kipviz.kafka.config.advice import config_warnings, load_config
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig

MiB = 1024 * 1024


def test_a_memory_bound_above_the_heap_is_named_with_its_numbers():
    """The lagging case, Kafka's defaults on 100 partitions on 3 brokers: every partition's 1 MiB
    (100 MiB, less than one 34 MiB response per broker) and the drained 34 MiB response still
    next in line, with each response's own fields: 134 MiB does not fit a 64 MiB heap."""
    (note,) = config_warnings(ConsumerConfig(), heap_bytes=64 * MiB)
    assert "fetch.max.bytes" in note and "max.partition.fetch.bytes" in note
    assert "Kafka 4.3 consumer, lagging: at most 134.0 MiB (140,514,628 bytes)" in note
    assert "100 x 1.0 MiB + 1 x 34.0 MiB drained, still next in line" in note
    assert "67,108,864 bytes (64.0 MiB)" in note


def test_the_memory_warning_follows_the_kafka_version():
    """fetch.max.bytes 4 MiB, 60 partitions on 3 brokers, a 20 MiB heap: Kafka 4.0 holds one
    response per broker and the drained one still next in line (16 MiB, fits); 3.9 lets a
    lagging application reach 60 x 1 MiB and the whole 4 MiB response it is draining."""
    consumer = ConsumerConfig(fetch_max_bytes=4 * MiB)
    kw = {"heap_bytes": 20 * MiB, "partitions": 60, "brokers": 3}
    assert config_warnings(consumer, kafka_version="4.0", **kw) == []
    (note,) = config_warnings(consumer, kafka_version="3.9", **kw)
    assert "Kafka 3.9 consumer, lagging: at most 64.0 MiB" in note
    assert "one completed fetch per partition: 60 x 1.0 MiB + 1 x 4.0 MiB" in note


def test_a_bound_that_fits_the_heap_gives_no_warning_and_no_heap_checks_nothing():
    """The sample consumer.properties: min(3 x 16 MiB, 100 x 2 MiB) = 48 MiB fits in 1 GiB."""
    assert config_warnings(data_file("consumer.properties"), heap_bytes=1024 * MiB) == []
    assert config_warnings(ConsumerConfig()) == []


def test_the_first_batch_exception_raises_the_bound():
    """A 60 MiB batch lets each of 3 brokers return 60 MiB: 4 x 60 MiB (the drained one too)
    against 4 x 50 MiB, over a 220 MiB heap."""
    # one response per broker (Kafka 4.x) and the drained one, each raised to the 60 MiB batch
    (note,) = config_warnings(ConsumerConfig(), heap_bytes=220 * MiB, partitions=1000,
                              max_batch_bytes=60 * MiB)
    assert "first-batch exception" in note and "251,711,824 bytes" in note


def test_kip81_buffer_memory_is_checked_as_proposed():
    """buffer.memory 100 MiB holds up to 100 MiB + 10 MiB - 1 when responses are 10 MiB."""
    consumer = ConsumerConfig(buffer_memory_bytes=100 * MiB, fetch_max_bytes=10 * MiB,
                              max_partition_fetch_bytes=10 * MiB)
    (note,) = config_warnings(consumer, heap_bytes=64 * MiB, brokers=20, partitions=50)
    assert "buffer.memory" in note and "never shipped" in note
    assert "at most 110.0 MiB (115,343,359 bytes)" in note
    assert "buffer.memory + largest response - 1 = 104,857,600 + 10,485,760 - 1 bytes" in note
    assert config_warnings(consumer, heap_bytes=200 * MiB, brokers=20, partitions=50) == []


@pytest.mark.parametrize("rate", [5_000_000, 10_000_000])
def test_a_throttle_at_or_below_the_inbound_rate_never_finishes(rate):
    """KIP-73 Q&A 1: move time = ... / (T - IN) is infinite when T <= IN."""
    broker = BrokerConfig(leader_replication_throttled_rate_bytes_per_s=rate)
    (note,) = config_warnings(broker=broker, bytes_in_per_s=10e6)
    assert note.startswith(f"leader.replication.throttled.rate = {rate:,} bytes/s")
    assert "at or below the inbound rate IN = 10,000,000 bytes/s" in note
    assert "never finishes" in note


def test_a_workable_throttle_is_quiet_and_one_above_n_minus_in_over_r_is_not():
    """KIP-73 Q&A 4: IN < T < N - IN/R; 125 MB/s links, IN 30 MB/s, R 3: T < 115 MB/s."""
    kw = {"bytes_in_per_s": 30e6, "network_bytes_per_s": 125e6, "replication_factor": 3}
    ok = BrokerConfig(follower_replication_throttled_rate_bytes_per_s=50_000_000)
    assert config_warnings(broker=ok, **kw) == []
    high = BrokerConfig(follower_replication_throttled_rate_bytes_per_s=120_000_000)
    (note,) = config_warnings(broker=high, **kw)
    assert "follower.replication.throttled.rate" in note and "N - IN/R" in note
    assert "115,000,000 bytes/s" in note


def test_replica_fetch_response_max_bytes_above_the_quota_window_is_named():
    """KIP-73 Q&A 5: 11 s x min(1 MB/s, 125 MB/s / 5) = 11 MB; the default 10 MiB is below,
    50 MiB is not."""
    kw = {"bytes_in_per_s": 0.5e6, "network_bytes_per_s": 125e6, "brokers": 5}
    quiet = BrokerConfig(leader_replication_throttled_rate_bytes_per_s=1_000_000)
    assert config_warnings(broker=quiet, **kw) == []
    loud = BrokerConfig(leader_replication_throttled_rate_bytes_per_s=1_000_000,
                        replica_fetch_response_max_bytes=50 * MiB)
    (note,) = config_warnings(broker=loud, **kw)
    assert note.startswith("replica.fetch.response.max.bytes = 52,428,800")
    assert "= 11,000,000 bytes" in note


def test_queued_max_request_bytes_below_socket_request_max_bytes_warns_instead_of_raising(
        tmp_path):
    """KafkaConfig rejects it; the warning carries that rule and the rest of the file counts."""
    server = tmp_path / "server.properties"
    server.write_text("queued.max.request.bytes=1000\nleader.replication.throttled.rate=1000\n"
                      "broker.id=1\n")
    notes = config_warnings(broker=server, bytes_in_per_s=10e6)
    assert "queued_max_request_bytes (queued.max.request.bytes) must be <= 0 (no pool) or >= " \
           "socket.request.max.bytes (104857600, " in notes[0] and "): 1000." in notes[0]
    assert "leader.replication.throttled.rate = 1,000 bytes/s" in notes[1]
    config, _ = load_config(BrokerConfig, server)
    assert config is not None and config.queued_max_request_bytes == -1


def test_settings_kafka_rejects_become_warnings():
    """buffer.memory below fetch.max.bytes (KIP-81), a negative size, an unknown key."""
    (note, *_) = config_warnings({"buffer.memory": "1000"})
    assert "buffer_memory_bytes (buffer.memory) must be >= fetch.max.bytes (52428800; " in note
    assert "): 1000." in note
    assert load_config(ConsumerConfig, {"fetch.max.bytes": "-5"}) == (
        None, ["Kafka would reject this consumer config: fetch_max_bytes (fetch.max.bytes) "
               "must be an integer >= 0: -5."])
    (note,) = config_warnings(broker={"queued.max.request.byte": "1"})
    assert "did you mean 'queued.max.request.bytes'" in note
    assert "a broker ignores it without a word, so the Kafka default is used" in note


@pytest.mark.parametrize(("write", "message"), [
    (lambda path: path.mkdir(), "is a directory"),
    (lambda path: path.write_text("fetch.max.bytes=\\u00zz\n"), "malformed \\uxxxx escape"),
    (lambda path: None, "No such file"),
])
def test_load_config_never_raises_on_a_file_it_cannot_read(tmp_path, write, message):
    """A directory, a bad unicode escape or a missing file: (None, [the reason])."""
    path = tmp_path / "consumer.properties"
    write(path)
    config, (note,) = load_config(ConsumerConfig, path)
    assert config is None and message in note and "Cannot read the consumer config" in note


def test_config_objects_pass_through_and_the_wrong_kind_is_an_error():
    """A ConsumerConfig where a BrokerConfig belongs is a programming error, not a warning."""
    consumer = ConsumerConfig()
    assert load_config(ConsumerConfig, consumer) == (consumer, [])
    assert load_config(BrokerConfig, None) == (None, [])
    with pytest.raises(TypeError, match="expected a BrokerConfig, not a ConsumerConfig"):
        load_config(BrokerConfig, consumer)


def test_a_lagging_consumer_can_hold_every_partitions_limit_before_kafka_4():
    """The sample consumer.properties on 6 brokers and 120 partitions: KIP-74's min(6 x 16 MiB,
    120 x 2 MiB) = 96 MiB fits 128 MiB, and so does Kafka 4.x's one response per broker; a
    lagging 3.9 consumer holds up to 120 x 2 MiB + the 16 MiB response it drains = 256 MiB (and
    121 responses' own fields), and that is named."""
    kw = {"heap_bytes": 128 * MiB, "brokers": 6, "partitions": 120}
    assert config_warnings(data_file("consumer.properties"), **kw) == []
    (note,) = config_warnings(data_file("consumer.properties"), kafka_version="3.9", **kw)
    assert "at most 256.1 MiB (268,536,491 bytes)" in note
    assert "one completed fetch per partition: 120 x 2.0 MiB" in note


def test_load_config_checks_keys_against_one_kafka_version():
    """``kafka_version`` names the versions that had a key; an unknown version is the caller's
    error, not a warning about the file."""
    config, (note,) = load_config(BrokerConfig, {"zookeeper.connect": "zk:2181"},
                                  kafka_version="4.1")
    assert config == BrokerConfig()
    assert "not a broker setting in Kafka 4.1; it is one in Kafka 0.10.1 to 3.9" in note
    with pytest.raises(ValueError, match="kafka_version must be one of"):
        load_config(BrokerConfig, {}, kafka_version="9.1")
