"""``python -m kipviz``: the same command line as ``kipviz`` (see :mod:`kipviz.apps.cli`)."""

from __future__ import annotations

import sys

from kipviz.apps.cli import main

sys.exit(main())
