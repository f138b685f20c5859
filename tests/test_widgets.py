"""The KIP-74 dashboard: sliders redraw Spark curves; bad settings warn, never raise."""

from __future__ import annotations

import numpy as np
import pytest

from kipviz.fetch import Ordering
from kipviz.widgets import FetchDashboard

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def dashboard(spark):
    return FetchDashboard(spark=spark, partitions=12, ticks=200, windows=5)


def test_moving_a_slider_redraws_the_figure(dashboard):
    """A new fetch.max.bytes changes the curves shown, in place."""
    dashboard.update(fetch_max_bytes=2 * 1024 * 1024, ordering="fixed")
    before = np.array(dashboard.figure.data[0].y, dtype=float)
    dashboard.controls["ordering"].value = Ordering.ROUND_ROBIN  # as a user would
    assert dashboard.scenario.ordering == Ordering.ROUND_ROBIN
    after = np.array(dashboard.figure.data[0].y, dtype=float)
    assert not np.array_equal(before, after, equal_nan=True)
    assert dashboard.warning.value == ""


def test_update_moves_the_sliders_to_the_new_settings(dashboard):
    """Settings applied from code show on the controls too, off-grid byte values included."""
    dashboard.update(max_partition_fetch_bytes=300_000, skew=0.0)
    assert dashboard.controls["max_partition_fetch_bytes"].value == 300_000
    assert dashboard.scenario.workload.profile == "uniform"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"fetch_max_bytes": -1}, "fetch.max.bytes"),
        ({"partitions": 0}, "partitions must be &gt;= 1: 0"),
        ({"ordering": "sideways"}, "ordering must be one of"),
        ({"fetch_max_byte": 10}, "unknown setting &#x27;fetch_max_byte&#x27;"),
    ],
)
def test_bad_settings_show_a_warning_and_keep_the_last_curves(dashboard, params, message):
    """Never a traceback from a dashboard: a visible warning, and the figure stays as it was."""
    shown = list(dashboard.figure.data[0].y)
    assert dashboard.update(**params) is None
    assert message in dashboard.warning.value
    assert list(dashboard.figure.data[0].y) == shown


def test_memory_above_the_kip74_figure_is_called_out(spark):
    """A slow application piles up completed fetches; the dashboard says so in words."""
    d = FetchDashboard(spark=spark, partitions=40, brokers=1, ticks=200, windows=4,
                       fetch_max_bytes=1024 * 1024, consume_bytes_per_s=2e6)
    assert "above KIP-74" in d.warning.value
