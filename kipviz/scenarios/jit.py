"""Compiling a kernel package with numba, the one way every kernel does it.

Kernels are plain Python loops (the reference implementation, run as they are); numba compiles
the same functions for speed. Every kind's kernel module has a ``compiled_kernel(name)`` that
asks :func:`compiled_functions` for its functions, built once per process by
:func:`jit_functions`: it rebuilds each named function over one shared copy of its module's
globals and compiles it there, so compiled functions call each other compiled while the
module's own functions stay plain. Rule functions from :mod:`kipviz.kafka` (``foreign``, e.g.
KIP-74's ``fill_raw_bytes``) are compiled over their own module's globals, as they are.
:func:`compiled_rates` is Kafka's windowed rate (:mod:`kipviz.kafka.quotas.rate`) compiled once
for every kernel that measures one. numba is imported only here.

numba's on-disk cache checks only the source file of the function it compiles, not those of the
functions it calls: a changed rule in :mod:`kipviz.kafka.broker.pool` would leave a cached
kernel running the old one. So every function compiled here, the kernel's and the rules alike,
is cached under a name that carries a digest of the kipviz source files its namespace draws on
(:func:`sources_digest`), and a change to any of them compiles afresh.
"""

from __future__ import annotations

import hashlib
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["compiled_functions", "compiled_rates", "jit_functions", "sources_digest"]

_compiled: dict[str, dict[str, Any]] = {}  # by owner: its compiled functions, by name


def compiled_functions(owner: str, build: Callable[[], Mapping[str, Any]]) -> dict[str, Any]:
    """The functions ``build()`` compiles (with :func:`jit_functions`), by name, built once per
    process for ``owner`` (a kernel module's ``__name__``)."""
    if owner not in _compiled:
        _compiled[owner] = dict(build())
    return _compiled[owner]


def compiled_rates() -> dict[str, Any]:
    """:data:`kipviz.kafka.quotas.rate.RATE_FUNCTIONS` compiled once per process, by name: the
    very functions :class:`kipviz.kafka.quotas.rate.Rate` and the SimPy references run."""
    from kipviz.kafka.quotas import rate

    return compiled_functions(rate.__name__, lambda: jit_functions(rate.RATE_FUNCTIONS,
                                                                   vars(rate)))


def jit_functions(names: Iterable[str], namespace: Mapping[str, Any], *,
                  foreign: Mapping[str, Callable[..., Any]] | None = None,
                  inline_foreign: bool = False, inline: Iterable[str] = ()) -> dict[str, Any]:
    """The functions ``names`` of ``namespace`` (a module's ``globals()``) and ``foreign``,
    compiled by numba (``cache=True``, under a digest of their sources), by name. Each of
    ``foreign`` (rules of another module, leaves that call no plain function) is compiled over
    its own module's globals; ``inline_foreign`` inlines them into their callers (numba's
    ``inline="always"``: for small rules called in inner loops), as ``inline`` does the ones of
    ``names`` it lists (a call then passes no arrays, so it costs no atomic reference counts)."""
    glb = dict(namespace)
    for name, fn in (foreign or {}).items():
        glb[name] = _njit(fn, fn.__globals__, name, sources_digest([fn]), inline_foreign)
    digest = sources_digest(glb.values())
    inlined = set(inline)
    for name in names:
        glb[name] = _njit(glb[name], glb, name, digest, name in inlined)
    return {name: glb[name] for name in (*(foreign or {}), *names)}


def _njit(plain: Any, glb: dict[str, Any], name: str, digest: str, inline: bool) -> Any:
    """``plain`` rebuilt over ``glb`` and compiled, cached as ``<name>_<digest>``."""
    import numba

    fn = types.FunctionType(plain.__code__, glb, name, plain.__defaults__, plain.__closure__)
    fn.__qualname__ = f"{name}_{digest}"  # the cache entry's name
    return numba.njit(cache=True, inline="always" if inline else "never")(fn)


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
