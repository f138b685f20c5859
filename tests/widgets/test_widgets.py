"""The dashboards: sliders redraw Spark curves; bad settings warn, never raise."""

from __future__ import annotations

import ipywidgets as w
import numpy as np
import pytest

from kipviz.kafka.fetch.request import Ordering
from kipviz.widgets import BrokerDashboard, ClientDashboard, FetchDashboard, ReassignmentDashboard
from kipviz.widgets._base import NOT_SET
from kipviz.widgets.clients import LIMIT_NAMES
from tests.frames import assert_refused_and_kept

MiB = 1024 * 1024

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
        ({"partitions": 0}, "partitions must be an integer &gt;= 1: 0"),
        ({"ordering": "sideways"}, "ordering must be one of"),
        ({"fetch_max_byte": 10}, "unknown setting &#x27;fetch_max_byte&#x27;"),
    ],
)
def test_bad_settings_show_a_warning_and_keep_the_last_curves(dashboard, params, message):
    """Never a traceback from a dashboard: a visible warning, and the figure stays as it was."""
    assert_refused_and_kept(dashboard, params, message)


def test_a_slow_application_alone_stays_at_the_versions_rule_without_a_warning(spark):
    """A slow application: a 3.9 consumer hands responses over only when nothing is buffered
    (KAFKA-8677, measured on a real 3.9.2 consumer), a 4.0 one holds one response per broker
    (KAFKA-17182) and the drained one still next in line; neither passes KIP-74's figure and
    that drained response, so no warning, and the summary gives each version's sentence."""
    d = FetchDashboard(spark=spark, partitions=40, brokers=1, ticks=200, windows=4,
                       fetch_max_bytes=1024 * 1024, consume_bytes_per_s=2e6, kafka_version="3.9")
    assert "above KIP-74" not in d.warning.value
    assert "Kafka 3.9 consumer, lagging: at most" in d.summary.value
    d.controls["kafka_version"].value = "4.0"  # as a user would
    assert d.scenario.kafka_version == "4.0" and "above KIP-74" not in d.warning.value
    assert "Kafka 4.0 consumer, lagging: at most 2.0 MiB" in d.summary.value


@pytest.fixture(scope="module")
def broker_dashboard(spark):
    return BrokerDashboard(spark=spark, connections=20, ticks=300, spike_start_ms=500,
                           spike_duration_ms=1000, large_share=0.3)


def test_the_broker_dashboard_redraws_when_the_pool_changes(broker_dashboard):
    """Turning the pool off lets memory grow past queued.max.request.bytes; the figure shows it."""
    d = broker_dashboard
    d.update(queued_max_request_bytes=40 * MiB)
    with_pool = np.array(d.figure.data[0].y, dtype=float)
    d.controls["queued_max_request_bytes"].value = -1  # as a user would
    assert d.scenario.queued_max_request_bytes == -1
    without = np.array(d.figure.data[0].y, dtype=float)
    assert without.max() > with_pool.max()
    assert "No pool" in d.warning.value
    assert len(d.figure.data[1].y) == 0  # no queued.max.request.bytes line without a pool
    d.update(queued_max_request_bytes=40 * MiB)
    assert list(d.figure.data[1].y) == [40.0, 40.0]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"queued_max_request_bytes": 5 * MiB},
         "queued_max_request_bytes (queued.max.request.bytes) must be &lt;= 0 (no pool) or "
         "&gt;= socket.request.max.bytes"),
        ({"large_request_bytes": 200 * MiB}, "large_request_bytes must be &lt;= "
                                             "socket.request.max.bytes"),
        ({"connections": 0}, "connections must be an integer &gt;= 1: 0"),
        ({"queued_max_request_byte": 1}, "unknown setting &#x27;queued_max_request_byte&#x27;"),
    ],
)
def test_bad_broker_settings_show_a_warning(broker_dashboard, params, message):
    """KafkaConfig's rule for queued.max.request.bytes shows in words, never as a traceback."""
    assert_refused_and_kept(broker_dashboard, params, message)


def test_the_broker_summary_names_the_true_bound(broker_dashboard):
    """The non-strict bound queued.max.request.bytes + socket.request.max.bytes - 1 is printed."""
    c = broker_dashboard.update(queued_max_request_bytes=40 * MiB, strict=False,
                                socket_request_max_bytes=10 * MiB)
    assert c.outstanding_bound_bytes == 50 * MiB - 1
    assert "bound 50.00 MiB" in broker_dashboard.summary.value
    assert "memory-pool-depleted-time-total" in broker_dashboard.summary.value


@pytest.fixture(scope="module")
def reassignment_dashboard(spark):
    return ReassignmentDashboard(spark=spark, partitions=4, log_bytes=25_000_000, ticks=300)


def test_the_reassignment_dashboard_warns_that_a_throttle_at_r_times_in_never_finishes(
        reassignment_dashboard):
    """A throttle at (F + 1) x IN = 3 x 10 MB/s is legal in Kafka: it runs, and the dashboard
    says it never finishes (the two in-sync followers --throttle counts take 20 MB/s of it)."""
    d = reassignment_dashboard
    c = d.update(leader_throttle_bytes_per_s=30e6, follower_throttle_bytes_per_s=30e6)
    assert c is not None and not c.finished and c.move_status == "never"
    assert "no move ever finishes" in d.warning.value
    assert "planned: never" in d.summary.value and "ReassignmentBytesInPerSec" in d.summary.value
    c = d.update(leader_throttle_bytes_per_s=50e6, follower_throttle_bytes_per_s=50e6)
    assert c.finished and "no move ever finishes" not in d.warning.value
    assert c.completed_s == pytest.approx(c.planned_move_time_s, rel=0.1)  # 100 MB at 20 MB/s
    c = d.update(in_sync_followers=0)  # KIP-73's idealisation: T - IN = 40 MB/s, but 4 x 1 MiB
    assert c.kip_move_time_s == 2.5  # a fetch (100 ms) carries only 41.9 MB/s: 31.9 MB/s net
    assert c.completed_s == pytest.approx(c.planned_move_time_s, rel=0.1)
    assert d.update(network_bytes_per_s=float("inf")) is None  # a warning, not an exception
    assert "network_bytes_per_s must be a finite number: inf" in d.warning.value
    c = d.update(in_sync_followers=None, throttle_schedule=((2.0, 31e6),))  # nets 1 MB/s
    assert c is not None and c.move_status == "not within this run"  # 40 MB in 2 s, 60 in 60 s
    assert c.projected_move_time_s == pytest.approx(62.0)
    assert d.controls["throttle_schedule"].label == "31 MB/s from 2 s"


def test_an_unlimited_throttle_is_a_slider_position(reassignment_dashboard):
    """"unlimited" on the slider is the scenario's None (Kafka's default: no throttle)."""
    d = reassignment_dashboard
    d.controls["leader_throttle_bytes_per_s"].value = NOT_SET  # as a user would
    assert d.scenario.leader_throttle_bytes_per_s is None
    d.update(follower_throttle_bytes_per_s=None)
    assert d.controls["follower_throttle_bytes_per_s"].value is NOT_SET
    assert d.controls["follower_throttle_bytes_per_s"].label == "unlimited"
    assert "no throttle" in d.summary.value
    d.update(leader_throttle_bytes_per_s=12_345_678)  # off the slider's grid
    assert d.controls["leader_throttle_bytes_per_s"].value == 12_345_678


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"bytes_in_per_s": -1}, "bytes_in_per_s must be a number &gt;= 0: -1"),
        ({"leader_throttle_bytes_per_s": -5}, "leader.replication.throttled.rate"),
        ({"replication_quota_window_num": 0}, "replication.quota.window.num"),
        ({"throttle": 1}, "unknown setting &#x27;throttle&#x27;"),
    ],
)
def test_bad_reassignment_settings_show_a_warning(reassignment_dashboard, params, message):
    """Negative rates and unknown names are rejected in words, never with a traceback."""
    d = reassignment_dashboard
    shown = list(d.figure.data[0].y)
    assert d.update(**params) is None
    assert message in d.warning.value
    assert list(d.figure.data[0].y) == shown


def test_a_setting_the_run_rejects_is_a_warning_and_the_slider_goes_back(reassignment_dashboard):
    """The delay design divides by the throttle: a zero throttle there fails in the run, and the
    dashboard shows why and moves the slider back to the setting still drawn."""
    d = reassignment_dashboard
    d.update(mode="delay", leader_throttle_bytes_per_s=30e6)
    d.controls["leader_throttle_bytes_per_s"].value = 0.0  # as a user would
    assert "must be &gt; 0 in mode=&#x27;delay&#x27;" in d.warning.value
    assert d.scenario.leader_throttle_bytes_per_s == 30e6
    assert d.controls["leader_throttle_bytes_per_s"].value == 30e6
    assert d.update(mode="quota") is not None


def test_every_control_shows_its_full_kafka_name_and_keeps_room_for_its_slider(dashboard):
    """One rule for every dashboard (``_base.fit_label``): every label as wide as the longest
    one needs (the sliders line up, no name is cut), each control that plus the slider; toggle
    buttons as wide as their text (ipywidgets' 148 px cut "on: incremental fetches (Kafka)")."""
    from kipviz.widgets._labels import (
        LABEL_PX_PER_CHAR,
        MIN_CONTROL_PX,
        SLIDER_PX,
        TEXT_BOX_PX,
        control_width_px,
        label_width_px,
    )

    label_px = label_width_px(dashboard.controls.values())
    longest = max(len(c.description) for c in dashboard.controls.values())
    assert label_px >= longest * LABEL_PX_PER_CHAR - 1
    for name, control in dashboard.controls.items():
        assert control.style.description_width == f"{label_px}px", name
        if isinstance(control, w.ToggleButtons):
            assert control.style.button_width == control.layout.width == "auto", name
            continue
        width = int(control.layout.width.removesuffix("px"))
        boxed = TEXT_BOX_PX if name in dashboard.text_boxes else 0
        assert width + boxed == control_width_px(control, label_px) >= MIN_CONTROL_PX, name
    long = type("C", (), {"description": "remote.log.manager.fetch.max.bytes.per.second"})()
    assert control_width_px(long) >= 45 * 7 + SLIDER_PX


def test_warnings_are_a_short_list_most_important_first_with_the_detail_a_click_away():
    """A rejected setting first, then what never finishes, then risks; each one line (its
    headline) with the full text in a <details>; a one-line note needs no details."""
    from kipviz.kafka.config.advice import REJECTED, UNSAFE, Note
    from kipviz.widgets._base import notice_list

    risky = "max.partition.fetch.bytes is above the response limit: the response limit applies."
    never = Note("leader.replication.throttled.rate = 8 MB/s is at or below R x IN = 30 MB/s: "
                 "kafka-reassign-partitions --throttle ... never finishes.",
                 "leader.replication.throttled.rate: the reassignment never finishes", UNSAFE)
    reject = Note("Kafka would reject this broker config: queued.max.request.bytes must be ...",
                  "Kafka would reject this broker config", REJECTED)
    shown = notice_list([risky, never, reject, "Short."])
    assert notice_list([]) == ""
    order = [shown.index(s) for s in ("Kafka would reject", "never finishes</summary>",
                                      "max.partition.fetch.bytes is above", "Short.")]
    assert order == sorted(order)
    assert shown.count("<li>") == 4 and shown.count("<details>") == 3
    assert "<summary" in shown and "--throttle ... never finishes." in shown
    assert "<li>Short.</li>" in shown


def test_the_followers_control_shows_its_r_minus_one_option_selected(reassignment_dashboard):
    """ipywidgets shows a Dropdown whose value is None as no selection at all: the default
    (in_sync_followers=None, R - 1 as --throttle sets) is held as its own option and selected."""
    control = reassignment_dashboard.controls["in_sync_followers"]
    assert reassignment_dashboard.scenario.in_sync_followers is None
    assert control.label == "R - 1 (as --throttle)" and control.index == 0
    assert reassignment_dashboard.update(in_sync_followers=0) is not None
    assert reassignment_dashboard.scenario.in_sync_followers == 0
    control.index = 0  # the user picks "R - 1" again
    assert reassignment_dashboard.scenario.in_sync_followers is None


@pytest.fixture(scope="module")
def client_dashboard(spark):
    return ClientDashboard(spark=spark, partitions=60, ticks=100)


def test_the_client_dropdown_names_the_limits_as_each_client_does_and_keeps_their_values(
        client_dashboard):
    """Switching client gives the same two limits to the new client under its own names (the
    sliders relabelled), and the summary sets the peak beside that client's own bound."""
    d = client_dashboard
    d.update(client="java", response_max_bytes=4 * MiB, partition_max_bytes=512 * 1024)
    for client, names in LIMIT_NAMES.items():
        d.controls["client"].value = client  # as a user would
        assert d.scenario.client == client and d.warning.value == ""
        assert (d.controls["response_max_bytes"].description,
                d.controls["partition_max_bytes"].description) == names
        assert (d.controls["response_max_bytes"].value,
                d.controls["partition_max_bytes"].value) == (4 * MiB, 512 * 1024)
        if client != "java":
            limits = dict(zip(names, (4 * MiB, 512 * 1024), strict=True))
            assert dict(d.scenario.client_settings) == limits
            assert f"{client}'s bound" in d.summary.value
            assert int(d.trace.memory.held_bytes.max()) <= d.trace.meta["memory_bound_bytes"]


def test_a_limit_a_client_refuses_is_a_warning_naming_its_setting(client_dashboard):
    """librdkafka refuses a set fetch.max.bytes below message.max.bytes (1,000,000): the
    dashboard shows it, by librdkafka's name, and keeps the last curves."""
    d = client_dashboard
    d.update(client="librdkafka", response_max_bytes=2 * MiB)
    assert d.update(response_max_bytes=512 * 1024) is None
    assert "fetch.max.bytes" in d.warning.value
    assert d.controls["response_max_bytes"].value == 2 * MiB
