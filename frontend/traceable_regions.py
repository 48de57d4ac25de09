"""Region HOPs while Dynamo exports a program for ``hopc.capture``: two stand-ins.

``regions_for_export()`` is active while ``torch._dynamo.export`` traces and
runs the program for a capture (``dynamo_capture``). Only a capture uses it:
Dynamo guards on the attributes it reads, so ``hopc.compile`` would fail
those guards on every call after the capture; and ``hopc.compile`` needs
neither, since its backend retargets checkpoint before running anything
(Note [kept regions]) and it may break the graph.

Note [regions marked while traced]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``torch.compiler.nested_compile_region(g)`` marks ``g`` by setting
attributes on it and returns a wrapper that calls
``invoke_subgraph_placeholder(g, ...)``. Dynamo traces the wrapper (the HOP
``invoke_subgraph``) but not the marking: ``nested_compile_region`` is on
its skip list, and a traced ``setattr`` on a function is unsupported. So a
program that marks a function inside the traced code, rather than at import,
breaks the graph there, which a capture (one graph) cannot do. During the
export ``torch.compiler.nested_compile_region`` is
``traceable_nested_compile_region``: the same wrapper, without the marks
(Dynamo reads each with its default: no options, 8 reuse entries, no reuse
hash), in hopc's source, which Dynamo traces. A program that imported the
function by name at import time keeps PyTorch's, and its capture reports the
graph break, located.

Note [checkpoint bodies in export]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Export runs the graph it traced once, to capture its results, and there
``tag_activation_checkpoint`` (Dynamo's form of ``checkpoint``) runs its
body under checkpoint's selective-caching dispatch mode, which has no rule
for a HOP inside the body (``checkpoint`` around ``cond`` fails). The
results only need the forward values, so during the export the operator's
eager implementation is ``run_checkpoint_body``, which calls the body
directly; the traced graph, and so the captured ``hop.checkpoint``, are
unchanged.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator
from unittest import mock

import torch.compiler
from torch._higher_order_ops.wrap import TagActivationCheckpoint

_INVOKE_SUBGRAPH = importlib.import_module("torch._higher_order_ops.invoke_subgraph")
_WRAP = importlib.import_module("torch._higher_order_ops.wrap")


def traceable_nested_compile_region(fn: Callable | None = None, **_options: object) -> Callable:
    """``nested_compile_region`` as Dynamo can trace it (Note [regions marked while traced])."""
    if fn is None:
        return traceable_nested_compile_region

    def region(*args: object, **kwargs: object) -> object:
        return _INVOKE_SUBGRAPH.invoke_subgraph_placeholder(fn, *args, **kwargs)

    return region


def run_checkpoint_body(body: Callable, *args: object, **kwargs: object) -> object:
    """``tag_activation_checkpoint``'s forward value (Note [checkpoint bodies in export])."""
    _, body_kwargs = TagActivationCheckpoint.divide_kwargs(kwargs)
    return body(*args, **body_kwargs)


@contextlib.contextmanager
def regions_for_export() -> Iterator[None]:
    """Both stand-ins, while it is active (see the module docstring)."""
    with mock.patch.object(torch.compiler, "nested_compile_region",
                           traceable_nested_compile_region), \
            mock.patch.object(_WRAP, "tag_activation_checkpoint_impl", run_checkpoint_body):
        yield
