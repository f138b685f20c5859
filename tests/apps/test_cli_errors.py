"""The command line's errors: one line on stderr, exit status 2, no traceback, found before any
work is done."""

from __future__ import annotations

import pytest

import kipviz.scenarios.consumer.scenario
from kipviz.apps.cli import main


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "consumer.properties"
    path.write_text("fetch.max.bytes=1048576\n")
    return path


@pytest.fixture
def no_run(monkeypatch):
    """Fail the test if the simulation starts: the error must come before any work."""
    def refuse(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr(kipviz.scenarios.consumer, "simulate", refuse)


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _exit_status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:  # argparse's own errors
        return int(stop.code or 0)


@pytest.mark.parametrize(("args", "message"), [
    (["--seed", str(2**64)], "--seed: must be an integer >= 0 and <= 4294967295"),
    (["--seed", "-1"], "--seed: must be an integer >= 0 and <= 4294967295: -1"),
    (["--lag", "-5m"], "--lag: not a size: '-5m' must not be negative"),
    (["--lag", "lots"], "not a size: 'lots'"),
    (["--partitions", "x"], "invalid int value: 'x'"),
])
def test_bad_arguments_are_one_line_and_exit_status_2(config, tmp_path, capsys, no_run,
                                                      args, message):
    """Out-of-range seeds, a negative lag given as ``--lag -5m`` (not "expected one
    argument"), words for numbers: one line naming the option."""
    argv = ["run", "--config", str(config), "--out", str(tmp_path / "p.html"), *args]
    assert _exit_status(argv) == 2
    assert message in _one_line(capsys.readouterr().err)


def test_a_directory_as_config_is_one_line(tmp_path, capsys, no_run):
    """``--config`` naming a folder: the reason, no traceback."""
    argv = ["run", "--config", str(tmp_path), "--out", str(tmp_path / "p.html")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "is a directory" in err and "Traceback" not in err


@pytest.mark.parametrize("where", ["under_a_file", "a_folder"])
def test_an_unwritable_out_is_found_before_the_run(config, tmp_path, capsys, no_run, where):
    """``--out`` under a file, or naming a folder: exit 2 before any simulation."""
    blocker = tmp_path / "blocker"
    blocker.write_text("a file")
    out = blocker / "page.html" if where == "under_a_file" else tmp_path
    assert main(["run", "--config", str(config), "--out", str(out)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "--out" in line


def test_a_scenario_too_big_for_memory_is_one_line_before_spark(config, tmp_path, capsys,
                                                                monkeypatch):
    """A billion partitions: the size limit's message (naming partitions), no MemoryError."""
    import kipviz.curves.spark

    monkeypatch.setattr(kipviz.curves.spark, "get_spark", lambda: pytest.fail("Spark started"))
    argv = ["run", "--config", str(config), "--out", str(tmp_path / "p.html"),
            "--partitions", str(10**9)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "lower partitions=1000000000" in err and "Traceback" not in err
