"""``kipviz lab``: the lessons copied into a folder of the user's, then JupyterLab opened there.

:func:`copy_lessons` copies the lesson notebooks that ship with kipviz (:func:`kipviz.lessons_dir`:
the wheel's copy or a clone's ``notebooks/``) into a folder, and never overwrites a lesson the
user changed. A manifest in the folder (``.kipviz-lessons.json``) remembers the SHA-256 of each
file as kipviz wrote it, so a lesson nobody touched is refreshed to this version of kipviz, and
one that differs from both what kipviz wrote and what it ships now is the user's: on a terminal
the user is asked, without one it is kept and named. :func:`open_lab` starts JupyterLab there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kipviz import lessons_dir

__all__ = ["DEFAULT_DIR", "MANIFEST", "CopyResult", "copy_lessons", "open_lab"]

DEFAULT_DIR = Path("kipviz-lessons")
"""Where ``kipviz lab`` puts the lessons when no folder is given (relative to the cwd)."""
MANIFEST = ".kipviz-lessons.json"
"""The file in a lessons folder that records the hash of each lesson as kipviz wrote it."""


@dataclass
class CopyResult:
    """What :func:`copy_lessons` did, by file name: ``copied`` (new), ``updated`` (unchanged by
    the user, refreshed or overwritten with consent), ``same`` (already this version) and
    ``kept`` (changed by the user and not overwritten)."""

    copied: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    same: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _terminal_ask(question: str) -> bool:
    answer = input(f"{question} [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def copy_lessons(dest: str | os.PathLike[str] = DEFAULT_DIR, *,
                 source: str | os.PathLike[str] | None = None,
                 ask: Callable[[str], bool] | None = None) -> CopyResult:
    """Copy the lesson notebooks into ``dest`` (created if needed); see the module.

    ``ask(question) -> bool`` decides about a lesson the user changed; None asks on the terminal
    when stdin is one and keeps the user's file otherwise.
    """
    src = Path(source) if source is not None else lessons_dir()
    lessons = sorted(p for p in src.glob("*.ipynb") if p.is_file())
    if not lessons:
        raise FileNotFoundError(f"no lesson notebooks (*.ipynb) in {src}")
    if ask is None and sys.stdin is not None and sys.stdin.isatty():
        ask = _terminal_ask
    target = Path(dest)
    target.mkdir(parents=True, exist_ok=True)
    manifest_path = target / MANIFEST
    try:
        written: dict[str, str] = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        written = {}
    result = CopyResult()
    for lesson in lessons:
        there, shipped = target / lesson.name, _sha256(lesson)
        if not there.exists():
            result.copied.append(lesson.name)
        else:
            current = _sha256(there)
            if current == shipped:
                result.same.append(lesson.name)
                written[lesson.name] = shipped
                continue
            untouched = written.get(lesson.name) == current
            question = (f"{there} differs from kipviz's lesson (you changed it); "
                        f"replace it with kipviz's?")
            if not untouched and not (ask is not None and ask(question)):
                result.kept.append(lesson.name)
                continue
            result.updated.append(lesson.name)
        shutil.copyfile(lesson, there)
        written[lesson.name] = shipped
    manifest_path.write_text(json.dumps(written, indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
    return result


def open_lab(directory: str | os.PathLike[str], *, port: int | None = None,
             browser: bool = True) -> int:
    """Run JupyterLab on ``directory`` (127.0.0.1) until it stops; its exit status. Raises
    ``RuntimeError`` when JupyterLab is not installed (the ``lab`` extra)."""
    try:
        import jupyterlab  # noqa: F401
    except ImportError as err:
        raise RuntimeError("JupyterLab is not installed: pip install 'kipviz[lab]'") from err
    command = [sys.executable, "-m", "jupyterlab", f"--notebook-dir={Path(directory)}",
               "--ip=127.0.0.1"]
    if port is not None:
        command.append(f"--port={port}")
    if not browser:
        command.append("--no-browser")
    if hasattr(os, "getuid") and os.getuid() == 0:
        command.append("--allow-root")  # Jupyter refuses root without it (containers, Binder)
    return subprocess.call(command)
