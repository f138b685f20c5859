"""Issue 26, item 4: lesson 4's plan dashboard moves T and the hottest topic's IN and shows the
move time per broker (simulated and planned) with one lane per broker."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from kipviz.apps.planner.reassignment import plan_reassignment
from kipviz.scenarios.reassignment.plan import sample_plan

FILES = {"reassignment": "data/reassignment.json", "current": "data/current-assignment.json",
         "partition_sizes": "data/log-dirs.json"}


def test_the_hottest_topics_in_is_split_over_all_its_partitions_by_size():
    """orders' 13.2 MB/s over its 119 GB (orders-2, listed unchanged, included); payments keeps
    its 1.33 MB/s; moving the hottest IN rescales orders only."""
    s = sample_plan()
    assert s.hottest_topic == "orders" and s.hottest_topic_bytes == 119_000_000_000
    rated = {str(m.tp): m.bytes_in_per_s for m in replace(s, hottest_in_bytes_per_s=23.8e6)
             .rated_moves()}
    assert rated["orders-0"] == pytest.approx(23.8e6 * 40 / 119)
    assert rated["orders-2"] == pytest.approx(23.8e6 * 41 / 119)
    assert rated["payments-0"] == pytest.approx(1.33e6)


def test_the_plan_scenarios_schedule_is_plan_reassignments_on_the_same_inputs():
    """The dashboard's and the static page's plan is the planner's: same move time per broker."""
    s = replace(sample_plan(), throttle_bytes_per_s=55e6, hottest_in_bytes_per_s=20e6)
    forecast = plan_reassignment(**FILES, bytes_in_per_s={"orders": 20e6, "payments": 1.33e6},
                                 throttle_bytes_per_s=55e6)
    assert s.schedule().broker_move_time_s == pytest.approx(forecast.broker_move_time_s)


def test_the_run_lasts_the_planned_time_and_a_quarter_or_an_hour_when_it_never_finishes():
    """A run sized by the plan: at 35 MB/s 1.25 x 3623 s + 60 s of 10 ms ticks; at 5 MB/s (below
    broker 1's IN) the plan says never and the run shows its first hour."""
    s = sample_plan()
    assert s.run_ticks() == math.ceil((s.schedule().move_time_s * 1.25 + 60) * 100)
    assert replace(s, throttle_bytes_per_s=5e6).run_ticks() == 360_000
    assert replace(s, ticks=1000).cluster().ticks == 1000


def test_a_hottest_topic_outside_the_plan_is_refused():
    """The hottest topic must be one the plan lists."""
    with pytest.raises(ValueError, match="hottest_topic must be a topic of the plan"):
        replace(sample_plan(), hottest_topic="clicks")


@pytest.mark.spark
def test_the_dashboard_shows_each_brokers_move_time_and_a_lane_per_broker(spark):
    """At the lesson's 35 MB/s the summary gives the move time simulated and planned (within
    5%) and broker 4's follower quota as the bottleneck; the figure has the two bars per broker
    and a lane for brokers 1, 2 and 4 (broker 3 only leads orders-2, which does not move); at
    5 MB/s the plan's reason shows as a warning."""
    from kipviz.plots.checks import figure_problems
    from kipviz.widgets import ReassignmentPlanDashboard

    d = ReassignmentPlanDashboard(spark=spark)
    c = d.curves
    assert c.move_time_s == pytest.approx(c.planned_move_time_s, rel=0.05)
    assert "broker 4's follower quota" in d.summary.value and not d.warning.value
    assert list(d.figure.data[0].x) == ["broker 1", "broker 2", "broker 4"]
    assert sorted(c.lanes["broker"].unique()) == [1, 2, 3, 4]
    assert figure_problems(d.static_figure()) == []
    assert d.update(throttle_bytes_per_s=5e6) is not None
    assert "never finishes" in d.warning.value
    assert figure_problems(d.static_figure()) == []
