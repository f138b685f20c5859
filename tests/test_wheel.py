"""What `pip install kipviz` gives: lessons and data inside the wheel, a CLI that works anywhere.

Builds an sdist from a copy of the project (the files a release holds), a wheel from that sdist
(pip, with build isolation: setuptools comes from PyPI), installs it with ``pip install --no-deps
--target`` (its dependencies are this venv's) and runs it with ``python -P`` from an empty
folder, so neither the source tree nor the working directory is on the path.

Marked ``network`` (build isolation downloads setuptools from PyPI): ``make test`` runs it,
``make test-fast`` and ``pytest -m "not network"`` leave it out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ["kipviz", "notebooks", "data", "pyproject.toml", "setup.py", "MANIFEST.in",
           "README.md", "environment.yml"]
LESSONS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
DATA = sorted(p.relative_to(ROOT / "data").as_posix() for p in (ROOT / "data").rglob("*")
              if p.is_file())
PACKAGE_DATA = ["kipviz/py.typed", "kipviz/apps/static/sliders.js",
                "kipviz/kafka/config/kafka_config_keys.json"]
"""Files beside the modules that the package reads at run time (pyproject's package-data)."""

pytestmark = pytest.mark.network


def _pip(*args: str, cwd: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"pip {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist, the wheel built from it, and the folder the wheel was installed into."""
    tmp = tmp_path_factory.mktemp("release")
    src = tmp / "src"
    for name in RELEASE:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(ROOT / name, src / name, **({"ignore": shutil.ignore_patterns(
            "__pycache__", "*.pyc", ".ipynb_checkpoints")} if (ROOT / name).is_dir() else {}))
    dist = tmp / "dist"
    sdist = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
                               "print(b.build_sdist(sys.argv[1]))", str(dist)],
        cwd=src, capture_output=True, text=True, timeout=300)
    assert sdist.returncode == 0, sdist.stderr
    sdist_path = dist / sdist.stdout.strip().splitlines()[-1]
    _pip("wheel", "--no-deps", "-q", "-w", str(dist), str(sdist_path), cwd=tmp)
    (wheel,) = dist.glob("kipviz-*.whl")
    target = tmp / "site-packages"
    _pip("install", "--no-deps", "-q", "--target", str(target), str(wheel), cwd=tmp)
    return {"sdist": sdist_path, "wheel": wheel, "target": target}


def _installed(built: dict[str, Path], tmp_path: Path, *args: str) -> str:
    """Run ``python -P`` with only the installed wheel (and the venv) on the path, in an empty
    folder; its stdout."""
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(built["target"])}
    done = subprocess.run([sys.executable, "-P", *args], cwd=empty, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_sdist_carries_the_lessons_and_the_data_at_the_top_level(built):
    """``notebooks/`` and ``data/`` stay top-level folders in the sdist (MANIFEST.in)."""
    with tarfile.open(built["sdist"]) as tar:
        names = {Path(*Path(n).parts[1:]).as_posix() for n in tar.getnames()}
    assert {f"notebooks/{n}" for n in LESSONS} <= names
    assert {f"data/{n}" for n in DATA} <= names and "setup.py" in names


def test_the_wheel_lists_every_lesson_and_data_file_inside_the_package(built):
    """Each ``notebooks/*.ipynb`` (discovered, not counted) and ``data/*`` file is in the wheel
    as ``kipviz/notebooks/...`` and ``kipviz/data/...``, byte for byte; so are the package's own
    data files: the slider pages' script and Kafka's key lists, where their modules find them."""
    assert LESSONS and DATA
    with zipfile.ZipFile(built["wheel"]) as whl:
        for folder, names in (("notebooks", LESSONS), ("data", DATA)):
            for name in names:
                assert whl.read(f"kipviz/{folder}/{name}") == (ROOT / folder / name).read_bytes()
        for name in PACKAGE_DATA:
            assert whl.read(name) == (ROOT / name).read_bytes(), name


def test_the_installed_wheel_finds_its_data_and_lessons_from_an_empty_folder(built, tmp_path):
    """``kipviz.data_file``, the lessons and Kafka's key lists come from the installed package,
    not the clone."""
    out = _installed(built, tmp_path, "-c",
                     "import kipviz; print(kipviz.__file__); "
                     "print(kipviz.data_file('consumer.properties')); print(kipviz.lessons_dir()); "
                     "from kipviz.kafka.config.keys import is_known; "
                     "print(is_known('consumer', 'fetch.max.bytes')); "
                     "from kipviz.reality.results import measured_rows; "
                     "print(len(measured_rows('partition_order')))")
    module, data, lessons, known, measured = out.split()
    assert int(measured) > 0  # data/reality/, the snapshot the lessons show
    target = str(built["target"])
    assert module.startswith(target) and data.startswith(target) and lessons.startswith(target)
    assert sorted(p.name for p in Path(lessons).glob("*.ipynb")) == LESSONS
    assert known == "True"


def test_the_installed_cli_helps_and_writes_a_report_from_an_empty_folder(built, tmp_path):
    """``kipviz --help``, ``kipviz lab --help`` and ``kipviz report --only 01 --no-execute``."""
    assert "report" in _installed(built, tmp_path, "-m", "kipviz", "--help")
    assert "kipviz-lessons" in _installed(built, tmp_path, "-m", "kipviz", "lab", "--help")
    script = built["target"] / "bin" / "kipviz"  # the console script pip wrote
    assert "lab" in _installed(built, tmp_path, str(script), "--help")
    out = _installed(built, tmp_path, "-m", "kipviz", "report", "--only", "01", "--no-execute",
                     "--out", "site")
    assert "index.html" in out
    page = tmp_path / "empty" / "site" / f"{Path(LESSONS[1]).stem}.html"
    assert LESSONS[1].startswith("01") and page.stat().st_size > 10_000
