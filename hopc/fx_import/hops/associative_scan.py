"""Capturing ``associative_scan(combine_graph, xs, additional)`` as ``hop.associative_scan``.

Note [associative scan capture]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
PyTorch's ``associative_scan(combine_fn, xs, dim, reverse, combine_mode)``
calls its HOP only for ``combine_mode="pointwise"``, which it allows on CUDA
tensors only. With ``"generic"``, what a CPU program uses, it runs
``generic_associative_scan``: a tree of ``vmap``-ed combines whose depth and
slicing depend on the length, which Dynamo records op by op, so that a dynamic
length cannot be captured and no region is left. So when Dynamo inlines
``associative_scan``, it traces ``traceable_associative_scan`` instead, this
kind's stand-in (``hopc.fx_import.stand_ins.associative_scan``: ``DYNAMO_STAND_INS``,
which ``hopc.frontend.dynamo_capture``
registers with ``torch.compiler.substitute_in_graph`` for both routes,
``hopc.capture`` and ``hopc.compile``): what PyTorch's pointwise mode does,
for every mode: ``dim`` moved to 0 and flipped for ``reverse`` around the HOP
itself, which hopc imports as ``hop.associative_scan`` (Note [associative scan
semantics] in ``hopc.dialects.hops.associative_scan``). Eager calls run
PyTorch's own function. The leaves of ``xs`` must share their length, as
eager's ``vmap`` requires; a ``torch._check`` says so, so that Dynamo names
dynamic lengths by one symbol, as the op's verifier requires.

Dynamo then checks the combine as for pointwise mode (a combine that is not
pointwise, or whose outputs differ from its inputs in shape or dtype, is
refused, located), and refuses a scan of no slices, as eager does. In grad
mode Dynamo also runs the HOP's own autograd kernel on fake tensors, which
(PyTorch 2.13) refuses a combine that reads an outer tensor ("lifted
parameters"): ``hopc.compile`` of such a program in grad mode is that
refusal, located; ``hopc.capture`` traces without grad, and ``--autograd``
differentiates the op itself.

The stand-in is hopc's alone (Note [Dynamo stand-ins are hopc's] in
``hopc.frontend.dynamo_capture``). Outside Dynamo, a generic scan enters
through ``generic_associative_scan`` and a pointwise one compiles its call,
the entry points direct capture gives up at.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
import torch.fx

from hopc.dialects import hop
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS, EntryPoint
from hopc.fx_import.hops.shared import COMPILED_CALL, slice_types, types_of

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter

_ASSOCIATIVE_SCAN = importlib.import_module("torch._higher_order_ops.associative_scan")
"""The module itself (``torch._higher_order_ops`` exports the function under its name)."""


@HOP_IMPORTS.register("associative_scan")
def import_associative_scan(importer: GraphImporter, node: torch.fx.Node) -> None:
    """The combine body takes two slices of each ``xs`` (Note [associative scan semantics])."""
    combine_graph, xs_operands, additional_operands = node.args
    xs = importer.values_of(xs_operands, node)
    additional = importer.values_of(additional_operands, node)
    types = slice_types(xs) * 2 + types_of(additional)
    importer.define(node, hop.AssociativeScanOp(xs, additional, importer.region(combine_graph, types, node)),
                    several=True)


@TRAILING_ARGUMENTS.register("associative_scan")
def associative_scan_trailing_argument() -> int:
    """The additional inputs, which the combine takes after both slices."""
    return 2


@EAGER_ENTRY_POINTS.register("associative_scan")
def associative_scan_entry_points() -> Sequence[EntryPoint]:
    return (COMPILED_CALL, (_ASSOCIATIVE_SCAN, "generic_associative_scan"))
