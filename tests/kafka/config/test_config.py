"""Tests for kipviz.kafka.config: Kafka's defaults, its ConfigDef rules and .properties import."""

from __future__ import annotations

import dataclasses
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given

from kipviz.kafka.config.base import LoadedConfig
from kipviz.kafka.config.declarations import KIP81_PROPOSED_BUFFER_MEMORY_BYTES
from kipviz.kafka.config.keys import KafkaConfigWarning
from kipviz.kafka.config.properties import parse_properties
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from tests.strategies import (
    booleans,
    broker_configs,
    consumer_configs,
    properties_entries,
    properties_separators,
)

DATA = Path(__file__).resolve().parents[2] / "data"
JAVA_INT_MAX = 2**31 - 1
JAVA_LONG_MAX = 2**63 - 1


# --- defaults ----------------------------------------------------------------------------------


def test_consumer_defaults_are_kafkas():
    """Every consumer default is the number in Kafka's ConsumerConfig."""
    assert ConsumerConfig().to_kafka_dict() == {
        "fetch.max.bytes": 52428800,
        "max.partition.fetch.bytes": 1048576,
        "fetch.min.bytes": 1,
        "fetch.max.wait.ms": 500,
        "max.poll.records": 500,
        "heartbeat.interval.ms": 3000,
        "request.timeout.ms": 30000,
        "receive.buffer.bytes": 65536,
    }


def test_buffer_memory_is_unset_by_default_because_kip81_never_shipped():
    """Without buffer.memory the consumer is today's Kafka consumer: no pool."""
    assert ConsumerConfig().buffer_memory_bytes is None
    assert KIP81_PROPOSED_BUFFER_MEMORY_BYTES == 104857600


def test_broker_defaults_are_kafkas():
    """Every broker default is the number in KafkaConfig and its config classes."""
    assert BrokerConfig().to_kafka_dict() == {
        "fetch.max.bytes": 57671680,
        "replica.fetch.max.bytes": 1048576,
        "replica.fetch.response.max.bytes": 10485760,
        "message.max.bytes": 1048588,
        "queued.max.request.bytes": -1,
        "socket.request.max.bytes": 104857600,
        "queued.max.requests": 500,
        "num.network.threads": 3,
        "num.io.threads": 8,
        "replication.quota.window.num": 11,
        "replication.quota.window.size.seconds": 1,
        "quota.window.num": 11,
        "quota.window.size.seconds": 1,
        "remote.log.reader.threads": 10,
    }


def test_replication_throttles_are_unlimited_by_default():
    """Kafka's throttled rates default to Long.MAX_VALUE, which kipviz writes as None."""
    broker = BrokerConfig()
    assert broker.leader_replication_throttled_rate_bytes_per_s is None
    assert broker.follower_replication_throttled_rate_bytes_per_s is None


def test_kafka_keys_map_field_names_to_kafka_settings():
    """The one table per class maps each field to its Kafka key, units dropped."""
    assert ConsumerConfig.kafka_keys()["buffer_memory_bytes"] == "buffer.memory"
    assert ConsumerConfig.kafka_keys()["fetch_max_bytes"] == "fetch.max.bytes"
    assert BrokerConfig.kafka_keys()["leader_replication_throttled_rate_bytes_per_s"] == (
        "leader.replication.throttled.rate")
    assert len(set(BrokerConfig.kafka_keys().values())) == len(dataclasses.fields(BrokerConfig))


# --- validation --------------------------------------------------------------------------------


def test_broker_fetch_max_bytes_below_1024_is_rejected():
    """The broker's fetch.max.bytes is atLeast(1024) in ServerConfigs."""
    with pytest.raises(ValueError, match=(
            r"^fetch_max_bytes \(fetch\.max\.bytes\) must be an integer >= 1024: 1000$")):
        BrokerConfig(fetch_max_bytes=1000)


def test_broker_fetch_max_bytes_of_exactly_1024_is_accepted():
    """The bound itself is allowed."""
    assert BrokerConfig(fetch_max_bytes=1024).fetch_max_bytes == 1024


@pytest.mark.parametrize("field", [
    "fetch_max_bytes", "max_partition_fetch_bytes", "fetch_min_bytes", "fetch_max_wait_ms",
    "heartbeat_interval_ms", "request_timeout_ms",
])
def test_negative_consumer_sizes_and_times_are_rejected(field):
    """Consumer sizes and times are atLeast(0); the message names the field, the Kafka key and
    the value."""
    key = re.escape(ConsumerConfig.kafka_keys()[field])
    with pytest.raises(ValueError, match=rf"^{field} \({key}\) must be an integer >= 0: -1$"):
        ConsumerConfig(**{field: -1})


def test_max_partition_fetch_bytes_message_names_the_setting_rule_and_value():
    """The message reads as the brief's example."""
    with pytest.raises(ValueError, match=(
            r"^max_partition_fetch_bytes \(max\.partition\.fetch\.bytes\) must be an integer >= 0: "
            r"-1$")):
        ConsumerConfig(max_partition_fetch_bytes=-1)


def test_max_poll_records_of_zero_is_rejected():
    """max.poll.records is atLeast(1)."""
    with pytest.raises(ValueError, match=(
            r"^max_poll_records \(max\.poll\.records\) must be an integer >= 1: 0$")):
        ConsumerConfig(max_poll_records=0)


def test_receive_buffer_of_minus_one_means_the_os_default_and_is_accepted():
    """-1 is Kafka's RECEIVE_BUFFER_LOWER_BOUND (use the OS default); -2 is not allowed."""
    assert ConsumerConfig(receive_buffer_bytes=-1).receive_buffer_bytes == -1
    with pytest.raises(ValueError, match=(
            r"^receive_buffer_bytes \(receive\.buffer\.bytes\) must be an integer >= -1: -2$")):
        ConsumerConfig(receive_buffer_bytes=-2)


def test_zero_byte_fetch_limits_are_accepted_as_kafka_does():
    """Kafka allows 0 for fetch.max.bytes and max.partition.fetch.bytes; nothing is clamped."""
    consumer = ConsumerConfig(fetch_max_bytes=0, max_partition_fetch_bytes=0)
    assert (consumer.fetch_max_bytes, consumer.max_partition_fetch_bytes) == (0, 0)


def test_buffer_memory_below_fetch_max_bytes_is_rejected():
    """KIP-81: the pool must hold at least one full fetch response."""
    with pytest.raises(ValueError, match=(
        r"^buffer_memory_bytes \(buffer\.memory\) must be >= fetch\.max\.bytes \(52428800; "
        r"KIP-81.*\): "
        r"1000$"
    )):
        ConsumerConfig(buffer_memory_bytes=1000)


def test_buffer_memory_equal_to_fetch_max_bytes_is_accepted():
    """The KIP-81 bound is inclusive."""
    consumer = ConsumerConfig(fetch_max_bytes=4096, buffer_memory_bytes=4096)
    assert consumer.buffer_memory_bytes == 4096


def test_buffer_memory_may_exceed_a_java_int():
    """buffer.memory is a LONG like the producer's, so 4 GiB is valid."""
    assert ConsumerConfig(buffer_memory_bytes=4 * 2**30).buffer_memory_bytes == 4 * 2**30


def test_int_setting_beyond_a_java_int_is_rejected():
    """Kafka parses INT settings with Integer.parseInt, so 2**31 cannot be set."""
    with pytest.raises(ValueError, match=(
            r"^fetch_max_bytes \(fetch\.max\.bytes\) must be an integer <= 2147483647 "
            r"\(a Java int\): 2147483648$")):
        ConsumerConfig(fetch_max_bytes=2**31)


@pytest.mark.parametrize("value", [True, False])
def test_bool_is_rejected_for_an_int_setting(value):
    """True is not 1 here: a bool for a size is a mistake, named by its field and Kafka key."""
    with pytest.raises(ValueError, match=(
            rf"^fetch_max_bytes \(fetch\.max\.bytes\) must be an integer: {value}$")):
        ConsumerConfig(fetch_max_bytes=value)


@pytest.mark.parametrize("value", [1.5, "1024", None])
def test_non_integers_are_rejected_for_an_int_setting(value):
    """Floats, strings and None are refused rather than converted (a ValueError, as every
    other bad value)."""
    with pytest.raises(ValueError, match=(
            rf"^max_poll_records \(max\.poll\.records\) must be an integer: "
            rf"{re.escape(repr(value))}$")):
        ConsumerConfig(max_poll_records=value)


def test_numpy_integers_are_accepted_and_stored_as_python_ints():
    """Slider and array values arrive as numpy ints; they are kept as plain ints."""
    value = np.int64(4096)  # typed as int, but numbers.Integral is accepted at run time
    consumer = ConsumerConfig(fetch_max_bytes=value)  # type: ignore[arg-type]
    assert type(consumer.fetch_max_bytes) is int
    assert consumer == ConsumerConfig(fetch_max_bytes=4096)


def test_queued_max_request_bytes_below_socket_request_max_bytes_is_rejected():
    """KafkaConfig requires the request pool to hold the largest single request."""
    with pytest.raises(ValueError, match=(
        r"^queued_max_request_bytes \(queued\.max\.request\.bytes\) must be <= 0 \(no pool\) or >= "
        r"socket\.request\.max\.bytes \(104857600, the pool's largest single allocation\): 1000$"
    )):
        BrokerConfig(queued_max_request_bytes=1000)


@pytest.mark.parametrize("queued", [-1, 0, -5, 104857600, 2**40])
def test_queued_max_request_bytes_disabled_or_large_enough_is_accepted(queued):
    """<= 0 disables the pool (KIP-72); otherwise it is a LONG >= socket.request.max.bytes."""
    assert BrokerConfig(queued_max_request_bytes=queued).queued_max_request_bytes == queued


def test_queued_max_request_bytes_check_follows_socket_request_max_bytes():
    """Lowering socket.request.max.bytes makes a smaller request pool valid."""
    broker = BrokerConfig(queued_max_request_bytes=2048, socket_request_max_bytes=1024)
    assert broker.queued_max_request_bytes == 2048


@pytest.mark.parametrize("field", [
    "socket_request_max_bytes", "queued_max_requests", "num_network_threads", "num_io_threads",
    "replication_quota_window_num", "replication_quota_window_size_seconds", "quota_window_num",
    "quota_window_size_seconds",
])
def test_broker_counts_and_windows_of_zero_are_rejected(field):
    """These broker settings are atLeast(1)."""
    key = re.escape(BrokerConfig.kafka_keys()[field])
    with pytest.raises(ValueError, match=rf"^{field} \({key}\) must be an integer >= 1: 0$"):
        BrokerConfig(**{field: 0})


@pytest.mark.parametrize("field", [
    "replica_fetch_max_bytes", "replica_fetch_response_max_bytes", "message_max_bytes",
])
def test_negative_broker_byte_limits_are_rejected(field):
    """These broker byte limits are atLeast(0)."""
    key = re.escape(BrokerConfig.kafka_keys()[field])
    with pytest.raises(ValueError, match=rf"^{field} \({key}\) must be an integer >= 0: -1$"):
        BrokerConfig(**{field: -1})


@pytest.mark.parametrize("field", [
    "leader_replication_throttled_rate_bytes_per_s",
    "follower_replication_throttled_rate_bytes_per_s",
])
def test_throttled_rate_is_at_least_zero_as_in_kafka(field):
    """QuotaConfig defines the throttled rates with atLeast(0): 0 (replication stopped) is
    accepted and a negative rate is rejected, naming the key."""
    assert getattr(BrokerConfig(**{field: 0}), field) == 0
    key = re.escape(BrokerConfig.kafka_keys()[field])
    with pytest.raises(ValueError, match=rf"^{field} \({key}\) must be an integer >= 0: -1$"):
        BrokerConfig(**{field: -1})


def test_throttled_rate_may_exceed_a_java_int():
    """The rates are LONGs: 10 GB/s is a valid throttle."""
    broker = BrokerConfig(leader_replication_throttled_rate_bytes_per_s=10 * 10**9)
    assert broker.leader_replication_throttled_rate_bytes_per_s == 10 * 10**9


# --- replace and immutability ------------------------------------------------------------------


def test_replace_makes_a_validated_variant():
    """dataclasses.replace is the idiom for variants; the original is unchanged."""
    base = ConsumerConfig()
    smaller = dataclasses.replace(base, fetch_max_bytes=1048576)
    assert smaller.fetch_max_bytes == 1048576
    assert base.fetch_max_bytes == 52428800


def test_replace_runs_validation_again():
    """A variant that breaks a rule is rejected like a new config."""
    pooled = ConsumerConfig(buffer_memory_bytes=KIP81_PROPOSED_BUFFER_MEMORY_BYTES)
    with pytest.raises(ValueError, match=r"^buffer_memory_bytes \(buffer\.memory\) must be >= "
                                         r"fetch\.max\.bytes"):
        dataclasses.replace(pooled, fetch_max_bytes=2 * KIP81_PROPOSED_BUFFER_MEMORY_BYTES)


def test_configs_are_frozen():
    """Settings cannot be changed in place."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        ConsumerConfig().fetch_max_bytes = 1  # type: ignore[misc]


# --- from_properties ---------------------------------------------------------------------------


def test_sample_consumer_properties_sets_the_fetch_overrides():
    """The sample file's overrides, written with =, blanks and : separators, are read."""
    loaded = ConsumerConfig.from_properties(DATA / "consumer.properties")
    assert isinstance(loaded, LoadedConfig)
    assert loaded.config == ConsumerConfig(
        fetch_max_bytes=16777216,
        max_partition_fetch_bytes=2097152,
        fetch_min_bytes=65536,
        fetch_max_wait_ms=250,
        max_poll_records=200,
        receive_buffer_bytes=-1,
    )


def test_sample_consumer_properties_lists_unmodelled_kafka_keys_as_ignored():
    """Real consumer settings kipviz does not model are reported in file order."""
    loaded = ConsumerConfig.from_properties(str(DATA / "consumer.properties"))
    assert loaded.ignored[:3] == ("bootstrap.servers", "client.id", "client.dns.lookup")
    for key in ("group.id", "key.deserializer", "value.deserializer", "auto.offset.reset",
                "enable.auto.commit", "isolation.level", "security.protocol",
                "sasl.jaas.config", "ssl.truststore.location", "session.timeout.ms"):
        assert key in loaded.ignored
    assert "fetch.max.bytes" not in loaded.ignored


def test_unknown_consumer_key_is_a_warning_with_the_closest_known_key():
    """A typo is what Kafka ignores too: a warning with a difflib hint saying the Kafka default is
    used (the consumer logs it at INFO as "supplied but are not used yet"), never silent."""
    with pytest.warns(KafkaConfigWarning, match=(
        r"^unknown consumer config 'fetch\.max\.byte' \(did you mean 'fetch\.max\.bytes'\?\)"
        r".*\"supplied but are not used yet\".*the Kafka default is used$"
    )):
        loaded = ConsumerConfig.from_properties({"fetch.max.byte": "1024"})
    assert loaded.config == ConsumerConfig()
    assert loaded.unknown == ("fetch.max.byte",)
    assert loaded.warnings[0].startswith("unknown consumer config 'fetch.max.byte'")


def test_strict_makes_an_unknown_key_an_error():
    """``strict=True`` raises with the same words the warning has."""
    with pytest.raises(ValueError, match=r"^unknown consumer config 'fetch\.max\.byte' "
                                         r"\(did you mean 'fetch\.max\.bytes'\?\)"):
        ConsumerConfig.from_properties({"fetch.max.byte": "1024"}, strict=True)
    with pytest.raises(ValueError, match="strict must be True or False: 'yes'"):
        ConsumerConfig.from_properties({}, strict="yes")


def test_unknown_consumer_key_can_suggest_an_unmodelled_key():
    """Hints come from every known consumer key, not only the modelled ones."""
    with pytest.warns(KafkaConfigWarning, match=r"did you mean 'bootstrap\.servers'\?"):
        ConsumerConfig.from_properties({"bootstrap.server": "localhost:9092"})


def test_unknown_broker_key_is_ignored_as_a_broker_ignores_it():
    """A broker ignores keys it does not define without a word; no suggestion is made up when
    nothing is close."""
    with pytest.warns(KafkaConfigWarning, match=r"^unknown broker config 'colour': .*a broker "
                                                r"ignores it without a word"):
        loaded = BrokerConfig.from_properties({"colour": "blue"})
    assert loaded.unknown == ("colour",) and loaded.config == BrokerConfig()


def test_broker_setting_in_a_consumer_file_is_unknown():
    """log.dirs is a broker setting, so in a consumer file it does nothing."""
    with pytest.warns(KafkaConfigWarning, match=r"^unknown consumer config 'log\.dirs'"):
        ConsumerConfig.from_properties({"log.dirs": "/var/lib/kafka"})


@pytest.mark.parametrize("key", [
    "share.coordinator.state.topic.replication.factor", "share.coordinator.state.topic.min.isr",
    "log.preallocate", "log.cleaner.min.cleanable.ratio", "log.flush.interval.ms",
    "group.share.partition.max.record.locks", "remote.log.manager.copy.max.bytes.per.second",
])
def test_kafka_4_broker_keys_are_known(key):
    """Keys of Kafka 4.x's server.properties and ConfigDefs load without a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = BrokerConfig.from_properties({key: "1"}, kafka_version="4.1")
    assert loaded.ignored == (key,)


def test_a_key_from_another_kafka_version_names_the_versions_that_had_it():
    """zookeeper.connect is known in general (old files load) but not a 4.1 broker key."""
    assert BrokerConfig.from_properties({"zookeeper.connect": "zk:2181"}).ignored == (
        "zookeeper.connect",)
    with pytest.warns(KafkaConfigWarning, match=r"not a broker setting in Kafka 4\.1; it is one "
                                                r"in Kafka 0\.10\.1 to 3\.9"):
        BrokerConfig.from_properties({"zookeeper.connect": "zk:2181"}, kafka_version="4.1")
    with pytest.raises(ValueError, match="kafka_version must be one of"):
        BrokerConfig.from_properties({"log.dirs": "/x"}, kafka_version="5.0")


def test_unparsable_value_names_the_key():
    """Kafka takes plain integers only: '50MB' is an error naming fetch.max.bytes."""
    with pytest.raises(ValueError, match=(
            r"^fetch_max_bytes \(fetch\.max\.bytes\) must be an integer: '50MB'$")):
        ConsumerConfig.from_properties({"fetch.max.bytes": "50MB"})


@pytest.mark.parametrize("text", ["1_000", "1e6", "0x400", ""])
def test_values_java_would_not_parse_are_rejected(text):
    """Python-only integer spellings are refused, as Integer.parseInt refuses them."""
    with pytest.raises(ValueError, match=r"^max_poll_records \(max\.poll\.records\) must be an "
                                         r"integer"):
        ConsumerConfig.from_properties({"max.poll.records": text})


def test_values_are_stripped_and_may_carry_a_sign():
    """Kafka trims values before parsing; a leading + is valid Java."""
    loaded = ConsumerConfig.from_properties({"max.poll.records": " +42\t "})
    assert loaded.config.max_poll_records == 42


def test_a_mapping_of_ints_is_accepted():
    """A mapping may hold ints as well as strings."""
    loaded = ConsumerConfig.from_properties({"fetch.max.bytes": 4096, "group.id": "g"})
    assert loaded == LoadedConfig(ConsumerConfig(fetch_max_bytes=4096), ("group.id",))


def test_a_bool_in_a_mapping_is_rejected():
    """True in a mapping is not taken as 1."""
    with pytest.raises(ValueError, match=(
            r"^fetch_max_bytes \(fetch\.max\.bytes\) must be an integer: True$")):
        ConsumerConfig.from_properties({"fetch.max.bytes": True})


def test_values_from_a_file_are_validated():
    """A file value that breaks a rule is rejected with the same message as in code."""
    with pytest.raises(ValueError, match=(
            r"^fetch_max_bytes \(fetch\.max\.bytes\) must be an integer >= 1024: 512$")):
        BrokerConfig.from_properties({"fetch.max.bytes": "512"})


def test_broker_server_properties_are_read(tmp_path):
    """A KRaft server.properties: modelled keys are set, the rest are reported as ignored."""
    path = tmp_path / "server.properties"
    path.write_text(
        "process.roles=broker,controller\n"
        "node.id=1\n"
        "controller.quorum.voters=1@localhost:9093\n"
        "listeners=PLAINTEXT://:9092,CONTROLLER://:9093\n"
        "listener.name.controller.ssl.keystore.location=/etc/kafka/c.jks\n"
        "log.dirs=/var/lib/kafka/data\n"
        "num.partitions=12\n"
        "log.retention.hours=168\n"
        "num.network.threads=6\n"
        "queued.max.request.bytes=209715200\n"
        "leader.replication.throttled.rate=50000000\n"
    )
    loaded = BrokerConfig.from_properties(path)
    assert loaded.config == BrokerConfig(
        num_network_threads=6,
        queued_max_request_bytes=209715200,
        leader_replication_throttled_rate_bytes_per_s=50000000,
    )
    assert loaded.ignored == (
        "process.roles", "node.id", "controller.quorum.voters", "listeners",
        "listener.name.controller.ssl.keystore.location", "log.dirs", "num.partitions",
        "log.retention.hours",
    )


def test_zookeeper_era_broker_keys_are_still_known():
    """Older server.properties files with broker.id and zookeeper.connect load too."""
    loaded = BrokerConfig.from_properties({"broker.id": "0", "zookeeper.connect": "zk:2181"})
    assert loaded.ignored == ("broker.id", "zookeeper.connect")


def test_modelled_keys_are_not_listed_as_unmodelled():
    """The modelled and the ignored keys of a class never overlap."""
    for cls in (ConsumerConfig, BrokerConfig):
        modelled = set(cls.kafka_keys().values())
        loaded = cls.from_properties(dict.fromkeys(modelled, "1048576"))
        assert loaded.ignored == ()


# --- to_properties / to_kafka_dict -------------------------------------------------------------


def test_default_config_writes_no_properties():
    """Only settings that differ from Kafka's defaults are written by default."""
    assert ConsumerConfig().to_properties() == ""
    assert BrokerConfig().to_properties() == ""


def test_to_properties_writes_overrides_as_key_value_lines():
    """Overrides are written as Kafka key=value lines, in field order."""
    consumer = ConsumerConfig(max_partition_fetch_bytes=2097152, buffer_memory_bytes=104857600)
    assert consumer.to_properties() == (
        "max.partition.fetch.bytes=2097152\nbuffer.memory=104857600\n"
    )


def test_to_properties_can_include_the_defaults():
    """With include_defaults every set value is written; unset optional ones are left out."""
    text = ConsumerConfig().to_properties(include_defaults=True)
    assert text.startswith("fetch.max.bytes=52428800\nmax.partition.fetch.bytes=1048576\n")
    assert "buffer.memory" not in text
    assert len(text.splitlines()) == 8


def test_to_kafka_dict_can_leave_out_the_defaults():
    """to_kafka_dict takes the same flag as to_properties."""
    broker = BrokerConfig(follower_replication_throttled_rate_bytes_per_s=10_000_000)
    assert broker.to_kafka_dict(include_defaults=False) == {
        "follower.replication.throttled.rate": 10_000_000,
    }


@given(consumer_configs(), booleans)
def test_consumer_round_trips_through_properties_text(consumer, include_defaults):
    """to_properties -> parse_properties -> from_properties gives back the same config."""
    text = consumer.to_properties(include_defaults=include_defaults)
    loaded = ConsumerConfig.from_properties(parse_properties(text))
    assert loaded == LoadedConfig(consumer, ())


@given(broker_configs(), booleans)
def test_broker_round_trips_through_properties_text(broker, include_defaults):
    """to_properties -> parse_properties -> from_properties gives back the same config."""
    text = broker.to_properties(include_defaults=include_defaults)
    assert BrokerConfig.from_properties(parse_properties(text)).config == broker


@given(consumer_configs())
def test_consumer_round_trips_through_the_kafka_dict(consumer):
    """to_kafka_dict is a valid from_properties source."""
    assert ConsumerConfig.from_properties(consumer.to_kafka_dict()).config == consumer


# --- parse_properties --------------------------------------------------------------------------


def test_all_three_separators_are_understood():
    """key=value, key: value and key value all split the same way."""
    text = "a=1\nb: 2\nc 3\nd = 4\ne\t:\t5\n"
    assert parse_properties(text) == {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}


def test_hash_and_bang_lines_are_comments():
    """Lines starting, after blanks, with # or ! are skipped; blank lines too."""
    text = "# one\n   ! two\n\n   \nkey=value # not a comment\n"
    assert parse_properties(text) == {"key": "value # not a comment"}


def test_trailing_backslash_continues_the_line_without_its_leading_blanks():
    """A continued value joins the next line with its indentation dropped."""
    text = "servers=a:9092,\\\n        b:9092,\\\n        c:9092\nnext=1\n"
    assert parse_properties(text) == {"servers": "a:9092,b:9092,c:9092", "next": "1"}


def test_an_even_number_of_trailing_backslashes_does_not_continue():
    """Two backslashes are one escaped backslash, ending the line."""
    assert parse_properties("path=C:\\\\\nnext=1") == {"path": "C:\\", "next": "1"}


def test_a_continued_line_that_starts_with_a_hash_is_not_a_comment():
    """Comment detection applies to logical lines only."""
    assert parse_properties("a=x\\\n  #y\n") == {"a": "x#y"}


def test_a_comment_ending_in_a_backslash_does_not_continue():
    """Java ignores a trailing backslash on a comment line."""
    assert parse_properties("# note \\\nkey=1\n") == {"key": "1"}


def test_backslash_at_the_end_of_the_text_is_dropped():
    """A continuation with nothing after it ends the value."""
    assert parse_properties("key=value\\") == {"key": "value"}


def test_escapes_are_decoded():
    """\\t, \\n, \\uXXXX and an escaped separator in a key are decoded as Java does."""
    text = "my\\ key\\=x=tab\\there\\nnl \\u00e9t\\u00E9 \\q\n"
    assert parse_properties(text) == {"my key=x": "tab\there\nnl été q"}


def test_a_malformed_unicode_escape_is_rejected():
    """Java's Properties.load refuses a \\u not followed by four hex digits."""
    with pytest.raises(ValueError, match=r"malformed \\uxxxx escape"):
        parse_properties("key=\\u12g4\n")


def test_a_key_without_a_value_maps_to_the_empty_string():
    """'key', 'key=' and 'key:' all give an empty value."""
    assert parse_properties("a\nb=\nc:\n") == {"a": "", "b": "", "c": ""}


def test_only_one_separator_is_consumed():
    """In 'a==b' and 'a = :b' the second separator belongs to the value."""
    assert parse_properties("a==b\nc = :d\n") == {"a": "=b", "c": ":d"}


def test_leading_blanks_of_a_value_are_dropped_and_trailing_blanks_kept():
    """As in java.util.Properties; from_properties strips numbers itself."""
    assert parse_properties("  key =   value  \n") == {"key": "value  "}


def test_crlf_and_cr_line_endings_are_understood():
    """Windows and old Mac files parse like Unix ones."""
    assert parse_properties("a=1\r\nb=2\rc=3") == {"a": "1", "b": "2", "c": "3"}


def test_a_repeated_key_keeps_its_last_value():
    """Later lines override earlier ones."""
    assert parse_properties("fetch.max.bytes=1\nfetch.max.bytes=2\n") == {"fetch.max.bytes": "2"}


@given(properties_entries, properties_separators)
def test_simple_key_value_lines_parse_back(entries, separator):
    """Unescaped keys and values written with any separator read back unchanged."""
    text = "".join(f"{key}{separator}{value}\n" for key, value in entries.items())
    assert parse_properties(text) == entries
