"""The sweep cache: canonical keys, every entry validated and checksummed, write failures
reported before the Spark job and never losing what was computed."""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from kipviz.curves import sweep as sw
from kipviz.curves.summary import SUMMARY
from kipviz.curves.sweep import grid, sweep
from kipviz.curves.sweep_cache import (
    CacheWarning,
    canonical_params,
    config_key,
    read_cached,
    valid_row,
    write_cached,
)
from kipviz.kafka.fetch.request import Ordering
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.workload import Workload

MiB = 2**20
BASE = ConsumerScenario(partitions=12, brokers=3, fetch_max_bytes=2 * MiB,
                        consume_bytes_per_s=20e6, ticks=200, windows=5,
                        workload=Workload(profile="zipf", initial_lag_bytes=2 * MiB))
CONFIGS = grid(BASE, fetch_max_bytes=[256 * 1024, 2 * MiB])


def test_equal_scenarios_share_one_key_however_they_were_built():
    """numpy scalars, integral floats and enums given by value give the key of the plain
    scenario: canonical JSON, not repr."""
    plain = replace(BASE, fetch_max_bytes=1048576, consume_bytes_per_s=20e6,
                    ordering=Ordering.ROUND_ROBIN)
    numpy = replace(BASE, fetch_max_bytes=np.int64(1048576),
                    consume_bytes_per_s=np.float64(20_000_000), ordering=Ordering(1))
    assert plain == numpy and repr(plain) != repr(numpy)
    assert config_key(plain, 0) == config_key(numpy, 0)
    assert canonical_params(plain) == canonical_params(numpy)
    assert "np." not in canonical_params(numpy)
    assert config_key(plain, 0) != config_key(replace(plain, fetch_max_bytes=1048577), 0)


def _row(scenario=BASE, **changes):
    key = config_key(scenario, 0)
    row = pd.DataFrame([{"config_id": 0, "key": key, "kind": "ConsumerScenario",
                         "params": canonical_params(scenario), "version": sw.kipviz.__version__,
                         **dict.fromkeys(SUMMARY, 1.0),
                         "curve_window_ms": np.array([0, 100]),
                         "curve_memory_bytes": np.array([1.0, 2.0]),
                         "curve_throughput_bytes_per_s": np.array([3.0, 4.0]),
                         "curve_jain_index": np.array([1.0, 0.5])}])
    return key, row.assign(**changes)


@pytest.mark.parametrize("damage", ["drop_metric", "drop_curve", "text_metric", "text_curve",
                                    "edit_value", "no_checksum"])
def test_an_incomplete_wrongly_typed_or_edited_entry_is_not_shown(tmp_path, damage):
    """Each kind of damage makes the entry unreadable as a cache hit (it is recomputed)."""
    key, row = _row()
    path = tmp_path / "entry.parquet"
    assert write_cached(path, row) is None
    assert read_cached(path, key, BASE) is not None
    stored = pd.read_parquet(path)
    damaged = {
        "drop_metric": lambda r: r.drop(columns="peak_memory_bytes"),
        "drop_curve": lambda r: r.drop(columns="curve_jain_index"),
        "text_metric": lambda r: r.assign(peak_memory_bytes="12"),
        "text_curve": lambda r: r.assign(curve_memory_bytes=[np.array(["a", "b"])]),
        "edit_value": lambda r: r.assign(peak_memory_bytes=2.0),
        "no_checksum": lambda r: r.drop(columns="checksum"),
    }[damage](stored)
    damaged.to_parquet(path, index=False)
    assert read_cached(path, key, BASE) is None
    assert not valid_row(damaged, key, canonical_params(BASE))


def test_a_write_failure_is_a_message_not_an_exception(tmp_path):
    """A file where the cache folder should be: write_cached says why and raises nothing."""
    (tmp_path / "blocked").write_text("a file")
    _, row = _row()
    problem = write_cached(tmp_path / "blocked" / "x.parquet", row)
    assert problem is not None and "could not be written" in problem


@pytest.mark.spark
def test_a_damaged_entry_is_recomputed_without_aborting_the_sweep(spark, tmp_path):
    """An entry lacking a metric, another with a text column: both recomputed and replaced,
    no NaN shown, the sweep finishes."""
    sweep(spark, CONFIGS, cache_dir=tmp_path)
    paths = [sw._cache_path(tmp_path, s, config_key(s, 0)) for s in CONFIGS]
    pd.read_parquet(paths[0]).drop(columns="p99_memory_bytes").to_parquet(paths[0])
    pd.read_parquet(paths[1]).assign(peak_memory_bytes="big").to_parquet(paths[1])
    result = sweep(spark, CONFIGS, cache_dir=tmp_path)
    assert result.computed == 2
    assert result.table[["peak_memory_bytes", "p99_memory_bytes"]].notna().all().all()
    assert all(read_cached(p, config_key(s, 0), s) is not None
               for p, s in zip(paths, CONFIGS, strict=True))


@pytest.mark.spark
@pytest.mark.parametrize("blocked", ["under_a_file", "read_only"])
def test_an_unwritable_cache_is_reported_before_the_job_and_results_are_kept(
        spark, tmp_path, monkeypatch, blocked):
    """cache_dir under a file, or a folder nobody may write: a CacheWarning before Spark runs,
    and the computed rows are returned all the same (cache_dir a file itself is a wrong
    argument, refused: ``test_bad_inputs.py``)."""
    cache = tmp_path / "cache"
    if blocked == "under_a_file":
        (tmp_path / "file").write_text("not a folder")
        cache = tmp_path / "file" / "cache"
    else:
        cache.mkdir()
        os.chmod(cache, 0o500)
        if os.access(cache, os.W_OK):  # root writes anywhere
            pytest.skip("running as root: permissions are not enforced")
    warned_before_the_job = []
    real_run = sw._run
    with pytest.warns(CacheWarning, match="cannot be written") as caught:
        monkeypatch.setattr(sw, "_run", lambda *a, **k: (
            warned_before_the_job.append(len(caught) > 0), real_run(*a, **k))[1])
        result = sweep(spark, CONFIGS[:1], cache_dir=cache)
    assert warned_before_the_job == [True]
    assert result.computed == 1 and result.table["peak_memory_bytes"].notna().all()


@pytest.mark.spark
def test_a_write_that_fails_after_the_job_keeps_the_results(spark, tmp_path, monkeypatch):
    """The disk fills up while the rows are stored: a CacheWarning, and every computed row is
    returned; nothing half-written is left to be read as a hit."""
    def full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    with pytest.warns(CacheWarning, match="No space left on device"):
        result = sweep(spark, CONFIGS, cache_dir=tmp_path)
    assert result.computed == 2 and result.table["peak_memory_bytes"].notna().all()
    assert not list(tmp_path.rglob("*.parquet")) and not list(tmp_path.rglob(".*"))
