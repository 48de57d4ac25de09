"""A derivative's traced joint graph made what hopc imports: functional, of plain tensors.

The joint of an op that ``hopc.passes.autograd.derivatives`` traces holds
PyTorch's derivative formula as PyTorch writes it: with views, rarely an
in-place op, and ZeroTensors. These rewrites of the traced graph (and the
choice of the op whose joint is traced) make it hold what the functional
level holds.

Note [functional derivatives]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
PyTorch's derivative formulas use views (``t``, ``expand``, ``unsqueeze``)
and, rarely, in-place ops (``std``'s ``masked_fill_``). A graph without
in-place ops becomes functional by making each view its ``_copy`` variant,
as functionalization would; only a graph with one is retraced under
``torch.func.functionalize``, which costs a second trace.

Note [materialized zeros]
~~~~~~~~~~~~~~~~~~~~~~~~~
Some formulas give a zero gradient as ``_efficientzerotensor`` (``sgn``'s,
the second derivative of ``abs``): a ZeroTensor, which no op may write.
hopc's values are plain tensors whose memory a compiled executor reuses
(an ``mm`` writing into a dead gradient's buffer), so the trace makes each
one an ``aten.zeros`` of the same size and dtype.

Note [complex view copies]
~~~~~~~~~~~~~~~~~~~~~~~~~~
PyTorch differentiates no ``_copy`` variant of a view whose output is
complex (``view_as_complex_copy``: "does not support automatic
differentiation for outputs with complex dtype"), though the view has a
formula and the copy computes the same values. The joint of such an op is
traced with its view, which the traced graph then holds as the copy again
(Note [functional derivatives]).

Note [data-dependent view copies]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The meta kernel of a view's ``_copy`` variant is PyTorch's decomposition of
the view, which branches on sizes in Python: ``slice_copy`` at an unbacked
end asks whether the end is past the size, which no fact decides. The
view's own fake implementation asks only what it can decide
(``guard_or_false``) and otherwise gives the result a fresh size, as
Dynamo's trace of the forward did. So a derivative traced with unbacked
symbols (Note [data-dependent derivatives] in
``hopc.passes.autograd.derivative_facts``) traces the view of a ``_copy``; the
traced graph holds the copy again (Note [functional derivatives]).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.fx

from hopc.dialects.aten_schema import Schema, lookup, view_copy_variant, view_of_copy_variant
from hopc.fx_import.aten_import import aten_op_name
from hopc.ir.types import TensorType
from hopc.torch_bridge.aten_call import overload_of
from hopc.torch_bridge.torch_values import dtype_of


def differentiated_schema(schema: Schema, result_types: Sequence[object], data_dependent: bool = False) -> Schema:
    """The op whose joint is traced for ``schema``: itself, but the view for the ``_copy``
    of a view with a complex result (Note [complex view copies]) or in a ``data_dependent``
    trace (Note [data-dependent view copies])."""
    if not data_dependent and not any(isinstance(t, TensorType) and dtype_of(t.element_type).is_complex
                                      for t in result_types):
        return schema
    return view_of_copy_variant(schema) or schema


def materialize_zero_tensors(graph: torch.fx.GraphModule) -> None:
    """Makes every ``_efficientzerotensor`` of ``graph`` a ``zeros`` (Note [materialized zeros])."""
    for node in graph.graph.find_nodes(op="call_function", target=torch.ops.aten._efficientzerotensor.default):
        node.target = torch.ops.aten.zeros.default
    graph.recompile()


def views_to_copies(graph: torch.fx.GraphModule) -> bool:
    """Makes every view in ``graph`` its ``_copy`` variant, if it has no in-place op; whether it did.

    The fast path of functionalization (Note [functional derivatives]): a graph
    that changes nothing in place is functional once its views are copies.
    """
    copies = {}
    for overload in {n.target for n in graph.graph.nodes if isinstance(n.target, torch._ops.OpOverload)}:
        schema = lookup(aten_op_name(overload))
        if schema is None or schema.is_mutating:
            return False
        if schema.is_view:
            copy = view_copy_variant(schema)
            if copy is None:
                return False
            copies[overload] = overload_of(copy)
    for node in graph.graph.nodes:
        if node.target in copies:
            node.target = copies[node.target]
    return True
