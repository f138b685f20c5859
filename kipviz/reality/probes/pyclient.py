"""The Python clients' consumer memory probe, run as its own process:
``python -m kipviz.reality.probes.pyclient <json config or its path>``.

The config: ``client`` (``"librdkafka"``: ``confluent_kafka.Consumer``, or ``"kafka-python"``:
``kafka.KafkaConsumer``), ``bootstrap``, ``assign`` (``[[topic, partition], ...]``, each consumed
from its first offset by manual assignment, no group), ``settings`` (the client's own config
names), ``polls``, ``sleep_ms``, ``records_per_poll`` (the lagging application: a few records a
poll, then a sleep) and ``sample_ms``.

The measure is what fetching the backlog adds: the baseline is read with the client connected
to every leader, its partitions assigned at their end (nothing to fetch: a warm-up of
:data:`WARM_UP_S` makes the connections, the topic's metadata, each partition's state and the
decoders), then every partition is moved to its start. It prints one JSON object a line on
stdout: ``start`` (the baseline), a ``sample`` before every poll and after the last, and a
``summary`` whose ``peak_bytes`` is the measure:

* librdkafka: the process's resident set (``/proc/self/statm``, sampled every ``sample_ms`` by a
  thread, and the kernel's high-water mark ``VmHWM``) over that baseline. Also librdkafka's
  statistics (``stats_cb``): a partition's ``fetchq_size`` reports the one consumer queue every
  partition queue is forwarded to (rdkafka_queue.h:654-667), so the samples carry the largest
  partition's value, never a sum.
* kafka-python: ``tracemalloc``'s current and peak traced memory, tracing started at that
  baseline.

An exception is an ``error`` line (its traceback on stderr) and exit code 1.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["main", "rss_bytes"]

_PAGE = os.sysconf("SC_PAGE_SIZE")
WARM_UP_S = 1.5


def emit(line: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line, sort_keys=True) + "\n")
    sys.stdout.flush()


def rss_bytes() -> int:
    """The process's resident set now (``/proc/self/statm``'s second field)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


def hwm_bytes() -> int:
    """The kernel's resident high-water mark (``VmHWM``), 0 where there is none."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


class _RssSampler(threading.Thread):
    """Reads the resident set every ``sample_ms`` and keeps the largest."""

    def __init__(self, sample_ms: int) -> None:
        super().__init__(daemon=True)
        self.every = sample_ms / 1000
        self.peak = rss_bytes()
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(self.every):
            self.peak = max(self.peak, rss_bytes())


def _librdkafka(c: dict[str, Any]) -> None:
    import confluent_kafka
    from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, Consumer, TopicPartition

    stats: dict[str, int] = {"fetchq_size": 0, "fetchq_cnt": 0, "stats": 0}
    peak_q = {"fetchq_size": 0, "fetchq_cnt": 0}

    def on_stats(text: str) -> None:
        data = json.loads(text)
        size = cnt = 0
        for topic in data.get("topics", {}).values():
            for p, part in topic.get("partitions", {}).items():
                if p != "-1":  # the unassigned-partition entry
                    size = max(size, int(part.get("fetchq_size", 0)))
                    cnt = max(cnt, int(part.get("fetchq_cnt", 0)))
        stats.update(fetchq_size=size, fetchq_cnt=cnt, stats=stats["stats"] + 1)
        peak_q.update(fetchq_size=max(peak_q["fetchq_size"], size),
                      fetchq_cnt=max(peak_q["fetchq_cnt"], cnt))

    conf: dict[str, Any] = {
        "bootstrap.servers": c["bootstrap"], "group.id": f"kipviz-probe-{os.getpid()}",
        "enable.auto.commit": False, "auto.offset.reset": "earliest",
        "statistics.interval.ms": int(c.get("stats_interval_ms", 200)), "stats_cb": on_stats,
        "log.connection.close": False, **c.get("settings", {})}
    consumer = Consumer(conf)
    consumer.assign([TopicPartition(t, int(p), OFFSET_END) for t, p in c["assign"]])
    warmed = time.monotonic() + WARM_UP_S
    while time.monotonic() < warmed:  # connected, the partitions' state made, nothing fetched
        consumer.consume(num_messages=1, timeout=0.25)
    base, base_hwm = rss_bytes(), hwm_bytes()
    emit({"type": "start", "client": "librdkafka", "version": confluent_kafka.libversion()[0],
          "binding": confluent_kafka.version()[0], "baseline_rss_bytes": base})
    sampler = _RssSampler(int(c.get("sample_ms", 50)))
    sampler.start()
    for t, p in c["assign"]:
        consumer.seek(TopicPartition(t, int(p), OFFSET_BEGINNING))
    records = value_bytes = 0

    def sample(i: int, t0: float) -> None:
        now = rss_bytes()
        sampler.peak = max(sampler.peak, now)
        emit({"type": "sample", "poll": i, "t_ms": round((time.monotonic() - t0) * 1000),
              "records": records, "rss_bytes": now - base, **stats})

    t0 = time.monotonic()
    for i in range(int(c["polls"])):
        sample(i, t0)
        for msg in consumer.consume(num_messages=int(c["records_per_poll"]), timeout=1.0):
            if msg.error() is not None:
                raise RuntimeError(f"librdkafka: {msg.error()}")
            records += 1
            value_bytes += len(msg.value() or b"")
        time.sleep(int(c["sleep_ms"]) / 1000)
    sample(int(c["polls"]), t0)
    sampler.halt.set()
    sampler.join()
    hwm = hwm_bytes()
    peak = max(sampler.peak, hwm if hwm > base_hwm else 0) - base
    emit({"type": "summary", "client": "librdkafka", "version": confluent_kafka.libversion()[0],
          "peak_bytes": peak, "measure": "resident set over the baseline (sampled and VmHWM)",
          "peak_rss_sampled_bytes": sampler.peak - base, "vm_hwm_bytes": hwm,
          "baseline_rss_bytes": base, "peak_fetchq_size": peak_q["fetchq_size"],
          "peak_fetchq_cnt": peak_q["fetchq_cnt"], "stats_seen": stats["stats"],
          "records": records, "value_bytes": value_bytes,
          "duration_ms": round((time.monotonic() - t0) * 1000)})
    consumer.close()


def _kafka_python(c: dict[str, Any]) -> None:
    import tracemalloc

    import kafka
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=c["bootstrap"].split(","), group_id=None,
                             enable_auto_commit=False, auto_offset_reset="earliest",
                             client_id="kipviz-kafka-python-probe", **c.get("settings", {}))
    parts = [TopicPartition(t, int(p)) for t, p in c["assign"]]
    consumer.assign(parts)
    consumer.seek_to_end(*parts)
    warmed = time.monotonic() + WARM_UP_S
    while time.monotonic() < warmed:  # connected, the partitions' state made, nothing fetched
        consumer.poll(timeout_ms=250)
    tracemalloc.start()
    tracemalloc.reset_peak()
    emit({"type": "start", "client": "kafka-python", "version": kafka.__version__,
          "baseline_traced_bytes": tracemalloc.get_traced_memory()[0],
          "baseline_rss_bytes": rss_bytes()})
    base = tracemalloc.get_traced_memory()[0]
    consumer.seek_to_beginning(*parts)
    records = value_bytes = 0
    peak_current = 0

    def sample(i: int, t0: float) -> None:
        nonlocal peak_current
        current, peak = tracemalloc.get_traced_memory()
        peak_current = max(peak_current, current - base)
        emit({"type": "sample", "poll": i, "t_ms": round((time.monotonic() - t0) * 1000),
              "records": records, "traced_bytes": current - base,
              "traced_peak_bytes": peak - base})

    t0 = time.monotonic()
    for i in range(int(c["polls"])):
        sample(i, t0)
        got = consumer.poll(timeout_ms=1000, max_records=int(c["records_per_poll"]))
        for batch in got.values():
            records += len(batch)
            value_bytes += sum(len(r.value or b"") for r in batch)
        del got
        time.sleep(int(c["sleep_ms"]) / 1000)
    sample(int(c["polls"]), t0)
    peak = tracemalloc.get_traced_memory()[1] - base
    emit({"type": "summary", "client": "kafka-python", "version": kafka.__version__,
          "peak_bytes": peak, "measure": "tracemalloc's peak traced memory over the baseline",
          "peak_traced_sampled_bytes": peak_current, "records": records,
          "value_bytes": value_bytes, "duration_ms": round((time.monotonic() - t0) * 1000)})
    tracemalloc.stop()
    consumer.close()


PROBES: dict[str, Callable[[dict[str, Any]], None]] = {
    "librdkafka": _librdkafka, "kafka-python": _kafka_python}


def main(argv: list[str]) -> int:
    """Run one probe from its JSON config (``argv[0]``: the text or a path); the exit status."""
    if len(argv) != 1:
        emit({"type": "error", "message": "usage: python -m kipviz.reality.probes.pyclient "
                                          "<json config or its path>"})
        return 2
    try:
        text = argv[0] if argv[0].lstrip().startswith("{") else Path(argv[0]).read_text()
        config = json.loads(text)
        client = config.get("client")
        if client not in PROBES:
            raise ValueError(f"client must be one of {', '.join(PROBES)}: {client!r}")
        PROBES[client](config)
    except Exception as e:
        traceback.print_exc()
        emit({"type": "error", "message": f"{type(e).__name__}: {e}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
