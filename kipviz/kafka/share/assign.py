"""KIP-932: the share groups' ``SimpleAssignor`` (``group-coordinator/.../assignor``).

``SimpleHomogeneousAssignmentBuilder`` (all members subscribed to the same topics), for a new
group: each partition shared by ``ceil(members / partitions)`` members (``desiredSharing``), each
member given ``ceil(d * (m + 1)) - ceil(d * m)`` partitions (``d = sharing * partitions /
members``), filled partition by partition from the members still short, in member order
(``assignRemainingPartitions``). So more members than partitions share them, where a classic
group leaves the extra consumers idle.
"""

from __future__ import annotations

import numpy as np

from kipviz.kafka.config.checks import check_int as _check_int

__all__ = ["simple_assign"]


def simple_assign(members: int, partitions: int) -> list[list[int]]:
    """``SimpleHomogeneousAssignmentBuilder`` for a new group: each member's partitions.

    Kafka walks the partitions in ``HashMap`` order of their topic ids (random); here in index
    order. More members than partitions share each partition (the point of share groups).

    >>> simple_assign(8, 2)
    [[0], [0], [0], [0], [1], [1], [1], [1]]
    >>> simple_assign(3, 2)
    [[0, 1], [0], [1]]
    >>> simple_assign(2, 5)
    [[0, 2, 4], [1, 3]]
    """
    _check_int("members", members, 1)
    _check_int("partitions", partitions, 0)
    result: list[list[int]] = [[] for _ in range(members)]
    if partitions == 0:
        return result
    sharing = (members + partitions - 1) // partitions  # desiredSharing
    precise = sharing * partitions / members
    desired = [int(np.ceil(precise * (m + 1))) - int(np.ceil(precise * m))
               for m in range(members)]
    unfilled = [m for m in range(members) if desired[m] > 0]
    pos, assigned_this_pass = 0, False
    for p in range(partitions):
        holders: set[int] = set()
        to_make = sharing
        while to_make > 0 and unfilled:
            if pos >= len(unfilled):
                if not assigned_this_pass:
                    break
                pos, assigned_this_pass = 0, False
            m = unfilled[pos]
            pos += 1
            if m not in holders:
                holders.add(m)
                result[m].append(p)
                to_make -= 1
                assigned_this_pass = True
                if len(result[m]) >= desired[m]:
                    pos -= 1
                    unfilled.pop(pos)  # memberIterator.remove()
        if not unfilled:
            break
    return result
