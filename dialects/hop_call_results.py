"""Names of the sizes a region op's body defines, at each call: Note [call result symbols].

- ``defined_symbols(block)``: the symbols a body defines (not its arguments), and
  ``defining_results(block)``: the result that defines each;
- ``sizes_only_inside_expressions(block, yielded_types)``: those a body yields only inside
  expressions, and ``call_names(yielded_types, result_types, sizes)``: the one symbol
  a call's result types name each of them by (Note [call result symbols]);
- ``fresh_result_symbols(op, body, yielded_types)``: how the results of an op
  that runs ``body`` name them, checked (the verifiers of ``hop.invoke_subgraph``,
  ``hop.wrap`` and ``hop.checkpoint`` in ``hopc.dialects.hop``).

Note [call result symbols]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A size that a body defines (``nonzero``'s ``u8``, ``hop.item``'s ``u0``) is
fresh at each run of the body: two calls of one ``hop.subgraph`` (two calls
of a ``nested_compile_region``) may give two sizes. So where a body yields
such a symbol as a whole dimension (or as a ``!hop.symint``), the result of
the op that runs it (``hop.invoke_subgraph``, ``hop.wrap``,
``hop.checkpoint``) names it by a symbol of its own, which no operand
mentions, as Dynamo gives each call's outputs new unbacked symbols:

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
result to bind a name of the call's own from, so a call may not rename it
unless a result has it as a whole dimension or as a ``!hop.symint``: the
verifier names it otherwise. The frontend supplies that result
(``hopc.fx_import.hops.shared``). Where the body of a ``nested_compile_region``,
a ``checkpoint`` or a ``wrap`` returns such a size, the body yields after its
results one ``!hop.symint`` per such size: the result that defines it, or
its ``hop.sym_size`` (``sizes_only_inside_expressions``,
``defining_results``). Each call (each ``hop.wrap``, ``hop.checkpoint``)
gets one more result per size, typed with the call's own name for it. That
name comes from solving each dimension of Dynamo's result types that has the
size as its only unnamed symbol (sympy, ``call_names``). The solution must be
unique, one symbol, and the same in every dimension; otherwise the import is
a located error:

    hop.subgraph @f { ... %c = aten.cat(...) : ... -> !hop.tensor<[4*u8], f32>
                      %n = hop.sym_size %y[0] : !hop.tensor<[u8], f32> -> !hop.symint<u8>
                      hop.yield %c, %n : !hop.tensor<[4*u8], f32>, !hop.symint<u8> }
    %p, %k = hop.invoke_subgraph @f(%x) : (...) -> (!hop.tensor<[4*u9], f32>, !hop.symint<u9>)

So the extra result binds ``u9`` and ``[4*u9]`` follows it, as if ``y`` had
been returned. It is none of the FX node's outputs (``operator.getitem``
picks those by index, and the extra results come last). It stays while
``[4*u9]`` is used (Note [kept results need their binders] in
``hopc.passes.dce``). Autograd's forward call yields it like any other
result (``hopc.passes.autograd.hops.outlining.call``), and so does a
forward ``hop.wrap`` (``hopc.passes.autograd.hops.wrap``).

A checkpoint's recompute in the backward runs the code its forward ran on
the same operands, so its results name the sizes as the forward's do (Note
[checkpoint recompute] in ``hopc.passes.autograd.hops.checkpoint``): the
backward binds ``u9`` again there. The backward of an op after the
checkpoint (``sum``'s expand to ``[4*u9]``) uses ``u9`` before that, so the
partitioner saves the forward's ``u9`` for it (``_unbound_symbols`` in
``hopc.passes.autograd.partition``).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Block, Operation, OpResult
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import describe
from hopc.ir.dims import Dim, dim_symbols
from hopc.ir.substitution import InconsistentBinding, bind, parameters
from hopc.ir.symbol_uses import symbols_of_attribute
from hopc.ir.types import ExpressionData, TensorType, free_symbols_of_types


def defined_symbols(block: Block) -> set[str]:
    """The symbols ``block`` defines: those first mentioned as a whole dimension, or the
    ``!hop.symint``/``!hop.symfloat``, of a result of an op directly in it (an unbacked size such
    as ``nonzero``'s or ``hop.item``'s; Note [where a symbol is bound] in
    ``hopc.passes.lift_symbols_analysis``), not by its arguments' types."""
    return set(defining_results(block))


def defining_results(block: Block) -> dict[str, OpResult]:
    """Each symbol ``block`` defines (``defined_symbols``) -> the result of an op directly in it
    that defines it: the first to have it as a whole dimension or as its ``!hop.symint``, where
    no earlier op mentions it (another result of the same op may have it inside an expression:
    a call's ``[4*u1]`` and ``!hop.symint<u1>``)."""
    mentioned = set(free_symbols_of_types([a.type for a in block.args]))
    defining: dict[str, OpResult] = {}
    for op in block.ops:
        for attribute in (*op.properties.values(), *op.attributes.values()):
            mentioned.update(symbols_of_attribute(attribute))
        for result in op.results:
            for name in parameters([result.type]):
                if name not in mentioned:
                    defining.setdefault(name, result)
        for result in op.results:
            mentioned.update(symbols_of_attribute(result.type))
    return defining


def sizes_only_inside_expressions(block: Block, yielded_types: Sequence[Attribute]) -> list[str]:
    """The symbols ``block`` defines that ``yielded_types`` mention only inside expressions
    (``[4*u0]``, never ``[u0]``), in order of definition (Note [call result symbols])."""
    yielded = free_symbols_of_types(yielded_types) - set(parameters(yielded_types))
    return [symbol for symbol in defining_results(block) if symbol in yielded]


class UnnamedSize(ValueError):
    """A call's result types give ``size``, which its body yields only inside expressions, no
    single name; the message says what they have instead."""

    def __init__(self, size: str, message: str):
        super().__init__(message)
        self.size = size


def call_names(yielded_types: Sequence[Attribute], result_types: Sequence[Attribute],
               sizes: Sequence[str]) -> dict[str, str]:
    """Each symbol of ``sizes`` -> the one symbol that ``result_types`` name it by, solving each
    dimension of ``yielded_types`` that mentions it and no other of ``sizes`` for it
    (``4*u0 == 4*u1``: ``u1``). ``yielded_types`` are the body's under the call's substitution
    (Note [call result symbols]).

    Raises ``UnnamedSize`` where a size has no such dimension, or where one has no unique
    solution that is a single symbol, or where two dimensions disagree.
    """
    names: dict[str, str] = {}
    unnamed = set(sizes)
    for yielded_dim, result_dim in _dimension_pairs(yielded_types, result_types):
        inside = dim_symbols(yielded_dim) & unnamed
        if len(inside) != 1:
            continue
        (size,) = inside
        name = _solution(size, yielded_dim, result_dim)
        if names.setdefault(size, name) != name:
            raise UnnamedSize(size, f"{result_dim} for {yielded_dim}, which gives {size} as {name}, "
                              f"where another dimension gives it as {names[size]}")
    for size in sizes:
        if size not in names:
            raise UnnamedSize(size, f"no dimension with {size} as the only size the body defines")
    return names


def _dimension_pairs(yielded_types: Sequence[Attribute], result_types: Sequence[Attribute]
                     ) -> list[tuple[Dim, Dim]]:
    """Each dimension (or ``!hop.symint`` value) of ``yielded_types`` with the result's at its place."""
    pairs: list[tuple[Dim, Dim]] = []
    for yielded, result in zip(yielded_types, result_types):
        if isinstance(yielded, TensorType) and isinstance(result, TensorType) \
                and yielded.rank == result.rank:
            pairs.extend(zip(yielded.shape, result.shape, strict=True))
        elif isinstance(yielded, ExpressionData) and type(result) is type(yielded):
            pairs.append((yielded.value, result.value))
    return pairs


def _solution(size: str, yielded_dim: Dim, result_dim: Dim) -> str:
    """The one symbol ``size`` is where ``yielded_dim == result_dim``, or ``UnnamedSize``; through
    sympy, imported on first use (Note [lazy sympy] in ``hopc.ir.dims``)."""
    import sympy

    from hopc.ir.symbolic import parse_expr, symbol

    equation = sympy.Eq(parse_expr(str(yielded_dim)), parse_expr(str(result_dim)))
    try:
        solutions = sympy.solve(equation, symbol(size))
    except NotImplementedError:  # sympy solves no equation of floor divisions, for one
        solutions = []
    if len(solutions) != 1 or not isinstance(solutions[0], sympy.Symbol):
        found = ", ".join(map(str, solutions)) or "none"
        raise UnnamedSize(size, f"{result_dim} for {yielded_dim}, which gives {size} as {found}, "
                          "not as one symbol")
    return solutions[0].name


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
