"""The backward rule of every ATen op: PyTorch's derivative, imported into the joint.

(``decompose`` imports an op's traced forward alone the same way: freeze
uses it to prepare weight layouts, Note [prepared layouts].)

The traced joint of the op (``hopc.passes.autograd.derivatives``) is imported
with the frontend's ``GraphImporter``: nodes that do not depend on a tangent
go before the op and replace it, nodes that do are appended as backward ops
(Note [joint of an op] in ``hopc.passes.autograd.joint``). Sizes in the graph
are our symbols (``ShapeSymbols`` over the trace's names); the nodes that only
compute sizes (``sym_size``, arithmetic on them) are not imported, since the
ops that use them take the sizes as attributes.

Note [sizes of tangents]
~~~~~~~~~~~~~~~~~~~~~~~~
With symbolic sizes ``make_fx`` reads a size from whichever input has it: the
forward ``view(x, [B, S, 192])`` of a joint can read ``B`` and ``S`` from the
tangent (``sym_size(tangent, 0)``), which has the output's shape. Taken as a
dependence on the tangent, that would put the forward view among the backward
ops, after the forward ops that read it. A size is the same whichever tensor
it is read from, and the IR names it by its symbol, not by the read; so a size
read (``sym_size``, ``sym_numel``, ``sym_stride``) depends on no tangent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import sympy
import torch
import torch.fx
import torch.utils._pytree as pytree
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue

from hopc.dialects.aten import AtenOp
from hopc.fx_import.importer import GraphImporter, ModuleImports
from hopc.fx_import.shape_symbols import ShapeSymbols
from hopc.ir.diagnostics import HopcError, op_error
from hopc.passes.autograd.derivatives import OpDerivative, op_derivative
from hopc.passes.autograd.joint import JointBuilder, is_differentiable
from hopc.passes.autograd.symbols import fresh_symbol

_IDENTITIES = frozenset({torch.ops.aten.detach_copy.default, torch.ops.aten.alias_copy.default,
                         torch.ops.aten.lift_fresh_copy.default})
"""Ops that return their operand's value at the functional level."""


_TRACE_DEVICE = StringAttr("cpu")


Insert = Callable[[Operation, torch.fx.Node], Operation]
"""Places one imported op (made for the given node) in the IR, and returns it."""


class TracedOpImporter(GraphImporter):
    """Imports the trace of one op (its derivative, or its forward) around the op it was traced for."""

    def __init__(self, imports: ModuleImports, graph: torch.fx.GraphModule, op: Operation, insert: Insert):
        parent = op.parent_block()
        assert parent is not None
        super().__init__(imports, graph, parent)
        self.op = op
        self.insert = insert

    def import_values(self, inputs: Sequence[SSAValue]) -> object:
        """Imports every node with the first placeholders bound to ``inputs``; the output, as values.

        The placeholders after them carry sizes only (Note [size carriers]) and stay unbound.
        """
        placeholders = self.graph_module.graph.find_nodes(op="placeholder")
        self.values.update(zip(placeholders, inputs))
        for node in self.graph_module.graph.nodes:
            if node.op == "call_function":
                self._import_node(node)
        output = self.graph_module.graph.output_node().args[0]
        return pytree.tree_map(lambda n: self.values[n] if isinstance(n, torch.fx.Node) else None,
                               output)

    def _import_node(self, node: torch.fx.Node) -> None:
        if isinstance(node.meta.get("val"), torch.SymInt | torch.SymFloat | torch.SymBool):
            return  # a size: its users take it as an attribute
        if node.target in _IDENTITIES:
            self.values[node] = self.value(node.args[0], node)
            return
        super()._import_node(node)

    def _add(self, op: Operation, node: torch.fx.Node) -> Operation:
        if isinstance(op, AtenOp) and op.operands and op.properties.get("device") == _TRACE_DEVICE:
            # The trace ran on CPU fakes (Note [trace device]); an op with a
            # tensor operand then takes that tensor's device, as in eager.
            del op.properties["device"]
        return self.insert(op, node)


_SIZE_READS = frozenset({torch.ops.aten.sym_size.int, torch.ops.aten.sym_numel.default,
                         torch.ops.aten.sym_stride.int, torch.ops.aten.sym_storage_offset.default})
"""Reads of a tensor's metadata, never of its data (Note [sizes of tangents])."""


def _depending_on(graph: torch.fx.GraphModule, sources: frozenset[torch.fx.Node]) -> set[torch.fx.Node]:
    """The nodes of ``graph`` that depend on the values of ``sources``; a size read from one
    does not (Note [sizes of tangents])."""
    depending = set(sources)
    for node in graph.graph.nodes:
        if node.target not in _SIZE_READS and any(i in depending for i in node.all_input_nodes):
            depending.add(node)
    return depending


class _Names(dict):
    """Torch symbol -> our name; a size the trace creates (``index`` by a mask in a backward)
    gets a fresh unbacked symbol of the module, declared at first use."""

    def __init__(self, known: Mapping[sympy.Symbol, str], module: ModuleOp | None, op: Operation):
        super().__init__(known)
        self.module, self.op = module, op

    def __contains__(self, symbol: object) -> bool:
        return isinstance(symbol, sympy.Symbol)

    def __missing__(self, symbol: sympy.Symbol) -> str:
        if self.module is None:
            raise op_error(self.op, f"autograd: the trace of {self.op.name} creates a size, and "
                                    "there is no module to declare it in")
        self[symbol] = name = fresh_symbol(self.module)
        return name


def _symbols(derivative: OpDerivative, back: Mapping[str, str], module: ModuleOp | None,
             op: Operation) -> ShapeSymbols:
    """Sizes of the trace's graph as our expressions, in the op's symbols; a size the trace
    learned equals another is that other, as the op's block asserted before the trace runs."""
    known = {symbol: back.get(name, name) for symbol, name in derivative.torch_names.items()}
    return ShapeSymbols(derivative.shape_env, _Names(known, module, op), defined_as_traced=False)


def decompose(op: AtenOp, module: ModuleOp | None) -> None:
    """Replaces ``op`` by the ATen ops PyTorch runs for it (a CompositeImplicitAutograd op's
    decomposition, views as copies), traced as for its derivative with nothing differentiated;
    ``module`` declares any size the decomposition creates."""
    forward, back = op_derivative(op, [], [])
    importer = TracedOpImporter(ModuleImports(_symbols(forward, back, module, op)), forward.graph, op,
                                lambda new, _: _inserted_before(new, op))
    outputs, _ = importer.import_values(list(op.operands))
    for result, value in zip(op.results, outputs, strict=True):
        result.replace_all_uses_with(value)
    op.detach()
    op.erase()


def _inserted_before(new: Operation, op: Operation) -> Operation:
    new.location = op.location
    parent = op.parent_block()
    assert parent is not None
    parent.insert_op_before(new, op)
    return new


def aten_backward(joint: JointBuilder, op: AtenOp, cotangents: list[SSAValue | None]
                  ) -> list[SSAValue | None]:
    """Gradients of ``op``'s operands from PyTorch's derivative (see the module docstring)."""
    gradients: list[SSAValue | None] = [None] * len(op.operands)
    with_tangent = [i for i, c in enumerate(cotangents) if c is not None and is_differentiable(op.results[i])]
    if not with_tangent or not any(joint.is_active(v) for v in op.operands):
        return gradients
    # Every differentiable operand, active or not: a fused backward (layer norm's)
    # then computes all its outputs, never an undefined one the IR cannot
    # type; the gradients of inactive operands are dropped (``accumulate``).
    differentiated = [i for i, v in enumerate(op.operands) if is_differentiable(v)]
    derivative, back = op_derivative(op, differentiated, with_tangent)
    placeholders = derivative.graph.graph.find_nodes(op="placeholder")
    tangents = frozenset(placeholders[len(op.operands):len(placeholders) - derivative.carrier_count])
    backward = _depending_on(derivative.graph, tangents)
    importer = TracedOpImporter(ModuleImports(_symbols(derivative, back, joint.module, op)), derivative.graph, op,
                                lambda new, node: joint.emit(new) if node in backward
                                else joint.insert_forward(new, op))
    try:
        outputs, traced_gradients = importer.import_values(
            [*op.operands, *(cotangents[i] for i in with_tangent)])
    except HopcError as error:  # the trace's nodes have no line: locate it at the op
        raise op_error(op, f"autograd: the derivative of {op.name}: {error.message}") from None
    joint.replace_forward(op, outputs)
    for index, gradient in zip(derivative.differentiated, traced_gradients, strict=True):
        gradients[index] = gradient
    return gradients
