"""Test-wide fixtures: one SparkSession for the whole run, and the Hypothesis profiles.

``HYPOTHESIS_PROFILE=dev pytest`` runs fewer examples while iterating; the default is ``ci``.
Tests that take the ``spark`` fixture are marked ``spark`` automatically, so
``pytest -m "not spark"`` runs everything that needs no JVM.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

settings.register_profile("ci", deadline=None, max_examples=50, print_blob=True)
settings.register_profile("dev", deadline=None, max_examples=10)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """The embedded SparkSession of kipviz.spark (or the cluster its environment selects)."""
    from kipviz.spark import get_spark, stop_spark

    session = get_spark(app_name="kipviz-tests")
    yield session
    stop_spark()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses the ``spark`` fixture (directly or through another fixture)."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
