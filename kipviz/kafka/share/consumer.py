"""KIP-932 in the share consumer: which nodes one poll fetches records from (KAFKA-19767, 4.2).

``ShareConsumeRequestManager.poll`` builds a ShareFetch for every leader of the consumer's
partitions. In ``batch_optimized`` mode (and before 4.2) each of them fetches records: one
response per leader. In ``record_limit`` mode (KIP-1206) from 4.2 only *one* node fetches
records at a time (``fetchRecordsNodeId``): the leader of the first partition in the consumer's
assignment order, that partition then moved to the end (``SubscriptionState.movePartitionToEnd``)
so the next poll starts elsewhere; the other nodes get a ShareFetch only to carry
acknowledgements. So a ``record_limit`` consumer holds one response's records, not one per
leader. Plain loops on arrays: numba compiles it.

>>> import numpy as np
>>> order, leader = np.array([0, 1]), np.array([0, 1])  # tp0 led by node 0, tp1 by node 1
>>> [record_limit_fetch_node(order, 2, leader) for _ in range(3)]
[0, 1, 0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["record_limit_fetch_node"]


def record_limit_fetch_node(order: np.ndarray, n: int, leader: np.ndarray) -> int:
    """The node a ``record_limit`` poll fetches records from: the leader of ``order[0]``, the
    first of the consumer's ``n`` partitions in ``order``, which then moves to the end of
    ``order[:n]`` (in place); -1 when the consumer has no partitions."""
    if n == 0:
        return -1
    first = order[0]
    for i in range(1, n):
        order[i - 1] = order[i]
    order[n - 1] = first
    return int(leader[first])
