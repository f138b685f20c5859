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
    librdkafka_decompression_bytes,
    librdkafka_fetch_max_bytes,
    librdkafka_memory_bound,
    librdkafka_queue_gate_bytes,
    librdkafka_receive_max_bytes,
    parse_kgo_options,
    read_client_config,
)
from kipviz.kafka.clients._bound import ClientMemoryBound
from kipviz.kafka.clients.librdkafka import CODECS
from kipviz.kafka.fetch.frame import largest_frame_bytes
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


def _frame(partitions_on_broker: int, versions: range) -> int:
    """A response's own fields at the largest of a client's request versions (v11: a
    249-character topic name and the preferred replica)."""
    return max(largest_frame_bytes(partitions_on_broker, version=v,
                                   partition_records_bytes=1048588) for v in versions)


def test_each_client_bound_for_1000_partitions_on_3_brokers():
    """Issue 31's "Show", by hand, with records of 1,024 value bytes (b = 1,048,588, P_b = 334:
    the response's records W = min(max(52,428,800, b), 334 x b) = 52,428,800, its fields
    14,301 bytes, so the buffer is 52,443,101 bytes):

    * librdkafka: n_q = min(100,000, 65,536,000 // 1,024) = 64,000 messages below the gates,
      on the wire 65,536,000 + 64,000 x (28 + 61) = 71,232,000 bytes in 3 full responses (and
      one more) with their fields: 71,274,903; 3 responses in flight and one at the head of
      52,443,741 each (640 bytes of rd_kafka_buf_t and segment); (64,000 + 3 x 51,200) ops of 320
      bytes = 69,632,000: 350,681,867.
    * franz-go: a fetch is 52,443,101 + 8,192 (whole pages) + 51,200 records x 220 =
      63,715,293; 3 buffered and 3 the application holds: 382,291,758.
    * kafka-python: each node's response with 334 decoded partitions of 512 bytes (3 x
      52,614,109), each connection's last read (3 x 52,443,138), the read in progress (12,804
      chunks of 4,137 and the joined 52,443,138), the partition being drained (b + 4b) and 500
      records of 1,024 + 377: 426,528,467.
    """
    frame = _frame(334, range(4, 17))
    assert frame == 14301 and _frame(334, range(4, 19)) == _frame(334, range(4, 13)) == frame
    response = 52428800 + frame + 640
    queue = 65536000 + 64000 * 89
    assert librdkafka_memory_bound(1000, 3).terms == (
        ("queue below its gates", queue + (-(-queue // 52428800) + 1) * frame),
        ("responses in flight", 3 * response), ("response pinned at the queue's head", response),
        ("messages' ops", (64000 + 3 * 51200) * 320))
    assert librdkafka_memory_bound(1000, 3).bound_bytes == 350681867
    fetch = 52428800 + frame + 8192 + 51200 * 220
    assert franz_go_memory_bound(1000, 3).bound_bytes == 6 * fetch == 382291758
    read = 52428800 + frame + 4
    assert kafka_python_memory_bound(1000, 3).terms == (
        ("each node's response", 3 * (52428800 + frame + 334 * 512)),
        ("each connection's last read", 3 * (read + 33)),
        ("the read in progress, its chunks beside their join", -(-read // 4096) * 4137 + read + 33),
        ("the partition being drained and its batch", 1048588 + 4 * 1048588),
        ("records one poll returns", 500 * (1024 + 377)))
    assert kafka_python_memory_bound(1000, 3).bound_bytes == 426528467


def test_the_threads_settings_move_the_bounds_as_the_threads_saw():
    """#4137: at queued.max.messages.kbytes 10,000 the gate is 10,000,000 value bytes and
    fetch.max.bytes is clamped to 10,240,000, so 100 and 1,000 partitions differ only by their
    responses' fields. #701 (snappy, r = 2, 5 partitions a broker): FetchMaxPartitionBytes 1 MiB
    -> 10 MiB grows every decompressed term ten times (231 MB -> 1.91 GB is x8.3). #2437 (one
    broker): a 50 MiB response held about three times is over the 128 MB container; at
    fetch_max_bytes 10 MiB about 46 MiB."""
    gate = {"queued.max.messages.kbytes": 10000}
    small, large = librdkafka_memory_bound(100, 3, gate), librdkafka_memory_bound(1000, 3, gate)
    assert 0 < large.bound_bytes - small.bound_bytes < 100_000
    assert dict(large.terms)["messages' ops"] == (9765 + 3 * 10000) * 320
    low = franz_go_memory_bound(15, 3, max_batch_bytes=0, compression_ratio=2.0)
    high = franz_go_memory_bound(15, 3, {"FetchMaxPartitionBytes": 10 << 20}, max_batch_bytes=0,
                                 compression_ratio=2.0)
    assert dict(low.terms)["decompressed buffered fetches"] == 3 * (2.5 * 5 * MiB + 10240 * 220)
    assert dict(high.terms)["decompressed buffered fetches"] \
        == 10 * dict(low.terms)["decompressed buffered fetches"]
    assert kafka_python_memory_bound(1000, 1).bound_bytes > 128_000_000
    assert kafka_python_memory_bound(1000, 1, {"fetch_max_bytes": 10 << 20}).bound_bytes \
        == 48675840


def test_librdkafka_sizes_each_decompression_buffer_by_its_codecs_guess():
    """gzip and snappy size the output first; lz4 guesses 4x (at most message.max.bytes) and grows
    by 3/4; zstd without a content size guesses 2x and grows 3x; None takes the most."""
    assert [librdkafka_decompression_bytes(c, 4.0, 17000) for c in CODECS] == [4.0, 4.0, 4.0, 6.0]
    assert librdkafka_decompression_bytes(None, 4.0, 17000) == 6.0
    assert librdkafka_decompression_bytes("lz4", 3.0, 17000) == 4.0        # the guess holds it
    assert librdkafka_decompression_bytes("lz4", 4.5, 17000) == 7.0        # grown once
    assert librdkafka_decompression_bytes("lz4", 3.0, 300000) == 5.25      # guess capped at 1 MB
    assert librdkafka_decompression_bytes("zstd", 6.5, 17000) == 18.0      # 2 -> 6 -> 18
    with pytest.raises(ValueError, match=r"codec must be one of gzip, snappy, lz4, zstd or None "
                       r"\(any\): 'brotli'"):
        librdkafka_memory_bound(36, 3, compression_ratio=2.0, codec="brotli")


def test_librdkafka_compressed_counts_decompressed_batches_ops_and_batch_buffers():
    """36 partitions on 3 brokers, lz4 at 3:1, batches of 17,000 bytes and 50 records or more:
    the queue's 65,536,000 + 64,000 x 28 decompressed bytes at 4/3 per byte, 3 responses of
    12,582,912 + 777 + 640 in flight and their batches at 4 bytes a compressed byte, the head
    batch (4 x 17,000), (64,000 + 3 x 37,748) ops and ceil(177,244 / 50) + 4 batch buffers of
    640."""
    b = librdkafka_memory_bound(36, 3, max_batch_bytes=17000, compression_ratio=3.0,
                                record_bytes=1000, codec="lz4", batch_records=50)
    queued = min(100000, 65536000 // 1000)
    messages = queued + 3 * (3 * 12582912 // 1000)
    assert b.terms == (
        ("queue below its gates, decompressed", -(-(65536000 + queued * 28) * 4 // 3)),
        ("responses in flight", 3 * (12582912 + _frame(12, range(4, 17)) + 640)),
        ("responses' batches decompressed while parsed", 3 * 4 * 12582912),
        ("decompressed batch at the queue's head", 4 * 17000),
        ("messages' ops", messages * 320),
        ("decompressed batches' own buffers", (-(-messages // 50) + 4) * 640))
    worst = librdkafka_memory_bound(36, 3, max_batch_bytes=17000, compression_ratio=3.0,
                                    record_bytes=1000, codec="lz4")
    assert dict(worst.terms)["decompressed batches' own buffers"] \
        == (messages + 4) * 640  # each record a batch of its own


def test_franz_go_counts_what_the_application_holds_and_the_first_batch_exception():
    """The fetches a poll handed over stay reachable beside as many new ones; a response may
    carry one partition's whole batch beside the others' limits: 2 partitions on 1 broker at
    FetchMaxPartitionBytes 1,085 with batches of 16,445 bytes get responses of up to 2 x 16,445
    (the simulation's 16,445 + 1,085 = 17,530, which KIP-74's max(min(...), b) missed)."""
    b = franz_go_memory_bound(2, 1, {"FetchMaxPartitionBytes": 1085, "MaxConcurrentFetches": 0},
                              max_batch_bytes=16445)
    fetch = 2 * 16445 + _frame(2, range(4, 19)) + 8192 + (2 * 16445 // 1024) * 220
    assert b.terms == (("buffered or in-flight fetches", fetch),
                       ("fetches the application holds from its last poll", fetch))
    assert franz_go_memory_bound(36, 3, {"MaxConcurrentFetches": 2}).bound_bytes \
        == 2 * franz_go_memory_bound(36, 3, {"MaxConcurrentFetches": 1}).bound_bytes


def test_a_bound_counts_records_of_the_size_it_is_given():
    """Smaller records mean more librdkafka ops and franz-go Record structs; kafka-python's poll
    returns max_poll_records ConsumerRecords of that size; the sentence says which size it
    took."""
    for client, bound in BOUNDS.items():
        small, large = bound(36, 3, record_bytes=100), bound(36, 3, record_bytes=10000)
        if client == "kafka-python":
            assert large.bound_bytes - small.bound_bytes == 500 * (10000 - 100)
        else:
            assert small.bound_bytes > large.bound_bytes
        assert "records of 100 value bytes" in small.sentence
    with pytest.raises(ValueError, match=r"record_bytes must be an integer >= 1: 0"):
        franz_go_memory_bound(36, 3, record_bytes=0)
    with pytest.raises(ValueError, match=r"batch_records must be an integer >= 1: 0"):
        librdkafka_memory_bound(36, 3, batch_records=0)


def test_the_sentence_names_the_term_that_binds():
    """Each bound's sentence gives its bytes and its largest term, and reads as the Java
    answer's does (``sentence()``, ``rule``, ``lagging_bytes``)."""
    b = librdkafka_memory_bound(1000, 3)
    assert "responses in flight" in b.sentence and b.binding == "responses in flight"
    assert b.sentence() == str(b.sentence) and b.rule == "librdkafka"
    assert b.lagging and b.lagging_bytes == b.bound_bytes
    assert "buffered or in-flight fetches" in franz_go_memory_bound(1000, 3).sentence
    assert "held about twice" in kafka_python_memory_bound(1000, 3).sentence


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


def test_consumer_memory_bounds_answers_a_scenario_with_its_own_clients_bound():
    """``consumer_memory_bounds(scenario)`` on another client is that client's bound for the
    scenario's partitions, brokers, settings, compression and records (the scenario's workload),
    read as Java's (``bound_bytes``, ``rule``, ``sentence()``)."""
    from kipviz.kafka.consumer.memory import consumer_memory_bounds
    from kipviz.scenarios.consumer.scenario import ConsumerScenario
    from kipviz.scenarios.workload import Workload

    for client, settings in (("librdkafka", {"queued.max.messages.kbytes": 10000}),
                             ("franz-go", {"MaxConcurrentFetches": 2}),
                             ("kafka-python", {"fetch_max_bytes": 10 << 20})):
        s = ConsumerScenario(partitions=60, brokers=3, client=client, client_settings=settings,
                             compression_ratio=2.0, workload=Workload(record_bytes=500))
        got = consumer_memory_bounds(s, max_batch_bytes=70000)
        assert got == BOUNDS[client](60, 3, settings, max_batch_bytes=70000,
                                     compression_ratio=2.0, record_bytes=500)
        assert got.rule == client and got.sentence().startswith(f"{client} holds at most")
    assert consumer_memory_bounds(ConsumerScenario()).rule == "one response per broker"


def _growing(b: ClientMemoryBound) -> int:
    """A bound without librdkafka's fields of the full responses its queue holds: fewer, larger
    responses carry fewer fields, so that term alone may shrink."""
    return b.bound_bytes - (b.terms[0][1] if b.terms[0][0] == "queue below its gates" else 0)


@given(client_workloads())
def test_the_bound_is_monotone_and_at_least_one_response(workload):
    """More partitions or a larger per-partition limit never lowers the bound (but for the
    fields of librdkafka's queued responses, fewer as each grows), and the bound holds at least
    one response."""
    client, partitions, brokers, per_partition, ratio = workload
    bound = BOUNDS[client]
    base = bound(partitions, brokers, {PARTITION_KEY[client]: per_partition},
                 compression_ratio=ratio)
    more = bound(partitions + 1, brokers, {PARTITION_KEY[client]: per_partition},
                 compression_ratio=ratio)
    larger = bound(partitions, brokers, {PARTITION_KEY[client]: per_partition + 1},
                   compression_ratio=ratio)
    assert _growing(more) >= _growing(base)
    assert _growing(larger) >= _growing(base)
    one_response = max(min(52428800, -(-partitions // min(brokers, partitions)) * per_partition),
                       1048588)
    assert base.bound_bytes >= min(one_response, 52428800 if client != "librdkafka" else
                                   librdkafka_fetch_max_bytes())
