"""``kipviz lab``: the shipped lessons copied into a folder, a changed lesson never overwritten."""

from __future__ import annotations

import io
import json

import pytest

from kipviz import lessons_dir
from kipviz.apps.cli import main
from kipviz.apps.lab import MANIFEST, copy_lessons
from kipviz.apps.report import REFERENCE_PAGES

LESSONS = sorted(p.name for p in lessons_dir().glob("*.ipynb"))


def _never(question: str) -> bool:
    raise AssertionError(f"asked without need: {question}")


def test_every_shipped_lesson_is_copied_and_its_hash_recorded(tmp_path):
    """A new folder gets every lesson (discovered, not counted) and a manifest of their hashes."""
    assert LESSONS and all(name[:2].isdigit() or name.removesuffix(".ipynb") in REFERENCE_PAGES
                           for name in LESSONS)
    done = copy_lessons(tmp_path / "lessons", ask=_never)
    assert done.copied == LESSONS and not (done.updated or done.kept or done.same)
    for name in LESSONS:
        assert (tmp_path / "lessons" / name).read_bytes() == (lessons_dir() / name).read_bytes()
    assert sorted(json.loads((tmp_path / "lessons" / MANIFEST).read_text())) == LESSONS


def test_a_lesson_the_user_changed_is_kept_without_a_terminal_and_replaced_only_with_consent(
        tmp_path):
    """Changed lessons: ``ask`` says no -> kept (named in ``kept``), yes -> replaced; untouched
    lessons are left alone, a deleted one comes back."""
    folder = tmp_path / "lessons"
    copy_lessons(folder, ask=_never)
    changed, deleted = folder / LESSONS[0], folder / LESSONS[-1]
    changed.write_text("my notes")
    deleted.unlink()
    questions: list[str] = []
    done = copy_lessons(folder, ask=lambda q: questions.append(q) or False)
    assert done.kept == [LESSONS[0]] and done.copied == [LESSONS[-1]]
    assert sorted(done.same) == LESSONS[1:-1]
    assert changed.read_text() == "my notes" and len(questions) == 1
    assert LESSONS[0] in questions[0]
    done = copy_lessons(folder, ask=lambda q: True)
    assert done.updated == [LESSONS[0]]
    assert changed.read_bytes() == (lessons_dir() / LESSONS[0]).read_bytes()


def test_a_lesson_kipviz_wrote_and_nobody_changed_is_refreshed_to_the_shipped_version(tmp_path):
    """The manifest tells an older kipviz lesson (refreshed, no question) from the user's edit."""
    folder, source = tmp_path / "lessons", tmp_path / "shipped"
    source.mkdir()
    (source / "01_a.ipynb").write_text("version 1")
    copy_lessons(folder, source=source, ask=_never)
    (source / "01_a.ipynb").write_text("version 2")
    done = copy_lessons(folder, source=source, ask=_never)
    assert done.updated == ["01_a.ipynb"] and (folder / "01_a.ipynb").read_text() == "version 2"


def test_kipviz_lab_copy_only_names_the_kept_files_when_no_terminal_is_there(tmp_path, capsys,
                                                                            monkeypatch):
    """``kipviz lab DIR --copy-only`` with stdin not a terminal keeps a changed lesson, says so."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal
    folder = tmp_path / "mine"
    assert main(["lab", str(folder), "--copy-only"]) == 0
    (folder / LESSONS[1]).write_text("{}")
    assert main(["lab", str(folder), "--copy-only"]) == 0
    out = capsys.readouterr().out
    assert f"copied {len(LESSONS)} lesson(s)" in out
    assert f"kept your changed lesson(s) in {folder}: {LESSONS[1]}" in out
    assert (folder / LESSONS[1]).read_text() == "{}"


def test_no_lessons_is_an_error_naming_the_folder(tmp_path):
    """An empty source folder is a FileNotFoundError, not an empty copy."""
    with pytest.raises(FileNotFoundError, match="no lesson notebooks"):
        copy_lessons(tmp_path / "out", source=tmp_path)


def test_open_lab_starts_jupyterlab_on_the_folder_on_localhost(tmp_path, monkeypatch):
    """``open_lab`` runs this interpreter's JupyterLab on the folder, on 127.0.0.1, with the
    port and --no-browser passed through (and --allow-root only as root)."""
    import os

    from kipviz.apps.lab import open_lab

    pytest.importorskip("jupyterlab", reason="needs the lab extra")
    calls: list[list[str]] = []
    monkeypatch.setattr("subprocess.call", lambda command: calls.append(command) or 0)
    assert open_lab(tmp_path, port=8899, browser=False) == 0
    (command,) = calls
    assert command[1:3] == ["-m", "jupyterlab"]
    assert f"--notebook-dir={tmp_path}" in command and "--ip=127.0.0.1" in command
    assert "--port=8899" in command and "--no-browser" in command
    assert ("--allow-root" in command) == (os.getuid() == 0)
