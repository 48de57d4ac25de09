"""``nested_compile_region(g)(x)`` written inside the captured program.

Note [regions marked while traced]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``torch.compiler.nested_compile_region(g)`` marks ``g`` by setting
attributes on it and returns a wrapper that calls
``invoke_subgraph_placeholder(g, ...)``. Dynamo traces the wrapper (the HOP
``invoke_subgraph``) but not the marking: ``nested_compile_region`` is on
its skip list, and a traced ``setattr`` on a function is unsupported. So a
program that marks a function inside the traced code, rather than at import,
breaks the graph there: ``hopc.compile`` runs the region eagerly between two
graphs, and a capture, which needs one graph, fails. While a capture traces,
``marking_in_trace`` puts ``traceable_nested_compile_region`` in its place on
``torch.compiler``: the same wrapper, without the marks (Dynamo reads each
with its default: no options, 8 reuse entries, no reuse hash), in hopc's
source, which Dynamo traces. Only a capture does this: Dynamo guards on the
attributes it reads, so ``hopc.compile`` would fail that guard on every call
after the capture. A program that imported the function by name at import
time keeps PyTorch's, and its capture reports the graph break, located.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from unittest import mock

import torch.compiler

_INVOKE_SUBGRAPH = importlib.import_module("torch._higher_order_ops.invoke_subgraph")


def traceable_nested_compile_region(fn: Callable | None = None, **_options: object) -> Callable:
    """``nested_compile_region`` as Dynamo can trace it (Note [regions marked while traced])."""
    if fn is None:
        return traceable_nested_compile_region

    def region(*args: object, **kwargs: object) -> object:
        return _INVOKE_SUBGRAPH.invoke_subgraph_placeholder(fn, *args, **kwargs)

    return region


def marking_in_trace() -> AbstractContextManager:
    """While it is active, ``torch.compiler.nested_compile_region`` is the traceable one."""
    return mock.patch.object(torch.compiler, "nested_compile_region",
                             traceable_nested_compile_region)
