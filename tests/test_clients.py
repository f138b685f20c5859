"""Other clients' settings, config readers and memory bounds (issue 31), with the numbers from
the clients' own tests and docs (RESEARCH-31 sections 1.4, 2.4, 3.5)."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given

from kipviz.kafka.clients import (
    FRANZ_GO,
    KAFKA_PYTHON,
    LIBRDKAFKA,
    client_memory_bounds,
    franz_go_concurrent_fetches,
    franz_go_memory_bound,
    franz_go_partition_max_bytes,
    kafka_python_memory_bound,
    kafka_python_receive_max_bytes,
    librdkafka_fetch_max_bytes,
    librdkafka_memory_bound,
    librdkafka_queue_gate_bytes,
    librdkafka_receive_max_bytes,
    parse_kgo_options,
    read_client_config,
)
from tests.strategies import client_workloads

MiB = 1 << 20
BOUNDS = {"librdkafka": librdkafka_memory_bound, "franz-go": franz_go_memory_bound,
          "kafka-python": kafka_python_memory_bound}
PARTITION_KEY = {"librdkafka": "fetch.message.max.bytes", "franz-go": "FetchMaxPartitionBytes",
                 "kafka-python": "max_partition_fetch_bytes"}


def test_each_client_declares_its_defaults_by_its_own_names():
    """The defaults read at the tags: librdkafka conf.c, franz-go config.go, kafka-python
    group.py."""
    assert LIBRDKAFKA["queued.max.messages.kbytes"].default == 65536
    assert LIBRDKAFKA["queued.min.messages"].default == 100000
    assert LIBRDKAFKA["fetch.max.bytes"].default == 52428800
    assert LIBRDKAFKA["fetch.message.max.bytes"].default == MiB
    assert FRANZ_GO["FetchMaxBytes"].default == 50 << 20
    assert FRANZ_GO["MaxConcurrentFetches"].default == -1
    assert FRANZ_GO["BrokerMaxReadBytes"].default == 100 << 20
    assert KAFKA_PYTHON["fetch_max_bytes"].default == 52428800
    assert KAFKA_PYTHON["max_poll_records"].default == 500


def test_librdkafka_config_arithmetic_matches_rdkafka_conf_c():
    """RESEARCH-31 1.4: the v1.5.0 clamp (x 1024), the byte gate (x 1000), the receive floor, and
    tests/0082-fetch_max_bytes.cpp's 1000000 / 1000512 pair."""
    assert librdkafka_fetch_max_bytes() == 52428800
    assert librdkafka_receive_max_bytes() == 100000000
    assert librdkafka_queue_gate_bytes() == 65536000
    assert librdkafka_fetch_max_bytes({"queued.max.messages.kbytes": 10000}) == 10240000
    assert librdkafka_queue_gate_bytes({"queued.max.messages.kbytes": 10000}) == 10000000
    assert librdkafka_fetch_max_bytes({"queued.max.messages.kbytes": 500}) == 1000000
    assert librdkafka_receive_max_bytes({"fetch.max.bytes": 200000000}) == 200000512
    ok = {"fetch.max.bytes": 1000000, "receive.message.max.bytes": 1000512,
          "max.partition.fetch.bytes": 20000000}
    assert librdkafka_receive_max_bytes(ok) == 1000512
    with pytest.raises(ValueError, match=r"receive_message_max_bytes \(receive.message.max.bytes\)"
                       r" must be >= fetch.max.bytes \+ 512 \(1000512\): 1000511"):
        librdkafka_receive_max_bytes({**ok, "receive.message.max.bytes": 1000511})
    with pytest.raises(ValueError, match=r"fetch_max_bytes \(fetch.max.bytes\) must be >= "):
        librdkafka_fetch_max_bytes({"fetch.max.bytes": 500000})
    with pytest.raises(ValueError, match=r"<= 2097151: 2097152"):
        librdkafka_fetch_max_bytes({"queued.max.messages.kbytes": 2097152})


def test_franz_go_validation_matches_config_go():
    """RESEARCH-31 2.4: BrokerMaxReadBytes >= 1024 and >= FetchMaxBytes, MaxConcurrentFetches >=
    -1, FetchMaxPartitionBytes clamped to FetchMaxBytes."""
    with pytest.raises(ValueError, match=r"broker_max_read_bytes \(BrokerMaxReadBytes\) must be "
                       r"an integer >= 1024 and <= 1073741824: 512"):
        franz_go_partition_max_bytes({"BrokerMaxReadBytes": 512})
    with pytest.raises(ValueError, match=r"must be >= FetchMaxBytes \(52428800\): 41943040"):
        franz_go_partition_max_bytes({"BrokerMaxReadBytes": 40 << 20})
    with pytest.raises(ValueError, match=r"max_concurrent_fetches \(MaxConcurrentFetches\) must be"
                       r" an integer >= -1"):
        franz_go_concurrent_fetches(3, {"MaxConcurrentFetches": -2})
    assert franz_go_partition_max_bytes({"FetchMaxPartitionBytes": 100 << 20}) == 52428800
    assert [franz_go_concurrent_fetches(3, {"MaxConcurrentFetches": c}) for c in (-1, 0, 1, 5)] \
        == [3, 1, 1, 3]


def test_kafka_python_receive_cap_matches_group_py():
    """RESEARCH-31 3.5: defaults keep 100,000,000; fetch_max_bytes=104857600 raises it to
    104,857,600 + 1,048,576."""
    assert kafka_python_receive_max_bytes() == 100000000
    assert kafka_python_receive_max_bytes({"fetch_max_bytes": 104857600}) == 105906176


@pytest.mark.parametrize(("client", "key", "value", "message"), [
    ("librdkafka", "fetch.message.max.bytes", 0,
     "fetch_message_max_bytes (fetch.message.max.bytes) must be an integer >= 1"),
    ("librdkafka", "queued.min.messages", "many",
     "queued_min_messages (queued.min.messages) must be an integer"),
    ("franz-go", "FetchMaxBytes", -1, "fetch_max_bytes (FetchMaxBytes) must be an integer >= 1"),
    ("kafka-python", "max_poll_records", 0,
     "max_poll_records (max_poll_records) must be an integer >= 1"),
    ("kafka-python", "fetch_max_bytes", 1.5,
     "fetch_max_bytes (fetch_max_bytes) must be an integer"),
])
def test_a_bad_setting_value_has_the_one_error_shape(client, key, value, message):
    """``<python_name> (<key>) must be <rule>: <value>`` for every client."""
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_client_config(client, {key: value})


def test_confluent_kafka_config_reads_as_a_dict_and_a_properties_file(tmp_path):
    """Dotted names, the alias, text values; a .properties file gives the same."""
    text = "queued.max.messages.kbytes=10000\nmax.partition.fetch.bytes = 2097152\n"
    expected = {"queued.max.messages.kbytes": 10000, "fetch.message.max.bytes": 2097152}
    path = tmp_path / "consumer.properties"
    path.write_text(text)
    assert read_client_config("librdkafka", path) == expected
    assert read_client_config("librdkafka", str(path)) == expected
    assert read_client_config("librdkafka", text) == expected
    assert read_client_config("librdkafka", {"queued.max.messages.kbytes": 10000,
                                             "max.partition.fetch.bytes": 2097152}) == expected


def test_franz_go_options_read_as_go_calls_and_refuse_anything_else():
    """Integer literals, ``<<``, ``*``, the optional ``kgo.`` prefix; a variable is refused with
    the option's name; a non-memory option warns."""
    text = "kgo.FetchMaxBytes(50 << 20),\n  kgo.FetchMaxPartitionBytes(10 * 1 << 20), // 10 MiB\n" \
           "MaxConcurrentFetches(3),\nkgo.FetchMaxWait(5 * time.Second),"
    with pytest.warns(UserWarning, match="FetchMaxWait"):
        assert read_client_config("franz-go", text) == {
            "FetchMaxBytes": 52428800, "FetchMaxPartitionBytes": 10 << 20,
            "MaxConcurrentFetches": 3}
    with pytest.raises(ValueError, match="FetchMaxBytes must be an integer expression"):
        parse_kgo_options("kgo.FetchMaxBytes(maxBytes)")
    with pytest.raises(ValueError, match=r"must be a kgo\.Name"):
        parse_kgo_options("os.Exit(1)")
    with pytest.raises(ValueError, match=r"must be kgo\.Name"):
        parse_kgo_options("kgo.FetchMaxBytes(")


def test_unknown_names_list_the_known_ones_and_non_memory_names_warn():
    """A typo is an error naming what kipviz reads; ``group_id`` is a real setting without a
    memory effect, so it warns."""
    with pytest.raises(ValueError, match="'fetch_max_byte' is not one kipviz reads; it reads "
                       "fetch_max_bytes, fetch_min_bytes"):
        read_client_config("kafka-python", {"fetch_max_byte": 1})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert read_client_config("kafka-python", {"group_id": "g", "fetch_max_bytes": 1}) \
            == {"fetch_max_bytes": 1}
    assert "does not change the memory bound" in str(caught[0].message)
    with pytest.raises(ValueError, match="client must be one of"):
        read_client_config("sarama", {})


def test_each_client_bound_for_1000_partitions_on_3_brokers():
    """Issue 31's "Show", by hand (b = 1,048,588, P_b = 334, so W = min(52,428,800, 334 MiB) =
    52,428,800 at defaults):

    * librdkafka defaults: Q + 4W = 65,536,000 + 209,715,200 = 275,251,200 (RESEARCH-31 1.4).
      #4137/#5140/#5141 lower queued.max.messages.kbytes: at 10000, F = 10,240,000, W = F,
      Q = 10,000,000, so 10,000,000 + 4 x 10,240,000 = 50,960,000.
    * franz-go defaults: 3W = 157,286,400. #701, FetchMaxPartitionBytes 10 MiB, snappy r = 2: the
      per-fetch cap stays 50 MiB for 334 partitions, so 3 x (1 + 2) x W = 471,859,200.
    * kafka-python defaults: 2 x 3W + 4b = 314,572,800 + 4,194,352 = 318,767,152. #2437 (one
      broker, 128 MB): 2W + 4b = 109,051,952 of the 128 MB before any Python object; with
      fetch_max_bytes 10 MiB: 2 x 10,485,760 + 4b = 25,165,872.
    """
    assert librdkafka_memory_bound(1000, 3).bound_bytes == 275251200
    assert librdkafka_memory_bound(1000, 3, {"queued.max.messages.kbytes": 10000}).bound_bytes \
        == 50960000
    assert franz_go_memory_bound(1000, 3).bound_bytes == 157286400
    assert franz_go_memory_bound(1000, 3, {"FetchMaxPartitionBytes": 10 << 20},
                                 compression_ratio=2.0).bound_bytes == 471859200
    assert kafka_python_memory_bound(1000, 3).bound_bytes == 318767152
    assert kafka_python_memory_bound(1000, 1).bound_bytes == 109051952
    assert kafka_python_memory_bound(1000, 1, {"fetch_max_bytes": 10 << 20}).bound_bytes \
        == 25165872


def test_franz_go_701_ratio_stays_within_ten_for_five_partitions_per_broker():
    """#701: FetchMaxPartitionBytes 1 MiB -> 10 MiB grows the per-fetch cap at most 10x once a
    broker leads >= 5 lagging partitions (231 MB -> 1.91 GB is x8.3)."""
    low = franz_go_memory_bound(15, 3, max_batch_bytes=0, compression_ratio=2.0).bound_bytes
    high = franz_go_memory_bound(15, 3, {"FetchMaxPartitionBytes": 10 << 20}, max_batch_bytes=0,
                                 compression_ratio=2.0).bound_bytes
    assert high / low == pytest.approx(52428800 / (5 * MiB))


def test_the_sentence_names_the_term_that_binds():
    """Each bound's sentence gives its bytes and its largest term."""
    assert "responses in flight" in librdkafka_memory_bound(1000, 3).sentence
    assert "buffered fetches" in franz_go_memory_bound(1000, 3).sentence
    assert "held twice" in kafka_python_memory_bound(1000, 3).sentence


def test_client_java_is_the_java_answer_unchanged():
    """``client="java"`` returns what consumer_memory_bounds returns for the same scenario."""
    from kipviz.kafka.consumer.memory import consumer_memory_bounds
    from kipviz.scenarios.consumer.scenario import ConsumerScenario
    scenario = ConsumerScenario()
    assert client_memory_bounds("java", scenario, lagging=True) \
        == consumer_memory_bounds(scenario, lagging=True)
    assert client_memory_bounds("librdkafka", 1000, 3) == librdkafka_memory_bound(1000, 3)
    with pytest.raises(ValueError, match="client must be one of java"):
        client_memory_bounds("sarama", 1000, 3)


@given(client_workloads())
def test_the_bound_is_monotone_and_at_least_one_response(workload):
    """More partitions or a larger per-partition limit never lowers the bound, and the bound
    holds at least one response."""
    client, partitions, brokers, per_partition, ratio = workload
    bound = BOUNDS[client]
    base = bound(partitions, brokers, {PARTITION_KEY[client]: per_partition},
                 compression_ratio=ratio)
    more = bound(partitions + 1, brokers, {PARTITION_KEY[client]: per_partition},
                 compression_ratio=ratio)
    larger = bound(partitions, brokers, {PARTITION_KEY[client]: per_partition + 1},
                   compression_ratio=ratio)
    assert more.bound_bytes >= base.bound_bytes
    assert larger.bound_bytes >= base.bound_bytes
    one_response = max(min(52428800, -(-partitions // min(brokers, partitions)) * per_partition),
                       1048588)
    assert base.bound_bytes >= min(one_response, 52428800 if client != "librdkafka" else
                                   librdkafka_fetch_max_bytes())
