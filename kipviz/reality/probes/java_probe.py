"""The consumer memory probe: a real Kafka Java consumer that reports what it keeps reachable.

``ConsumerProbe.java`` beside this module (package data, read through :mod:`importlib.resources`)
runs a ``KafkaConsumer`` of one release (kafka-clients 4.4.0 or 3.9.2, classic or the new
``AsyncKafkaConsumer`` by ``group.protocol``) with manual ``assign`` + ``seekToBeginning`` and,
just before each ``poll()``, counts the distinct fetch-response byte arrays reachable from its
``FetchBuffer`` (queued ``CompletedFetch``\\ es and ``nextInLineFetch``) and from the network
``Selector``'s receives. It prints one JSON object per line: a ``start`` line, a ``sample`` line
before every poll (and one after the last) and a ``summary`` line.

:func:`build_consumer_probe` compiles it once per release into
``cache_dir()/probes/java-consumer-<version>`` (again when the source's sha256 changes);
:func:`run_consumer_probe` runs it against a running cluster and returns the parsed lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

from kipviz.reality.jars import RealityError, cache_dir, find_java, kafka_jars, release
from kipviz.reality.probes.runner import run_probe

__all__ = ["MAIN_CLASS", "PROBE_SOURCE", "build_consumer_probe", "run_consumer_probe"]

PROBE_SOURCE = "ConsumerProbe.java"
MAIN_CLASS = "ConsumerProbe"
STAMP = ".source.sha256"
# SerialGC leaves up to MarkSweepDeadRatio % of the old generation as uncollected "dead wood"
# except on every MarkSweepAlwaysCompactCount-th full GC: both off, so that heap used after
# System.gc() is what is reachable (a dead 1 MiB response was otherwise counted now and then)
JVM_OPTIONS = ("-XX:+UseSerialGC", "-XX:MarkSweepDeadRatio=0", "-XX:MarkSweepAlwaysCompactCount=1",
               "-Xms64m", "-Xmx256m")


def _source_bytes() -> bytes:
    return resources.files(__package__).joinpath(PROBE_SOURCE).read_bytes()


def _first_error(log: Path) -> str:
    lines = log.read_text(errors="replace").splitlines()
    for line in lines:
        if "error:" in line:
            return line.strip()
    return lines[0].strip() if lines else "(javac printed nothing)"


def build_consumer_probe(kafka_version: str) -> Path:
    """Compile the probe against ``kafka_version``'s jars (``"4.4"`` or ``"3.9"``); returns the
    folder of its classes, ``cache_dir()/probes/java-consumer-<version>``."""
    rel = release(kafka_version)
    lib = kafka_jars(rel.name)
    out = cache_dir() / "probes" / f"java-consumer-{rel.version}"
    source = _source_bytes()
    digest = hashlib.sha256(source).hexdigest()
    stamp = out / STAMP
    if stamp.exists() and stamp.read_text().strip() == digest \
            and (out / f"{MAIN_CLASS}.class").exists():
        return out
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    src = out / PROBE_SOURCE
    src.write_bytes(source)
    log = out / "javac.log"
    cmd = [find_java("javac"), "--release", "17", "-encoding", "UTF-8", "-nowarn",
           "-cp", f"{lib}{os.sep}*", "-d", str(out), str(src)]
    with log.open("w") as sink:
        try:
            done = subprocess.run(cmd, stdout=sink, stderr=subprocess.STDOUT, check=False,
                                  timeout=300)
        except subprocess.TimeoutExpired as e:
            raise RealityError(f"the consumer probe for Kafka {rel.version} did not compile in "
                               f"300 s (javac log {log})") from e
    if done.returncode != 0 or not (out / f"{MAIN_CLASS}.class").exists():
        raise RealityError(f"the consumer probe ({PROBE_SOURCE}) for Kafka {rel.version} did not "
                           f"compile (javac exit {done.returncode}; log {log}): "
                           f"{_first_error(log)}")
    stamp.write_text(digest + "\n")
    return out


def run_consumer_probe(kafka_version: str, config: dict[str, Any], *, timeout_s: float,
                       log_dir: Path) -> list[dict[str, Any]]:
    """Run the probe with ``config`` (the JSON contract in ``ConsumerProbe.java``: bootstrap
    servers, ``assign``, ``consumer_config``, ``polls`` ...) and return its parsed JSON lines:
    ``start``, the ``sample``\\ s and ``summary``, through :func:`.runner.run_probe` (stopped by
    its pid if it outlives ``timeout_s``; its output in ``log_dir/consumer-probe.log``)."""
    rel = release(kafka_version)
    classes = build_consumer_probe(rel.name)
    lib = kafka_jars(rel.name)
    log_dir.mkdir(parents=True, exist_ok=True)
    config_path = log_dir / "consumer-probe-config.json"
    config_path.write_text(json.dumps(config, indent=1) + "\n")
    cmd = [find_java("java"), *JVM_OPTIONS, "-cp", f"{classes}{os.pathsep}{lib}{os.sep}*",
           MAIN_CLASS, str(config_path)]
    return run_probe(f"consumer (Kafka {rel.version})", cmd, log_dir / "consumer-probe.log",
                     timeout_s=timeout_s)
