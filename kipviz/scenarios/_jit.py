"""Compiling a kernel module's plain functions with numba, the one way every kernel does it.

Kernels are plain Python loops (the reference implementation, run as they are); numba compiles
the same functions for speed. :func:`jit_functions` rebuilds each named function over one shared
copy of its module's globals and compiles it there, so compiled functions call each other
compiled while the module's own functions stay plain. Functions from other modules (``foreign``,
e.g. a mechanism of :mod:`kipviz.fetch`) are compiled as they are. numba is imported only here.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["jit_functions"]


def jit_functions(names: Iterable[str], namespace: Mapping[str, Any], *,
                  foreign: Mapping[str, Callable[..., Any]] | None = None) -> dict[str, Any]:
    """The functions ``names`` of ``namespace`` (a module's ``globals()``) and ``foreign``,
    compiled by numba (``cache=True``), by name."""
    import numba

    glb = dict(namespace)
    for name, fn in (foreign or {}).items():
        glb[name] = numba.njit(cache=True)(fn)
    for name in names:
        plain = glb[name]
        fn = types.FunctionType(plain.__code__, glb, name)
        fn.__qualname__ = name
        glb[name] = numba.njit(cache=True)(fn)
    return {name: glb[name] for name in (*(foreign or {}), *names)}
