"""Build hook: the lessons (``notebooks/*.ipynb``) and sample data (``data/``, with
``data/reality/``) ship in the wheel.

Both folders stay at the top of the repository, where a clone's ``make lab`` and the tests use
them; setuptools' ``package-data`` cannot reach outside the package, so ``build_py`` copies them
into ``kipviz/notebooks`` and ``kipviz/data`` of the build. An editable install does not copy:
there :func:`kipviz.data_file` and :mod:`kipviz.apps.report` find the folders beside the package.
The sdist carries both folders (``MANIFEST.in``), so a wheel built from it has them too.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# top-level folder -> files copied into kipviz/ (data/reality/: the real-Kafka snapshot)
SHIPPED = {"notebooks": "*.ipynb", "data": "**/*"}


class BuildPyWithLessons(build_py):
    """``build_py`` that also copies the top-level lesson and data folders into the package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # editable: kipviz finds ../notebooks and ../data itself
        for folder, pattern in SHIPPED.items():
            target = Path(self.build_lib) / "kipviz" / folder
            files = sorted(p for p in (ROOT / folder).glob(pattern) if p.is_file())
            if not files:
                raise SystemExit(f"nothing to ship in {ROOT / folder} ({pattern})")
            for path in files:
                dest = target / path.relative_to(ROOT / folder)
                self.mkpath(str(dest.parent))
                self.copy_file(str(path), str(dest))


setup(cmdclass={"build_py": BuildPyWithLessons})
