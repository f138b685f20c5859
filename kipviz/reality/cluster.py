"""A real Apache Kafka cluster on loopback: KRaft, one dedicated controller, broker-only nodes.

``KafkaCluster(brokers=3, kafka_version="4.4")`` is a context manager. On entry it fetches the
release's jars (:func:`kipviz.reality.jars.kafka_jars`, Maven Central, cached), writes each
node's ``server.properties`` into a run folder, formats each node's log directory with Kafka's
own ``kafka.tools.StorageTool format -t <cluster id> -c <file>`` (static voters: the same
``controller.quorum.voters`` on every node, so no ``--standalone``, StorageTool.scala:152-171),
starts every node as its own JVM (``kafka.Kafka server.properties``, Kafka.scala) on free
127.0.0.1 ports and waits until each broker logged "Kafka Server started" (KafkaBroker.scala:72)
and a metadata request lists every broker. On exit it stops the brokers, then the controller,
each by its pid: SIGTERM, then SIGKILL after ``stop_timeout_s`` (a broker can otherwise wait up
to 5 minutes for controlled shutdown, KafkaBroker.scala:102). A node that does not start, a
port taken, a jar that cannot be fetched: one :class:`~kipviz.reality.jars.RealityError` naming
the node, its log file and the cause; the run folder is kept for reading then (and removed
after a clean stop unless ``keep=True``).

Small JVMs (``-Xms256m -Xmx512m``, SerialGC), a 16 MiB cleaner dedupe buffer (128 MiB on the heap
otherwise) and two network and io threads: about 0.6-0.8 GB resident a node, so six brokers fit
beside JupyterLab and Spark in 24 GiB. The internal topics' replication factors follow the
broker count (at most 3) with a min ISR of 1, and classic groups rebalance without the initial
3 s delay.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from kipviz.kafka.config.checks import check_int, check_topic_name
from kipviz.kafka.units import MiB
from kipviz.reality import processes
from kipviz.reality.jars import RealityError, Release, kafka_jars, release
from kipviz.reality.nodes import STARTED_LINE, Node, cluster_id, jvm_command, write_node_files

__all__ = ["CONTROLLER_ID", "KafkaCluster"]

CONTROLLER_ID = 100
"""The dedicated controller's ``node.id``; brokers are 1 .. brokers."""

class KafkaCluster:
    """A KRaft cluster of ``brokers`` broker-only nodes and one controller on 127.0.0.1.

    ``broker_config`` is added to (and overrides) every broker's ``server.properties``, and
    ``node_config[id]`` to broker ``id``'s after it (brokers of one cluster may differ, as on a
    real one: ``{2: {"max.incremental.fetch.session.cache.slots": 0}}``); a key a broker does
    not know is ignored by Kafka silently, as on a real cluster. ``request_log=True`` has every
    broker log each request with its response (``Node.request_log``). ``jmx=True`` opens
    JMX on a free port per node (``.jmx_port(node_id)``), authentication and SSL off.

    >>> with KafkaCluster(brokers=1) as cluster:              # doctest: +SKIP
    ...     cluster.create_topic("t", partitions=4)
    ...     cluster.bootstrap_servers
    '127.0.0.1:40321'
    """

    def __init__(self, brokers: int = 3, kafka_version: str = "4.4",
                 broker_config: Mapping[str, object] | None = None, *,
                 controller_config: Mapping[str, object] | None = None,
                 node_config: Mapping[int, Mapping[str, object]] | None = None,
                 request_log: bool = False,
                 workdir: str | Path | None = None, keep: bool = False, jmx: bool = False,
                 heap: str = "512m", start_timeout_s: float = 120.0,
                 stop_timeout_s: float = 30.0) -> None:
        self.brokers = check_int("brokers", brokers, 1)
        self.release: Release = release(kafka_version)
        self.kafka_version = self.release.name
        self.broker_config = dict(broker_config or {})
        self.controller_config = dict(controller_config or {})
        self.node_config = {int(k): dict(v) for k, v in (node_config or {}).items()}
        unknown = sorted(set(self.node_config) - set(range(1, self.brokers + 1)))
        if unknown:
            raise ValueError(f"node_config's keys must be broker ids, 1 to {self.brokers}: "
                             f"{unknown}")
        self.request_log = bool(request_log)
        self.keep = keep
        self.jmx = jmx
        self.heap = heap
        self.start_timeout_s = float(start_timeout_s)
        self.stop_timeout_s = float(stop_timeout_s)
        self._workdir_arg = Path(workdir) if workdir is not None else None
        self.folder: Path | None = None
        self.nodes: dict[int, Node] = {}
        self.cluster_id = cluster_id()
        self._lib: Path | None = None
        self._failed = False
        self._admin: Any = None

    # -- the context manager -------------------------------------------------------------------
    def __enter__(self) -> KafkaCluster:
        try:
            self.start()
        except BaseException:
            self._failed = True
            self.stop()
            raise
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc is not None:
            self._failed = True
        self.stop()

    # -- what callers read ---------------------------------------------------------------------
    @property
    def broker_ids(self) -> list[int]:
        return [n.node_id for n in self.nodes.values() if n.role == "broker"]

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(f"127.0.0.1:{n.port}" for n in self.nodes.values() if n.role == "broker")

    @property
    def pids(self) -> list[int]:
        """The pids of the nodes running now."""
        return [n.pid for n in self.nodes.values() if n.pid is not None]

    @property
    def class_path(self) -> str:
        """The release's jars as a Java class path (for Kafka's own tools and the probes)."""
        if self._lib is None:
            self._lib = kafka_jars(self.kafka_version)
        return str(self._lib / "*")

    def node(self, node_id: int) -> Node:
        if node_id not in self.nodes:
            raise ValueError(f"node_id must be one of {sorted(self.nodes)}: {node_id}")
        return self.nodes[node_id]

    def jmx_port(self, node_id: int) -> int:
        port = self.node(node_id).jmx_port
        if port is None:
            raise ValueError("jmx must be True for JMX ports: KafkaCluster(..., jmx=True)")
        return port

    # -- starting and stopping -----------------------------------------------------------------
    def start(self) -> None:
        """Fetch the jars, write and format every node, start them and wait until ready."""
        cp = self.class_path
        self.folder = (self._workdir_arg or Path(tempfile.mkdtemp(prefix="kipviz-kafka-")))
        self.folder.mkdir(parents=True, exist_ok=True)
        ports = processes.free_ports((self.brokers + 1) * (2 if self.jmx else 1))
        jmx_ports = ports[self.brokers + 1:] if self.jmx else [None] * (self.brokers + 1)
        self.nodes = {CONTROLLER_ID: Node(CONTROLLER_ID, "controller", ports[0],
                                          self.folder / "controller", jmx_ports[0])}
        for i in range(1, self.brokers + 1):
            self.nodes[i] = Node(i, "broker", ports[i], self.folder / f"broker-{i}", jmx_ports[i])
        for node in self.nodes.values():
            self._write(node)
            self._format(node, cp)
        for node in self.nodes.values():
            self._launch(node, cp)
        deadline = time.monotonic() + self.start_timeout_s
        for node in self.nodes.values():
            self._wait_started(node, deadline)
        self._wait_brokers(self.broker_ids, deadline)

    def stop(self) -> None:
        """Stop the brokers, then the controller, each by its pid (SIGKILL after
        ``stop_timeout_s``). The run folder is removed unless ``keep`` or a failure."""
        self._admin = None  # librdkafka's threads would log each broker's disconnection
        for node in sorted(self.nodes.values(), key=lambda n: n.role == "controller"):
            if node.proc is not None:
                processes.stop(node.proc, self.stop_timeout_s)
        if self.folder is not None and not self.keep and not self._failed \
                and self._workdir_arg is None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def stop_broker(self, broker_id: int) -> int:
        """Stop one broker by its pid; returns its exit code (0 after a controlled shutdown,
        -9 when it was killed after ``stop_timeout_s``)."""
        node = self._broker(broker_id)
        if node.proc is None:
            raise ValueError(f"broker {broker_id} is not running")
        code = processes.stop(node.proc, self.stop_timeout_s)
        node.proc = None
        return code

    def start_broker(self, broker_id: int) -> None:
        """Start a stopped broker again on its port and log directory; waits until ready."""
        node = self._broker(broker_id)
        if node.pid is not None:
            raise ValueError(f"broker {broker_id} is running already (pid {node.pid})")
        self._launch(node, self.class_path)
        deadline = time.monotonic() + self.start_timeout_s
        self._wait_started(node, deadline, since=node.log.stat().st_size if node.log.exists()
                           else 0)
        self._wait_brokers([broker_id], deadline)

    def _broker(self, broker_id: int) -> Node:
        node = self.nodes.get(broker_id)
        if node is None or node.role != "broker":
            raise ValueError(f"broker_id must be one of {self.broker_ids}: {broker_id}")
        return node

    # -- node files ----------------------------------------------------------------------------
    def _config(self, node: Node) -> dict[str, object]:
        controller = self.nodes[CONTROLLER_ID]
        replicas = min(3, self.brokers)
        common: dict[str, object] = {
            "node.id": node.node_id,
            "controller.quorum.voters": f"{CONTROLLER_ID}@127.0.0.1:{controller.port}",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": node.data_dir,
            "num.network.threads": 2,
            "num.io.threads": 2,
            "background.threads": 2,
            "log.cleaner.dedupe.buffer.size": 16 * MiB,
            "log.cleaner.threads": 1,
        }
        if node.role == "controller":
            return {"process.roles": "controller",
                    "listeners": f"CONTROLLER://127.0.0.1:{node.port}", **common,
                    **self.controller_config}
        return {
            "process.roles": "broker",
            "listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
            "inter.broker.listener.name": "PLAINTEXT",
            **common,
            "auto.create.topics.enable": "false",
            "offsets.topic.replication.factor": replicas,
            "offsets.topic.num.partitions": 5,
            "transaction.state.log.replication.factor": replicas,
            "transaction.state.log.min.isr": 1,
            "share.coordinator.state.topic.replication.factor": replicas,
            "share.coordinator.state.topic.min.isr": 1,
            "group.initial.rebalance.delay.ms": 0,
            "num.replica.fetchers": 1,
            **self.broker_config,
            **self.node_config.get(node.node_id, {}),
        }

    def _write(self, node: Node) -> None:
        write_node_files(node, self._config(node), self.release,
                         request_log=self.request_log and node.role == "broker")

    def _jvm(self, node: Node, cp: str) -> list[str]:
        return jvm_command(node, self.release, cp, self.heap)

    def _format(self, node: Node, cp: str) -> None:
        log = node.folder / "format.log"
        cmd = [*self._jvm(node, cp), "kafka.tools.StorageTool", "format", "-t", self.cluster_id,
               "-c", str(node.folder / "server.properties")]
        with log.open("wb") as sink:
            done = subprocess.run(cmd, stdout=sink, stderr=subprocess.STDOUT, check=False,
                                  timeout=120)
        if done.returncode != 0:
            raise RealityError(f"Kafka {self.release.version} {node.name}: StorageTool format "
                               f"failed (exit {done.returncode}; log {log}): "
                               f"{processes.log_tail(log)}")

    def _launch(self, node: Node, cp: str) -> None:
        cmd = [*self._jvm(node, cp), "kafka.Kafka", str(node.folder / "server.properties")]
        node.proc = processes.start(cmd, node.log, cwd=node.folder)

    # -- readiness -----------------------------------------------------------------------------
    def _fail(self, node: Node, why: str) -> RealityError:
        self._failed = True
        return RealityError(f"Kafka {self.release.version} {node.name} (port {node.port}) "
                            f"{why} (log {node.log}): {processes.log_tail(node.log)}")

    def _wait_started(self, node: Node, deadline: float, since: int = 0) -> None:
        while True:
            if node.proc is None or node.proc.poll() is not None:
                code = node.proc.returncode if node.proc is not None else None
                raise self._fail(node, f"exited during start-up (exit {code})")
            try:
                with node.log.open("rb") as f:
                    f.seek(since)
                    text = f.read().decode(errors="replace")
            except OSError:
                text = ""
            if "Address already in use" in text:
                raise self._fail(node, "could not bind its port: in use")
            if STARTED_LINE in text:
                return
            if time.monotonic() > deadline:
                raise self._fail(node, f"did not log '{STARTED_LINE}' within "
                                       f"{self.start_timeout_s:.0f} s")
            time.sleep(0.2)

    def admin(self, **config: Any) -> Any:
        """A ``confluent_kafka.admin.AdminClient`` on this cluster (librdkafka)."""
        from confluent_kafka.admin import AdminClient
        if not config and self._admin is not None:
            return self._admin
        client = AdminClient({"bootstrap.servers": self.bootstrap_servers,
                              "log.connection.close": False, **config})
        if not config:
            self._admin = client
        return client

    def _wait_brokers(self, ids: Sequence[int], deadline: float) -> None:
        admin = self.admin()
        last = "no answer"
        while time.monotonic() < deadline:
            for node in self.nodes.values():
                if node.proc is not None and node.proc.poll() is not None:
                    raise self._fail(node, f"exited (exit {node.proc.returncode})")
            try:
                seen = set(admin.list_topics(timeout=5).brokers)
                if set(ids) <= seen:
                    return
                last = f"metadata lists brokers {sorted(seen)}"
            except Exception as e:  # librdkafka's KafkaException while nodes come up
                last = str(e)
            time.sleep(0.3)
        raise self._fail(self.nodes[ids[0]], f"not in the cluster's metadata within "
                                             f"{self.start_timeout_s:.0f} s ({last})")

    # -- topics --------------------------------------------------------------------------------
    def create_topic(self, name: str, partitions: int = 1, replication_factor: int = 1,
                     assignment: Sequence[Sequence[int]] | None = None,
                     config: Mapping[str, object] | None = None,
                     timeout_s: float = 60.0) -> None:
        """Create a topic and wait until every partition has a leader. ``assignment`` is one
        replica list per partition (broker ids, the first is the preferred leader); without it
        Kafka places the replicas."""
        from confluent_kafka.admin import NewTopic
        name = check_topic_name(name)
        conf = {k: str(v) for k, v in (config or {}).items()}
        if assignment is not None:
            replicas = [list(r) for r in assignment]
            unknown = sorted({b for r in replicas for b in r} - set(self.broker_ids))
            if unknown:
                raise ValueError(f"assignment must name brokers of {self.broker_ids}: {unknown}")
            topic = NewTopic(name, num_partitions=len(replicas), replication_factor=-1,
                             replica_assignment=replicas, config=conf)
        else:
            topic = NewTopic(name, num_partitions=check_int("partitions", partitions, 1),
                             replication_factor=check_int("replication_factor",
                                                          replication_factor, 1),
                             config=conf)
        admin = self.admin()
        admin.create_topics([topic], operation_timeout=timeout_s)[name].result(timeout_s)
        want = len(assignment) if assignment is not None else partitions
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            meta = admin.list_topics(topic=name, timeout=5).topics.get(name)
            if meta is not None and meta.error is None and len(meta.partitions) == want \
                    and all(p.leader >= 0 for p in meta.partitions.values()):
                return
            time.sleep(0.2)
        raise RealityError(f"topic {name}: not every partition had a leader within "
                           f"{timeout_s:.0f} s")

    def leaders(self, topic: str) -> dict[int, int]:
        """Partition -> leader broker id, from the cluster's metadata."""
        meta = self.admin().list_topics(topic=topic, timeout=10).topics[topic]
        return {p: info.leader for p, info in sorted(meta.partitions.items())}

    def partition_dir(self, topic: str, partition: int, broker_id: int | None = None) -> Path:
        """The folder of a partition's segment files on ``broker_id`` (its leader if None)."""
        broker = broker_id if broker_id is not None else self.leaders(topic)[partition]
        return self._broker(broker).data_dir / f"{topic}-{partition}"
