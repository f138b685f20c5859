"""The non-Java clients' consumer memory probes, each run as its own process against a running
cluster: librdkafka (``confluent_kafka.Consumer``) and kafka-python (``kafka.KafkaConsumer``)
through :mod:`kipviz.reality.probes.pyclient`, franz-go (``kgo.Client``) through the Go program
in ``go/`` beside this module.

Each ``run_<client>_probe(bootstrap, assignment, settings, *, polls, sleep_ms,
records_per_poll, timeout_s, log_dir)`` consumes ``assignment`` ((topic, partition) pairs) from
the start with a lagging application and returns the probe's parsed JSON lines (``start``,
``sample``\\ s, ``summary``; the summary's ``peak_bytes`` is the measure, over a baseline read
with the client connected and its partitions assigned at their end, before each is moved to its
start: what fetching the backlog adds). The process boundary keeps the measure clean: the
resident set, ``tracemalloc`` and Go's heap see the probe alone. Its output (stdout and
stderr) goes to ``log_dir/<client>-probe.log``; a probe that exits with an error, prints no
summary or outlives ``timeout_s`` is stopped by its pid (SIGTERM, a wait, SIGKILL) and is one
:class:`~kipviz.reality.jars.RealityError` naming its log.

The Go probe is built once per franz-go version (the one ``go/go.mod`` requires, v1.21.5: the
release kipviz's franz-go model was read at) with ``go build`` into
``cache_dir()/probes/franz-go-<version>``, again when its sources' sha256 changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from kipviz.reality.jars import RealityError, cache_dir
from kipviz.reality.probes.runner import parse_probe_lines, run_probe, summary

__all__ = ["GO_SOURCES", "build_franz_go_probe", "franz_go_version", "parse_probe_lines",
           "run_franz_go_probe", "run_kafka_python_probe", "run_librdkafka_probe", "summary"]

GO_SOURCES = ("go.mod", "go.sum", "main.go")
GO_BINARY = "franz-go-probe"
STAMP = ".source.sha256"
SAMPLE_MS = 50


def _config(client: str, bootstrap: str, assignment: Sequence[tuple[str, int]],
            settings: Mapping[str, Any], polls: int, sleep_ms: int,
            records_per_poll: int) -> dict[str, Any]:
    return {"client": client, "bootstrap": bootstrap,
            "assign": [[t, int(p)] for t, p in assignment], "settings": dict(settings),
            "polls": int(polls), "sleep_ms": int(sleep_ms),
            "records_per_poll": int(records_per_poll), "sample_ms": SAMPLE_MS}


def _python_probe(client: str, bootstrap: str, assignment: Sequence[tuple[str, int]],
                  settings: Mapping[str, Any], *, polls: int, sleep_ms: int,
                  records_per_poll: int, timeout_s: float, log_dir: Path) -> list[dict[str, Any]]:
    config = _config(client, bootstrap, assignment, settings, polls, sleep_ms, records_per_poll)
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / f"{client}-probe-config.json"
    path.write_text(json.dumps(config, indent=1) + "\n")
    cmd = [sys.executable, "-m", "kipviz.reality.probes.pyclient", str(path)]
    return run_probe(client, cmd, log_dir / f"{client}-probe.log", timeout_s=timeout_s)


def run_librdkafka_probe(bootstrap: str, assignment: list[tuple[str, int]],
                         settings: dict[str, Any], *, polls: int, sleep_ms: int,
                         records_per_poll: int, timeout_s: float,
                         log_dir: Path) -> list[dict[str, Any]]:
    """librdkafka (confluent-kafka): peak resident set over the baseline, and the consumer
    queue's ``fetchq_size`` from its statistics."""
    return _python_probe("librdkafka", bootstrap, assignment, settings, polls=polls,
                         sleep_ms=sleep_ms, records_per_poll=records_per_poll,
                         timeout_s=timeout_s, log_dir=log_dir)


def run_kafka_python_probe(bootstrap: str, assignment: list[tuple[str, int]],
                           settings: dict[str, Any], *, polls: int, sleep_ms: int,
                           records_per_poll: int, timeout_s: float,
                           log_dir: Path) -> list[dict[str, Any]]:
    """kafka-python: tracemalloc's peak traced memory over the baseline."""
    return _python_probe("kafka-python", bootstrap, assignment, settings, polls=polls,
                         sleep_ms=sleep_ms, records_per_poll=records_per_poll,
                         timeout_s=timeout_s, log_dir=log_dir)


# -- franz-go -------------------------------------------------------------------------------------
def _go_source(name: str) -> bytes:
    return resources.files(__package__).joinpath("go", name).read_bytes()


def franz_go_version() -> str:
    """The franz-go version ``go/go.mod`` requires (``"v1.21.5"``)."""
    found = re.search(rb"github\.com/twmb/franz-go\s+(v[0-9][^\s]*)", _go_source("go.mod"))
    if found is None:
        raise RealityError("the franz-go probe's go.mod requires no github.com/twmb/franz-go")
    return found.group(1).decode()


def _first_go_error(log: Path) -> str:
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines()
             if line.strip()]
    for line in lines:  # a compiler error first, then the go command's own
        if re.search(r"\.go:\d+(:\d+)?: ", line):
            return line
    for line in lines:
        if line.startswith("go: ") and not line.startswith("go: downloading"):
            return line
    return lines[0] if lines else "(go build printed nothing)"


def build_franz_go_probe(go: str | None = None) -> Path:
    """Build the Go probe (``go build``, ``GOFLAGS=-mod=mod``) on first use; returns the binary,
    ``cache_dir()/probes/franz-go-<version>/franz-go-probe``."""
    version = franz_go_version()
    out = cache_dir() / "probes" / f"franz-go-{version}"
    binary = out / GO_BINARY
    sources = {name: _go_source(name) for name in GO_SOURCES}
    digest = hashlib.sha256(b"".join(hashlib.sha256(sources[n]).digest()
                                     for n in GO_SOURCES)).hexdigest()
    stamp = out / STAMP
    if stamp.exists() and stamp.read_text().strip() == digest and binary.exists():
        return binary
    go = go or shutil.which("go")
    if not go:
        raise RealityError("the franz-go probe is built with Go, and no `go` is on PATH "
                           "(Debian: apt-get install golang-go)")
    shutil.rmtree(out, ignore_errors=True)
    src = out / "src"
    src.mkdir(parents=True)
    for name, data in sources.items():
        (src / name).write_bytes(data)
    log = out / "go-build.log"
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "CGO_ENABLED": "0"}
    with log.open("w") as sink:
        try:
            done = subprocess.run([go, "build", "-o", str(binary), "."], cwd=src, env=env,
                                  stdout=sink, stderr=subprocess.STDOUT, check=False,
                                  timeout=600)
        except subprocess.TimeoutExpired as e:
            raise RealityError(f"the franz-go probe (main.go, franz-go {version}) did not build "
                               f"in 600 s (log {log})") from e
    if done.returncode != 0 or not binary.exists():
        raise RealityError(f"the franz-go probe (main.go, franz-go {version}) did not build "
                           f"(go build exit {done.returncode}; log {log}): "
                           f"{_first_go_error(log)}")
    stamp.write_text(digest + "\n")
    return binary


def run_franz_go_probe(bootstrap: str, assignment: list[tuple[str, int]],
                       settings: dict[str, Any], *, polls: int, sleep_ms: int,
                       records_per_poll: int, timeout_s: float, log_dir: Path,
                       force_gc: bool = True) -> list[dict[str, Any]]:
    """franz-go: Go's ``HeapInuse`` over the baseline, after ``runtime.GC()`` at each sample
    (``force_gc``; the summary also carries the figures read without a collection)."""
    binary = build_franz_go_probe()
    config = _config("franz-go", bootstrap, assignment, settings, polls, sleep_ms,
                     records_per_poll)
    config["force_gc"] = bool(force_gc)
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / "franz-go-probe-config.json"
    path.write_text(json.dumps(config, indent=1) + "\n")
    return run_probe("franz-go", [str(binary), str(path)], log_dir / "franz-go-probe.log",
                     timeout_s=timeout_s)
