"""Compiling a kernel module's plain functions with numba, the one way every kernel does it.

Kernels are plain Python loops (the reference implementation, run as they are); numba compiles
the same functions for speed. :func:`jit_functions` rebuilds each named function over one shared
copy of its module's globals and compiles it there, so compiled functions call each other
compiled while the module's own functions stay plain. Functions from other modules (``foreign``,
e.g. a mechanism of :mod:`kipviz.kafka.fetch.response`) are compiled as they are. numba is imported
only here.

numba's on-disk cache checks only the source file of the function it compiles, not those of the
functions it calls: a changed rule in :mod:`kipviz.kafka.broker.pool` would leave a cached
kernel running the old one. So each rebuilt function's name carries a digest of the kipviz source
files its namespace draws on, and a change to any of them compiles afresh.
"""

from __future__ import annotations

import hashlib
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["jit_functions", "sources_digest"]


def jit_functions(names: Iterable[str], namespace: Mapping[str, Any], *,
                  foreign: Mapping[str, Callable[..., Any]] | None = None,
                  inline_foreign: bool = False, inline: Iterable[str] = ()) -> dict[str, Any]:
    """The functions ``names`` of ``namespace`` (a module's ``globals()``) and ``foreign``,
    compiled by numba (``cache=True``), by name. ``inline_foreign`` inlines the foreign ones
    into their callers (numba's ``inline="always"``: for small rules called in inner loops), as
    ``inline`` does the ones of ``names`` it lists (a call then passes no arrays, so it costs no
    atomic reference counts)."""
    import numba

    glb = dict(namespace)
    for name, fn in (foreign or {}).items():
        glb[name] = numba.njit(cache=True, inline="always" if inline_foreign else "never")(fn)
    digest = sources_digest(glb.values())
    inlined = set(inline)
    for name in names:
        plain = glb[name]
        fn = types.FunctionType(plain.__code__, glb, name)
        fn.__qualname__ = f"{name}_{digest}"  # the cache entry's name
        glb[name] = numba.njit(cache=True, inline="always" if name in inlined else "never")(fn)
    return {name: glb[name] for name in (*(foreign or {}), *names)}


def sources_digest(values: Iterable[Any]) -> str:
    """A short digest of the kipviz source files that define ``values`` (functions, compiled
    functions, classes, modules) and, through the globals of those functions, of everything they
    call (a compiled caller embeds its callees' code)."""
    files: set[str] = set()
    scanned: set[int] = set()  # globals dicts already followed
    todo = list(values)
    while todo:
        value = todo.pop()
        value = getattr(value, "py_func", value)  # a numba dispatcher: its Python function
        module = value if isinstance(value, types.ModuleType) else sys.modules.get(
            str(getattr(value, "__module__", None) or ""))
        name = str(getattr(module, "__name__", ""))
        if not (name == "kipviz" or name.startswith("kipviz.")):
            continue
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            files.add(path)
        glb = getattr(value, "__globals__", None)
        if isinstance(glb, dict) and id(glb) not in scanned:
            scanned.add(id(glb))
            todo.extend(v for v in glb.values() if callable(v) or isinstance(v, types.ModuleType))
    h = hashlib.sha1()
    for path in sorted(files):
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:10]
