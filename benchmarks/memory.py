"""Memory of a benchmark's processes: the summed proportional set size (PSS), sampled.

A process's PSS counts each page it maps once divided by the number of processes that map it, so
the PSS of a Spark driver, its JVM and the Python workers the JVM forks adds up to the memory
they really hold together (their resident sizes would count every shared page once per process:
the forked workers share most of theirs). :class:`PssSampler` reads it (psutil's
``memory_full_info().pss``, Linux's ``smaps_rollup``) on a thread while the code under test runs
and keeps the largest sum, with what each role held at that moment (:data:`ROLES`) and, given a
``jvm`` probe (:func:`jvm_probe`), the JVM's heap and non-heap memory there.

A sampler thread needs the GIL, which a compiled kernel holds for its whole call, so no sample
falls inside one. The kernel's memory is caught another way: on entry every process's resident
high-water mark is reset (``/proc/PID/clear_refs``, Linux) and on exit each one's ``VmHWM`` is
read; their sum (``hwm_bytes``) bounds the run's peak from above (a page shared by several
processes counts once in each). :attr:`PssSampler.judged_bytes` is the larger of the two.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

import psutil

__all__ = ["ROLES", "PssSampler", "jvm_probe"]

ROLES = ("driver", "jvm", "workers")
"""Who holds the memory: this process (the driver: the simulation, pandas, Arrow batches on
their way), the Spark JVM (its children), the Python workers (every other descendant)."""

GiB = 2**30


def _role(process: psutil.Process, me: int) -> str:
    if process.pid == me:
        return "driver"
    try:
        name = process.name()
    except psutil.Error:
        return "workers"
    return "jvm" if name == "java" else "workers"


def _family() -> list[psutil.Process]:
    me = psutil.Process()
    return [me, *me.children(recursive=True)]


def _reset_hwm() -> None:
    """Reset the resident high-water mark of this process and its descendants (Linux only)."""
    for process in _family():
        try:
            with open(f"/proc/{process.pid}/clear_refs", "w", encoding="ascii") as f:
                f.write("5")
        except OSError:
            continue


def _hwm_bytes() -> int:
    """The sum of ``VmHWM`` (peak resident bytes) over this process and its descendants."""
    total = 0
    for process in _family():
        try:
            with open(f"/proc/{process.pid}/status", encoding="ascii") as status:
                total += next((int(line.split()[1]) * 1024 for line in status
                               if line.startswith("VmHWM:")), 0)
        except OSError:
            continue
    return total


def _pss_by_role() -> dict[str, int]:
    """The PSS of this process and of every descendant, summed by role (bytes)."""
    me = psutil.Process()
    out = dict.fromkeys(ROLES, 0)
    for process in _family():
        try:
            out[_role(process, me.pid)] += int(process.memory_full_info().pss)
        except psutil.Error:  # gone meanwhile, or not ours to read
            continue
    return out


def jvm_probe(spark: Any) -> Callable[[], dict[str, int]]:
    """A probe of the session's JVM: heap used and committed, non-heap (metaspace, code cache)
    committed, and the direct and mapped NIO buffers (Arrow's off-heap batches, shuffle) in use,
    in bytes (``java.lang.management``, read through py4j)."""
    jvm = spark.sparkContext._jvm  # classic sessions only
    factory = jvm.java.lang.management.ManagementFactory
    pool_class = jvm.java.lang.Class.forName("java.lang.management.BufferPoolMXBean")
    bean = factory.getMemoryMXBean()

    def probe() -> dict[str, int]:
        heap, non_heap = bean.getHeapMemoryUsage(), bean.getNonHeapMemoryUsage()
        buffers = sum(int(pool.getMemoryUsed()) for pool in factory.getPlatformMXBeans(pool_class))
        return {"heap_used": int(heap.getUsed()), "heap_committed": int(heap.getCommitted()),
                "non_heap_committed": int(non_heap.getCommitted()), "nio_buffers": buffers}

    return probe


class PssSampler:
    """Samples the summed PSS of this process and its descendants every ``interval_s`` while
    the ``with`` block runs (and once at its start and end).

    ``peak_bytes``: the largest sum; ``at_peak``: bytes by role at that sample; ``jvm_at_peak``:
    the ``jvm`` probe's figures at that sample (empty without a probe, or if it failed);
    ``samples``: how many were taken.
    """

    def __init__(self, interval_s: float = 0.05,
                 jvm: Callable[[], dict[str, int]] | None = None) -> None:
        self.interval_s = interval_s
        self.jvm = jvm
        self.peak_bytes = 0
        self.at_peak: dict[str, int] = dict.fromkeys(ROLES, 0)
        self.jvm_at_peak: dict[str, int] = {}
        self.samples = 0
        self.hwm_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pss-sampler", daemon=True)

    def _sample(self) -> None:
        by_role = _pss_by_role()
        self.samples += 1
        total = sum(by_role.values())
        if total > self.peak_bytes:
            self.peak_bytes, self.at_peak = total, by_role
            if self.jvm is not None:
                try:
                    self.jvm_at_peak = self.jvm()
                except Exception:  # the JVM busy or gone: the PSS figures stand alone
                    self.jvm_at_peak = {}

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def __enter__(self) -> PssSampler:
        _reset_hwm()
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()
        self.hwm_bytes = _hwm_bytes()

    @property
    def judged_bytes(self) -> int:
        """The figure to judge: the sampled PSS peak, or the high-water sum when larger."""
        return max(self.peak_bytes, self.hwm_bytes)

    @property
    def peak_gib(self) -> float:
        """The peak summed PSS in GiB."""
        return self.peak_bytes / GiB

    def breakdown(self) -> str:
        """Where the peak was: GiB by role, and the JVM's heap and buffers where probed."""
        parts = [f"{role} {self.at_peak[role] / GiB:.2f}" for role in ROLES]
        text = f"peak PSS {self.peak_gib:.2f} GiB: " + ", ".join(parts) + " GiB"
        text += f"; resident high-water marks summed {self.hwm_bytes / GiB:.2f} GiB"
        j = self.jvm_at_peak
        if j:
            text += (f" (JVM heap {j['heap_used'] / GiB:.2f} used of "
                     f"{j['heap_committed'] / GiB:.2f} committed, non-heap "
                     f"{j['non_heap_committed'] / GiB:.2f}, NIO buffers "
                     f"{j['nio_buffers'] / GiB:.2f})")
        return text
