"""KIP-72 memory pool rules, on worked numbers and as properties."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given

from kipviz.kafka.broker.network import SOCKET_REQUEST_MAX_BYTES, broker_pool, should_shuffle_keys
from kipviz.kafka.broker.pool import (
    AVAILABLE,
    DEPLETED,
    DRY,
    LONG_MAX_VALUE,
    NO_POOL,
    DepletionTracker,
    SimpleMemoryPool,
    max_outstanding_bytes,
    new_pool_row,
    pool_release,
    pool_try_allocate,
)
from kipviz.kafka.config.settings import BrokerConfig
from tests.strategies import pool_workloads

MiB = 1024 * 1024
RULE = (r"queued_max_request_bytes \(queued.max.request.bytes\) must be <= 0 \(no pool\) or >= "
        r"socket.request.max.bytes")


def state(pool: SimpleMemoryPool) -> tuple[int, int, bool]:
    return pool.available_bytes, pool.used_bytes, pool.is_out_of_memory


def test_a_non_strict_pool_grants_a_full_request_while_any_byte_is_left():
    """Size 100, max single 60: the second 60 overdraws to -20; then nothing until a release."""
    pool = SimpleMemoryPool(100, 60)
    assert pool.try_allocate(60)
    assert state(pool) == (40, 60, False)
    assert pool.try_allocate(60)
    assert state(pool) == (-20, 120, True)
    assert not pool.try_allocate(1)
    pool.release(60)
    assert state(pool) == (40, 60, False)
    pool.release(60)
    assert state(pool) == (100, 0, False)


def test_a_strict_pool_refuses_a_request_bigger_than_what_is_left():
    """The same pool, strict: the second 60 does not fit in 40, but 40 does, to exactly empty."""
    pool = SimpleMemoryPool(100, 60, strict=True)
    assert pool.try_allocate(60)
    assert not pool.try_allocate(60)
    assert state(pool) == (40, 60, False)
    assert pool.try_allocate(40)
    assert state(pool) == (0, 100, True)
    assert not pool.try_allocate(1)


def test_a_non_strict_pool_falls_to_one_minus_max_single_and_no_lower():
    """With 1 byte left a 60-byte request is granted: available -59, 159 = 100 + 60 - 1 out."""
    pool = SimpleMemoryPool(100, 60)
    assert pool.try_allocate(60) and pool.try_allocate(39)
    assert pool.available_bytes == 1 and not pool.is_out_of_memory
    assert pool.try_allocate(60)
    assert pool.available_bytes == 1 - 60
    assert pool.used_bytes == max_outstanding_bytes(100, 60) == 159
    assert not pool.try_allocate(1)


def test_out_of_memory_means_zero_or_fewer_bytes_available():
    """``isOutOfMemory()`` is ``availableMemory() <= 0``; 1 byte left is not out of memory."""
    pool = SimpleMemoryPool(10, 10)
    assert pool.try_allocate(9) and not pool.is_out_of_memory
    assert pool.try_allocate(1) and pool.is_out_of_memory
    assert pool.available_bytes == 0 and pool.used_bytes == pool.size_bytes == 10


def test_max_outstanding_bytes_is_size_plus_max_single_minus_one_or_size_when_strict():
    """KIP-72: the non-strict bound is queued.max.request.bytes + socket.request.max.bytes - 1."""
    assert max_outstanding_bytes(100, 60) == 159
    assert max_outstanding_bytes(100, 60, strict=True) == 100
    assert max_outstanding_bytes(500 * MiB, SOCKET_REQUEST_MAX_BYTES) == 600 * MiB - 1
    assert max_outstanding_bytes(1, 1) == 1


@pytest.mark.parametrize(
    ("size", "max_single", "message"),
    [
        (0, 1, r"size_bytes \(queued.max.request.bytes on a broker\) must be an integer >= 1: 0"),
        (-1, 1, r"size_bytes \(queued.max.request.bytes on a broker\) must be an integer >= 1: -1"),
        (100, 0, r"max_single_allocation_bytes \(socket.request.max.bytes on a broker\) "
                 r"must be an integer >= 1: 0"),
        (100, 101, r"max_single_allocation_bytes .* must be <= size_bytes .*: 101 > 100"),
        (100.0, 10, r"size_bytes .* must be an integer: 100.0"),
        (100, True, r"max_single_allocation_bytes .* must be an integer: True"),
    ],
)
def test_bad_pool_sizes_are_rejected_naming_the_kafka_setting(size, max_single, message):
    """SimpleMemoryPool's constructor rule: size > 0 and 0 < max single <= size."""
    with pytest.raises(ValueError, match=message):
        SimpleMemoryPool(size, max_single)
    with pytest.raises(ValueError, match=message):
        max_outstanding_bytes(size, max_single)


@pytest.mark.parametrize(
    ("n", "message"),
    [
        (0, "n_bytes must be an integer >= 1: 0"),
        (-5, "n_bytes must be an integer >= 1: -5"),
        (61, r"n_bytes must be <= max_single_allocation_bytes \(socket.request.max.bytes on a "
             r"broker\): 61 > 60"),
        (1.5, "n_bytes must be an integer: 1.5"),
    ],
)
def test_allocations_outside_one_to_max_single_bytes_are_rejected(n, message):
    """Kafka's ``tryAllocate`` throws IllegalArgumentException; kipviz raises ValueError."""
    pool = SimpleMemoryPool(100, 60)
    with pytest.raises(ValueError, match=message):
        pool.try_allocate(n)
    assert pool.available_bytes == 100


def test_releasing_more_than_is_outstanding_is_an_error_not_a_silent_overcount():
    """Kafka would add the bytes back anyway and report more memory than the pool has."""
    pool = SimpleMemoryPool(100, 60)
    pool.try_allocate(30)
    with pytest.raises(ValueError, match=r"n_bytes must be <= the bytes outstanding "
                                         r"\(used_bytes\): 31 > 30; Kafka would silently"):
        pool.release(31)
    with pytest.raises(ValueError, match="n_bytes must be an integer >= 1: 0"):
        pool.release(0)
    assert pool.available_bytes == 70


def test_no_pool_always_allocates_and_never_runs_out():
    """``MemoryPool.NONE``: size and available are Long.MAX_VALUE, used 0, release a no-op."""
    assert NO_POOL.try_allocate(10 * 2**40, now_ms=0)
    assert NO_POOL.try_allocate(0)
    NO_POOL.release(10 * 2**40)
    assert NO_POOL.size_bytes == NO_POOL.available_bytes == LONG_MAX_VALUE == 2**63 - 1
    assert NO_POOL.used_bytes == 0 and not NO_POOL.is_out_of_memory
    assert NO_POOL.depleted_time_total_ms == 0 and NO_POOL.avg_depleted_percent(1000) == 0
    assert not should_shuffle_keys(NO_POOL)
    assert repr(NO_POOL) == "NO_POOL"
    with pytest.raises(ValueError, match="n_bytes must be an integer >= 0: -1"):
        NO_POOL.try_allocate(-1)
    with pytest.raises(AttributeError):
        NO_POOL.used_bytes = 5  # type: ignore[misc]


def test_the_broker_has_no_pool_by_default_and_a_non_strict_one_when_it_is_set():
    """SocketServer: ``queued.max.request.bytes`` > 0 builds SimpleMemoryPool(size, socket max)."""
    assert broker_pool(-1) is NO_POOL
    assert broker_pool(0) is NO_POOL
    pool = broker_pool(500 * MiB)
    assert isinstance(pool, SimpleMemoryPool)
    assert (pool.size_bytes, pool.max_single_allocation_bytes, pool.strict) == (
        500 * MiB, SOCKET_REQUEST_MAX_BYTES, False)
    equal = broker_pool(MiB, MiB, strict=True)
    assert isinstance(equal, SimpleMemoryPool) and equal.strict


def test_a_pool_smaller_than_socket_request_max_bytes_is_rejected_as_broker_config_does():
    """The pool must hold the largest single request; the message is BrokerConfig's rule."""
    with pytest.raises(ValueError, match=RULE + r" \(104857600, .*\): 52428800"):
        broker_pool(50 * MiB)
    with pytest.raises(ValueError, match=RULE):
        BrokerConfig(queued_max_request_bytes=50 * MiB)
    with pytest.raises(ValueError, match=r"socket.request.max.bytes\) must be an integer >= 1: 0"):
        broker_pool(-1, 0)


def test_keys_are_shuffled_only_while_less_than_a_tenth_of_the_pool_is_left():
    """Selector: ``availableMemory() < (long) (0.1 * size())``, and not while muted for memory."""
    pool = SimpleMemoryPool(100, 100)
    pool.try_allocate(90)
    assert not should_shuffle_keys(pool)  # 10 left: not below the threshold of 10
    pool.try_allocate(1)
    assert should_shuffle_keys(pool)
    assert not should_shuffle_keys(pool, muted_for_memory=True)
    pool.try_allocate(100)
    assert pool.available_bytes == -91 and should_shuffle_keys(pool)
    odd = SimpleMemoryPool(105, 100)  # threshold (long) 10.5 = 10
    odd.try_allocate(95)
    assert not should_shuffle_keys(odd)


def test_a_dry_spell_runs_from_the_first_refusal_to_the_next_release():
    """A hand-made timeline: refused at 20 and 25 ms, released at 50 ms: one spell of 30 ms."""
    pool = SimpleMemoryPool(100, 60)
    assert pool.try_allocate(60, now_ms=0) and pool.try_allocate(60, now_ms=10)
    assert not pool.try_allocate(1, now_ms=20)
    assert not pool.try_allocate(5, now_ms=25)
    assert pool.depletion.dry_spell_start_ms == 20
    assert pool.depleted_time_total_ms == 0  # Kafka records a spell only when it ends
    pool.release(60, now_ms=50)
    assert pool.depletion.spells == ((20, 50),)
    assert pool.depletion.dry_spell_start_ms is None
    assert pool.try_allocate(60, now_ms=70)  # 40 left: granted, down to -20
    assert not pool.try_allocate(1, now_ms=80)
    pool.release(60, now_ms=120)
    assert pool.depletion.spells == ((20, 50), (80, 120))
    assert pool.depleted_time_total_ms == 70


def test_the_average_depleted_percent_counts_spells_that_ended_in_the_window():
    """Spells of 30 ms (ending at 50) and 40 ms (ending at 120), measured over 100 ms windows."""
    pool = SimpleMemoryPool(100, 100)
    pool.try_allocate(100, now_ms=0)
    pool.try_allocate(1, now_ms=20)
    pool.release(50, now_ms=50)
    pool.try_allocate(60, now_ms=60)
    pool.try_allocate(1, now_ms=80)
    pool.release(10, now_ms=120)
    assert pool.avg_depleted_percent(120, window_ms=100) == pytest.approx(70.0)
    assert pool.avg_depleted_percent(150, window_ms=100) == pytest.approx(40.0)
    assert pool.avg_depleted_percent(220, window_ms=100) == 0.0
    assert pool.avg_depleted_percent(120, window_ms=30) == pytest.approx(40 / 30 * 100)


def test_a_long_spell_is_recorded_at_its_end_and_can_exceed_one_hundred_percent():
    """As Kafka's Rate does: 90 s depleted, recorded at once, over a 30 s window is 300%."""
    pool = SimpleMemoryPool(10, 10)
    pool.try_allocate(10, now_ms=0)
    pool.try_allocate(1, now_ms=10_000)
    assert pool.avg_depleted_percent(99_999) == 0.0
    pool.release(10, now_ms=100_000)
    assert pool.avg_depleted_percent(100_000) == pytest.approx(300.0)


def test_a_release_that_leaves_the_pool_out_of_memory_still_ends_the_dry_spell():
    """Kafka calls maybeRecordEndOfDrySpell on every release; the next refusal opens a new one."""
    pool = SimpleMemoryPool(100, 60)
    assert [pool.try_allocate(60, now_ms=0) for _ in range(2)] == [True, True]  # 100 - 120
    assert not pool.try_allocate(1, now_ms=20)
    pool.release(10, now_ms=30)
    assert pool.is_out_of_memory and pool.depletion.dry_spell_start_ms is None
    pool.try_allocate(1, now_ms=40)
    pool.release(50, now_ms=45)
    assert pool.depletion.spells == ((20, 30), (40, 45))


def test_a_strict_pool_is_depleted_whenever_it_refuses_even_with_bytes_left():
    """The dry spell follows refusals, not ``isOutOfMemory()``: 40 bytes left, 60 refused."""
    pool = SimpleMemoryPool(100, 60, strict=True)
    pool.try_allocate(60, now_ms=0)
    assert not pool.try_allocate(60, now_ms=5) and not pool.is_out_of_memory
    assert pool.try_allocate(10, now_ms=9)
    assert pool.depletion.spells == ((5, 9),)


def test_untimed_calls_leave_the_depletion_accounting_alone():
    """Without ``now_ms`` a call is not timed, like a Kafka pool built without a sensor."""
    pool = SimpleMemoryPool(10, 10)
    pool.try_allocate(10)
    assert not pool.try_allocate(1)
    pool.release(10)
    assert pool.depletion.spells == () and pool.depletion.dry_spell_start_ms is None


@pytest.mark.parametrize("bad", [5, float("nan"), float("inf"), True, "10"])
def test_time_must_be_a_finite_number_that_never_goes_back(bad):
    """Depletion needs monotonic time; a bad ``now_ms`` raises before the pool changes."""
    pool = SimpleMemoryPool(10, 10)
    pool.try_allocate(4, now_ms=10)
    with pytest.raises(ValueError, match="now_ms must be a finite time, never going back"):
        pool.try_allocate(4, now_ms=bad)
    assert pool.available_bytes == 6
    with pytest.raises(ValueError, match=r"window_ms \(metrics.sample.window.ms\) must be > 0"):
        pool.avg_depleted_percent(20, window_ms=0)


@given(pool_workloads())
def test_any_sequence_of_operations_keeps_the_pool_within_its_bounds(workload):
    """Outstanding <= size + max_single - 1 (size when strict), available + used = size,
    available >= 1 - max_single; a grant happens exactly when the threshold allows it."""
    size, max_single, strict, steps = workload
    pool, held, now = SimpleMemoryPool(size, max_single, strict), [], 0
    bound = max_outstanding_bytes(size, max_single, strict)
    for op, value, dt in steps:
        now += dt
        before = pool.available_bytes
        if op == "allocate":
            expected = before >= (value if strict else 1)
            assert pool.try_allocate(value, now_ms=now) is expected
            if expected:
                held.append(value)
            else:
                assert pool.available_bytes == before
        elif held:
            pool.release(held.pop(value % len(held)), now_ms=now)
        assert pool.available_bytes + pool.used_bytes == size
        assert pool.used_bytes == sum(held) <= bound
        assert pool.available_bytes >= (0 if strict else 1 - max_single)
        assert pool.is_out_of_memory is (pool.available_bytes <= 0)
    spells = pool.depletion.spells
    assert all(a <= b <= c for (_, a), (b, c) in itertools.pairwise(spells))
    assert 0 <= pool.depleted_time_total_ms <= now
    for n in held:
        pool.release(n, now_ms=now)
    assert pool.available_bytes == size and pool.try_allocate(max_single)


@given(pool_workloads())
def test_a_refused_request_is_granted_once_enough_bytes_are_returned(workload):
    """Progress: after a refusal, releasing held bytes (oldest first) makes the same request fit
    as soon as available reaches n (strict) or 1 (non-strict), and it ends the dry spell."""
    size, max_single, strict, steps = workload
    pool, held = SimpleMemoryPool(size, max_single, strict), []
    for now, (op, value, _) in enumerate(steps):
        if op == "release" and held:
            pool.release(held.pop(0), now_ms=now)
        elif pool.try_allocate(value, now_ms=now):
            held.append(value)
        else:
            while pool.available_bytes < (value if strict else 1):
                pool.release(held.pop(0), now_ms=now)
            assert pool.depletion.dry_spell_start_ms is None
            assert pool.try_allocate(value, now_ms=now)
            held.append(value)


@given(pool_workloads())
def test_depleted_time_is_the_time_from_each_first_refusal_to_the_next_grant_or_release(workload):
    """A reference model of ``startOfNoMemPeriod`` and ``maybeRecordEndOfDrySpell``."""
    size, max_single, strict, steps = workload
    pool, tracker, held, start, total, now = SimpleMemoryPool(size, max_single, strict), \
        DepletionTracker(), [], None, 0, 0
    for op, value, dt in steps:
        now += dt
        if op == "allocate" and not pool.try_allocate(value, now_ms=now):
            tracker.refused(now)
            start = now if start is None else start
            continue
        if op == "allocate":
            held.append(value)
        elif held:
            pool.release(held.pop(value % len(held)), now_ms=now)
        else:
            continue
        tracker.served(now)
        total += 0 if start is None else now - start
        start = None
    assert pool.depleted_time_total_ms == tracker.depleted_time_total_ms == total
    assert pool.depletion.dry_spell_start_ms == start


def test_an_untimed_call_runs_the_same_rule_on_the_row_without_touching_dry_spells():
    """``pool_try_allocate`` with a NaN time is a pool with no sensor: bytes move, no spell."""
    row = new_pool_row(100, 60, False, True)
    assert pool_try_allocate(row, 60, math.nan) and pool_try_allocate(row, 60, math.nan)
    assert not pool_try_allocate(row, 1, math.nan)
    assert row[AVAILABLE] == -20 and row[DRY] == 0 and row[DEPLETED] == 0
    pool_release(row, 60, math.nan)
    assert row[AVAILABLE] == 40 and row[DRY] == 0
