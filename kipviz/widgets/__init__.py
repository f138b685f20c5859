"""Dashboards: sliders -> scenario -> Spark curves -> a plotly FigureWidget redrawn in place.

Thin wiring only (:class:`Dashboard` holds what they share). Every control calls the
dashboard's ``update``, which tests and benchmarks call too. Bad settings never raise out of a
dashboard: they show as a visible warning naming the Kafka setting and the rule, and the figure
keeps its last good curves.

* :class:`FetchDashboard`: KIP-74 fetch limits and partition order (lesson 1).
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

from kipviz.widgets._base import STATIC_ENV, Dashboard, byte_options
from kipviz.widgets.broker import BROKER_LESSON_SCENARIO, BrokerDashboard
from kipviz.widgets.clients import CLIENTS_LESSON_SCENARIO, ClientDashboard
from kipviz.widgets.consumer_buffer import BUFFER_LESSON_SCENARIO, BufferDashboard
from kipviz.widgets.fetch import LESSON_SCENARIO, FetchDashboard
from kipviz.widgets.grid import GRID_LESSON_SCENARIO, GridDashboard
from kipviz.widgets.reassignment import REASSIGNMENT_LESSON_SCENARIO, ReassignmentDashboard
from kipviz.widgets.reassignment_plan import ReassignmentPlanDashboard
from kipviz.widgets.share_group import SHARE_LESSON_SCENARIO, ShareGroupDashboard
from kipviz.widgets.streams import STREAMS_LESSON_SCENARIO, StreamsDashboard
from kipviz.widgets.tiered import TIERED_LESSON_SCENARIO, TieredStorageDashboard
from kipviz.widgets.tour import TourDashboard

__all__ = ["BROKER_LESSON_SCENARIO", "BUFFER_LESSON_SCENARIO", "CLIENTS_LESSON_SCENARIO",
           "GRID_LESSON_SCENARIO", "LESSON_SCENARIO", "REASSIGNMENT_LESSON_SCENARIO",
           "SHARE_LESSON_SCENARIO", "STATIC_ENV", "STREAMS_LESSON_SCENARIO",
           "TIERED_LESSON_SCENARIO", "BrokerDashboard", "BufferDashboard", "ClientDashboard",
           "Dashboard", "FetchDashboard", "GridDashboard", "ReassignmentDashboard",
           "ReassignmentPlanDashboard", "ShareGroupDashboard", "StreamsDashboard",
           "TieredStorageDashboard", "TourDashboard", "byte_options"]
