"""One KRaft node of a :class:`~kipviz.reality.cluster.KafkaCluster`: its folder, its
``server.properties``, its logging configuration and the Java command that runs it.

Logging as each release's distribution does it: log4j2 behind slf4j for 4.x (KIP-653), reload4j
for 3.x, to the JVM's stdout, which is the node's ``server.log``. Without a binding at INFO a
broker never logs "Kafka Server started" (KafkaBroker.scala:72), which is how readiness is read.
"""

from __future__ import annotations

import base64
import subprocess
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kipviz.kafka.units import MiB
from kipviz.reality.jars import Release, find_java

__all__ = ["REQUEST_LOG", "STARTED_LINE", "Node", "cluster_id", "jvm_command", "write_node_files"]

_LOG4J2 = """\
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.request.name = kafka.request.logger
logger.request.level = WARN
"""
_LOG4J1 = """\
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
"""
STARTED_LINE = "Kafka Server started"
REQUEST_LOG = "requests.log"
# with request_log: kafka.request.logger at DEBUG, one "Completed request:{json}" line per request
# with its response (4.4 server/.../network/Request.java:394, 3.9 RequestChannel.scala:284;
# a FetchResponse as JSON gives each partition's recordsSizeInBytes, not its records), to a file
# of its own so that server.log stays readable
_LOG4J2_REQUESTS = """\
appender.requests.type = File
appender.requests.name = REQUESTS
appender.requests.fileName = {path}
appender.requests.layout.type = PatternLayout
appender.requests.layout.pattern = %m%n
logger.request.level = DEBUG
logger.request.additivity = false
logger.request.appenderRef.requests.ref = REQUESTS
"""
_LOG4J1_REQUESTS = """\
log4j.appender.requests=org.apache.log4j.FileAppender
log4j.appender.requests.File={path}
log4j.appender.requests.layout=org.apache.log4j.PatternLayout
log4j.appender.requests.layout.ConversionPattern=%m%n
log4j.logger.kafka.request.logger=DEBUG, requests
log4j.additivity.kafka.request.logger=false
"""


@dataclass
class Node:
    """One KRaft node: its id, role, ports, folder and (while it runs) its process."""

    node_id: int
    role: str                      # "controller" or "broker"
    port: int
    folder: Path
    jmx_port: int | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def log(self) -> Path:
        """The node's own log (its JVM's stdout and stderr)."""
        return self.folder / "server.log"

    @property
    def request_log(self) -> Path:
        """Where the node logs every request and its response, when asked to
        (``KafkaCluster(request_log=True)``): :data:`REQUEST_LOG` in its folder."""
        return self.folder / REQUEST_LOG

    @property
    def data_dir(self) -> Path:
        """``log.dirs``: the node's partitions' segment files."""
        return self.folder / "data"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    @property
    def name(self) -> str:
        return f"controller {self.node_id}" if self.role == "controller" \
            else f"broker {self.node_id}"


def cluster_id() -> str:
    """A Kafka ``Uuid`` as Kafka prints it: 16 random bytes, URL-safe base64 without padding,
    never starting with "-" (``Uuid.randomUuid`` draws again then, since a command line would
    read it as an option: StorageTool's ``-t`` did, once in a few dozen clusters)."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def _properties(values: Mapping[str, object]) -> str:
    return "".join(f"{k}={v}\n" for k, v in values.items())


def write_node_files(node: Node, config: Mapping[str, object], release: Release, *,
                     request_log: bool = False) -> None:
    """``server.properties`` and the release's logging configuration in the node's folder;
    ``request_log``: every request and its response in :attr:`Node.request_log` as well."""
    node.folder.mkdir(parents=True, exist_ok=True)
    (node.folder / "server.properties").write_text(_properties(config))
    if release.logging == "log4j2":
        text = _LOG4J2
        if request_log:
            text = text.replace("logger.request.level = WARN\n", "") \
                + _LOG4J2_REQUESTS.format(path=node.request_log)
        (node.folder / "log4j2.properties").write_text(text)
    else:
        text = _LOG4J1
        if request_log:
            text = text.replace("log4j.logger.kafka.request.logger=WARN\n", "") \
                + _LOG4J1_REQUESTS.format(path=node.request_log)
        (node.folder / "log4j.properties").write_text(text)


def jvm_command(node: Node, release: Release, class_path: str, heap: str) -> list[str]:
    """``java`` with a small heap, SerialGC, the node's logging and (optionally) JMX, and the
    class path; the main class and its arguments follow."""
    logging = (f"-Dlog4j2.configurationFile={node.folder / 'log4j2.properties'}"
               if release.logging == "log4j2"
               else f"-Dlog4j.configuration=file:{node.folder / 'log4j.properties'}")
    opts = [find_java(), f"-Xms{min(256, _mib(heap))}m", f"-Xmx{heap}",
            "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
            logging, f"-Dkafka.logs.dir={node.folder}"]
    if node.jmx_port is not None:
        opts += ["-Dcom.sun.management.jmxremote",
                 f"-Dcom.sun.management.jmxremote.port={node.jmx_port}",
                 f"-Dcom.sun.management.jmxremote.rmi.port={node.jmx_port}",
                 "-Dcom.sun.management.jmxremote.authenticate=false",
                 "-Dcom.sun.management.jmxremote.ssl=false",
                 "-Djava.rmi.server.hostname=127.0.0.1"]
    return [*opts, "-cp", class_path]


def _mib(heap: str) -> int:
    units = {"k": 1 / 1024, "m": 1, "g": 1024}
    return int(float(heap[:-1]) * units[heap[-1].lower()]) if heap[-1].lower() in units \
        else int(heap) // MiB
