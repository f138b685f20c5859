"""One row of ``kipviz reality``: an experiment's case, predicted beside measured, with a verdict.

Rows are data (JSON lines, one object a row, the keys of :class:`Row`) and a Markdown table. The
tolerance of each row is stated in the row: ``"exact"`` (response composition: the same bytes
per partition), ``"bound"`` (a bound kipviz prints is never exceeded by a measurement:
measured <= predicted) or ``"within 20%"`` (a simulated peak against a measured peak); a row
whose measure is noisier says why in ``note``; ``"within 20% of the range"`` takes a predicted
``[low, high]`` where the real run can land anywhere between two figures the model names (and
says why).
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["Row", "machine", "measured_rows", "measured_table", "read_rows", "table", "verdict",
           "write_rows"]

TOLERANCES = ("exact", "bound", "within 20%", "within 20% of the range")


def verdict(tolerance: str, predicted: Any, measured: Any) -> str:
    """``"pass"`` or ``"fail"`` by the row's tolerance (never widened to pass)."""
    if tolerance == "exact":
        return "pass" if predicted == measured else "fail"
    if tolerance == "bound":
        return "pass" if measured <= predicted else "fail"
    if tolerance == "within 20%":
        return "pass" if abs(predicted - measured) <= 0.2 * abs(measured) else "fail"
    if tolerance == "within 20% of the range":  # predicted is [low, high]
        low, high = predicted
        return "pass" if 0.8 * measured <= high and low <= 1.2 * measured else "fail"
    raise ValueError(f"tolerance must be one of {', '.join(TOLERANCES)}: {tolerance!r}")


def _ratio(predicted: Any, measured: Any) -> float | None:
    if isinstance(predicted, list) and len(predicted) == 2 and measured:
        predicted = predicted[1]
    if isinstance(predicted, int | float) and isinstance(measured, int | float) and measured:
        return round(predicted / measured, 4)
    return None


@dataclass
class Row:
    """One case of one experiment."""

    experiment: str
    case: str
    kafka_version: str          # the broker's release ("4.4.0")
    client: str                 # "java 4.4.0", "raw FetchRequest v4", "librdkafka 2.12.0", ...
    setup: dict[str, Any]
    predicted: Any
    measured: Any
    unit: str
    tolerance: str
    verdict: str = ""
    ratio: float | None = None
    note: str = ""
    date: str = ""
    machine: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.verdict:
            self.verdict = verdict(self.tolerance, self.predicted, self.measured)
        if self.ratio is None:
            self.ratio = _ratio(self.predicted, self.measured)
        self.date = self.date or datetime.now(UTC).strftime("%Y-%m-%d")
        self.machine = self.machine or machine()


def machine() -> str:
    """``"2 cores, 24 GiB, Linux x86_64"``: what the measurement ran on."""
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem = 0.0
    return f"{os.cpu_count()} cores, {mem:.0f} GiB, {platform.system()} {platform.machine()}"


def measured_rows(experiment: str | None = None) -> list[Row]:
    """The committed snapshot's rows (``data/reality/results.jsonl``, what ``make reality``
    measured on a real cluster; the lessons and the README show it), of one experiment or all."""
    from kipviz import data_file

    rows = read_rows(data_file("reality/results.jsonl"))
    return [r for r in rows if experiment is None or r.experiment == experiment]


def measured_table(experiment: str, *, leave_out: str = "", kafka_version: str = "") -> str:
    """:func:`table` of the snapshot's rows of ``experiment``, without the cases whose name
    contains ``leave_out`` (a lesson leaves out the long ones; results.md has them all), and only
    those of the brokers' ``kafka_version`` (for example ``"4.4.0"``) when it is given."""
    return table([r for r in measured_rows(experiment)
                  if (not leave_out or leave_out not in r.case)
                  and (not kafka_version or r.kafka_version == kafka_version)])


def write_rows(rows: Iterable[Row], path: Path) -> None:
    """The rows as JSON lines, one object a row."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        for row in rows:
            f.write(json.dumps(asdict(row), sort_keys=True) + "\n")


def read_rows(path: Path) -> list[Row]:
    """The rows :func:`write_rows` wrote."""
    return [Row(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def _cell(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}"
    if isinstance(value, list):
        return " ".join(_cell(v) for v in value)
    return str(value)


def table(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table: experiment, case, Kafka, client, predicted, measured,
    unit, tolerance, verdict."""
    head = "| experiment | case | Kafka | client | predicted | measured | unit | tolerance | " \
           "verdict |\n|---|---|---|---|---|---|---|---|---|\n"
    return head + "".join(
        f"| {r.experiment} | {r.case} | {r.kafka_version} | {r.client} | {_cell(r.predicted)} "
        f"| {_cell(r.measured)} | {r.unit} | {r.tolerance} | {r.verdict} |\n" for r in rows)
