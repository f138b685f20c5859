"""The table of bad inputs, by area: each one-line reproducer gives a clear error or warning
naming the setting (or, where the input is legal, a result), within seconds, never a hang.

Rows: ``(area, reproducer, expected, match)``. ``expected`` is an exception class (raised with
``match``), a warning class (warned with ``match``), ``EXIT_2`` (the command line exits 2 with
``match`` on stderr) or a predicate on the result. Dashboards, which need Spark, have their own
table in ``test_dashboard_errors.py``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from kipviz.apps.cli import main
from kipviz.curves.sweep import grid, sample, sweep
from kipviz.curves.sweep_cache import canonical_params, read_cached
from kipviz.kafka.config.advice import load_config
from kipviz.kafka.config.keys import KafkaConfigWarning, kafka_keys
from kipviz.kafka.config.properties import parse_properties
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.kafka.streams.memory import StreamsInstance
from kipviz.scenarios.broker.scenario import BrokerScenario
from kipviz.scenarios.broker.scenario import simulate as broker_simulate
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.limits import max_trace_bytes
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario
from kipviz.scenarios.share_group.scenario import ShareGroupScenario
from kipviz.scenarios.streams.scenario import StreamsScenario
from kipviz.scenarios.streams.scenario import simulate as streams_simulate
from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario
from kipviz.scenarios.workload import Workload, produce

# the timed reproducers run compiled kernels: compile them before the clock starts
pytestmark = pytest.mark.usefixtures("compiled_kernels")

EXIT_2 = "exit status 2"
SMALL = "partitions=10, ticks=100, windows=5"

TABLE: list[tuple[str, str, Any, str]] = [
    # --- scenarios: Java ranges and bools, at construction ---------------------------------
    ("scenario", "ConsumerScenario(fetch_min_bytes=10**30)", ValueError,
     r"fetch_min_bytes \(fetch\.min\.bytes\) must be an integer <= 2147483647 \(a Java int\)"),
    ("scenario", "ConsumerScenario(buffer_memory_bytes=2**63)", ValueError,
     r"buffer_memory_bytes \(buffer\.memory\) must be an integer <= 9223372036854775807 "
     r"\(a Java long\)"),
    ("scenario", "ConsumerScenario(version=10**30)", ValueError,
     r"version \(fetch request version\) must be an integer <= 32767 \(a Java short\)"),
    ("scenario", "ConsumerScenario(strict_pool='no')", ValueError,
     "strict_pool must be True or False: 'no'"),
    ("scenario", "ConsumerScenario(coordinator_bypass='no')", ValueError,
     "coordinator_bypass must be True or False: 'no'"),
    ("scenario", "ConsumerScenario(ticks=2**64)", ValueError,
     r"ticks must be an integer <= 9223372036854775807 \(a 64-bit integer\): 18446744073709551616"),
    ("scenario", "BrokerScenario(shuffle='no')", ValueError, "shuffle must be True or False"),
    ("scenario", "BrokerScenario(num_io_threads=2**31)", ValueError,
     r"num_io_threads \(num\.io\.threads\) must be an integer <= 2147483647 \(a Java int\)"),
    ("scenario", "StreamsScenario(global_thread='yes')", ValueError,
     "global_thread must be True or False"),
    ("scenario", "StreamsScenario(input_buffer_max_bytes=2**63)", ValueError,
     r"input\.buffer\.max\.bytes"),
    # --- sizes: estimated before allocating, named; no loop over idle brokers or threads ----
    ("size", "simulate(ConsumerScenario(partitions=10**9))", ValueError,
     "lower partitions=1000000000, ticks=1000"),
    ("size", "simulate(ConsumerScenario(ticks=10**12))", ValueError, "ticks=1000000000000"),
    ("size", "simulate(ConsumerScenario(workload=Workload(initial_lag_bytes=2**40)))",
     ValueError, "workload.initial_lag_bytes=1099511627776"),
    ("size", "produce(Workload(initial_lag_bytes=10**15), 10, 100, 10, seed=0)", ValueError,
     "lower partitions=10, ticks=100, workload.produce_bytes_per_s=.*"
     "workload.initial_lag_bytes=1000000000000000"),
    ("size", "produce(Workload(profile='bursts', burst_multiplier=1e12), 100, 1000, 10, seed=0)",
     ValueError, "workload.burst_multiplier=1000000000000"),
    ("size", "simulate(ConsumerScenario(partitions=10**5, ticks=10**5), record_fetches=True)",
     ValueError, "record_fetches=True"),
    ("size", "broker_simulate(BrokerScenario(connections=10**7, ticks=10**6))", ValueError,
     "lower connections=10000000, ticks=1000000"),
    ("size", "streams_simulate(StreamsScenario(tasks=10**6, ticks=10**5))", ValueError,
     "lower tasks=1000000"),
    ("size", f"simulate(ConsumerScenario(brokers=10**9, {SMALL}), record_fetches=False)",
     lambda trace: trace.meta["brokers"] == 10**9, ""),
    ("size", "broker_simulate(BrokerScenario(num_io_threads=2**31 - 1, connections=5, "
             "ticks=100))", lambda trace: len(trace.requests) > 0, ""),
    ("size", "ReassignmentScenario(replication_quota_window_num=2**31 - 1)", ValueError,
     "lower ticks=2000, partitions=1, replication_quota_window_num=2147483647"),
    ("size", f"simulate(ConsumerScenario({SMALL}), seed=2**64)", ValueError,
     "seed must be an integer >= 0 and <= 4294967295: 18446744073709551616"),
    ("size", "with_env('KIPVIZ_MAX_TRACE_BYTES', 'lots', max_trace_bytes)", ValueError,
     "KIPVIZ_MAX_TRACE_BYTES must be a number of bytes: 'lots'"),
    ("size", f"with_env('KIPVIZ_MAX_TRACE_BYTES', '1000', lambda: simulate("
             f"ConsumerScenario({SMALL})))", ValueError, r"above the limit .*"
                                                          r"KIPVIZ_MAX_TRACE_BYTES"),
    # --- infinite rates: refused (the model has no "unlimited" rate; a quota left out is
    # None, "no quota") -----------------------------------------------------------------------
    ("rate", "ConsumerScenario(consume_bytes_per_s=float('inf'))", ValueError,
     "consume_bytes_per_s must be a finite number: inf"),
    ("rate", "ConsumerScenario(network_bytes_per_s=float('inf'))", ValueError,
     "network_bytes_per_s must be a finite number: inf"),
    ("rate", "BrokerScenario(handler_bytes_per_s=float('inf'))", ValueError,
     "handler_bytes_per_s must be a finite number: inf"),
    ("rate", "ShareGroupScenario(process_records_per_s=float('inf'))", ValueError,
     "process_records_per_s must be a finite number: inf"),
    ("rate", "TieredFetchScenario(remote_read_bytes_per_s=float('inf'))", ValueError,
     "remote_read_bytes_per_s must be a finite number: inf"),
    # --- workload -------------------------------------------------------------------------
    ("workload", "Workload(record_bytes=100.5)", ValueError,
     "record_bytes must be an integer: 100.5"),
    ("workload", "Workload(initial_lag_bytes='8MiB')", ValueError,
     "initial_lag_bytes must be an integer"),
    ("workload", "Workload(produce_bytes_per_s=float('nan'))", ValueError,
     "produce_bytes_per_s must be a number: nan"),
    ("workload", "Workload(zipf_s=1e300)", ValueError,
     r"zipf_s must be a number >= 0 and <= 10: 1e\+300"),
    ("workload", "Workload(fast_to_slow_ratio=1e300)", ValueError,
     r"fast_to_slow_ratio must be a number >= 1 and <= 1000000(\.0)?: 1e\+300"),
    # --- Streams topic names, as Kafka's Topic.validate checks them -------------------------
    ("streams", "StreamsScenario(topic='bad topic!')", ValueError,
     r"topic: topic name 'bad topic!' is illegal, it contains a character other than ASCII"),
    ("streams", "StreamsScenario(topic='t' * 248, topics=2)", ValueError,
     "topic: topic name must be at most 249 characters long: 250 characters"),
    ("streams", "StreamsInstance(topic='x' * 300)", ValueError,
     "topic: topic name must be at most 249 characters long: 300 characters"),
    # --- Kafka configs --------------------------------------------------------------------
    ("config", "ConsumerConfig.from_properties({'fetch.max.byte': '1'})", KafkaConfigWarning,
     r"did you mean 'fetch\.max\.bytes'.*supplied but are not used yet"),
    ("config", "BrokerConfig.from_properties({'log.retention.hour': '1'})", KafkaConfigWarning,
     r"did you mean 'log\.retention\.hours'.*a broker ignores it without a word"),
    ("config", "ConsumerConfig.from_properties({'fetch.max.byte': '1'}, strict=True)",
     ValueError, r"unknown consumer config 'fetch\.max\.byte'"),
    ("config", "BrokerConfig.from_properties({k: '1' for k in KAFKA_4_BROKER_KEYS}, "
               "kafka_version='4.1', strict=True).ignored",
     lambda ignored: set(ignored) == set(KAFKA_4_BROKER_KEYS), ""),
    ("config", "ConsumerConfig(fetch_min_bytes=10**30)", ValueError,
     r"fetch_min_bytes \(fetch.min.bytes\) must be an integer <= 2147483647 \(a Java int\)"),
    ("config", "ConsumerConfig.from_properties({'fetch.max.bytes': '1e6'})", ValueError,
     r"fetch_max_bytes \(fetch\.max\.bytes\) must be an integer: '1e6'"),
    ("config", "parse_properties('fetch.max.bytes=\\\\u00zz')", ValueError,
     r"malformed \\uxxxx escape"),
    ("config", "load_config(ConsumerConfig, TMP)",
     lambda result: result[0] is None and "is a directory" in result[1][0], ""),
    ("config", "load_config(BrokerConfig, BAD_ESCAPE)",
     lambda result: result[0] is None and "malformed" in result[1][0], ""),
    ("config", "kafka_keys('broker', '5.0')", ValueError, "kafka_version must be one of"),
    # --- the command line -----------------------------------------------------------------
    ("cli", "main(['run', '--config', str(TMP), '--out', str(TMP / 'p.html')])", EXIT_2,
     "is a directory"),
    ("cli", "main(['run', '--config', str(CONFIG), '--out', str(BLOCKER / 'p.html')])",
     EXIT_2, "--out"),
    ("cli", "main(['run', '--config', str(CONFIG), '--out', 'p.html', '--seed', str(2**64)])",
     EXIT_2, "--seed: must be an integer >= 0 and <= 4294967295"),
    ("cli", "main(['run', '--config', str(CONFIG), '--out', 'p.html', '--lag', '-5m'])",
     EXIT_2, "--lag: not a size: '-5m' must not be negative"),
    ("cli", "main(['run', '--config', str(CONFIG), '--out', str(TMP / 'p.html'), "
            "'--brokers', '0'])", EXIT_2, "brokers must be an integer >= 1: 0"),
    # --- sweeps and their cache ------------------------------------------------------------
    ("sweep", "grid(ConsumerScenario(), fetch_max_bytes=5)", ValueError,
     r"fetch_max_bytes must be a list of values \(one axis of the grid\): 5"),
    ("sweep", "sample(ConsumerScenario(), 3, fetch_max_bytes='1MiB')", ValueError,
     "fetch_max_bytes must be a list of values"),
    ("sweep", "sweep(None, [ConsumerScenario()], cache_dir=BLOCKER)", ValueError,
     r"cache_dir must be a folder \(or a path where one can be made\), not a file: '.*blocker'"),
    ("cache", "read_cached(BLOCKER, 'key', ConsumerScenario())", lambda row: row is None, ""),
    ("cache", "canonical_params(ConsumerScenario(fetch_max_bytes=np.int64(1048576)))",
     lambda text: text == canonical_params(ConsumerScenario(fetch_max_bytes=1048576)), ""),
]

KAFKA_4_BROKER_KEYS = ("share.coordinator.state.topic.replication.factor",
                       "share.coordinator.state.topic.min.isr", "log.preallocate",
                       "log.cleaner.min.cleanable.ratio")


def with_env(name: str, value: str, call: Any) -> Any:
    """``call()`` with the environment variable ``name`` set to ``value``."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        return call()
    finally:
        if old is None:
            del os.environ[name]
        else:
            os.environ[name] = old


@pytest.fixture
def namespace(tmp_path: Path) -> dict[str, Any]:
    import numpy as np

    config = tmp_path / "consumer.properties"
    config.write_text("fetch.max.bytes=1048576\n")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder\n")
    bad_escape = tmp_path / "server.properties"
    bad_escape.write_text("fetch.max.bytes=\\u00zz\n")
    names = {"load_config": load_config, "main": main, "BrokerConfig": BrokerConfig,
             "ConsumerConfig": ConsumerConfig, "parse_properties": parse_properties,
             "kafka_keys": kafka_keys, "BrokerScenario": BrokerScenario,
             "broker_simulate": broker_simulate, "ConsumerScenario": ConsumerScenario,
             "simulate": simulate, "max_trace_bytes": max_trace_bytes,
             "StreamsScenario": StreamsScenario, "streams_simulate": streams_simulate,
             "canonical_params": canonical_params, "read_cached": read_cached,
             "Workload": Workload, "produce": produce, "grid": grid, "sample": sample,
             "sweep": sweep, "StreamsInstance": StreamsInstance,
             "ReassignmentScenario": ReassignmentScenario,
             "ShareGroupScenario": ShareGroupScenario,
             "TieredFetchScenario": TieredFetchScenario, "with_env": with_env,
             "KAFKA_4_BROKER_KEYS": KAFKA_4_BROKER_KEYS}
    return {**names, "np": np, "TMP": tmp_path, "CONFIG": config, "BLOCKER": blocker,
            "BAD_ESCAPE": bad_escape}


@pytest.mark.parametrize(("area", "reproducer", "expected", "match"), TABLE,
                         ids=[f"{row[0]}: {row[1][:60]}" for row in TABLE])
def test_a_bad_input_gets_a_clear_answer_within_seconds(namespace, capsys, monkeypatch, area,
                                                        reproducer, expected, match):
    """The reproducer answers as the table says, naming the setting, in under 20 seconds."""
    monkeypatch.chdir(namespace["TMP"])
    start = time.perf_counter()
    if expected == EXIT_2:
        try:
            status = eval(reproducer, namespace)
        except SystemExit as stop:  # argparse's own errors
            status = stop.code
        err = capsys.readouterr().err
        assert status == 2 and match in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1, err
    elif isinstance(expected, type) and issubclass(expected, Warning):
        with pytest.warns(expected, match=match):
            eval(reproducer, namespace)
    elif isinstance(expected, type):
        with pytest.raises(expected, match=match):
            eval(reproducer, namespace)
    else:
        assert expected(eval(reproducer, namespace))
    assert time.perf_counter() - start < 20, f"{area}: {reproducer} took too long"
