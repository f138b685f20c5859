"""The non-Java clients' memory probes without a cluster: their output lines parsed, a failing or
hanging probe stopped by its pid and named by its log, the Go probe's build error, and the
experiment's cases and predictions (``reality``-marked: one quick run on a real cluster)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kipviz.reality import processes
from kipviz.reality.experiments import clients as experiment
from kipviz.reality.jars import RealityError
from kipviz.reality.probes import clients as probes
from kipviz.reality.probes import pyclient


def test_probe_lines_are_the_json_objects_with_a_type_in_order():
    text = "\n".join([
        '%4|1767225600.000|CONFWARN|rdkafka#consumer-1| [thrd:app]: a librdkafka log line',
        '{"type": "start", "client": "librdkafka", "baseline_rss_bytes": 100}',
        '{"type": "sample", "poll": 0, "rss_bytes": 5}',
        '{"not": "a probe line"}',
        '{"type": "sample", "poll": 1, "rss_bytes": 9',   # cut short: left out
        "Traceback (most recent call last):",
        '  {"type": "summary", "peak_bytes": 9}  ',
    ])
    lines = probes.parse_probe_lines(text)
    assert [line["type"] for line in lines] == ["start", "sample", "summary"]
    assert probes.summary(lines)["peak_bytes"] == 9
    with pytest.raises(KeyError):
        probes.summary(lines[:2])


def _script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "probe.py"
    path.write_text(body)
    return [sys.executable, str(path)]


def test_a_probe_that_exits_with_an_error_raises_naming_its_log_and_its_error(tmp_path):
    cmd = _script(tmp_path, "import json, sys\nprint('a log line', file=sys.stderr)\n"
                            "print(json.dumps({'type': 'error', 'message': 'no broker'}))\n"
                            "sys.exit(1)\n")
    log = tmp_path / "logs" / "x-probe.log"
    with pytest.raises(RealityError) as e:
        probes.run_probe("x", cmd, log, timeout_s=30)
    assert str(log) in str(e.value) and "exit 1" in str(e.value)
    assert "no broker" in str(e.value)
    assert processes.running() == []


def test_a_probe_without_a_summary_fails_and_one_with_it_returns_its_lines(tmp_path):
    quiet = _script(tmp_path, "print('{\"type\": \"start\"}')\n")
    with pytest.raises(RealityError, match="no summary line"):
        probes.run_probe("x", quiet, tmp_path / "a.log", timeout_s=30)
    ok = tmp_path / "ok.py"
    ok.write_text("print('{\"type\": \"start\"}')\nprint('{\"type\": \"summary\", "
                  "\"peak_bytes\": 3}')\n")
    lines = probes.run_probe("x", [sys.executable, str(ok)], tmp_path / "b.log", timeout_s=30)
    assert probes.summary(lines)["peak_bytes"] == 3


def test_a_probe_that_outlives_its_timeout_is_stopped_by_its_pid(tmp_path):
    cmd = _script(tmp_path, "import time\nprint('started', flush=True)\ntime.sleep(60)\n")
    log = tmp_path / "slow.log"
    with pytest.raises(RealityError, match=r"did not finish in 0\.5 s") as e:
        probes.run_probe("slow", cmd, log, timeout_s=0.5)
    assert str(log) in str(e.value)
    assert processes.running() == []


def test_the_python_probe_reports_a_bad_config_as_an_error_line(tmp_path, capsys):
    assert pyclient.main([json.dumps({"client": "aiokafka"})]) == 1
    out = probes.parse_probe_lines(capsys.readouterr().out)
    assert out[-1]["type"] == "error" and "aiokafka" in out[-1]["message"]
    assert pyclient.rss_bytes() > 0


def test_the_python_probe_fails_through_the_runner_with_its_log(tmp_path):
    with pytest.raises(RealityError, match="kafka-python probe failed") as e:
        probes.run_kafka_python_probe("127.0.0.1:1", [("t", 0)], {"no_such_setting": 1},
                                      polls=1, sleep_ms=0, records_per_poll=1, timeout_s=60,
                                      log_dir=tmp_path)
    assert str(tmp_path / "kafka-python-probe.log") in str(e.value)


def test_the_go_probe_is_pinned_to_the_release_the_model_was_read_at():
    assert probes.franz_go_version() == experiment.MODEL_READ_AT["franz-go"] == "v1.21.5"


def test_a_go_build_failure_names_the_probe_its_log_and_the_first_error(tmp_path, monkeypatch):
    go = tmp_path / "go"
    go.write_text("#!/bin/sh\necho 'go: downloading github.com/x/y v1'\n"
                  "echo '# kipviz/franzgoprobe'\necho './main.go:12:2: undefined: kgo.Nope'\n"
                  "echo './main.go:13:2: second error'\nexit 1\n")
    go.chmod(0o755)
    monkeypatch.setenv("KIPVIZ_REALITY_CACHE", str(tmp_path / "cache"))
    with pytest.raises(RealityError) as e:
        probes.build_franz_go_probe(str(go))
    message = str(e.value)
    assert "franz-go probe (main.go" in message and "go-build.log" in message
    assert message.endswith("./main.go:12:2: undefined: kgo.Nope")


def test_the_cases_are_each_client_by_two_settings_by_two_codecs_and_franz_go_polling_all():
    assert len(experiment.CASES) == 13
    assert {(c, t) for c, _, _, t, _ in experiment.CASES} == {
        (c, t) for c in ("librdkafka", "franz-go", "kafka-python")
        for t in (experiment.PLAIN, experiment.LZ4)}
    assert [per for *_, per in experiment.CASES] == [experiment.RECORDS_PER_POLL] * 12 + [0]


def test_the_prediction_is_the_clients_own_bound():
    """For the case's records, largest batch, compression ratio, codec and fewest records a
    batch."""
    from kipviz.kafka.clients import franz_go_memory_bound, librdkafka_memory_bound

    facts = experiment.TopicFacts("t", 36, 150_000_000, 40_000_000, 17_000, 3.75, "lz4", 2)
    got = experiment.predict("librdkafka", 36, 3, {"queued.max.messages.kbytes": 10000}, facts)
    assert got == librdkafka_memory_bound(36, 3, {"queued.max.messages.kbytes": 10000},
                                          max_batch_bytes=17_000, compression_ratio=3.75,
                                          record_bytes=1000, codec="lz4", batch_records=2)
    assert experiment.predict("franz-go", 36, 3, {}, facts) == franz_go_memory_bound(
        36, 3, max_batch_bytes=17_000, compression_ratio=3.75, record_bytes=1000)


def test_the_compression_ratio_is_what_a_batchs_records_decompress_to(tmp_path):
    """Read from the segment file as the broker stored it: each lz4 batch's records
    decompressed, over its compressed records (12 + batchLength - 61); an uncompressed batch is
    skipped."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    def batch(codec: int, value: bytes, records: int) -> bytes:
        b = DefaultRecordBatchBuilder(magic=2, compression_type=codec, is_transactional=False,
                                      producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                      batch_size=1 << 20)
        for i in range(records):
            b.append(i, timestamp=1000, key=None, value=value, headers=[])
        return bytes(b.build())

    runs, text = batch(3, b"r" * 1000, 50), batch(3, bytes(range(256)) * 4, 10)
    (tmp_path / "00000000000000000000.log").write_bytes(runs + batch(0, b"x", 3) + text)
    ratios = experiment.lz4_batch_ratios(tmp_path)
    assert len(ratios) == 2 and ratios[0] > 50 > ratios[1] > 1
    assert ratios[0] == (50 * (1000 + 9)) / (len(runs) - 61)  # 9 bytes of framing a record


def test_todays_bounds_are_the_snapshots_predictions_and_no_measure_passed_one():
    """The committed snapshot (``data/reality/``): each client_memory row's bound, computed
    again from its setup, is what it printed, and the real client stayed under it on both
    releases."""
    from kipviz.reality.results import measured_rows

    rows = measured_rows("client_memory")
    assert {r.kafka_version for r in rows} == {"4.4.0", "3.9.2"}
    assert len(rows) == 2 * len(experiment.CASES)
    for r in rows:
        s = r.setup
        facts = experiment.TopicFacts(
            s["topic"], s["partitions"], s["value_bytes"], s["log_bytes"], s["max_batch_bytes"],
            s["compression_ratio"], "lz4" if s["compression"] == "lz4" else None,
            s["batch_records"])
        bound = experiment.predict(r.client.split()[0], s["partitions"], s["brokers"],
                                   s["settings"], facts)
        assert bound.bound_bytes == r.predicted, r.case
        assert 0 < r.measured <= r.predicted and r.verdict == "pass", r.case


@pytest.mark.reality
def test_one_quick_run_gives_a_row_per_client_with_a_measure(tmp_path):
    from kipviz.reality import KafkaCluster

    with KafkaCluster(brokers=3, workdir=tmp_path / "cluster") as cluster:
        rows = experiment.run(cluster, experiment.setup(cluster), quick=True)
    assert [r.client.split()[0] for r in rows] == ["librdkafka", "franz-go", "kafka-python"]
    assert all(r.measured > 0 and r.tolerance == "bound" for r in rows)
    assert [r.verdict for r in rows] == ["pass"] * 3
