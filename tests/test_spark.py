"""The session helper's settings from the environment (no JVM started here)."""

from __future__ import annotations

import pytest

from kipviz.curves import spark


def test_kipviz_spark_conf_adds_key_value_settings(monkeypatch):
    """``KIPVIZ_SPARK_CONF`` entries are ``key=value``, separated by ``;``; values keep their '='
    and spaces."""
    monkeypatch.setenv("KIPVIZ_SPARK_CONF", "spark.a=1; spark.b=-Dx=y -Dz ;")
    assert spark._env_conf() == {"spark.a": "1", "spark.b": "-Dx=y -Dz"}
    monkeypatch.delenv("KIPVIZ_SPARK_CONF")
    assert spark._env_conf() == {}


def test_a_malformed_kipviz_spark_conf_names_the_entry(monkeypatch):
    """An entry without '=' is an error naming it, not a silently ignored setting."""
    monkeypatch.setenv("KIPVIZ_SPARK_CONF", "spark.a=1;oops")
    with pytest.raises(ValueError, match=r"KIPVIZ_SPARK_CONF entries must be key=value.*'oops'"):
        spark._env_conf()
