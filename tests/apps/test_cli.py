"""The ``kipviz`` command: sizes as people write them, report and run end to end."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from kipviz import data_file
from kipviz.apps.cli import main, parse_size


@pytest.mark.parametrize(("text", "value"), [
    ("1048576", 1048576), ("512m", 512 * 1024**2), ("4G", 4 * 1024**3), ("64MiB", 64 * 1024**2),
    ("10MB", 10e6), ("10MB/s", 10e6), ("1e9", 1e9), ("1.5k", 1536), (" 2 GB ", 2e9),
])
def test_sizes_take_java_and_si_units(text, value):
    """-Xmx style (k, m, g: powers of 1024), KiB..., and SI (KB, MB, GB); rates end in /s."""
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["", "ten", "10 parsecs", "-5m"])
def test_a_size_that_is_not_one_is_named(text):
    """argparse shows the message: which text, and the units it takes."""
    with pytest.raises(argparse.ArgumentTypeError, match="not a size"):
        parse_size(text)


def test_python_dash_m_kipviz_is_the_same_command():
    """``python -m kipviz --help`` lists both commands."""
    out = subprocess.run([sys.executable, "-m", "kipviz", "--help"], capture_output=True,
                         text=True, check=True).stdout
    assert "report" in out and "run" in out


def test_report_without_execution_writes_the_site(tmp_path, capsys):
    """``kipviz report --no-execute --only 02`` renders the stored outputs in seconds."""
    assert main(["report", "--no-execute", "--only", "02", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "02_memory_pool.html").is_file()
    assert (tmp_path / "index.html").is_file()
    assert "open " in capsys.readouterr().out


def test_run_writes_a_page_and_prints_the_risky_values(tmp_path, capsys, spark):
    """The sample consumer.properties, a broker whose pool is below socket.request.max.bytes
    and whose throttle is below the inbound rate, a 16 MiB heap: three warnings, one page."""
    server = tmp_path / "server.properties"
    server.write_text("broker.id=0\nqueued.max.request.bytes=1048576\n"
                      "leader.replication.throttled.rate=5000000\n")
    page = tmp_path / "out" / "page.html"
    code = main(["run", "--config", str(data_file("consumer.properties")), "--broker",
                 str(server), "--out", str(page), "--partitions", "12", "--ticks", "200",
                 "--heap", "16m", "--bytes-in", "10MB/s"])
    out = capsys.readouterr().out
    assert code == 0
    warnings = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 3, out
    assert ("queued_max_request_bytes (queued.max.request.bytes) must be <= 0 (no "
            in warnings[0]) and "): 1048576." in warnings[0]
    # 12 partitions of 2 MiB and the drained 16 MiB response (sample: 16 MiB fetch.max.bytes)
    assert "lagging: at most 32.0 MiB (33,555,212 bytes)" in warnings[1]
    memory = [line for line in out.splitlines() if line.startswith("memory: ")]
    assert memory and memory[0].startswith("memory: Kafka 4.3 consumer, ")
    assert "leader.replication.throttled.rate = 5,000,000 bytes/s" in warnings[2]
    html = page.read_text()
    assert "Plotly.newPlot(" in html and "kipviz-run-figure" in html
    assert "fetch.max.bytes=16777216" in html  # the settings, as read from the file
    assert "never finishes" in html and "fairness per window" in html
    assert len(html) > 3_000_000  # plotly.js embedded: the one file opens offline


def test_run_names_an_unknown_kafka_version_in_one_line(capsys):
    """--kafka-version 5.0: one line naming kafka_version and the releases, exit status 2."""
    code = main(["run", "--config", str(data_file("consumer.properties")), "--out", "x.html",
                 "--kafka-version", "5.0"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "kafka_version must be one of 0.10.0" in err and "'5.0'" in err


def test_run_refuses_a_config_it_cannot_read_with_a_message(tmp_path, capsys):
    """A value Kafka rejects: the reason and exit status 2, no traceback, no page."""
    bad = tmp_path / "consumer.properties"
    bad.write_text("fetch.max.bytes=-1\n")
    page = tmp_path / "page.html"
    assert main(["run", "--config", str(bad), "--out", str(page)]) == 2
    err = capsys.readouterr().err
    assert "fetch_max_bytes (fetch.max.bytes) must be an integer >= 0: -1" in err
    assert "cannot run" in err
    assert not page.exists()
    assert main(["run", "--config", str(tmp_path / "missing"), "--out", str(page)]) == 2
    assert "No such file" in capsys.readouterr().err
