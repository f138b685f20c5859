"""Issue 26, items 2 and 3: plan_reassignment from the operator's files (IN per topic, per
partition, JSON, Prometheus scrapes), its text and JSON, and ``kipviz plan``."""

from __future__ import annotations

import json
import math

import pytest

import kipviz
from kipviz.apps.cli import main
from kipviz.apps.planner.files import load_partition_sizes
from kipviz.apps.planner.metrics import bytes_in_from_scrapes
from kipviz.apps.planner.reassignment import plan_reassignment

FILES = {"reassignment": "data/reassignment.json", "current": "data/current-assignment.json",
         "partition_sizes": "data/log-dirs.json"}
MOVING = {"orders-0": 40, "orders-1": 38, "payments-0": 12}
IN_BY_SIZE = {k: 10e6 * v / 90 for k, v in MOVING.items()}  # 10 MB/s over the moving ones
COUNTER = "kafka_server_brokertopicmetrics_bytesin_total"


def _scrape(values: dict[str, float], at_ms: int) -> str:
    return "".join(f'{COUNTER}{{topic="{t}",}} {v} {at_ms}\n' for t, v in values.items())


def test_the_sample_plan_at_35_mb_s_takes_about_an_hour_bound_by_broker_4():
    """Issue 26's numbers: 90 GB into broker 4 at T - 10 MB/s, about 1.0 h; each broker's row."""
    plan = plan_reassignment(**FILES, bytes_in_per_s=IN_BY_SIZE, throttle_bytes_per_s=35e6)
    assert plan.move_time_s / 3600 == pytest.approx(1.0, rel=0.01)
    assert plan.bottleneck_broker == 4 and plan.reason == ""
    assert plan.loads[4].bytes_in == 90_000_000_000 and plan.loads[1].bytes_out == 52e9
    text = plan.to_text()
    assert "move time: 1.01 h" in text and "bottleneck: broker 4's follower quota" in text
    assert "--execute --throttle 35000000" in text
    assert "--entity-name 4 --alter --add-config leader.replication.throttled.rate=35000000" \
        in text


def test_a_target_gives_the_smallest_throttle_that_meets_it():
    """--target 1h: the smallest whole T whose flow schedule finishes within the hour."""
    plan = plan_reassignment(**FILES, bytes_in_per_s=IN_BY_SIZE, target_completion_s=3600)
    t = plan.throttle_bytes_per_s
    assert t is not None and plan.move_time_s <= 3600
    slower = plan_reassignment(**FILES, bytes_in_per_s=IN_BY_SIZE, throttle_bytes_per_s=t - 2)
    assert slower.move_time_s > 3600


def test_a_topic_rate_is_split_by_size_over_all_its_partitions_listed_sizes():
    """{"orders": 10 MB/s} is split over orders-0..2 by size (orders-2 is unchanged but keeps
    its share: its leader, broker 3, counts its followers' keep-up)."""
    plan = plan_reassignment(**FILES, bytes_in_per_s={"orders": 11.9e6},
                             throttle_bytes_per_s=35e6)
    moves = {str(m.tp): m.bytes_in_per_s for m in plan.moves}
    assert moves == pytest.approx({"orders-0": 4e6, "orders-1": 3.8e6, "orders-2": 4.1e6,
                                   "payments-0": 0.0})
    assert plan.loads[3].leader_counted_in == pytest.approx(2 * 4.1e6)


def test_a_throttle_below_the_new_replicas_in_never_finishes_and_says_where():
    """At 5 MB/s broker 1's leader quota is spent on keep-up: inf, and the reason names it."""
    plan = plan_reassignment(**FILES, bytes_in_per_s={"orders": 10e6, "payments": 2e6},
                             throttle_bytes_per_s=5e6)
    assert plan.move_time_s == math.inf and plan.bottleneck_broker == 1
    assert plan.to_json()["move_time_s"] is None
    assert "never finishes: orders-0 never reaches broker 4" in plan.to_text()


def test_the_simulation_on_the_same_inputs_agrees_within_5_percent():
    """simulate=True runs the cluster scenario (sizes / 10 keep it short)."""
    sizes = {k: v // 10 for k, v in load_partition_sizes("data/log-dirs.json").items()}
    plan = plan_reassignment(**{**FILES, "partition_sizes": sizes}, bytes_in_per_s=IN_BY_SIZE,
                             throttle_bytes_per_s=55e6, simulate=True)
    assert plan.simulated_move_time_s == pytest.approx(plan.move_time_s, rel=0.05)
    assert set(plan.simulated_broker_move_time_s or {}) == {1, 2, 4}


def test_prometheus_counters_give_a_rate_per_broker_summed_over_brokers():
    """Two timestamped scrapes of the counter per broker: the delta over the interval; the
    all-topics series (no topic label) is left out; the gauge, when exported, is taken as is."""
    broker1 = (_scrape({"orders": 0, "payments": 0}, 0)
               + f"{COUNTER} 123 0\n" + _scrape({"orders": 6e8, "payments": 6e7}, 60_000))
    broker2 = ('kafka_server_brokertopicmetrics_bytesin_oneminuterate{topic="orders"} 2e6\n')
    assert bytes_in_from_scrapes([broker1, broker2]) == pytest.approx(
        {"orders": 12e6, "payments": 1e6})


def test_bad_scrapes_are_refused_with_the_reason():
    """A counter without timestamps, scraped once, or going down is refused, naming it."""
    with pytest.raises(ValueError, match="has no timestamp; a rate needs two timestamped"):
        bytes_in_from_scrapes([f'{COUNTER}{{topic="orders"}} 5\n'])
    with pytest.raises(ValueError, match="must be scraped twice, at different times"):
        bytes_in_from_scrapes([_scrape({"orders": 5}, 1000)])
    with pytest.raises(ValueError, match="must not decrease"):
        bytes_in_from_scrapes([_scrape({"orders": 5}, 0) + _scrape({"orders": 1}, 1000)])


def test_scrape_files_plan_like_a_rate_mapping(tmp_path):
    """Prometheus files (one per broker) give the same plan as the rates they imply."""
    files = []
    for b, rate in ((1, 4e6), (2, 6e6)):
        path = tmp_path / f"broker{b}.prom"
        path.write_text(_scrape({"orders": 0, "payments": 0}, 0)
                        + _scrape({"orders": rate * 100, "payments": 1e8}, 100_000))
        files.append(str(path))
    from_files = plan_reassignment(**FILES, bytes_in_per_s=files, throttle_bytes_per_s=35e6)
    direct = plan_reassignment(**FILES, bytes_in_per_s={"orders": 10e6, "payments": 2e6},
                               throttle_bytes_per_s=35e6)
    assert from_files.move_time_s == pytest.approx(direct.move_time_s)


def test_plan_reassignment_is_a_lazy_name_of_kipviz():
    """kipviz.plan_reassignment is the planner's function, loaded on first use."""
    assert kipviz.plan_reassignment is plan_reassignment
    assert "plan_reassignment" in kipviz.__all__


def test_kipviz_plan_prints_the_table_and_json(capsys):
    """kipviz plan with rates per topic prints the per-broker table; --json parses."""
    args = ["plan", "--reassignment", FILES["reassignment"], "--current", FILES["current"],
            "--log-dirs", FILES["partition_sizes"], "--bytes-in",
            "orders-0=4444444,orders-1=4222222,payments-0=1333333"]
    assert main([*args, "--throttle", "55MB/s"]) == 0
    out = capsys.readouterr().out
    assert "bottleneck: broker 4's follower quota" in out and "move time: 0.56 h" in out
    assert main([*args, "--target", "1h", "--json", "--broker-throttle", "2=40MB/s"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["move_time_s"] <= 3600 and data["broker_throttle_bytes_per_s"] == {"2": 40000000}


@pytest.mark.parametrize(("extra", "message"), [
    (["--throttle", "-5MB/s"], "argument --throttle: not a size: '-5MB/s' must not be negative"),
    (["--target", "soon"], "argument --target: not a duration: 'soon'"),
    (["--throttle", "5MB/s", "--broker-throttle", "9=1MB/s"],
     "broker_throttle_bytes_per_s must name brokers of the plan [1, 2, 3, 4]: 9"),
    (["--throttle", "5MB/s", "--bytes-in", "x=1MB/s"],
     "bytes_in_per_s must name topics or partitions of partition_sizes"),
    (["--throttle", "5MB/s", "--bytes-in", "missing.prom"],
     "bytes_in_per_s file 'missing.prom' cannot be read"),
])
def test_kipviz_plan_bad_input_is_one_line_and_exit_status_2(capsys, extra, message):
    """Bad input: one line on stderr, exit status 2, as kipviz run does."""
    args = ["plan", "--reassignment", FILES["reassignment"], "--current", FILES["current"],
            "--log-dirs", FILES["partition_sizes"], "--bytes-in", "orders=10MB/s"]
    try:
        status = main([*args, *extra])
    except SystemExit as stop:  # argparse's own errors
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1


def test_the_static_page_of_lesson_4_shows_the_move_time_per_broker_over_the_grid():
    """The ReassignmentPlanDashboard's static grid is a "move_time" grid of the sample plan: per
    position the heatmap of move hours, the marker and one bar per broker; axes in words."""
    from kipviz.apps.static.grids import SliderGrid, dashboard_grids
    from kipviz.apps.static.move_grid import move_grid_payload
    from kipviz.apps.static.sliders import _label, fill_grid
    from kipviz.scenarios.reassignment.plan import sample_plan

    page = dashboard_grids()["ReassignmentPlanDashboard"]
    assert page.kind == "move_time" and fill_grid(page, None) is None  # no Spark job
    assert "every broker" in page.labels["throttle_bytes_per_s"]
    spec = SliderGrid("r", "r", sample_plan(), {"throttle_bytes_per_s": [5e6, 35e6, None],
                                               "hottest_in_bytes_per_s": [13.2e6, 30e6]},
                      {}, "", kind="move_time")
    payload = move_grid_payload(spec, _label)
    assert [a["values"] for a in payload["axes"]] == [
        ["5 MB/s", "35 MB/s", "unlimited"], ["13.2 MB/s", "30 MB/s"]]
    assert [a["start"] for a in payload["axes"]] == [1, 0]
    heat, marker, bars = payload["points"]["1-0"]["traces"]
    assert heat["z"][0][0] is None and heat["z"][0][1] == pytest.approx(1.0, abs=0.02)
    assert marker == {"x": ["35 MB/s"], "y": ["13.2 MB/s"]}
    assert bars["x"] == ["broker 1", "broker 2", "broker 4"]
    assert "bottleneck: broker 4's follower quota" in payload["points"]["1-0"]["summary"]
    assert "never finishes" in payload["points"]["0-0"]["summary"]


def test_kipviz_plan_of_a_move_that_never_finishes_is_one_error_line_and_no_commands(capsys):
    """Issue 44: 10 MB/s leaves orders-0's new replica no more than its IN: exit status 2, one
    line naming the partition, the broker and the quota, and no command an operator could run."""
    code = main(["plan", "--reassignment", FILES["reassignment"], "--current", FILES["current"],
                 "--log-dirs", FILES["partition_sizes"], "--bytes-in",
                 "orders=10MB/s,payments=2MB/s", "--throttle", "10MB/s"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("kipviz: the plan never finishes: orders-0 never reaches broker 4")
    assert "quota" in err and len(err.strip().splitlines()) == 1
    text = plan_reassignment(**FILES, bytes_in_per_s={"orders": 10e6, "payments": 2e6},
                             throttle_bytes_per_s=10e6).to_text()
    assert "never finishes" in text and "kafka-configs" not in text and "--execute" not in text


def test_the_whole_saved_generate_output_is_read_as_both_assignments(tmp_path):
    """Issue 44: ``kafka-reassign-partitions --generate > out.txt`` prints two headings, each
    followed by its JSON (ReassignPartitionsCommand.java:573-575); that file alone is the plan."""
    from pathlib import Path
    current = json.loads(Path(FILES["current"]).read_text(encoding="utf-8"))
    proposed = json.loads(Path(FILES["reassignment"]).read_text(encoding="utf-8"))
    saved = tmp_path / "generate.txt"
    saved.write_text("Current partition replica assignment\n" + json.dumps(current) + "\n\n"
                     "Proposed partition reassignment configuration\n" + json.dumps(proposed)
                     + "\n", encoding="utf-8")
    args = {"partition_sizes": FILES["partition_sizes"], "bytes_in_per_s": IN_BY_SIZE,
            "throttle_bytes_per_s": 35e6}
    whole = plan_reassignment(saved, **args)
    files = plan_reassignment(FILES["reassignment"], current=FILES["current"], **args)
    assert whole.move_time_s == files.move_time_s
    broken = tmp_path / "broken.txt"
    broken.write_text(saved.read_text(encoding="utf-8").replace('{"version"', '{"version" 1', 1),
                      encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken.txt'?, line 2, column \d+: not JSON"):
        plan_reassignment(broken, **args)


def test_kipviz_plan_into_a_closed_pipe_ends_quietly(tmp_path):
    """Issue 44: ``kipviz plan ... | head -1`` prints no "[Errno 32] Broken pipe"."""
    import subprocess
    import sys
    cmd = (f"{sys.executable} -m kipviz plan --reassignment {FILES['reassignment']} --current "
           f"{FILES['current']} --log-dirs {FILES['partition_sizes']} --bytes-in "
           "orders=10MB/s,payments=2MB/s --throttle 35MB/s | head -1")
    done = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.startswith("reassignment plan:")
    assert "Broken pipe" not in done.stderr and done.returncode == 0, done.stderr
