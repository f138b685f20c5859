"""Lesson 7's package helpers: the exercises' checker and the "your cluster" advice."""

from __future__ import annotations

import pytest

from kipviz.apps.exercises import EXERCISES, check, question
from kipviz.apps.share_advice import share_group_advice
from kipviz.kafka.share.fetch import SharePartition, in_flight_bound_records


def test_each_exercise_accepts_its_answer_and_refuses_another():
    """The answers of lesson 7: 333,334 bytes, 3 consumers, 2,499 records."""
    answers = {("07", 1): 333_334, ("07", 2): 3, ("07", 3): 2499}
    assert set(answers) == {key for key in EXERCISES if key[0] == "07"}
    for (lesson, number), answer in answers.items():
        assert check(lesson, number, answer).ok
        verdict = check(lesson, number, answer + 1)
        assert not verdict and str(verdict).startswith("Not yet")
        assert question(lesson, number).endswith("?")


def test_an_exercise_that_does_not_exist_is_an_error():
    """Unknown lessons and numbers name what exists."""
    with pytest.raises(ValueError, match="no exercise 9 in lesson '07'"):
        check("07", 9, 1)
    with pytest.raises(ValueError, match="no exercise 1 in lesson '99'"):
        question("99", 1)


def test_the_in_flight_bound_is_what_a_share_partition_reaches():
    """A cap of 20 over batches of 10, 15 of them in flight: the next acquisition asks for 5 and
    takes the whole next batch, 25 in flight (Kafka's
    testAcquireWithMaxInFlightRecordsAndTryAcquireNewBatch), within 20 + 10 - 1."""
    sp = SharePartition([5, 10, 10, 10], max_in_flight_records=20)
    assert len(sp.acquire(1, fetch_offset=0, fetched_last_offset=14)) == 15
    sp.acquire(1, fetch_offset=15, max_fetch_records=500)
    assert sp.in_flight_records == 25 <= in_flight_bound_records(20, 10)
    with pytest.raises(ValueError, match=r"group.share.partition.max.record.locks\) must be an "
                                         r"integer >= 1"):
        in_flight_bound_records(0, 10)


def test_your_cluster_fills_in_the_formulas_from_a_properties_file(tmp_path):
    """A consumer.properties with share settings: the numbers follow; unknown keys are listed;
    a bad value names the setting."""
    path = tmp_path / "consumer.properties"
    path.write_text("max.poll.records=1000\ngroup.share.partition.max.record.locks=500\n"
                    "group.share.record.lock.duration.ms=10000\nbootstrap.servers=k:9092\n")
    text = share_group_advice(path, partitions=2, consumers=8, batch_records=50)
    assert "up to 4 consumers" in text and "leave 6 of 8 idle" in text
    assert "500 + 49 = 549 records" in text
    assert "about 1 leader(s) x max.poll.records x record size = 1,000,000 bytes" in text
    assert "after group.share.record.lock.duration.ms = 10,000 ms" in text
    assert "InFlightMessageCount" in text and "Not used here: bootstrap.servers" in text
    with pytest.raises(ValueError, match=r"'max\.poll\.records' must be an integer"):
        share_group_advice({"max.poll.records": "many"}, partitions=2, consumers=2)
    with pytest.raises(ValueError, match=r"'share\.acquire\.mode' must be one of"):
        share_group_advice({"share.acquire.mode": "fast"}, partitions=2, consumers=2)
    with pytest.raises(ValueError, match="partitions must be an integer >= 1"):
        share_group_advice({}, partitions=0, consumers=2)


def test_a_share_group_scenario_is_sweepable_and_summarised_like_the_curves():
    """``summarise`` reduces a share-group run: the peak one consumer holds (max.poll.records x
    record size), its fetch bound, Jain's index across share consumers (1.0 when none stalls,
    0.5 at worst with one of eight stalled: the curves' numbers) and the group's bytes/s."""
    from dataclasses import replace

    from kipviz.curves.summary import check_sweepable, summarise
    from kipviz.widgets.share_group import SHARE_LESSON_SCENARIO

    check_sweepable(SHARE_LESSON_SCENARIO)
    healthy = summarise(replace(SHARE_LESSON_SCENARIO, stalled_consumers=0))
    assert healthy["peak_memory_bytes"] == 100 * 1000
    assert healthy["bound_bytes"] == 52428800
    assert healthy["min_jain_index"] == pytest.approx(1.0)
    assert healthy["throughput_bytes_per_s"] == pytest.approx(3992 * 1000)
    stalled = summarise(SHARE_LESSON_SCENARIO)
    assert stalled["min_jain_index"] == pytest.approx(0.5)
    assert len(stalled["curve_jain_index"]) == 20
