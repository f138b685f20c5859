"""``python -m kipviz``: the same command line as ``kipviz`` (see :mod:`kipviz.cli`)."""

from __future__ import annotations

import sys

from kipviz.cli import main

sys.exit(main())
