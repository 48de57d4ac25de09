"""Names of the sizes a region op's body defines, at each call: Note [call result symbols].

- ``defined_symbols(block)``: the symbols a body defines (not its arguments);
- ``fresh_result_symbols(op, body, yielded_types)``: how the results of an op
  that runs ``body`` name them, checked (the verifiers of ``hop.invoke_subgraph``,
  ``hop.wrap`` and ``hop.checkpoint`` in ``hopc.dialects.hop``).

Note [call result symbols]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A size that a body defines (``nonzero``'s ``u8``, ``hop.item``'s ``u0``) is
fresh at each run of the body: two calls of one ``hop.subgraph`` (two calls
of a ``nested_compile_region``, a checkpoint's forward and its recompute)
may give two sizes. So where a body yields such a symbol as a whole
dimension (or as a ``!hop.symint``), the result of the op that runs it
(``hop.invoke_subgraph``, ``hop.wrap``, ``hop.checkpoint``) names it by a
symbol of its own, which no operand mentions, as Dynamo gives each
``invoke_subgraph`` call's outputs new unbacked symbols:

    hop.subgraph @f { ... %i = aten.nonzero(%a) : ... -> !hop.tensor<[u8, 1], i64>
                      hop.yield %i : !hop.tensor<[u8, 1], i64> }
    %p = hop.invoke_subgraph @f(%x) : (...) -> !hop.tensor<[u9, 1], i64>    // u8 -> u9
    %q = hop.invoke_subgraph @f(%y) : (...) -> !hop.tensor<[u10, 1], i64>   // u8 -> u10

The op verifies when this renaming is one to one and the same in every
result, and each result type is the yielded type under it (under the call's
substitution of the parameters too, Note [subgraph symbols] in
``hopc.dialects.hops.subgraph``). The new symbol
is defined by the op's result (Note [where a symbol is bound] in
``lift_symbols_analysis``): the executors bind it from the result's size, as
any unbacked size (Note [interpreter symbol scopes] in
``hopc.backend.interpreter``). A result may keep the body's own name where no
operand mentions it; a producer of calls gives each call its own symbols
(``hopc.passes.autograd.hops.outlining.call``). This is Note [cond result
symbols] in ``hopc.dialects.hop`` for ops with one body.

A size the body defines that its results have only inside an expression
(``torch.cat([y, y, y, y])`` of a mask-picked ``y``: ``[4*u8]``) has no
result to bind a name of the call's own from, so a call may not rename it:
the verifier names it and asks for a result with it as a whole dimension
(returning ``y`` as well names ``u8``, and ``[4*u8]`` follows it).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Block, Operation
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import describe
from hopc.ir.dims import Dim, dim_symbols
from hopc.ir.substitution import InconsistentBinding, bind, parameters
from hopc.ir.symbol_uses import symbols_of_attribute
from hopc.ir.types import TensorType, free_symbols_of_types


def defined_symbols(block: Block) -> set[str]:
    """The symbols ``block`` defines: those first mentioned as a whole dimension, or the
    ``!hop.symint``/``!hop.symfloat``, of a result of an op directly in it (an unbacked size such
    as ``nonzero``'s or ``hop.item``'s; Note [where a symbol is bound] in
    ``hopc.passes.lift_symbols_analysis``), not by its arguments' types."""
    mentioned = set(free_symbols_of_types([a.type for a in block.args]))
    defined: set[str] = set()
    for op in block.ops:
        for attribute in (*op.properties.values(), *op.attributes.values()):
            mentioned.update(symbols_of_attribute(attribute))
        for result in op.results:
            defined.update(name for name in parameters([result.type]) if name not in mentioned)
            mentioned.update(symbols_of_attribute(result.type))
    return defined


def fresh_result_symbols(op: Operation, body: Block, yielded_types: Sequence[Attribute]) -> dict[str, Dim]:
    """Each symbol ``body`` defines -> the symbol ``op``'s results name it by (Note [call result
    symbols]): one symbol no operand mentions per defined symbol, the same in every result.

    Raises a VerifyException naming the result that gives a defined symbol another dimension.
    """
    defined = defined_symbols(body)
    mentioned = free_symbols_of_types([v.type for v in op.operands])
    renaming: dict[str, Dim] = {}
    for index, (yielded, result) in enumerate(zip(yielded_types, op.results)):
        try:
            binding = bind([yielded], [result.type])
        except InconsistentBinding:
            continue  # the comparison of the types reports it
        for symbol, dim in binding.items():
            if symbol not in defined:
                continue
            where = f"'{op.name}' result #{index} {describe(result)} of type {result.type}"
            if not (isinstance(dim, str) and dim.isidentifier()) or dim in mentioned:
                raise VerifyException(
                    f"{where} has {dim} for {symbol}, a size the body defines, fresh at each call: "
                    "expected a symbol that no operand mentions")
            if renaming.setdefault(symbol, dim) != dim:
                raise VerifyException(f"{where} has {dim} for {symbol}, which an earlier result "
                                      f"names {renaming[symbol]}")
            twin = next((other for other, name in renaming.items() if name == dim and other != symbol), None)
            if twin is not None:
                raise VerifyException(f"{where} has {dim} for both {twin} and {symbol}, two sizes "
                                      "the body defines")
    _check_named(op, defined - renaming.keys(), yielded_types)
    return renaming


def _check_named(op: Operation, unnamed: set[str], yielded_types: Sequence[Attribute]) -> None:
    """Raises where a result renames a size the body defines that no result has as a whole
    dimension (``[4*u1]`` yielded, ``[4*u2]`` at the call): the call's symbol would be bound
    by nothing, so only the body's own expression is accepted there (Note [call result symbols])."""
    for index, (yielded, result) in enumerate(zip(yielded_types, op.results)):
        if not isinstance(yielded, TensorType) or not isinstance(result.type, TensorType) \
                or yielded.rank != result.type.rank:
            continue  # the comparison of the types reports it
        for dim, got in zip(yielded.shape, result.type.shape, strict=True):
            inside = sorted(dim_symbols(dim) & unnamed)
            if inside and got != dim:
                raise VerifyException(
                    f"'{op.name}' result #{index} {describe(result)} of type {result.type} has {got} for "
                    f"{dim}: {', '.join(inside)}, a size the body defines, fresh at each call, is a whole "
                    "dimension of no result, so the call cannot name it; return (and use) a tensor of "
                    "the body that has it as a whole dimension too")
