"""The broker's request pool by Kafka release (issue 28): KAFKA-20302's invalid-request buffer on
Kafka's ``SocketServerMemoryPoolTest``, the size check before the pool (a TLS handshake sent to a
PLAINTEXT listener), and the broker scenario's answers by release."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from kipviz.kafka.broker.receive import (
    TLS_HANDSHAKE_SIZE_BYTES,
    receive_size_refused,
    releases_invalid_request_buffer,
)
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.versions import BEHAVIOURS
from kipviz.scenarios.broker.scenario import BrokerScenario, generate_requests, simulate
from kipviz.scenarios.contract import input_rng
from tools.oracles.simpy_broker import simulate_simpy

# SocketServerMemoryPoolTest's broker: socket.request.max.bytes 50000, queued.max.request.bytes
# 100000; one connection sends one produce request of a 10,000-byte body that is invalid
MEMORY_POOL_TEST = BrokerScenario(connections=1, queued_max_request_bytes=100_000,
                                  socket_request_max_bytes=50_000, small_request_bytes=10_030,
                                  large_request_bytes=10_030,
                                  requests_per_s_per_connection=0.0, ticks=5)
ONE_INVALID = pd.DataFrame({"connection": [0], "arrival_ms": [0], "size_bytes": [10_030],
                            "invalid": [True]})


@pytest.mark.parametrize(("version", "available"), [("3.9", 100_000), ("4.0", 89_970),
                                                    ("4.1", 89_970), ("4.2", 100_000),
                                                    ("4.3", 100_000)])
def test_socket_server_memory_pool_test_by_branch(version, available):
    """``SocketServerMemoryPoolTest.testProduceRequestWithUnsupportedVersion`` / ``WithCorruptBody``
    (branches 4.3, 4.2 at 4.2.1, 3.9 at 3.9.3; absent on 4.0 and 4.1, whose
    ``processCompletedReceives`` lacks the fix): the pool's available memory is 100000 before and
    after the invalid request; on 4.0 and 4.1 it stays short by the request."""
    s = replace(MEMORY_POOL_TEST, kafka_version=version)
    trace = simulate(s, requests=ONE_INVALID)
    assert trace.ticks.pool_available_bytes.iloc[-1] == available
    assert trace.meta["invalid_requests"] == 1
    assert trace.meta["leaked_bytes"] == 100_000 - available
    assert releases_invalid_request_buffer(version) == (available == 100_000)


def test_without_a_pool_nothing_leaks():
    """``MemoryPool.NONE`` (the default): the buffer is the heap's, collected on any release."""
    s = replace(MEMORY_POOL_TEST, queued_max_request_bytes=-1, kafka_version="4.0")
    assert simulate(s, requests=ONE_INVALID).meta["leaked_bytes"] == 0


def test_a_tls_handshake_on_a_plaintext_listener_reads_as_352_mib():
    """``0x16030101`` as a size is 369,295,617 bytes: ``NetworkReceive`` refuses it under the
    default 100 MiB ``socket.request.max.bytes`` before allocating; at 500 MB it would try."""
    assert TLS_HANDSHAKE_SIZE_BYTES == 369_295_617 and TLS_HANDSHAKE_SIZE_BYTES / 2**20 > 352
    assert receive_size_refused(TLS_HANDSHAKE_SIZE_BYTES,
                                BROKER.default_of("socket.request.max.bytes"))
    assert not receive_size_refused(TLS_HANDSHAKE_SIZE_BYTES, 500_000_000)
    assert receive_size_refused(-1, 500_000_000)


def test_a_steady_trickle_of_invalid_requests_drains_a_4_1_pool_and_not_a_4_2_one():
    """5% invalid requests: on 4.1 the pool only shrinks, its channels end muted; on 4.2 it
    recovers. The generated workload is the same (the invalid flags are drawn last)."""
    s = BrokerScenario(connections=20, queued_max_request_bytes=2_000_000,
                       socket_request_max_bytes=1_000_000, small_request_bytes=20_000,
                       large_request_bytes=20_000, requests_per_s_per_connection=50.0, ticks=400,
                       invalid_share=0.05)
    old, new = (simulate(replace(s, kafka_version=v), seed=1) for v in ("4.1", "4.2"))
    assert old.meta["invalid_requests"] > 0 and new.meta["leaked_bytes"] == 0
    assert old.meta["leaked_bytes"] >= 2_000_000  # the pool is gone
    assert old.ticks.bytes_read.iloc[-50:].sum() == 0 < new.ticks.bytes_read.iloc[-50:].sum()
    base = simulate(replace(s, invalid_share=0.0), seed=1).requests
    assert base[["connection", "arrival_ms", "size_bytes"]].equals(
        new.requests[["connection", "arrival_ms", "size_bytes"]])


@pytest.mark.parametrize("version", ["4.1", "4.2"])
def test_the_simpy_program_agrees_on_invalid_requests(version):
    """The SimPy reference drops (and, by release, releases or leaks) invalid requests as the
    kernel does: every value of both tables."""
    s = BrokerScenario(connections=8, queued_max_request_bytes=200_000,
                       socket_request_max_bytes=100_000, small_request_bytes=5_000,
                       large_request_bytes=60_000, large_share=0.3, spike_start_ms=100,
                       spike_duration_ms=300, requests_per_s_per_connection=40.0,
                       num_io_threads=2, handler_bytes_per_s=5e6, ticks=120,
                       invalid_share=0.05, kafka_version=version)
    requests = generate_requests(s, input_rng(2))
    assert requests.invalid.any()
    ticks, table, _ = simulate_simpy(s, seed=2, requests=requests)
    trace = simulate(s, seed=2, requests=requests)
    assert ticks.equals(trace.ticks) and table.equals(trace.requests)


def test_the_invalid_request_rows_of_the_version_table():
    """KAFKA-20302's rows: 3.9 (3.9.3) until 4.0, and 4.2 (4.2.1) on."""
    rows = {b.name: (b.since, b.until) for b in BEHAVIOURS if b.area == "broker"}
    assert rows == {"request_memory_pool": ("1.0", None),
                    "invalid_request_buffer_released_3_9": ("3.9", "4.0"),
                    "invalid_request_buffer_released": ("4.2", None)}


def test_the_lesson_tables_by_release():
    """``size_check_table``: the TLS size refused under 100 MiB, not under 500 MB;
    ``invalid_request_table``: 4.1 never returns an invalid request's buffer, 4.2 does."""
    from kipviz.scenarios.broker.versions import invalid_request_table, size_check_table

    assert list(size_check_table()["refused before allocating"]) == [True, False]
    s = BrokerScenario(connections=8, queued_max_request_bytes=400_000,
                       socket_request_max_bytes=100_000, small_request_bytes=5_000,
                       large_request_bytes=5_000, requests_per_s_per_connection=40.0, ticks=100)
    table = invalid_request_table(s, ("4.1", "4.2"), invalid_share=0.05, seed=1)
    leaked = list(table["never returned MiB"])
    assert leaked[0] > 0 and leaked[1] == 0
