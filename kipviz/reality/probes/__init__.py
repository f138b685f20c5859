"""The probes: small programs on each client that report what it really holds, as JSON lines.

* :mod:`.java_probe`: ``ConsumerProbe.java`` on kafka-clients 3.9.2 / 4.4.0 (classic and the new
  consumer): the distinct response buffers its fetch buffer and network receives keep reachable.
* :mod:`.clients`: librdkafka (confluent-kafka) and kafka-python through :mod:`.pyclient` in a
  process of their own, franz-go through the Go program in ``go/``.

Each is built on first use into ``cache_dir()/probes`` and run by :mod:`.runner` (a process of its
own, stopped by its pid, its output in one log).

May import: :mod:`kipviz.reality` (jars, processes) and the standard library; the clients
themselves only inside the probe processes.
"""

__all__: list[str] = []
