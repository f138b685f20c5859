"""One way to compile a kernel (issue 25, item 5): every kind's kernel module has a
``compiled_kernel(name)`` that builds its functions once per process through
:func:`kipviz.scenarios.jit.compiled_functions`, and every function compiled that way, the
kernel's own and the Kafka rules it calls, is cached by numba under a name carrying a digest of
the sources it is compiled from."""

from __future__ import annotations

import importlib
import re

import pytest

from kipviz.scenarios.jit import compiled_functions, sources_digest

KERNELS = {"broker": "broker_kernel", "consumer": "consumer_kernel", "reassignment": "run",
           "share_group": "share_group_kernel", "streams": "streams_kernel",
           "tiered_fetch": "tiered_kernel"}


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_each_kernel_compiles_through_the_one_path_under_a_digest_of_its_sources(kind):
    """``compiled_kernel()`` is its kernel, compiled once (the same dispatcher again), named
    ``<function>_<digest>``; so are the rules it compiles with it (``foreign`` ones too)."""
    pytest.importorskip("numba")
    module = importlib.import_module(f"kipviz.scenarios.{kind}.kernel")
    kernel = module.compiled_kernel()
    assert kernel is module.compiled_kernel() is module.compiled_kernel(KERNELS[kind])
    assert kernel.py_func.__code__ is getattr(module, KERNELS[kind]).__code__
    compiled = compiled_functions(module.__name__, lambda: pytest.fail("compiled twice"))
    for name, fn in compiled.items():
        assert re.fullmatch(rf"{name}_[0-9a-f]{{10}}", fn.py_func.__qualname__), name


def test_the_digest_follows_the_sources_a_function_calls():
    """A kernel's digest covers the rule modules its namespace reaches (a changed rule must
    compile afresh), and differs from the digest of the rules alone."""
    from kipviz.kafka.broker import pool
    from kipviz.scenarios.broker import kernel

    assert sources_digest([kernel.broker_kernel]) != sources_digest([pool.pool_try_allocate])
    assert re.fullmatch(r"[0-9a-f]{10}", sources_digest([kernel.broker_kernel]))
