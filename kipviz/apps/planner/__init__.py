"""The throttle planner: a reassignment's files in, a throttle, its move time and the commands out.

* :mod:`~kipviz.apps.planner.files`: reading what ``kafka-reassign-partitions --generate`` and
  ``kafka-log-dirs --describe`` print.
* :mod:`~kipviz.apps.planner.throttle`: ``plan_throttle`` (KIP-73's arithmetic with the
  followers ``--throttle`` counts), ``ThrottlePlan.to_text`` with the ``kafka-configs`` and
  ``kafka-reassign-partitions`` commands, and moves between log dirs.

May import: :mod:`kipviz.kafka` (the rules live in :mod:`kipviz.kafka.replication`).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "files": ["load_partition_sizes", "load_reassignment", "read_json"],
    "throttle": ["ThrottlePlan", "log_bytes_to_copy", "plan_log_dir_move", "plan_throttle"],
})
