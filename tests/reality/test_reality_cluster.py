"""A real Kafka on this machine: the smoke test of ``make test`` (one broker, one experiment end
to end) and the failures a user can meet (a broker that does not start), with no process left
behind, checked by pid. Runs after the parallel workers, alone (the Makefile's ALONE_TESTS): a
broker's JVM start is CPU-bound on two cores. The first run fetches Kafka's jars from Maven
Central into ``.venv/kipviz-reality`` (about 45 MB a release, 10-20 s); later runs reuse them.
"""

from __future__ import annotations

import socket
import time

import psutil
import pytest

from kipviz.reality import KafkaCluster, RealityError
from kipviz.reality.experiments import experiment
from kipviz.reality.processes import running
from kipviz.reality.request_log import fetch_exchanges

pytestmark = pytest.mark.reality


def _gone(pids: list[int]) -> bool:
    return not [p for p in pids if psutil.pid_exists(p)
                and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]


def test_one_broker_runs_the_kip74_experiment_end_to_end_and_leaves_nothing_running():
    responses = experiment("kip74_responses")
    started = time.monotonic()
    with KafkaCluster(brokers=1, kafka_version="4.4", request_log=True) as cluster:
        pids = cluster.pids
        assert len(pids) == 2 and cluster.broker_ids == [1]
        rows = responses.run(cluster, responses.setup(cluster), quick=True)
        # the broker's own account of each raw fetch: v4 (no session), its bytes as measured
        logged = fetch_exchanges(cluster.node(1).request_log, "kipviz-raw-fetch")
    assert rows and [r.case for r in rows if r.verdict != "pass"] == []
    assert logged and all(x.version == 4 and x.full for x in logged)
    partition_rows = [r.measured for r in rows if isinstance(r.measured, list)]
    assert [b for _, b in logged[0].response] == partition_rows[0]
    assert _gone(pids) and running() == []
    print(f"one broker, kip74 quick: {time.monotonic() - started:.1f} s")


def test_a_stopped_broker_starts_again_on_its_port_and_data():
    with KafkaCluster(brokers=1, kafka_version="3.9", request_log=True) as cluster:
        cluster.create_topic("kept", partitions=2)
        old = cluster.pids
        assert cluster.stop_broker(1) in (0, 143)
        cluster.start_broker(1)
        assert cluster.leaders("kept") == {0: 1, 1: 1}
        assert set(cluster.pids) != set(old)
        pids = cluster.pids
        # reload4j's request log (3.x): CreateTopics (api key 19) was logged before the stop
        assert '"requestApiKey":19,' in cluster.node(1).request_log.read_text()
    assert _gone(pids + old)


def test_a_broker_config_kafka_refuses_is_one_error_naming_the_broker_and_its_log(tmp_path):
    bad = KafkaCluster(brokers=1, kafka_version="4.4", workdir=tmp_path,
                       broker_config={"num.network.threads": "many"})
    with pytest.raises(RealityError, match=r"Kafka 4\.4\.0 broker 1: StorageTool format failed "
                                           r".*log .*format\.log.*num\.network\.threads"), bad:
        pass
    assert bad.pids == [] and running() == []


def test_a_port_in_use_is_one_error_naming_the_broker_its_log_and_the_cause(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        listener = f"PLAINTEXT://127.0.0.1:{port}"
        bad = KafkaCluster(brokers=1, kafka_version="3.9", workdir=tmp_path, start_timeout_s=60,
                           broker_config={"listeners": listener,
                                          "advertised.listeners": listener})
        with pytest.raises(RealityError, match=r"Kafka 3\.9\.2 broker 1 .*(in use|exited).*"
                                               r"\(log .*broker-1/server\.log\)"), bad:
            pass
    assert bad.pids == [] and running() == []
    assert (tmp_path / "broker-1" / "server.log").exists()  # kept for reading


def test_bad_arguments_name_the_setting_and_the_rule():
    with pytest.raises(ValueError, match="brokers must be an integer >= 1: 0"):
        KafkaCluster(brokers=0)
    with KafkaCluster(brokers=1, kafka_version="4.4") as cluster:
        with pytest.raises(ValueError, match=r"assignment must name brokers of \[1\]: \[7\]"):
            cluster.create_topic("t", assignment=[[7]])
        with pytest.raises(ValueError, match="broker_id must be one of"):
            cluster.stop_broker(5)
