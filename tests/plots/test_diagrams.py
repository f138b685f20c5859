"""Each lesson's static diagram is drawn from the package's mechanisms on a tiny example."""

from __future__ import annotations

import pytest

from kipviz.plots.diagrams import DIAGRAMS, diagram, example

MiB = 1024 * 1024


def test_every_numbered_lesson_has_a_diagram_with_data_and_a_title():
    """Lessons 01 to 09 each draw a one-panel figure whose traces all carry data."""
    assert sorted(DIAGRAMS) == [f"{n:02d}" for n in range(1, 10)]
    for lesson in DIAGRAMS:
        fig = diagram(lesson)
        assert fig.layout.title.text, lesson
        assert fig.data and all(len(t.z if t.type == "heatmap" else t.x) for t in fig.data), lesson
        assert fig.layout.height <= 360 and fig.layout.width is None, lesson  # the cell's width


def test_lesson_1_fills_in_request_order_and_c_gets_nothing():
    """1 MiB response, 512 KiB per partition: A and B take 512 KiB each (400 and 300 KiB of whole
    batches, the rest a partial batch), which fills the response, so C gets nothing."""
    t = example("01")
    assert t.raw_kib.tolist() == [512, 512, 0]
    assert t.whole_batches_kib.tolist() == [400, 300, 0]
    assert t.raw_kib.sum() == t.fetch_max_kib[0]


def test_lesson_2_the_non_strict_pool_goes_negative_by_less_than_one_request():
    """A 10 MiB pool takes a third 4 MiB request with 2 MiB free (available -2 MiB), refuses the
    next while nothing is free, and can never go below -(4 MiB - 1 byte)."""
    t = example("02")
    assert t.available_mib.tolist() == [6, 2, -2, -2, 2, -2]
    assert t.done.tolist() == [True, True, True, False, True, True]
    assert t.lowest_mib[0] == pytest.approx(-(4 * MiB - 1) / MiB)
    assert (t.available_mib > t.lowest_mib).all()


def test_lesson_3_bounds_a_lagging_consumer_by_version_and_by_kip_81():
    """100 partitions x 1 MiB and the 10 MiB response being drained on 3.9, buffer.memory + one
    response - 1 byte, 3 x 10 MiB and the drained 10 MiB response still next in line on 4.x;
    each response held also carries its own fields (under 0.2 MiB in all)."""
    bounds = example("03").bound_mib.tolist()
    assert bounds == pytest.approx([110, (26 * MiB - 1) / MiB, 40], abs=0.2)
    assert bounds[0] > 110 and bounds[2] > 40


def test_lesson_4_sends_only_while_the_measured_rate_is_within_the_throttle():
    """The leader sends a chunk exactly when the rate measured before it is within 10 MB/s, and
    over the run the rate settles within one 2 MB chunk per window of the throttle."""
    t = example("04")
    sent = t.sent_mb > 0
    assert sent.iloc[0] and not sent.all()
    assert (sent == (t.rate_before_mb_per_s <= 10)).all()
    assert t.measured_mb_per_s.iloc[-10:].between(10, 12).all()


def test_lesson_5_pauses_above_the_threshold_and_resumes_back_at_it():
    """buffered.records.per.partition = 5: paused whenever the queue holds more than 5 records,
    resumed in the round it is back at exactly 5 (StreamTask.process)."""
    t = example("05")
    assert (t.paused == (t.queue_records > 5)).all()
    assert t.queue_records.max() == 8


def test_lesson_6_heatmap_is_the_4x_bound_over_the_grid():
    """min(3 brokers x fetch.max.bytes, partitions x 1 MiB) and the drained response still next
    in line (min(fetch.max.bytes, a broker's partitions x 1 MiB)) in every cell, with each
    response's own fields (under 0.1 MiB)."""
    t = example("06")
    expected = [min(3 * f, p) + min(f, -(-p // 3))
                for f, p in zip(t.fetch_max_mib, t.partitions, strict=True)]
    assert t.bound_mib.tolist() == pytest.approx(expected, abs=0.1)


def test_lesson_7_expired_locks_are_acquired_again_with_a_higher_delivery_count():
    """Three consumers take one batch each; after the locks expire consumer 2 takes offsets 0-4
    again, delivered twice."""
    t = example("07")
    last = t[t.step.str.startswith("5.")]
    assert last.owner.tolist()[:6] == [2, 2, 2, 2, 2, 0]
    assert last.delivery_count.tolist()[:6] == [2, 2, 2, 2, 2, 1]
    third = t[t.step.str.startswith("3.")]
    assert third.owner.tolist()[:16] == [1] * 5 + [2] * 5 + [3] * 5 + [0]


def test_lesson_8_reads_one_remote_partition_before_4_2_and_charges_them_from_4_2():
    """4.1 reads only B of the remote B and C and charges it nothing, so D still fits; 4.2 reads
    both, charges each 1 MiB up front, and the 3 MiB limit leaves no room for D
    (KAFKA-14915, KAFKA-19462)."""
    t = example("08").pivot(index="partition", columns="kafka_version", values="mib")
    assert t["4.1"].tolist() == [1, 1, 0, 1]
    assert t["4.2"].tolist() == [1, 1, 1, 0]


def test_lesson_9_adds_up_each_clients_bound_from_its_terms():
    """1,000 partitions on 3 brokers, 4:1, records of 1,024 bytes: librdkafka's three responses
    in flight (3 x (50 MiB + 14,301 bytes of fields + 640 of buffer)), and franz-go's three 50 MiB
    fetches decompressed (x 4, rounded up by Go by a quarter, 153,600 records of 220 bytes each)
    twice, buffered and polled, beside their wire buffers."""
    t = example("09")
    assert t[t.term == "responses in flight"].mib.tolist() \
        == [3 * (52428800 + 14301 + 640) / 2**20]
    fetch = 1.25 * 4 * 52428800 + 204800 * 220
    assert t[t.client == "franz-go"].mib.sum() == pytest.approx(
        (3 * (52428800 + 14301 + 8192) + 6 * fetch) / 2**20)


@pytest.mark.parametrize("lesson", [0, "10", "tour"])
def test_an_unknown_lesson_is_named(lesson):
    """Only lessons 01 to 09 have a diagram; the error lists them."""
    with pytest.raises(ValueError, match=r"no diagram for lesson .*; there are"):
        diagram(lesson)
