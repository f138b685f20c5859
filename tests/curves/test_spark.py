"""The Spark plumbing's settings from the environment and its Java wrapper (no JVM started
here)."""

from __future__ import annotations

import pytest

from kipviz.curves.spark import config, java


def test_kipviz_spark_conf_adds_key_value_settings(monkeypatch):
    """``KIPVIZ_SPARK_CONF`` entries are ``key=value``, separated by ``;``; values keep their '='
    and spaces."""
    monkeypatch.setenv("KIPVIZ_SPARK_CONF", "spark.a=1; spark.b=-Dx=y -Dz ;")
    assert config.env_conf() == {"spark.a": "1", "spark.b": "-Dx=y -Dz"}
    monkeypatch.delenv("KIPVIZ_SPARK_CONF")
    assert config.env_conf() == {}


def test_a_malformed_kipviz_spark_conf_names_the_entry(monkeypatch):
    """An entry without '=' is an error naming it, not a silently ignored setting."""
    monkeypatch.setenv("KIPVIZ_SPARK_CONF", "spark.a=1;oops")
    with pytest.raises(ValueError, match=r"KIPVIZ_SPARK_CONF entries must be key=value.*'oops'"):
        config.env_conf()


def test_the_java_spark_runs_drops_the_incubating_vector_module(tmp_path, monkeypatch):
    """Spark's launcher adds ``--add-modules jdk.incubator.vector`` (in either spelling); the
    wrapper kipviz points JAVA_HOME at passes every other argument, in order, to the real java,
    so no "Using incubator modules" warning reaches a lesson. Wrapping a wrapper is a no-op."""
    import subprocess

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fake = tmp_path / "java"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    fake.chmod(0o755)
    home = java.wrapped_home(str(fake))
    args = ["-Xmx1g", "--add-modules=jdk.incubator.vector", "--add-modules",
            "jdk.incubator.vector", "--add-modules", "java.se", "-cp", "a b", "Main"]
    out = subprocess.run([str(home / "bin" / "java"), *args], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["-Xmx1g", "--add-modules", "java.se", "-cp", "a b", "Main"]
    assert java.wrapped_home(str(home / "bin" / "java")) == home
