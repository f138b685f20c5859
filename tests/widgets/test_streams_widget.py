"""The KIP-770 dashboard: sliders redraw Spark curves; bad settings warn, never raise."""

from __future__ import annotations

import numpy as np
import pytest

from kipviz.widgets import StreamsDashboard
from kipviz.widgets.streams import STREAMS_LESSON_SCENARIO
from tests.frames import assert_refused_and_kept

MiB = 1024 * 1024

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def dashboard(spark):
    return StreamsDashboard(spark=spark, ticks=300)


def test_the_dashboard_starts_on_the_lesson_instance(dashboard):
    """Defaults are the lesson's; the summary prints the peak and both bounds."""
    s = dashboard.scenario
    assert (s.input_buffer_max_bytes, s.threads, s.policy) == (32 * MiB, 4, "thread_bytes")
    assert s.tasks == STREAMS_LESSON_SCENARIO.tasks
    assert "peak buffered" in dashboard.summary.value
    assert "buffered.records.per.partition bound" in dashboard.summary.value


def test_moving_the_policy_to_the_merged_code_shows_the_stall(dashboard):
    """As a user would: the policy control runs the 3.2 code; the warning names the deadlock."""
    dashboard.update(policy="thread_bytes", ticks=600)
    before = np.array(dashboard.figure.data[MAX_TPUT].y, dtype=float)
    dashboard.controls["policy"].value = "thread_bytes_as_merged"
    assert dashboard.scenario.policy == "thread_bytes_as_merged"
    after = np.array(dashboard.figure.data[MAX_TPUT].y, dtype=float)
    assert after[-1] < before[-1]
    assert "Stalled" in dashboard.warning.value and "13283" in dashboard.warning.value
    dashboard.update(policy="thread_bytes", ticks=300)
    assert "Stalled" not in dashboard.warning.value


def test_fewer_threads_draw_fewer_lines_and_the_sliders_follow_code(dashboard):
    """Two threads: lines for threads 2 and 3 are empty; settings from code move the controls."""
    dashboard.update(threads=2, record_size_spread=3.5, process_records_per_s=12000.0)
    assert len(dashboard.figure.data[1].y) > 0 and len(dashboard.figure.data[2].y) == 0
    assert dashboard.controls["threads"].value == 2
    assert dashboard.controls["record_size_spread"].value == 3.5
    assert dashboard.controls["process_records_per_s"].value == 12000.0
    dashboard.update(input_buffer_max_bytes=12_345_678)  # off the slider's grid
    assert dashboard.controls["input_buffer_max_bytes"].value == 12_345_678
    dashboard.update(threads=4, record_size_spread=10.0, process_records_per_s=20000.0,
                     input_buffer_max_bytes=32 * MiB)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"input_buffer_max_bytes": -1}, "input_buffer_max_bytes (input.buffer.max.bytes) must "
                                         "be an integer &gt;= 0: -1"),
        ({"threads": 0}, "threads (num.stream.threads) must be an integer &gt;= 1: 0"),
        ({"record_size_spread": 0.5}, "record_size_spread must be a number &gt;= 1: 0.5"),
        ({"policy": "global"}, "policy must be one of"),
        ({"input_buffer_max_byte": 1}, "unknown setting &#x27;input_buffer_max_byte&#x27;"),
    ],
)
def test_bad_settings_show_a_warning_and_keep_the_last_curves(dashboard, params, message):
    """Never a traceback: a visible warning naming the Kafka setting; the figure stays."""
    assert_refused_and_kept(dashboard, params, message)


MAX_TPUT = 8 + 1 + 4 + 1  # thread lines, share, four instance lines, paused: then throughput
