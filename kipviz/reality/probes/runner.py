"""Running one probe: a process of its own, its output in one log, its JSON lines parsed.

:func:`run_probe` starts a probe with :mod:`kipviz.reality.processes` (so it is stopped by its
pid on a timeout, an error or Python's exit), waits for it and returns the JSON objects it
printed (:func:`parse_probe_lines`); a probe that exits with an error, prints no ``summary``
line or outlives its time is one :class:`~kipviz.reality.jars.RealityError` naming its log.
Every probe (:mod:`.java_probe`, :mod:`.clients`) runs through it.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kipviz.reality import processes
from kipviz.reality.jars import RealityError

__all__ = ["parse_probe_lines", "run_probe", "summary"]


def parse_probe_lines(text: str) -> list[dict[str, Any]]:
    """The JSON objects with a ``type`` among a probe's output lines, in order; anything else
    (a client's log line, a traceback) is left out."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(line)
            if isinstance(value, dict) and "type" in value:
                out.append(value)
    return out


def summary(lines: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The probe's ``summary`` line (a KeyError if it printed none)."""
    for line in lines:
        if line.get("type") == "summary":
            return dict(line)
    raise KeyError("summary")


def _why(lines: Sequence[Mapping[str, Any]], log: Path) -> str:
    errors = [str(line.get("message")) for line in lines if line.get("type") == "error"]
    return errors[0] if errors else processes.log_tail(log)


def run_probe(name: str, cmd: Sequence[str], log: Path, *, timeout_s: float,
              env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Run one probe process with its output in ``log`` (written anew) and return its parsed
    lines; stopped by its pid on timeout or error, a RealityError naming ``log`` when it failed."""
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    proc = processes.start(cmd, log, env=dict(env) if env is not None else None)
    try:
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        processes.stop(proc, timeout_s=5.0)
        raise RealityError(f"the {name} probe did not finish in {timeout_s:g} s and was stopped "
                           f"(pid {proc.pid}; log {log}): {processes.log_tail(log)}") from e
    finally:
        processes.stop(proc, timeout_s=5.0)  # on any error here, and a no-op once it exited
    lines = parse_probe_lines(log.read_text(errors="replace") if log.exists() else "")
    if code != 0 or not any(line.get("type") == "summary" for line in lines):
        why = f"exit {code}" if code != 0 else "no summary line"
        raise RealityError(f"the {name} probe failed ({why}; pid {proc.pid}; log {log}): "
                           f"{_why(lines, log)}")
    return lines
