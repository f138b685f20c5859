"""KIP-72 broker: kipviz's compiled kernel against SimPy and plain Python, and the dashboard.

Throughput is counted in *requests* (rows of the requests table: each one arrives, waits in its
socket, is read under the pool, handled and released) per second. The setting is a broker under
the KIP's spike: 200 client connections sending 20 small (16 KiB) produce requests a second
each, and from 4 s to 8 s one request in ten a 4 MiB batch; a non-strict pool
(``queued.max.request.bytes`` 40 MiB, ``socket.request.max.bytes`` 10 MiB, Kafka's
``queued.max.requests`` 500) and 8 request handlers at 100 MB/s each, a 10 ms tick, 2,000 ticks
(20 s, about 80,000 requests). The spike needs more memory than the pool holds: channels are
muted for memory, ready keys are shuffled, the pool overdraws, and a backlog drains after it.

The references: :mod:`tools.oracles.simpy_broker` (checked value for value by
``tests/scenarios/broker/test_simpy_broker.py``) and the plain-Python kernel, timed as the package
says.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.harness import SliderMoves, compare_kernel, emit, note
from kipviz.scenarios.broker.scenario import BrokerScenario, generate_requests, simulate
from tools.oracles.simpy_broker import simulate_simpy

NAME = "kip72_broker"
CONNECTIONS = 200
SEED = 0
KiB, MiB = 1024, 1024 * 1024

SETTING = BrokerScenario(
    connections=CONNECTIONS, queued_max_request_bytes=40 * MiB,
    socket_request_max_bytes=10 * MiB, strict=False, shuffle=True, queued_max_requests=500,
    small_request_bytes=16 * KiB, large_request_bytes=4 * MiB, large_share=0.1,
    spike_start_ms=4000, spike_duration_ms=4000, requests_per_s_per_connection=20.0,
    num_io_threads=8, handler_bytes_per_s=100e6, tick_ms=10, ticks=2000,
)



def throughput() -> None:
    """Requests per second: compiled kernel, SimPy program, plain-Python kernel."""
    s = SETTING
    workload = generate_requests(s, np.random.default_rng(SEED))
    note(NAME, f"{CONNECTIONS} connections, 16 KiB requests and a spike of 4 MiB ones (10% from "
               f"4 s to 8 s) into a non-strict 40 MiB pool, 8 handlers at 100 MB/s, "
               f"{s.ticks} ticks of {s.tick_ms} ms, the same run for all three; workload "
               f"generation not timed")

    def compiled_run() -> Any:
        return simulate(s, seed=SEED, requests=workload)

    trace = compiled_run()
    t, r = trace.ticks, trace.requests
    emit(NAME, "requests", len(r), "requests")
    emit(NAME, "shuffled_ticks", int(t.shuffled.sum()), "ticks")
    emit(NAME, "muted_for_memory_max", int(t.muted_for_memory.max()), "channels")
    emit(NAME, "pool_used_max_bytes", int(t.pool_used_bytes.max()), "bytes")
    emit(NAME, "depleted_time_total_ms", trace.meta["depleted_time_total_ms"], "ms")
    ticks, requests, depleted_ms = simulate_simpy(s, seed=SEED, requests=workload)
    same = (ticks.equals(t) and requests.equals(r)
            and depleted_ms == trace.meta["depleted_time_total_ms"])
    compare_kernel(NAME, compiled=compiled_run, count=len(r), unit="requests", same_model=same,
                   simpy=lambda: simulate_simpy(s, seed=SEED, requests=workload),
                   python=lambda: simulate(s, seed=SEED, requests=workload, compiled=False))


# Every move is a setting Kafka accepts from the lesson's (40 MiB pool, 10 MiB
# ``socket.request.max.bytes``, 4 MiB large requests): pools stay at least the largest
# ``socket.request.max.bytes`` and that at least the largest request.
SLIDERS = SliderMoves(
    "BrokerDashboard",
    values={
        "queued_max_request_bytes": [20 * MiB, -1, 100 * MiB, 10 * MiB, 60 * MiB, 40 * MiB],
        "socket_request_max_bytes": [4 * MiB, 10 * MiB],
        "connections": [200, 50, 150, 100],
        "large_share": [0.3, 0.05, 0.5, 0.1],
        "large_request_bytes": [1 * MiB, 512 * KiB, 2 * MiB, 4 * MiB],
        "strict": [True, False],
        "shuffle": [False, True],
    },
    what="queued.max.request.bytes, socket.request.max.bytes, connections, "
         "the large share and size, strict and shuffle")


def run() -> None:
    """The kernel against its references, then slider moves on BrokerDashboard."""
    throughput()
    SLIDERS.time(NAME)
