"""The sweep cache: one Parquet file per configuration, keyed, validated and checksummed.

:func:`config_key` hashes canonical JSON of the scenario's values (:func:`canonical_params`:
fields by name, numpy scalars as Python numbers, integral floats as ints, enums by name), the
seed and kipviz's version, so equal scenarios share one entry however they were built. A row is
shown only when :func:`read_cached` finds it whole: one row, the expected key, version and
parameters, every ``SUMMARY`` metric a number and every curve a numeric array, and the checksum
written with it matching; otherwise it is recomputed and replaced. Writing is atomic (a
temporary file renamed); :func:`writable_cache` tells before a Spark job whether the folder can
take the results, and a failed write never loses a computed row.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import json
import math
import numbers
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import kipviz
from kipviz.curves.summary import CURVES, SUMMARY

__all__ = [
    "CacheWarning",
    "cache_folder",
    "canonical_params",
    "config_key",
    "read_cached",
    "writable_cache",
    "write_cached",
]


class CacheWarning(UserWarning):
    """The sweep cache could not be written; results are returned but not stored."""


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"__type__": type(value).__qualname__,
                **{f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isfinite(number) and number.is_integer() and abs(number) < 2**63:
            return int(number)
        return number if math.isfinite(number) else repr(number)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, str) else repr(value)


def canonical_params(scenario: Any) -> str:
    """The scenario's values as canonical JSON (sorted keys, no blanks, no numpy reprs)."""
    return json.dumps(_plain(scenario), sort_keys=True, separators=(",", ":"))


def config_key(scenario: Any, seed: int, params: str | None = None) -> str:
    """The cache key: a hash of the scenario kind, its canonical values (``params``, its
    :func:`canonical_params` when already at hand), the seed and kipviz's version."""
    params = canonical_params(scenario) if params is None else params
    text = f"{type(scenario).__qualname__}|{params}|{int(seed)}|{kipviz.__version__}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _checksum(row: pd.DataFrame) -> str:
    """A hash of the row's identity, metrics and curves as written."""
    record = row.iloc[0]
    content = {"key": str(record["key"]), "params": str(record["params"]),
               "version": str(record["version"]),
               **{name: repr(float(record[name])) for name in SUMMARY},
               **{name: [repr(float(v)) for v in record[name]] for name in CURVES}}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def _numeric_curve(value: Any) -> bool:
    if not isinstance(value, list | tuple | np.ndarray):
        return False
    array = np.asarray(value)
    return array.ndim == 1 and (array.size == 0 or array.dtype.kind in "iuf")


def valid_row(row: pd.DataFrame, key: str, params: str) -> bool:
    """Whether ``row`` is one whole cache entry for ``key`` / ``params`` (see the module)."""
    columns = {"key", "version", "params", "checksum", *SUMMARY, *CURVES}
    if len(row) != 1 or not columns <= set(row.columns):
        return False
    record = row.iloc[0]
    if (record["key"] != key or record["version"] != kipviz.__version__
            or record["params"] != params):
        return False
    if any(row[name].dtype.kind != "f" for name in SUMMARY):
        return False
    if not all(_numeric_curve(record[name]) for name in CURVES):
        return False
    return bool(record["checksum"] == _checksum(row))


def read_cached(path: Path, key: str, scenario: Any) -> pd.DataFrame | None:
    """The cached row without its checksum, or None when missing, unreadable, stale, for other
    parameters, incomplete, wrongly typed or not matching its checksum."""
    try:
        row = pd.read_parquet(path)
        ok = valid_row(row, key, canonical_params(scenario))
    except Exception:  # any damage means "not cached": the row is simulated again
        return None
    return row.drop(columns="checksum") if ok else None


def write_cached(path: Path, row: pd.DataFrame) -> str | None:
    """Store ``row`` at ``path`` atomically with its checksum; None when written, else why
    not (the row itself stays with the caller: a failed write loses nothing computed)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        row.assign(checksum=_checksum(row)).to_parquet(tmp, index=False)
        tmp.replace(path)  # atomic: a reader sees the old file or the whole new one
    except Exception as err:  # a full disk, a read-only folder, a file in the way
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        return f"the sweep cache entry {path} could not be written: {err}"
    return None


def cache_folder(cache_dir: str | os.PathLike[str] | None) -> Path | None:
    """``cache_dir`` as a Path (None: no cache); ValueError when it names something that is not
    a folder (a file): a wrong argument, refused before anything runs. A folder that cannot be
    written is not refused (:func:`writable_cache` warns, and the results are kept)."""
    if cache_dir is None:
        return None
    if not isinstance(cache_dir, str | os.PathLike) or not os.fspath(cache_dir):
        raise ValueError(f"cache_dir must be a path to a folder: {cache_dir!r}")
    path = Path(cache_dir)
    if path.exists() and not path.is_dir():
        raise ValueError(f"cache_dir must be a folder (or a path where one can be made), not a "
                         f"file: {str(path)!r}")
    return path


def writable_cache(cache_dir: Path) -> str | None:
    """Why ``cache_dir`` cannot take cache entries (a file in the way, no permission), or None
    when it can: a probe file is written and removed."""
    probe = cache_dir / f".probe.{os.getpid()}.{threading.get_ident()}"
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        return f"cache_dir {cache_dir} cannot be written: {err}"
    return None
