"""Test-wide fixtures: one SparkSession for the whole run, and the Hypothesis profiles.

The profiles set how many examples every property test runs; a test that needs more or fewer
than the others asks for a multiple of the profile's count (``tests.strategies.examples``), so
all counts scale together. ``HYPOTHESIS_PROFILE`` picks one: ``dev`` (few examples, what
``make test-fast`` runs while iterating), ``ci`` (the default, what ``make test`` and CI run) or
``thorough`` (ten times CI's, on request: ``HYPOTHESIS_PROFILE=thorough make test-fast``).
``ci`` is derandomized: each property test draws the same examples on every run (seeded from the
test itself; no example database), so a red CI run is red again on a rerun and in a fresh clone.
``dev`` and ``thorough`` draw at random, so they keep finding new cases; a failure prints the
``@reproduce_failure`` blob to replay it, and its case then joins the test as an ``@example``.
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

PROFILE_EXAMPLES = {"dev": 10, "ci": 50, "thorough": 500}
"""``max_examples`` of each Hypothesis profile (the count that ``examples(1)`` means)."""

for _name, _count in PROFILE_EXAMPLES.items():
    settings.register_profile(_name, deadline=None, max_examples=_count,
                              derandomize=_name == "ci", print_blob=_name != "dev")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """The embedded SparkSession of kipviz.curves.spark (or the cluster its environment selects)."""
    from kipviz.curves.spark import get_spark, stop_spark

    session = get_spark(app_name="kipviz-tests")
    yield session
    stop_spark()


@pytest.fixture(scope="session")
def compiled_kernels() -> None:
    """The consumer and broker kernels compiled (or loaded from numba's cache) once, before any
    test that times a simulation: it then times the simulation, not numba's first compile (up to
    20 s in a fresh clone on a busy machine)."""
    from kipviz.scenarios.broker.scenario import BrokerScenario
    from kipviz.scenarios.broker.scenario import simulate as broker_simulate
    from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate

    simulate(ConsumerScenario(partitions=2, ticks=5, windows=1), record_fetches=False)
    broker_simulate(BrokerScenario(connections=2, ticks=5))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses the ``spark`` fixture (directly or through another fixture),
    and run the browser tests last, after the notebooks (``make test`` runs the JupyterLab test
    after the rest, in a second pytest run without xdist workers, so its page has the machine
    to itself: the Makefile's ``ALONE_TESTS``)."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)  # stable
