"""KIP-932 in the group coordinator, Kafka 4.3: group-level settings and the assignment interval.

* KIP-1240 (KAFKA-20159, KAFKA-20160, KAFKA-20162): a share group may set its own
  ``share.delivery.count.limit`` and ``share.partition.max.record.locks`` (``GroupConfig``); the
  broker bounds them by ``group.share.{min,max}.delivery.count.limit`` (2, 10) and
  ``group.share.{min,max}.partition.max.record.locks`` (100, 4000) (``ShareGroupConfig``).
  ``kafka-configs --alter`` refuses a value outside the bounds (``GroupConfig.validateValues``);
  a value set before the bounds moved is clamped to them, with a WARN
  (``GroupConfig.evaluate`` -> ``clampToRange``). Unset, the broker's own setting applies.
* KIP-1263 (KAFKA-20291): the coordinator computes a new target assignment only when
  ``group.share.assignment.interval.ms`` (1000; before 4.3, in effect 0) has passed since the
  last one (``GroupMetadataManager.canComputeNextTargetAssignment``); members that join in
  between keep the last target assignment (none, for a new member) until then.

>>> effective_group_setting(5000, 2000, 100, 4000), effective_group_setting(None, 2000, 100, 4000)
(4000, 2000)
>>> can_compute_next_target_assignment(1_000_000, 5000, 1_004_999)
False
"""

from __future__ import annotations

__all__ = ["can_compute_next_target_assignment", "effective_group_setting"]


def effective_group_setting(group_value: int | None, broker_value: int, minimum: int,
                            maximum: int) -> int:
    """A share group's setting in effect (KIP-1240): its own ``group_value`` clamped to the
    broker's ``[minimum, maximum]`` (``GroupConfig.evaluate``, ``clampToRange``: below the
    minimum gives the minimum, above the maximum the maximum), or ``broker_value`` when the group
    sets none."""
    if group_value is None:
        return broker_value
    if group_value < minimum:
        return minimum
    if group_value > maximum:
        return maximum
    return group_value


def can_compute_next_target_assignment(assignment_timestamp_ms: int,
                                       assignment_interval_ms: int, current_time_ms: int) -> bool:
    """``GroupMetadataManager.canComputeNextTargetAssignment`` (KIP-1263): at once when there is
    no previous assignment (timestamp 0) or the interval is 0, else once ``now >= last +
    interval``."""
    if assignment_timestamp_ms == 0 or assignment_interval_ms == 0:
        return True
    return current_time_ms >= assignment_timestamp_ms + assignment_interval_ms
