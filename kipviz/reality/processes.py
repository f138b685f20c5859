"""The processes kipviz starts for a real Kafka (brokers, controllers, probes): started in a
session of their own, stopped by pid, always.

:func:`start` launches a command with its output in a log file; :func:`stop` sends SIGTERM, waits
a stated time, then SIGKILL; every process still running when Python exits is stopped the same
way (``atexit``), so an interrupted run leaves no JVM behind. :func:`free_ports` asks the kernel
for ports on 127.0.0.1 that nothing listens on.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path

__all__ = ["free_ports", "log_tail", "running", "start", "stop"]

_STARTED: dict[int, subprocess.Popen[bytes]] = {}


def start(cmd: Sequence[str], log: Path, *, cwd: Path | None = None,
          env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start ``cmd`` with stdout and stderr appended to ``log``; remembered for :func:`stop`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        proc = subprocess.Popen(list(cmd), stdout=sink, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=cwd, env=env,
                                start_new_session=True)
    _STARTED[proc.pid] = proc
    return proc


def stop(proc: subprocess.Popen[bytes], timeout_s: float = 30.0) -> int:
    """Stop ``proc`` by its pid: SIGTERM, then SIGKILL if it still runs after ``timeout_s``.
    Returns its exit code."""
    try:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGKILL)
                proc.wait(10)
        return int(proc.returncode)
    finally:
        _STARTED.pop(proc.pid, None)


def running() -> list[int]:
    """Pids of the processes started here that have not been stopped."""
    return [pid for pid, proc in _STARTED.items() if proc.poll() is None]


@atexit.register
def _stop_all() -> None:
    for proc in list(_STARTED.values()):
        stop(proc, timeout_s=10.0)


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports on 127.0.0.1 that nothing listens on now."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def log_tail(log: Path, lines: int = 3, *, errors_first: bool = True) -> str:
    """The lines of ``log`` that say what went wrong: its ERROR / Exception lines if any (the
    first few), else its last lines, joined with `` | ``."""
    try:
        text = log.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log written)"
    if errors_first:
        bad = [line for line in text if " ERROR " in line or "Exception" in line
               or "Error:" in line]
        if bad:
            return " | ".join(line.strip()[:300] for line in bad[:lines])
    return " | ".join(line.strip()[:300] for line in text[-lines:]) or "(empty log)"
