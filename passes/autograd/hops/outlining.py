"""Outlined forward/backward subgraph pairs, shared by the rules of subgraph calls and checkpoints.

- ``outlined_pair(builder, op, body, differentiated, with_cotangent, name, suffix, key=...)``:
  ``body``'s ``region_pair`` as two new module-level ``hop.subgraph``s,
  ``@<name>_forward<suffix>`` (the body's arguments -> its yields, then the
  residuals) and ``@<name>_backward<suffix>`` (the residuals, then one cotangent per yield in
  ``with_cotangent`` -> one gradient per argument in ``differentiated``).
  With a ``key``, the pair is made once per ``differentiate`` run and key
  (``JointBuilder.outlined``), so every caller with that key shares it;
- ``call(subgraph, inputs, named_as)``: a ``hop.invoke_subgraph`` of it, its result
  types the subgraph's under the call's substitution (Note [subgraph symbols]
  in ``hopc.dialects.hop``): the subgraphs are generic over the symbols their
  arguments bind, so calls at different sizes share them; a size the body
  defines is named afresh at each call (Note [call result symbols]);
- ``result_names(body, output_types, named_as, module)``: the names an op's
  results give the sizes its body defines (those of the op it replaces, else
  fresh), for ``call`` and for a rule that builds a region op;
- ``draws_random_numbers(region, module)``: whether running the region draws
  from the generator (a random ATen op at any depth, through subgraph calls).

Invariants: the new subgraphs are isolated (``region_pair``'s blocks read only
their arguments); their names are fresh in the module; nothing is removed (a
subgraph that no call references any more goes with ``--dce``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.traits import SymbolTable

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.dialects.hop_call_results import defined_symbols
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import Dim
from hopc.ir.substitution import bind, parameters
from hopc.passes.autograd.joint import JointBuilder
from hopc.passes.autograd.regions import region_pair
from hopc.passes.autograd.symbols import fresh_symbol

ResidualSources = tuple[tuple[bool, int], ...]
"""For each residual argument of a backward block: (True, i) for operand ``i`` of the forward's
op, (False, j) for its result ``j`` (``yield_new_residuals_only``)."""


@dataclass(frozen=True)
class OutlinedPair:
    """A body's forward and backward subgraphs (see the module docstring).

    Residuals that are an argument or a result of the body are not yielded
    again: the caller passes the call's operand or result itself, so the
    caller's partitioner sees (and saves) one value, not two copies.
    """

    forward: hop.SubgraphOp
    backward: hop.SubgraphOp
    result_count: int
    """How many of the forward subgraph's yields are the body's; the rest are residuals."""
    residual_sources: ResidualSources

    def residuals(self, inputs: Sequence[SSAValue], forward_call: Operation) -> list[SSAValue]:
        """The backward's residual arguments, from a forward call on ``inputs``."""
        return residual_values(self.residual_sources, inputs, forward_call)


def module_of(builder: JointBuilder, op: Operation) -> ModuleOp:
    """The module being differentiated, or a located error where the builder has none."""
    if builder.module is None:
        raise op_error(op, f"autograd: '{op.name}' is differentiated outside a module (a region "
                           "joint built without its parent builder: pass parent= to region_pair)")
    return builder.module


def lookup_subgraph(module: ModuleOp, call: hop.InvokeSubgraphOp) -> hop.SubgraphOp:
    """The subgraph that ``call`` calls, looked up in ``module`` (``call`` may be detached)."""
    found = SymbolTable.lookup_symbol(module, call.callee)
    if not isinstance(found, hop.SubgraphOp):
        raise op_error(call, f"autograd: 'hop.invoke_subgraph' calls unknown subgraph {call.callee}")
    return found


def outlined_pair(builder: JointBuilder, op: Operation, body: Block, differentiated: Sequence[int],
                  with_cotangent: Sequence[int], name: str, suffix: str = "", *,
                  key: Hashable | None = None) -> OutlinedPair:
    """``body``'s forward and backward subgraphs, made once per ``key`` (module docstring)."""
    module = module_of(builder, op)
    if key is not None and key in builder.outlined:
        pair = builder.outlined[key]
        assert isinstance(pair, OutlinedPair)
        return pair
    blocks = region_pair(body, differentiated, with_cotangent, parent=builder)
    terminator = body.last_op
    assert isinstance(terminator, hop.YieldOp)
    result_count = len(terminator.values)
    sources = yield_new_residuals_only(blocks.forward, result_count)
    pair = OutlinedPair(add_subgraph(module, f"{name}_forward{suffix}", blocks.forward),
                        add_subgraph(module, f"{name}_backward{suffix}", blocks.backward),
                        result_count, sources)
    if key is not None:
        builder.outlined[key] = pair
    return pair


def mask(positions: Sequence[int], count: int) -> str:
    """``positions`` among ``range(count)`` as a string of 0s and 1s (for names)."""
    chosen = set(positions)
    return "".join("1" if i in chosen else "0" for i in range(count))


def call(subgraph: hop.SubgraphOp, inputs: Sequence[SSAValue],
         named_as: Sequence[Attribute] = ()) -> hop.InvokeSubgraphOp:
    """A call of ``subgraph`` on ``inputs`` (not inserted anywhere). Each size its body defines
    and yields is named as in ``named_as`` (the types of the call's first results, where it
    replaces a call that names them), else by a fresh symbol of the module (Note [call result
    symbols] in ``hopc.dialects.hop_call_results``)."""
    module = subgraph.parent_op()
    assert isinstance(module, ModuleOp), "a subgraph is an op of the module"
    renaming = result_names(subgraph.body.block, subgraph.output_types, named_as, module)
    return hop.InvokeSubgraphOp(
        operands=[list(inputs)],
        result_types=[subgraph.result_types_for([v.type for v in inputs], renaming)],
        properties={"callee": SymbolRefAttr(subgraph.sym_name)})


def result_names(body: Block, output_types: Sequence[Attribute], named_as: Sequence[Attribute],
                 module: ModuleOp) -> dict[str, Dim]:
    """The names that the results of an op running ``body`` give the sizes it defines and yields
    in ``output_types``: as ``named_as`` (the types of the op's first results) names them, else
    fresh symbols of ``module`` (Note [call result symbols] in
    ``hopc.dialects.hop_call_results``)."""
    defined = defined_symbols(body)
    names = {symbol: dim for symbol, dim in bind(output_types[:len(named_as)], named_as).items()
             if symbol in defined}
    for symbol in parameters(output_types):
        if symbol in defined and symbol not in names:
            names[symbol] = fresh_symbol(module)
    return names


def draws_random_numbers(region: Region, module: ModuleOp) -> bool:
    """Whether running ``region`` draws from the generator (module docstring)."""
    seen: set[str] = set()
    pending = [region]
    while pending:
        for op in pending.pop().walk():
            if isinstance(op, AtenOp) and op.is_random:
                return True
            if isinstance(op, hop.InvokeSubgraphOp | hop.AutogradFunctionOp) \
                    and op.callee.string_value() not in seen:
                seen.add(op.callee.string_value())
                pending.append(lookup_subgraph(module, op).body)
    return False


def yield_new_residuals_only(forward: Block, result_count: int) -> ResidualSources:
    """Drops the residual yields of a ``region_pair`` forward block that are its arguments or
    results (the op that runs it has them already); where each residual now comes from."""
    terminator = forward.last_op
    assert isinstance(terminator, hop.YieldOp)
    values = list(terminator.values)
    kept = values[:result_count]
    sources: list[tuple[bool, int]] = []
    for value in values[result_count:]:
        if isinstance(value, BlockArgument) and value.block is forward:
            sources.append((True, value.index))
        elif value in kept:
            sources.append((False, kept.index(value)))
        else:
            sources.append((False, len(kept)))
            kept.append(value)
    if len(kept) < len(values):
        forward.insert_op_before(hop.YieldOp(*kept), terminator)
        forward.erase_op(terminator)
    return tuple(sources)


def residual_values(sources: ResidualSources, inputs: Sequence[SSAValue], forward: Operation
                    ) -> list[SSAValue]:
    """The residuals of ``sources``, for the op ``forward`` that ran the forward block on ``inputs``."""
    return [inputs[i] if is_operand else forward.results[i] for is_operand, i in sources]


def add_subgraph(module: ModuleOp, base: str, block: Block) -> hop.SubgraphOp:
    """A new ``hop.subgraph`` named ``base`` (or ``base_<n>``, the first free), before the functions."""
    name, suffix = base, 0
    while SymbolTable.lookup_symbol(module, name) is not None:
        suffix += 1
        name = f"{base}_{suffix}"
    subgraph = hop.SubgraphOp(properties={"sym_name": StringAttr(name)}, regions=[Region(block)])
    first_function = next((op for op in module.ops if isinstance(op, FuncOp)), None)
    if first_function is None:
        module.body.block.add_op(subgraph)
    else:
        module.body.block.insert_op_before(subgraph, first_function)
    return subgraph
