"""KIP-770's Streams input buffer rules (:mod:`kipviz.kafka.streams.input_buffer`): worked
numbers, bad input."""

from __future__ import annotations

import pytest
from hypothesis import given

from kipviz.kafka.streams.input_buffer import (
    BUFFERED_RECORDS_PER_PARTITION,
    INPUT_BUFFER_MAX_BYTES,
    STATESTORE_CACHE_MAX_BYTES,
    biggest_partitions_to_pause,
    fetch_bytes,
    partition_share_bytes,
    partitions_to_pause,
    pick_biggest_partitions,
    record_queue_pauses,
    record_queue_resumes,
    record_size_bytes,
    records_bound_bytes,
    resume_all_after_round,
    thread_bound_bytes,
    thread_cache_bytes,
    thread_share_bytes,
)
from tests.strategies import (
    buffered_partition_sizes,
    partition_sizes,
    share_bytes_per_thread,
    thread_shares,
)

HEADERS = [("h1", b"headerVal1"), ("h2", b"headerVal2")]  # 2 + 10 bytes each


def test_a_record_costs_key_value_timestamp_offset_topic_partition_and_headers():
    """Kafka's ClientUtilsTest numbers: key "key" (3), value "value" (5), topic "topic" (5),
    two headers of 12 bytes, 8 + 8 + 4 of metadata: 57 bytes; a null key 54, a null value 52."""
    assert record_size_bytes(3, 5, "topic", HEADERS) == 57
    assert record_size_bytes(0, 5, "topic", HEADERS) == 54
    assert record_size_bytes(3, 0, "topic", HEADERS) == 52
    assert record_size_bytes(0, 0, "t") == 21


def test_topic_and_header_keys_count_in_utf8_and_a_null_header_value_counts_nothing():
    """"é" is two bytes in UTF-8; a header with a null value costs its key only."""
    assert record_size_bytes(0, 0, "é") == 22
    assert record_size_bytes(1, 1, "t", [("ключ", None)]) == 23 + 8


def test_the_default_budget_is_split_evenly_between_the_threads():
    """512 MiB over 4 threads is 128 MiB each; a global thread takes a fifth share; an odd
    budget rounds down; with no stream thread the global thread keeps it all."""
    assert INPUT_BUFFER_MAX_BYTES == 536870912
    assert thread_share_bytes(INPUT_BUFFER_MAX_BYTES, 4) == 134217728
    assert thread_share_bytes(INPUT_BUFFER_MAX_BYTES, 4, global_thread=True) == 107374182
    assert thread_share_bytes(10, 3) == 3
    assert thread_share_bytes(100, 0, global_thread=True) == 100
    assert thread_share_bytes(0, 2) == 0


def test_the_shipped_cache_is_split_the_same_way():
    """statestore.cache.max.bytes (10 MiB) over 2 threads and a global one: 3495253 each."""
    assert STATESTORE_CACHE_MAX_BYTES == 10485760
    assert thread_cache_bytes(threads=2, global_thread=True) == 10485760 // 3 == 3495253
    assert thread_cache_bytes(threads=1) == 10485760


def test_a_thread_over_its_share_pauses_every_partition_holding_records():
    """Share 100: 60 + 0 + 50 = 110 > 100 pauses partitions 0 and 2, not the empty 1; at 100 or
    below nothing is paused."""
    assert partitions_to_pause([60, 0, 50], 100) == [0, 2]
    assert partitions_to_pause([60, 0, 40], 100) == []
    assert partitions_to_pause([], 0) == []


def test_a_pause_resume_sequence_under_the_byte_bound():
    """A thread with share 100 polls 120 bytes: paused. A round processing 10 bytes leaves 110:
    stays paused; a round processing 20 more leaves 90: resumed. A round that processed nothing
    resumes nothing, even within the share."""
    assert partitions_to_pause([70, 50], 100) == [0, 1]
    assert not resume_all_after_round(110, 100, processed_records=1)
    assert resume_all_after_round(90, 100, processed_records=2)
    assert not resume_all_after_round(90, 100, processed_records=0)
    assert resume_all_after_round(100, 100, processed_records=1)  # at the share is within it


def test_a_pause_resume_sequence_under_buffered_records_per_partition():
    """N = 3: 4 records pause the partition, processing back to 3 resumes it; 2 does not (the
    partition was resumed when it passed 3)."""
    assert not record_queue_pauses(3, 3)
    assert record_queue_pauses(4, 3)
    assert [record_queue_resumes(n, 3) for n in (4, 3, 2)] == [False, True, False]
    assert BUFFERED_RECORDS_PER_PARTITION == 1000 and record_queue_pauses(1001)


def test_the_rejected_alternatives_pause_fewer_partitions():
    """Per-partition shares: 100 // 3 = 33. Biggest first: 110 - 100 = 10 bytes over, so only
    the 60-byte partition; 150 - 100 = 50 over with 40, 40, 30, 40: two of the 40s (ties to the
    lower index)."""
    assert partition_share_bytes(100, 3) == 33
    assert biggest_partitions_to_pause([50, 0, 60], 100) == [2]
    assert biggest_partitions_to_pause([40, 40, 30, 40], 100) == [0, 1]
    assert biggest_partitions_to_pause([40, 40], 100) == []


def test_the_bounds_of_both_rules_on_worked_numbers():
    """1 MiB fetches: 1000-byte records fetch 1048 of them (1048000 bytes); a 2 MiB record
    still comes alone. Record bound, N = 1000: 1000 * 1000 + 1048000 per partition."""
    assert fetch_bytes(1000) == 1048000
    assert fetch_bytes(2 * 1048576) == 2 * 1048576
    assert fetch_bytes(100, 0) == 100
    assert thread_bound_bytes(10_000, [1000, 100]) == 10_000 + 1048000 + 1048500
    assert records_bound_bytes([1000, 1000]) == 2 * (1_000_000 + 1048000)
    assert records_bound_bytes([1000], buffered_records_per_partition=10,
                               max_partition_fetch_bytes=0) == 11_000


@given(partition_sizes, thread_shares)
def test_the_biggest_partitions_hold_the_excess_and_no_smaller_one_is_chosen(sizes, share):
    """The chosen partitions hold at least the excess, dropping the smallest chosen one would
    not, and every partition left out is no bigger than every chosen one."""
    chosen = biggest_partitions_to_pause(sizes, share)
    excess = sum(sizes) - share
    held = sum(sizes[i] for i in chosen)
    assert held >= excess
    if chosen:
        assert held - sizes[chosen[-1]] < excess
        assert max((sizes[i] for i in range(len(sizes)) if i not in chosen), default=0) \
            <= min(sizes[i] for i in chosen)
    assert all(sizes[i] > 0 for i in chosen)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: record_size_bytes(-1, 0, "t"), r"key_bytes must be an integer >= 0: -1"),
        (lambda: record_size_bytes(0, 1.5, "t"), r"value_bytes must be an integer: 1\.5"),
        (lambda: record_size_bytes(0, 0, ""), r"topic must be a non-empty string"),
        (lambda: record_size_bytes(0, 0, "t", [("k", "text")]),
         r"headers must be \(key: str, value: bytes or None\) pairs"),
        (lambda: thread_share_bytes(-1, 2),
         r"total_bytes \(input\.buffer\.max\.bytes or statestore\.cache\.max\.bytes\) must be "
         r"an integer >= 0: -1"),
        (lambda: thread_share_bytes(100, -1), r"threads \(num\.stream\.threads\) must be an "
                                              r"integer >= 0"),
        (lambda: thread_share_bytes(100, 1, global_thread=1), r"global_thread must be True"),
        (lambda: thread_cache_bytes(-5, 1),
         r"statestore_cache_max_bytes \(statestore\.cache\.max\.bytes\) must be an integer "
         r">= 0: -5"),
        (lambda: record_queue_pauses(5, 0),
         r"buffered_records_per_partition \(buffered\.records\.per\.partition\) must be an integer "
         r">= 1"),
        (lambda: partitions_to_pause([1, -2], 10), r"buffered_bytes\[1\] must be an integer >= 0: "
                                                   r"-2"),
        (lambda: partition_share_bytes(100, 0), r"partitions must be an integer >= 1: 0"),
        (lambda: fetch_bytes(0), r"record_bytes must be an integer >= 1: 0"),
        (lambda: fetch_bytes(10, -1),
         r"max_partition_fetch_bytes \(max\.partition\.fetch\.bytes\) must be an integer >= 0: -1"),
        (lambda: resume_all_after_round(10, 10, -1), r"processed_records must be an integer >= 0: "
                                                     r"-1"),
    ],
)
def test_bad_input_is_rejected_naming_the_setting_and_the_rule(call, message):
    """Nothing is clamped: a ValueError names the argument, the Kafka setting and the rule."""
    with pytest.raises(ValueError, match=message):
        call()


@given(buffered_partition_sizes, share_bytes_per_thread)
def test_the_biggest_partitions_pick_is_the_sorted_greedy_choice(sizes, share):
    """``pick_biggest_partitions`` (the plain rule the kernel compiles) picks what sorting by
    (size descending, index) and taking until the excess is held picks, in that order."""
    excess = sum(sizes) - share
    expected = []
    for i in sorted(range(len(sizes)), key=lambda k: (-sizes[k], k)):
        if excess <= 0:
            break
        expected.append(i)
        excess -= sizes[i]
    out = [0] * len(sizes)
    assert out[:pick_biggest_partitions(sizes, sum(sizes) - share, out)] == expected
    assert biggest_partitions_to_pause(sizes, share) == expected
