"""Apache Kafka's own jars, by release, from Maven Central, cached once per version.

``java/pom.xml`` beside this module lists a release's broker, storage tool, Java clients and a
logging binding (log4j2 behind slf4j for 4.x, reload4j for 3.x, as each release's distribution
ships); :func:`kafka_jars` runs ``mvn dependency:copy-dependencies`` on it into
``<cache>/kafka-<version>/lib`` on first use. The cache is ``$KIPVIZ_REALITY_CACHE`` or
``<sys.prefix>/kipviz-reality`` (``.venv/kipviz-reality`` in a clone's venv), never the
repository. A jar that cannot be fetched is one :class:`RealityError` naming the version, the
log file and Maven's last lines.

Releases (:data:`RELEASES`) map kipviz's ``"MAJOR.MINOR"`` names to the patch release whose
jars are used: ``"4.4"`` -> 4.4.0, ``"3.9"`` -> 3.9.2 (the newest 3.9.x; both negotiate fetch
v17 with either side).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from kipviz.kafka.config.checks import check_choice

__all__ = ["RELEASES", "RealityError", "Release", "cache_dir", "find_java", "kafka_jars",
           "release"]


class RealityError(RuntimeError):
    """Something on the way to a real Kafka failed: the message names the broker, probe or
    jar, its log file and the cause."""


@dataclass(frozen=True)
class Release:
    """One Kafka release kipviz runs for real."""

    name: str            # kipviz's "MAJOR.MINOR"
    version: str         # the Maven version
    logging: str         # the pom profile: "log4j2" or "reload4j"
    model_version: str   # the release whose rules kipviz's scenarios model for it

    @property
    def major(self) -> int:
        return int(self.name.split(".")[0])


RELEASES: dict[str, Release] = {
    # 4.4 changes no consumer fetch rule against 4.3 (DESIGN, "Checked 2026-12-02"): the model's
    # newest release, 4.3, predicts it until 4.4 joins KAFKA_VERSIONS
    "4.4": Release("4.4", "4.4.0", "log4j2", "4.3"),
    "3.9": Release("3.9", "3.9.2", "reload4j", "3.9"),
}
RELEASE_RULE = f"one of {', '.join(RELEASES)} (a Kafka release kipviz runs for real)"


def release(kafka_version: object) -> Release:
    """The :class:`Release` for ``"4.4"`` or ``"3.9"``; anything else is a ValueError."""
    return RELEASES[str(check_choice("kafka_version", kafka_version, list(RELEASES),
                                     RELEASE_RULE))]


def cache_dir() -> Path:
    """Where jars, built probes and run folders live: ``$KIPVIZ_REALITY_CACHE`` or
    ``<sys.prefix>/kipviz-reality``."""
    return Path(os.environ.get("KIPVIZ_REALITY_CACHE") or Path(sys.prefix) / "kipviz-reality")


def find_java(tool: str = "java") -> str:
    """``java`` or ``javac`` of a JDK 17+: ``$JAVA_HOME/bin`` first, then ``PATH``."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / tool).exists():
        return str(Path(home) / "bin" / tool)
    found = shutil.which(tool)
    if not found:
        raise RealityError(f"no `{tool}` found (JAVA_HOME or PATH): a real Kafka needs a JDK 17+ "
                           "(Debian: apt-get install openjdk-17-jdk-headless)")
    return found


def _run_maven(pom: Path, rel: Release, out: Path, log: Path) -> None:
    mvn = shutil.which("mvn")
    if not mvn:
        raise RealityError(f"Kafka {rel.version}'s jars come from Maven Central through Maven, and "
                           "no `mvn` is on PATH (Debian: apt-get install maven)")
    cmd = [mvn, "-B", "-q", "-f", str(pom), f"-P{rel.logging}", f"-Dkafka.version={rel.version}",
           "dependency:copy-dependencies", f"-DoutputDirectory={out}"]
    with log.open("w") as sink:
        done = subprocess.run(cmd, stdout=sink, stderr=subprocess.STDOUT, check=False,
                              timeout=900)
    if done.returncode != 0:
        tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
        raise RealityError(f"Kafka {rel.version}'s jars could not be fetched (mvn exit "
                           f"{done.returncode}; log {log}): {tail}")


def kafka_jars(kafka_version: str = "4.4") -> Path:
    """The folder holding every jar of this release (fetched on first use): a class path is
    ``str(kafka_jars(v) / "*")``."""
    rel = release(kafka_version)
    home = cache_dir() / f"kafka-{rel.version}"
    lib = home / "lib"
    stamp = home / ".complete"
    if stamp.exists():
        return lib
    home.mkdir(parents=True, exist_ok=True)
    staging = home / "lib.partial"
    shutil.rmtree(staging, ignore_errors=True)
    with resources.as_file(resources.files(__package__).joinpath("java", "pom.xml")) as pom:
        _run_maven(pom, rel, staging, home / "maven.log")
    if not any(staging.glob(f"kafka-clients-{rel.version}.jar")):
        raise RealityError(f"Kafka {rel.version}: Maven finished but kafka-clients-{rel.version}"
                           f".jar is not in {staging} (log {home / 'maven.log'})")
    shutil.rmtree(lib, ignore_errors=True)
    staging.rename(lib)
    stamp.write_text(rel.version + "\n")
    return lib
