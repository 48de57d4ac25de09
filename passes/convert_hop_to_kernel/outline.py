"""A fusion group outlined: its ops moved into a ``kernel.kernel``, a ``kernel.launch`` in their place.

The kernel takes the group's operands from outside (tensors, in first-use
order) and then one ``!hop.symint`` per shape symbol of its inputs' types and
attributes, in sorted order, which the launch passes as SSA values in scope there
(``symint_if_bound`` of the block's ``SymbolScope``, taken before the group's
first op, so never from a value of the group): the grid and every size of a
dynamic dimension come from them, so one kernel serves every size. It yields
each value of the group that is read outside it. Kernels with the same body
are one symbol (``KernelTable``).
"""

from __future__ import annotations

import re

from xdsl.builder import Builder
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from hopc.dialects.aten import AtenOp
from hopc.dialects.kernel import KernelOp, LaunchOp, YieldOp
from hopc.dialects.symbol_scope import SymbolScope
from hopc.ir.dims import dim_symbols, is_float_symbol_name
from hopc.ir.types import ExprAttr, SymFloatType, TensorType
from hopc.passes.convert_hop_to_kernel.fusion import FusionGroup

_NAME_PIECE = re.compile(r"[^A-Za-z0-9]+")


class KernelTable:
    """The module's kernels, one symbol per distinct body, inserted before its first function."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.by_body: dict[str, KernelOp] = {}
        self.names: set[str] = {op.sym_name.data for op in module.ops if isinstance(op, KernelOp)}
        self.unchecked_index: dict[str, int] = {}
        """Per name base, the first index ``_fresh_name`` has not yet found taken."""
        self.first_function: Operation | None = None
        """Where new kernels go: the first module op that is no declaration, found once."""

    def kernel_for(self, kind: str, body: Region, ops: list[Operation]) -> KernelOp:
        """The kernel with this body: an existing one with the same text, or a new one."""
        candidate = KernelOp("kernel", kind, body)
        key = f"{kind} {_body_text(candidate)}"
        existing = self.by_body.get(key)
        if existing is not None:
            return existing
        candidate.properties["sym_name"] = StringAttr(self._fresh_name(kind, ops))
        self.by_body[key] = candidate
        if self.first_function is None:
            self.first_function = next(op for op in self.module.ops if not _is_declaration(op))
        self.module.body.block.insert_op_before(candidate, self.first_function)
        return candidate

    def _fresh_name(self, kind: str, ops: list[Operation]) -> str:
        """``<kind>_<op names>``, then ``_1``, ``_2``, ... for the first that no kernel has: made
        only of identifier characters of ATen op names. Names are only ever taken, so the
        search for a base goes on where it last stopped."""
        stems = [_NAME_PIECE.sub("_", op.name.removeprefix("aten.")).strip("_") for op in ops[:3]]
        base = "_".join([kind, *stems]) + ("_etc" if len(ops) > 3 else "")
        index = self.unchecked_index.get(base, 0)
        name = f"{base}_{index}" if index else base
        while name in self.names:
            index += 1
            name = f"{base}_{index}"
        self.names.add(name)
        self.unchecked_index[base] = index + 1
        return name


def outline(group: FusionGroup, table: KernelTable, scope: SymbolScope, builder: Builder) -> LaunchOp | None:
    """Replaces ``group``'s ops by a launch of its kernel, placed where its last op was; a
    generated group whose values nothing reads is dead (its ops are pure) and erased: None.
    ``scope`` is the ``SymbolScope`` of the group's block, told of the launch."""
    members = group.members
    inputs = _inputs(group.ops, members)
    outputs = [r for op in group.ops for r in op.results if any(u.operation not in members for u in r.uses)]
    if not outputs and group.kind != "extern":
        _erase(group.ops)
        return None
    first, last = group.ops[0], group.ops[-1]
    sizes = _sizes_in_scope(sorted(_size_symbols(group.ops, inputs)), first, scope, builder)
    block = Block(arg_types=[v.type for v in inputs] + [size.type for size in sizes])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for op in group.ops:
        block.add_op(op.clone(value_mapper=mapping))
    block.add_op(YieldOp(*(mapping[v] for v in outputs)))
    kernel = table.kernel_for(group.kind, Region(block), group.ops)
    launch = LaunchOp(kernel.sym_name.data, [*inputs, *sizes], [v.type for v in outputs])
    launch.location = last.location
    builder.insert(launch, InsertPoint.before(last))
    scope.inserted(launch, last)
    for value, result in zip(outputs, launch.outputs):
        result.name_hint = value.name_hint
        value.replace_all_uses_with(result)
    _erase(group.ops)
    return launch


def _erase(ops: list[Operation]) -> None:
    for op in reversed(ops):
        op.detach()
        op.erase()


def _inputs(ops: list[Operation], members: set[Operation]) -> list[SSAValue]:
    """The values the ops read from outside the group, in first-use order."""
    seen: dict[SSAValue, None] = {}
    for op in ops:
        for value in op.operands:
            if not (isinstance(value.owner, Operation) and value.owner in members):
                seen.setdefault(value)
    return list(seen)


def _size_symbols(ops: list[Operation], inputs: list[SSAValue]) -> set[str]:
    """The shape symbols the kernel may take as sizes: those of its inputs' types (its grid
    and its body's sizes) and of its symbolic attributes (``#hop.expr``). A size a result
    introduces (``nonzero``'s) is bound by the launch itself."""
    found: set[str] = set()
    for value in inputs:
        if isinstance(value.type, TensorType):
            found |= value.type.free_symbols()
    for op in ops:
        if isinstance(op, AtenOp):
            for attribute in op.properties.values():
                found |= _attribute_symbols(attribute)
    return found


def _sizes_in_scope(symbols: list[str], first: Operation, scope: SymbolScope,
                    builder: Builder) -> list[SSAValue]:
    """The ``!hop.symint`` (``!hop.symfloat`` for a float symbol, from a float ``.item()``)
    of each symbol that a value in scope before ``first`` binds, or a ``hop.sym_size`` of a
    tensor there makes. A symbol with neither stays free in the kernel, read by name where
    the launch runs, as the reference interpreter reads it: an unbacked size only inside a
    compound dimension (``[u0 + 1]``: the kernel's tensors give its sizes), or any symbol of
    a module that is not symbol-closed (``lift-symbols`` not run)."""
    sizes = []
    for symbol in symbols:
        if is_float_symbol_name(symbol):
            found = scope.nearest(SymFloatType(symbol), first)
        else:
            found = scope.symint_if_bound(symbol, first, builder)
        if found is not None:
            sizes.append(found)
    return sizes


def _attribute_symbols(attribute: object) -> set[str]:
    if isinstance(attribute, ExprAttr):
        return set(dim_symbols(attribute.value))
    nested = getattr(attribute, "data", None)
    if isinstance(nested, tuple):
        return set().union(*(_attribute_symbols(a) for a in nested)) if nested else set()
    return set()


def _body_text(kernel: KernelOp) -> str:
    """The body's text with SSA names left out, so that bodies equal up to names compare equal."""
    anonymous = kernel.clone()
    for op in anonymous.walk():
        for result in op.results:
            result.name_hint = None
    for argument in anonymous.body.block.args:
        argument.name_hint = None
    anonymous.properties["sym_name"] = StringAttr("kernel")
    return str(anonymous)


def _is_declaration(op: Operation) -> bool:
    """Module-level ops kernels come after: symbols, globals, entries, other kernels."""
    return not op.regions or isinstance(op, KernelOp)
