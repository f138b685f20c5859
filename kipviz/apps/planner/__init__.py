"""The throttle planner: a reassignment's files in, a throttle, its move time and the commands out.

* :mod:`~kipviz.apps.planner.files`: reading what ``kafka-reassign-partitions --generate`` and
  ``kafka-log-dirs --describe`` print.
* :mod:`~kipviz.apps.planner.throttle`: ``plan_throttle`` (KIP-73's arithmetic with the
  followers ``--throttle`` counts), ``ThrottlePlan.to_text`` with the ``kafka-configs`` and
  ``kafka-reassign-partitions`` commands, and moves between log dirs: KIP-73's single-pair
  arithmetic.
* :mod:`~kipviz.apps.planner.reassignment`: ``plan_reassignment``, a real plan per broker (the
  flow schedule of :mod:`kipviz.kafka.replication.flow`, optionally simulated).
* :mod:`~kipviz.apps.planner.metrics`: IN per topic from the JMX exporter's Prometheus text.

May import: :mod:`kipviz.kafka` (the rules live in :mod:`kipviz.kafka.replication`) and, for
``simulate=True``, :mod:`kipviz.scenarios.reassignment`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "files": ["load_partition_sizes", "load_reassignment", "read_json"],
    "throttle": ["ThrottlePlan", "log_bytes_to_copy", "plan_log_dir_move", "plan_throttle",
                 "throttle_commands"],
    "reassignment": ["ReassignmentForecast", "load_bytes_in", "plan_reassignment"],
    "metrics": ["bytes_in_from_scrapes"],
})
