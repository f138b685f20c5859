"""``python tools/warm.py``, make test's first step: every kind, a clear refusal."""

from __future__ import annotations

import pytest

from kipviz.scenarios import SCENARIOS
from tools import warm as warm_module


def test_the_compile_order_names_only_registered_kinds_and_all_built_in_ones():
    """The longest-first order lists the six built-in kinds by their registry names (a renamed
    kind would silently fall to the end of the queue)."""
    assert set(warm_module.LONGEST_FIRST) == set(SCENARIOS)


def test_a_process_count_below_one_is_refused(capsys):
    with pytest.raises(ValueError, match="processes must be at least 1: 0"):
        warm_module.warm(0)
    with pytest.raises(SystemExit) as exit_info:
        warm_module.main(["--processes", "0"])
    assert exit_info.value.code == 2
    assert "--processes must be at least 1: 0" in capsys.readouterr().err


def test_one_kind_is_simulated_by_its_registry_name():
    name, seconds = warm_module._simulate("broker")
    assert name == "broker" and seconds >= 0
