"""kipviz.reality without a cluster: the committed snapshot against today's model, the rows'
verdicts, the segment reader on bytes of Kafka's format, and bad input.

The snapshot (``data/reality/results.jsonl``, written by ``make reality`` on a real cluster) is
what the README and the lessons show; each of its rows keeps the inputs kipviz predicted from,
so a change to a rule that moves a prediction away from what the real broker measured fails here
at once, without a cluster.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from kipviz.reality.experiments import EXPERIMENTS, experiment
from kipviz.reality.jars import RELEASES, release
from kipviz.reality.results import Row, read_rows, table, verdict
from kipviz.reality.wire import log_batches

SNAPSHOT = Path(__file__).resolve().parents[2] / "data" / "reality" / "results.jsonl"


def _snapshot() -> list[Row]:
    return read_rows(SNAPSHOT)


def test_the_snapshot_covers_every_experiment_on_both_releases_and_every_row_passed():
    rows = _snapshot()
    assert {r.experiment for r in rows} == set(EXPERIMENTS)
    assert {r.kafka_version for r in rows} == {rel.version for rel in RELEASES.values()}
    assert [r.case for r in rows if r.verdict != "pass"] == []


def test_todays_model_predicts_what_the_snapshot_measured_on_the_real_broker():
    """Each KIP-74 row predicted again from its stored batches equals the real response: the
    bytes of each partition, and the whole response's size with its own fields
    (kipviz.kafka.fetch.frame)."""
    rows = [r for r in _snapshot() if r.experiment == "kip74_responses"]
    assert len(rows) >= 100
    responses = experiment("kip74_responses")
    for r in rows:
        parts = responses.predict(r.setup, r.extra["model_version"])
        if r.case.endswith(": response size"):
            assert responses.predict_size(r.setup, parts) == r.measured, r.case
        else:
            assert parts == r.measured, r.case


def test_no_measured_consumer_exceeded_the_bound_kipviz_prints_for_it():
    """Every consumer_memory bound row: measured <= predicted, and the prediction made again
    from the row's setup with today's rules is the same number (a rule that moved it fails
    here, without a cluster). Several rows reach the bound to the byte."""
    rows = [r for r in _snapshot() if r.experiment == "consumer_memory"
            and r.case.endswith(": bound")]
    assert len(rows) >= 16
    memory = experiment("consumer_memory")
    for r in rows:
        assert r.measured <= r.predicted, r.case
        assert memory.predict_bound(r.setup, r.extra["model_version"]) == r.predicted, r.case
    assert any(r.measured == r.predicted for r in rows)


def test_a_drained_response_was_seen_beside_a_new_one_on_4_4():
    """The correction the measurements forced: on 4.4 a drained CompletedFetch stays next in
    line while a new response to its broker lands (FetchCollector, FetchBuffer)."""
    rows = [r for r in _snapshot() if r.experiment == "consumer_memory"
            and r.kafka_version == "4.4.0" and r.case.endswith(": bound")]
    assert any(r.extra["drained_next_in_line_beside_another"] for r in rows)
    one_broker = [r for r in rows if r.setup["brokers"] == 1 and not r.setup["paused"]]
    assert all(r.extra["most_responses_held"] == 2 for r in one_broker)


def test_the_first_batch_exception_was_measured_both_ways():
    rows = {r.case: r for r in _snapshot() if r.kafka_version == "4.4.0"}
    first = rows["3 MiB record first (the first-batch exception returns it whole)"]
    assert first.measured[0] > first.setup["fetch.max.bytes"] and first.measured[1:] == [0, 0]
    after = rows["3 MiB record after a partition that returned bytes (returned empty)"]
    assert after.measured[1] == 0 and after.measured[0] > 0


def test_the_partition_order_rows_are_predicted_again_from_their_batches():
    """Each partition_order row's responses made again from the batches the brokers stored,
    with today's rules, are what the broker logged, partition by partition and byte by byte;
    and the measurement shows the lesson: 3.9's hash order without sessions starves the
    partitions at the back for many responses, 4.4's move-to-end reaches all eight within the
    first four, and with sessions both releases rotate alike."""
    order = experiment("partition_order")
    rows = [r for r in _snapshot() if r.experiment == "partition_order"]
    assert len(rows) == 12
    for r in rows:
        if r.case.endswith("every response, partition and bytes"):
            predicted = order.predict(r.setup, r.setup["batches"], r.extra["model_version"],
                                      r.setup["fetch_sessions"])
            assert [",".join(f"{p}:{b}" for p, b in x) for x in predicted] == r.measured, r.case
    first = {(r.kafka_version, r.setup["fetch_sessions"]): r.measured for r in rows
             if "first carried" in r.case}
    assert max(first[("3.9.2", False)]) > 4 * max(first[("4.4.0", False)])
    assert max(first[("4.4.0", False)]) <= 4
    assert first[("3.9.2", True)] == first[("4.4.0", True)]
    assert all(r.extra["forgotten_partitions"] == 0 for r in rows)


def test_a_broker_request_log_line_reads_as_one_fetch_and_its_response(tmp_path):
    """The shape kafka.request.logger writes (4.4.0, fetch v18, as logged in a real run);
    other requests and other clients are left out."""
    from kipviz.reality.request_log import fetch_exchanges

    fetch = ('Completed request:{"isForwarded":false,"requestHeader":{"requestApiKey":1,'
             '"requestApiVersion":18,"correlationId":10,"clientId":"kipviz-probe",'
             '"requestApiKeyName":"FETCH"},"request":{"maxWaitMs":500,"minBytes":1,'
             '"maxBytes":50000,"isolationLevel":0,"sessionId":25124113,"sessionEpoch":1,'
             '"topics":[{"topicId":"B_CpAYKDQhGlmJ8rJuRVsA","partitions":[{"partition":12,'
             '"fetchOffset":16,"partitionMaxBytes":20000},{"partition":14,"fetchOffset":16,'
             '"partitionMaxBytes":20000}]}],"forgottenTopicsData":[{"topicId":'
             '"B_CpAYKDQhGlmJ8rJuRVsA","partitions":[4]}],"rackId":""},"response":'
             '{"throttleTimeMs":0,"errorCode":0,"sessionId":25124113,"responses":[{"topicId":'
             '"B_CpAYKDQhGlmJ8rJuRVsA","partitions":[{"partitionIndex":12,"errorCode":0,'
             '"highWatermark":200,"recordsSizeInBytes":20000},{"partitionIndex":14,'
             '"errorCode":0,"highWatermark":200,"recordsSizeInBytes":0}]}]},'
             '"totalTimeMs":21.957}')
    other = fetch.replace('"clientId":"kipviz-probe"', '"clientId":"broker-2-fetcher-0"')
    metadata = fetch.replace('"requestApiKey":1,', '"requestApiKey":3,')
    log = tmp_path / "requests.log"
    log.write_text("\n".join(["[2026-12-02] INFO not a request", fetch, other, metadata]) + "\n")
    [x] = fetch_exchanges(log, "kipviz-probe")
    assert (x.session_id, x.session_epoch, x.full) == (25124113, 1, False)
    assert (x.requested, x.forgotten) == ((12, 14), (4,))
    assert x.response == ((12, 20000), (14, 0)) and x.returned == ((12, 20000),)


def test_a_node_config_for_a_broker_the_cluster_lacks_is_refused():
    from kipviz.reality.cluster import KafkaCluster

    with pytest.raises(ValueError, match=r"node_config's keys must be broker ids, 1 to 2: \[3\]"):
        KafkaCluster(brokers=2, node_config={3: {"max.incremental.fetch.session.cache.slots": 0}})


def test_verdicts_follow_the_stated_tolerance_and_never_widen_it():
    assert verdict("exact", [1, 2], [1, 2]) == "pass"
    assert verdict("exact", [1, 2], [1, 3]) == "fail"
    assert verdict("bound", 100, 100) == "pass" and verdict("bound", 100, 101) == "fail"
    assert verdict("within 20%", 120, 100) == "pass"
    assert verdict("within 20%", 121, 100) == "fail"
    assert verdict("within 20% of the range", [75, 100], 70) == "pass"
    assert verdict("within 20% of the range", [75, 100], 130) == "fail"
    assert verdict("within 20% of the range", [75, 100], 60) == "fail"
    with pytest.raises(ValueError, match="tolerance must be one of"):
        verdict("roughly", 1, 1)


def test_the_table_has_a_line_per_row():
    rows = _snapshot()
    assert len(table(rows).splitlines()) == len(rows) + 2


def _batch(base_offset: int, records_bytes: int) -> bytes:
    """A record batch's bytes as Kafka lays them out (v2): baseOffset, batchLength, then the
    49 header bytes after it (lastOffsetDelta at byte 23) and the records."""
    body = bytearray(49 + records_bytes)
    struct.pack_into(">i", body, 23 - 12, 4)  # lastOffsetDelta: 5 records
    return struct.pack(">qi", base_offset, len(body)) + bytes(body)


def test_log_batches_reads_sizes_and_offsets_and_stops_at_a_torn_tail(tmp_path):
    part = tmp_path / "t-0"
    part.mkdir()
    (part / "00000000000000000000.log").write_bytes(
        _batch(0, 100) + _batch(5, 300) + _batch(10, 50)[:40])
    (part / "00000000000000000010.log").write_bytes(_batch(10, 7))
    got = log_batches(part)
    assert [(b.base_offset, b.last_offset, b.size_bytes) for b in got] == [
        (0, 4, 161), (5, 9, 361), (10, 14, 68)]


def test_a_release_kipviz_does_not_run_is_refused_naming_the_rule():
    assert release("3.9").version == "3.9.2" and release("4.4").version == "4.4.0"
    with pytest.raises(ValueError, match=r"kafka_version must be one of 4\.4, 3\.9"):
        release("4.1")


def test_an_unknown_experiment_is_refused():
    with pytest.raises(ValueError, match="experiment must be one of"):
        experiment("kip99")


def test_the_cli_refuses_bad_input_in_one_line_with_status_2(capsys):
    from kipviz.apps.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["reality", "--kafka-version", "2.8"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--kafka-version" in err


def test_a_cluster_id_is_a_kafka_uuid_that_never_reads_as_an_option(monkeypatch):
    """22 URL-safe base64 characters, drawn again when the first is "-" (Kafka's
    Uuid.randomUuid does the same): StorageTool's -t took one such id for an option."""
    import uuid as uuid_module

    from kipviz.reality import nodes

    draws = iter([uuid_module.UUID(bytes=b"\xf8" + bytes(15)), uuid_module.UUID(int=7)])
    monkeypatch.setattr(nodes.uuid, "uuid4", lambda: next(draws))
    got = nodes.cluster_id()
    assert len(got) == 22 and not got.startswith("-") and got == "AAAAAAAAAAAAAAAAAAAABw"
