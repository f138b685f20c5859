"""Dashboards: sliders -> scenario -> Spark curves -> a plotly FigureWidget redrawn in place.

Thin wiring only (:class:`Dashboard` holds what they share; each dashboard's controls are a table
of :class:`~kipviz.widgets.controls.Control`, one line a knob). Every control calls the
dashboard's ``update``, which tests and benchmarks call too. Bad settings never raise out of a
dashboard: they show as a visible warning naming the Kafka setting and the rule, and the figure
keeps its last good curves.

* :class:`FetchDashboard`: KIP-74 fetch limits and partition order (lesson 1; the ``consumer``
  kind's dashboard, :mod:`~kipviz.widgets.consumer`).
* :class:`BrokerDashboard`: KIP-72 broker memory pool (lesson 2).
* :class:`BufferDashboard`: KIP-81 consumer ``buffer.memory``, as proposed (lesson 3).
* :class:`ReassignmentDashboard`: KIP-73 replication throttles, one leader and one destination.
* :class:`ReassignmentPlanDashboard`: a real plan's move time per broker over T and IN (lesson 4).
* :class:`StreamsDashboard`: KIP-770 Streams input buffer (lesson 5).
* :class:`TourDashboard`: one cluster, every knob, your own config (the tour).
* :class:`GridDashboard`: instant sliders over a grid Spark computed once (lesson 6).
* :class:`ShareGroupDashboard`: KIP-932 share groups beside a classic group (lesson 7).
* :class:`TieredStorageDashboard`: tiered-storage fetches and remote quotas by version (lesson 8).
* :class:`ClientDashboard`: one catching-up consumer on Java's client, librdkafka, franz-go or
  kafka-python (lesson 9).

May import: ipywidgets, :mod:`kipviz.plots`, :mod:`kipviz.curves`, :mod:`kipviz.scenarios` and
:mod:`kipviz.kafka`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "_base": ["STATIC_ENV", "Dashboard", "byte_options"],
    "controls": ["Control"],
    "broker": ["BROKER_LESSON_SCENARIO", "BrokerDashboard"],
    "clients": ["CLIENTS_LESSON_SCENARIO", "ClientDashboard"],
    "consumer_buffer": ["BUFFER_LESSON_SCENARIO", "BufferDashboard"],
    "consumer": ["LESSON_SCENARIO", "FetchDashboard"],
    "grid": ["GRID_LESSON_SCENARIO", "GridDashboard"],
    "reassignment": ["REASSIGNMENT_LESSON_SCENARIO", "ReassignmentDashboard"],
    "reassignment_plan": ["ReassignmentPlanDashboard"],
    "share_group": ["SHARE_LESSON_SCENARIO", "ShareGroupDashboard"],
    "streams": ["STREAMS_LESSON_SCENARIO", "StreamsDashboard"],
    "tiered_fetch": ["TIERED_LESSON_SCENARIO", "TieredStorageDashboard"],
    "tour": ["TourDashboard"],
})
