"""What Kafka does: its rules, one folder per area, as plain functions on state and small classes.

* :mod:`kipviz.kafka.config`: every modelled setting declared once (name, Java type and range,
  default, unit, rule), validation with one error shape, ``.properties`` files, Kafka's own key
  lists, and which release does what (:mod:`kipviz.kafka.config.versions`).
* :mod:`kipviz.kafka.fetch`: KIP-74: what a broker puts in a fetch response, which partitions a
  consumer asks for and in which order.
* :mod:`kipviz.kafka.clients`: librdkafka's, franz-go's and kafka-python's settings by their own
  names, readers for their configs, and each client's memory bound (issue 31).
* :mod:`kipviz.kafka.consumer`: how much memory a consumer holds, by version; KIP-81's
  ``buffer.memory`` as proposed.
* :mod:`kipviz.kafka.broker`: KIP-72's memory pool for requests.
* :mod:`kipviz.kafka.quotas`: Kafka's windowed rate, quota checks, the client fetch quota and
  the token bucket (KIP-599).
* :mod:`kipviz.kafka.replication`: KIP-73's replication quotas, reassignment plans and their
  throttle lists, the move-time arithmetic.
* :mod:`kipviz.kafka.streams`: Kafka Streams' input buffer (KIP-770) and its memory.
* :mod:`kipviz.kafka.share`: share groups (KIP-932).
* :mod:`kipviz.kafka.tiered`: tiered storage's remote fetches and quotas (KIP-405, KIP-956).

May import: numpy, pandas and the standard library, and other areas of this package (the import
graph has no cycle). Nothing here imports Spark, plotly, ipywidgets, SimPy or any other kipviz
layer. Each rule exists once; the scenarios' numba kernels compile these same functions.
"""

from __future__ import annotations

__all__: list[str] = []
