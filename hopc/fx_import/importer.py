"""FX graphs at the ATen level -> hop-level IR, each HOP kind by the import rule it registers.

``GraphImporter`` fills one block from one FX graph: the entry function's from
the traced program, or a region's from a HOP's subgraph (recursively, so HOPs
nest to any depth). Each FX node becomes at most one op, located at the user's
line that produced it:

- custom operators (``torch.library``) -> ``custom`` ops, as ATen ones
  (Note [custom operators] in ``hopc.dialects.custom``);
- ``torch.ops.aten.*`` calls -> ``aten`` ops (``aten_import``), except the
  symbolic-shape ones: ``sym_size`` -> ``hop.sym_size``, ``item`` ->
  ``hop.item``, ``_assert_scalar`` -> ``hop.assert``;
- Python arithmetic and comparisons on ``SymInt``s and ``SymFloat``s ->
  ``hop.sym_*`` (``/``, ``math.sqrt``, ``float()`` and a float ``**`` make
  floats: ``hop.sym_truediv``, ``hop.sym_sqrt``, ``hop.sym_float``, ``hop.sym_pow``;
  ``math.floor``, ``math.ceil``, ``math.trunc`` and ``round`` make integers of them again:
  ``hop.sym_floor``, ``hop.sym_ceil``, ``hop.sym_trunc``, ``hop.sym_round``;
  unary ``-``, ``abs``, ``not``: ``hop.sym_neg``, ``hop.sym_abs``, ``hop.sym_not``;
  ``torch.sym_sum`` a chain of ``hop.sym_add``);
- ``record_function`` ranges -> ``profiler`` ops (``profiler_import``);
- each HOP -> its region op, by the rule its kind registers in ``HOP_IMPORTS``
  (``hopc.fx_import.capture_rules``; one module per kind in
  ``hopc.fx_import.hops``), the way torch-mlir's ``fx_importer`` has one
  ``_import_hop_*`` per HOP.

A HOP subgraph takes its operands as placeholders, in order, so a region's
block arguments are the HOP's operands. Values are keyed by FX node; a node
with several results (a HOP, a multi-result ATen op) maps to the list of them
and ``operator.getitem`` picks one.

Note [squeezes of unbacked sizes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
PyTorch's ``squeeze`` keeps a dimension whose size is unbacked (read from
data: ``x[:k.item()].squeeze(0)``) without asking whether it is 1, and
records no assertion: its result type keeps the dimension, where eager, at a
size of 1, removes it. Every op after it, and its derivative, is typed for
the kept dimension. Each such size is asserted not 1 (``hop.assert``), so a
call where it is 1 is a located error at run time, never a value of the
wrong shape.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Sequence
from io import StringIO

import torch
import torch.fx
import torch.utils._pytree as pytree
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer

from hopc.dialects import hop
from hopc.dialects.hop_rounding import SymCeilOp, SymFloorOp, SymRoundOp, SymTruncOp
from hopc.fx_import.aten_import import aten_result_types, build_aten_op
from hopc.fx_import.capture_rules import HOP_IMPORTS
from hopc.fx_import.errors import first_paragraph, unsupported
from hopc.fx_import.locations import location_attribute
from hopc.fx_import.profiler_import import profiler_op
from hopc.fx_import.shape_symbols import ShapeSymbols
from hopc.ir.substitution import parameters
from hopc.ir.types import SymFloatType, SymIntType

_aten = torch.ops.aten

SYMBOLIC_OPERATIONS: dict[object, type[Operation]] = {
    **{op.OPERATOR: op for op in hop.SYM_OPERATOR_OPS},
    torch.sym_max: hop.SymMaxOp, torch.sym_min: hop.SymMinOp, operator.pow: hop.SymPowOp,
    torch.sym_float: hop.SymFloatOp, torch._sym_sqrt: hop.SymSqrtOp, torch.sym_ite: hop.SymIteOp,
    operator.neg: hop.SymNegOp, operator.abs: hop.SymAbsOp, torch.sym_not: hop.SymNotOp,
    operator.not_: hop.SymNotOp, math.floor: SymFloorOp, math.ceil: SymCeilOp,
    math.trunc: SymTruncOp, round: SymRoundOp,
}
"""Python's operators on ``SymInt``s and ``SymFloat``s, as the trace records them, and their ops:
each binary op's ``OPERATOR``, then torch's spellings where the trace records another
(Note [one operator per sym op] in ``hopc.dialects.hop_sym_binary``)."""

_RANGE_ONLY = frozenset({_aten.sym_constrain_range.default,
                         _aten.sym_constrain_range_for_size.default})
"""Calls whose whole effect is a symbol's range, which its ``hop.symbol`` records."""

_SQUEEZES = frozenset({_aten.squeeze.default, _aten.squeeze.dim, _aten.squeeze.dims})
"""Each ``squeeze`` whose kept unbacked sizes are asserted not 1 (Note [squeezes of unbacked sizes])."""

_FORWARD_NEUTRAL = frozenset({torch._C._set_grad_enabled})
"""Calls that change no forward value (grad mode only matters to autograd)."""

_CONSTRUCT_NAMES = {
    torch.amp.autocast_mode._enter_autocast: "torch.autocast regions",
    torch.amp.autocast_mode._exit_autocast: "torch.autocast regions",
}
"""What the user wrote, for calls whose traced name does not say it."""


class ModuleImports:
    """What the import of one module shares across its graphs: symbols and subgraphs."""

    def __init__(self, symbols: ShapeSymbols):
        self.symbols = symbols
        self.subgraphs: list[hop.SubgraphOp] = []
        self._subgraph_names: dict[str, str] = {}
        self._imported_subgraphs: dict[tuple[torch.fx.GraphModule, tuple[Attribute, ...]], str] = {}

    def shared_subgraph(self, graph_module: torch.fx.GraphModule,
                        argument_types: Sequence[Attribute], import_body: Callable[[], Region]
                        ) -> str:
        """The symbol of the ``hop.subgraph`` of ``graph_module``, made on first use.

        A graph module is imported (by ``import_body``) once per argument
        types. Bodies are compared as printed IR with their parameters renamed
        in order (``_canonical_text``), so bodies equal up to a renaming of
        the symbols their arguments bind are one subgraph, which every call
        binds to its own sizes (Note [subgraph symbols] in ``hopc.dialects.hops.subgraph``).
        """
        key = (graph_module, tuple(argument_types))
        name = self._imported_subgraphs.get(key)
        if name is not None:
            return name
        body = import_body()
        text = _canonical_text(body)
        name = self._subgraph_names.get(text)
        if name is None:
            name = self._subgraph_names[text] = f"subgraph_{len(self.subgraphs)}"
            self.subgraphs.append(hop.SubgraphOp(properties={"sym_name": StringAttr(name)},
                                                 regions=[body]))
        self._imported_subgraphs[key] = name
        return name

    def subgraph(self, name: str) -> hop.SubgraphOp:
        """The ``hop.subgraph`` that ``shared_subgraph`` named ``name``."""
        return next(s for s in self.subgraphs if s.sym_name.data == name)


_PLACEHOLDER = "?"
"""Starts the canonical names of parameters: no symbol or SSA name contains it."""


def _canonical_text(body: Region) -> str:
    """The printed region, each parameter renamed ``?0``, ``?1``, ... in order of appearance.

    Parameters are the symbols the block arguments bind (``parameters``);
    other symbols, which mean the same in every call, keep their names.
    Renaming whole words of the text renames them in types and attributes,
    and in SSA names spelled after them, alike in both bodies compared.
    """
    stream = StringIO()
    Printer(stream=stream).print_region(body)
    names = parameters([a.type for a in body.block.args])
    if not names:
        return stream.getvalue()
    canonical = {name: f"{_PLACEHOLDER}{index}" for index, name in enumerate(names)}
    alternatives = "|".join(map(re.escape, names))
    word = re.compile(rf"(?<![A-Za-z0-9_])({alternatives})(?![A-Za-z0-9_])")
    return word.sub(lambda match: canonical[match[1]], stream.getvalue())


class GraphImporter:
    """Imports one FX graph into one block (see the module docstring)."""

    def __init__(self, imports: ModuleImports, graph_module: torch.fx.GraphModule, block: Block):
        self.imports = imports
        self.symbols = imports.symbols
        self.graph_module = graph_module
        self.block = block
        self.values: dict[torch.fx.Node, SSAValue | list[SSAValue]] = {}
        self.modules: dict[torch.fx.Node, torch.fx.GraphModule] = {}

    def import_graph(self) -> list[SSAValue]:
        """Imports every node; returns the values of the graph's outputs, flattened."""
        placeholders = self.graph_module.graph.find_nodes(op="placeholder")
        if len(placeholders) != len(self.block.args):
            raise AssertionError(f"{len(placeholders)} placeholders for "
                                 f"{len(self.block.args)} block arguments")
        self.values.update(zip(placeholders, self.block.args))
        for node in self.graph_module.graph.nodes:
            if node.op == "output":
                return [self.value(leaf, node) for leaf in pytree.tree_leaves(node.args[0])]
            if node.op != "placeholder":
                self._import_node(node)
        raise AssertionError("an FX graph without an output node")

    # ----------------------------------------------------------------- values

    def value(self, argument: object, user: torch.fx.Node) -> SSAValue:
        """The SSA value of an FX argument; a Python int becomes a ``hop.sym_constant``."""
        if isinstance(argument, torch.fx.Node):
            value = self.values[argument]
            if isinstance(value, list):
                raise unsupported(user, f"using the tuple result of {argument.name} as one value")
            return value
        if isinstance(argument, int | float) and not isinstance(argument, bool):
            constant_type = self.symbols.type_of(argument)
            return self._add(hop.SymConstantOp(result_types=[constant_type]), user).result
        raise unsupported(user, f"a {type(argument).__name__} constant where a value is needed")

    def values_of(self, arguments: object, user: torch.fx.Node) -> list[SSAValue]:
        return [self.value(a, user) for a in pytree.tree_leaves(arguments)]

    def result_types(self, node: torch.fx.Node) -> list[Attribute]:
        try:
            return [self.symbols.type_of(v) for v in pytree.tree_leaves(node.meta["val"])]
        except (TypeError, ValueError) as error:
            raise unsupported(node, f"a result of {node.name}: {error}") from None

    def region(self, graph: torch.fx.Node, argument_types: Sequence[Attribute],
               user: torch.fx.Node) -> Region:
        """A region holding the subgraph ``graph`` names, with these block argument types,
        imported by an importer of this class."""
        module = self.modules.get(graph)
        if module is None:
            raise unsupported(user, f"{user.target.name()} with a body that is not a traced graph")
        block = Block(arg_types=argument_types)
        results = type(self)(self.imports, module, block).import_graph()
        block.add_op(hop.YieldOp(*results))
        return Region(block)

    def _add(self, op: Operation, node: torch.fx.Node) -> Operation:
        op.location = location_attribute(node)
        self.block.add_op(op)
        return op

    def define(self, node: torch.fx.Node, op: Operation, several: bool = False) -> None:
        """Adds ``op`` for ``node``; ``node`` stands for its one result or all of them."""
        self._add(op, node)
        if several or len(op.results) != 1:
            self.values[node] = list(op.results)
        else:
            op.results[0].name_hint = node.name
            self.values[node] = op.results[0]

    # ----------------------------------------------------------------- dispatch

    def _import_node(self, node: torch.fx.Node) -> None:
        if node.op == "get_attr":
            self._import_attribute(node)
            return
        if node.op != "call_function":
            raise unsupported(node, f"an FX '{node.op}' node ({node.target})")
        target = node.target
        if isinstance(target, torch._ops.HigherOrderOperator):
            import_hop = HOP_IMPORTS.get(target.name())
            if import_hop is None:
                raise unsupported(node, f"the higher-order op {target.name()}")
            import_hop(self, node)
        elif isinstance(target, torch._ops.OpOverload):
            self._import_overload(node, target)
        elif target is operator.getitem:
            self._import_getitem(node)
        elif target in SYMBOLIC_OPERATIONS:
            self._import_symbolic(node, SYMBOLIC_OPERATIONS[target])
        elif target is torch.sym_sum:
            self._import_sym_sum(node)
        elif target not in _FORWARD_NEUTRAL:
            construct = _CONSTRUCT_NAMES.get(target) or \
                f"the call {getattr(target, '__name__', target)}"
            raise unsupported(node, construct)

    def _import_attribute(self, node: torch.fx.Node) -> None:
        """A HOP's subgraph; tensors are operands by now (Note [hoisted constants])."""
        attribute = getattr(self.graph_module, node.target)
        assert isinstance(attribute, torch.fx.GraphModule), f"tensor attribute {node.target}"
        self.modules[node] = attribute

    def _import_getitem(self, node: torch.fx.Node) -> None:
        source, index = node.args
        results = self.values[source]
        if not isinstance(results, list):
            raise unsupported(node, f"indexing the single value {source.name}")
        result = results[index]
        if result.name_hint is None:
            result.name_hint = node.name
        self.values[node] = result

    def _import_overload(self, node: torch.fx.Node, overload: torch._ops.OpOverload) -> None:
        if (op := profiler_op(node, lambda argument: self.value(argument, node))) is not None:
            self.define(node, op)
        elif overload.namespace != "aten":
            self._import_custom(node, overload)
        elif overload is _aten.sym_size.int:
            tensor, dim = node.args
            self.define(node, hop.SymSizeOp(self.value(tensor, node), dim))
        elif overload in (_aten.item.default, _aten._local_scalar_dense.default):
            self._import_item(node)
        elif overload is _aten._assert_scalar.default:
            condition = self.value(node.args[0], node)
            message = f"Runtime assertion failed for expression {condition.type.value}"
            self._add(hop.AssertOp(operands=[condition],
                                   properties={"message": StringAttr(message)}), node)
        elif overload not in _RANGE_ONLY:
            self._import_aten(node, overload)
            if overload in _SQUEEZES:
                self._assert_kept_sizes_are_not_one(node)

    def _import_aten(self, node: torch.fx.Node, overload: torch._ops.OpOverload) -> None:
        try:
            result_types = aten_result_types(overload, node.meta.get("val"), self.symbols)
            op = build_aten_op(overload, node.args, node.kwargs,
                               lambda argument: self.value(argument, node),
                               self.symbols, result_types)
        except (TypeError, ValueError) as error:
            raise unsupported(node, f"{overload}: {first_paragraph(error)}") from None
        returns_list = any(isinstance(r.type, torch.ListType) for r in overload._schema.returns)
        self.define(node, op, several=returns_list)

    def _assert_kept_sizes_are_not_one(self, node: torch.fx.Node) -> None:
        """``hop.assert`` that each size ``squeeze`` kept because it is unbacked is not 1
        (Note [squeezes of unbacked sizes])."""
        tensor = node.args[0]
        sizes = tensor.meta["val"].shape
        dims = node.args[1] if len(node.args) > 1 else range(len(sizes))
        for dim in [dims] if isinstance(dims, int) else dims:
            size = sizes[dim]
            if isinstance(size, torch.SymInt) and free_unbacked_symbols(size):
                size_value = self._add(hop.SymSizeOp(self.value(tensor, node), dim % len(sizes)), node)
                one = self.value(1, node)
                not_one = self._add(hop.SymNeOp(size_value.result, one), node).result
                message = f"squeeze kept a size it assumed is not 1: {not_one.type.value}"
                self._add(hop.AssertOp(operands=[not_one], properties={"message": StringAttr(message)}),
                          node)

    def _import_custom(self, node: torch.fx.Node, overload: torch._ops.OpOverload) -> None:
        """A custom operator as the ``custom`` op of its schema (Note [custom operators]
        in ``hopc.dialects.custom``); only a functional one."""
        schema = overload._schema
        if schema.is_mutable or any(r.alias_info is not None for r in schema.returns):
            raise unsupported(node, f"the custom operator {schema.name}, whose schema mutates or "
                              f"aliases an argument ({schema}): hopc imports functional custom "
                              "operators")
        self._import_aten(node, overload)

    def _import_item(self, node: torch.fx.Node) -> None:
        if "val" not in node.meta and not node.users:
            # A read that PyTorch specialized to a constant (Dynamo guards the
            # input's value): the trace used the constant, the read is dead.
            return
        value = node.meta["val"]
        symbol = self.symbols.fresh_symbol(value)
        if symbol is None:
            raise unsupported(node, ".item() of a value that is not a fresh symbolic number")
        result_type = SymFloatType(symbol) if isinstance(value, torch.SymFloat) else SymIntType(symbol)
        read = hop.ItemOp(operands=[self.value(node.args[0], node)], result_types=[result_type])
        if not isinstance(value, torch.SymBool):
            self.define(node, read)
            return
        # PyTorch's boolean read is Eq(u0, 1) over the integer it reads (``hop.item``).
        read.result.name_hint = symbol
        self._add(read, node)
        one = self._add(hop.SymConstantOp(result_types=[SymIntType(1)]), node).result
        self.define(node, hop.SymEqOp(read.result, one))

    def _import_symbolic(self, node: torch.fx.Node, op_class: type[Operation]) -> None:
        arguments = node.args
        if op_class is SymRoundOp and len(arguments) == 2:  # ``round(f, None)``, as traced
            if arguments[1] is not None:
                raise unsupported(node, "round with digits (a float)")
            arguments = arguments[:1]
        operands = [self.value(a, node) for a in arguments]
        numbers = operands[1:] if op_class is hop.SymIteOp else operands  # ITE(condition, a, b)
        kinds = getattr(op_class, "KINDS", (SymIntType, SymFloatType))  # the op's own operand kinds
        for operand in numbers:
            if not isinstance(operand.type, kinds):
                raise unsupported(node, f"{node.target.__name__} on {operand.type}")
        if op_class is hop.SymPowOp and not isinstance(node.meta.get("val"), torch.SymFloat):
            self._import_integer_power(node, operands[0])
            return
        self.define(node, op_class(*operands))

    def _import_sym_sum(self, node: torch.fx.Node) -> None:
        """``torch.sym_sum([a, b, c])``: ``(a + b) + c``, as ``hop.sym_add``s (0 if empty)."""
        (terms,) = node.args
        total = self.value(0, node) if not terms else self.value(terms[0], node)
        for term in terms[1:]:
            operand = self.value(term, node)
            for value in (total, operand):
                if not isinstance(value.type, SymIntType | SymFloatType):
                    raise unsupported(node, f"sym_sum of {value.type}")
            total = self._add(hop.SymAddOp(total, operand), node).result
        total.name_hint = node.name
        self.values[node] = total

    def _import_integer_power(self, node: torch.fx.Node, base: SSAValue) -> None:
        """``n ** k`` of a symbolic integer by a literal ``k >= 1``: ``k - 1`` products."""
        exponent = node.args[1]
        if isinstance(exponent, bool) or not isinstance(exponent, int) or exponent < 1:
            raise unsupported(node, "** of a symbolic integer by anything but a positive literal")
        power = base
        for _ in range(exponent - 1):
            product = hop.SymMulOp(power, base)
            self._add(product, node)
            power = product.result
            power.name_hint = node.name
        self.values[node] = power
