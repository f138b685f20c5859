"""Worked scenarios that more than one test module checks, with the units they are written in.

MB is 10^6 bytes, as in KIP-73's arithmetic; MIB is 2^20 bytes, the size of one replica fetch
response (``replica.fetch.max.bytes``, 1 MiB by default).
"""

from __future__ import annotations

from kipviz.scenarios.reassignment.scenario import ReassignmentScenario

MB = 1_000_000
MIB = 1_048_576
# KIP-73: one 100 MB partition, IN 0, both throttles 10 MB/s, 11 x 1 s windows, a fetch every
# 10 ms (the scenario tests and the curve tests start from it).
ONE = ReassignmentScenario(partitions=1, log_bytes=100 * MB, leader_throttle_bytes_per_s=10 * MB,
                           follower_throttle_bytes_per_s=10 * MB, tick_ms=10, ticks=1200)
