"""Functionalize across HOP regions: what a body changes comes out as results.

Note [mutation through HOP regions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A body's block arguments are its operands themselves (the interpreter binds
them without copies), so a body that changes an argument in place changes the
operand outside. After its body is functionalized, a HOP returns the final
value of each operand its body changed, and the outside writes that value
back into the operand (through the operand's views, if it is one):

- ``hop.wrap``, ``hop.checkpoint`` and ``hop.subgraph`` bodies yield it as an
  extra result. A subgraph is changed once, for all its call sites.
- ``hop.cond``: both branches yield it; a branch that does not change the
  argument yields the argument unchanged.
- ``hop.while``: a changed carried value must be yielded in its own place
  (then the loop result is the operand's final value already); a changed
  additional operand becomes a carried value. The cond region must not change
  anything: it runs once more than the body.
- ``hop.scan`` and ``hop.map`` must not change their operands
  (``HopRegionInterface.mutable_operands`` says which operands a body may
  change; PyTorch 2.13 would let scan change its additional operands and map
  its slices, which functionalize rejects as well).

A body that yields an argument or a view of it returns an alias of the
operand: as any view of it for a body run at most once (wrap, checkpoint,
cond, subgraph), only as the operand itself carried in place for a loop (its
other results are new tensors for ``hop.while``, doubtful for scan, Note
[doubtful aliases]), never for a stacked
result (``RegionEntry.stacked``: map, scan's per-step outputs). The outside
records the result as that view of the operand, so a later in-place change of either
shows in the other, as in eager mode. Inside, a yield that is an argument or
an outer value, or a value yielded twice, is cloned, so that no two results
of a functional HOP share storage (the extra results above excepted: they are
the operands' new values).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Block, Operation, SSAValue

from hopc.dialects import hop
from hopc.dialects.hop_interface import hop_interface
from hopc.ir.diagnostics import op_error
from hopc.ir.types import TensorType
from hopc.passes.functionalize.aliases import Alias, AliasState, describe
from hopc.passes.functionalize.layout import AliasLayouts
from hopc.passes.functionalize.views import ViewStep, build


@dataclass(frozen=True)
class YieldSource:
    """A yielded value is ``steps`` applied to argument ``index`` (``kind='arg'``), to the
    value yielded at ``index`` (``'result'``), or to an outer storage (``'outer'``, ``root``)."""

    kind: str
    index: int
    steps: tuple[ViewStep, ...]
    root: Alias | None = None

    def key(self) -> tuple:
        return (self.kind, self.index, self.root, tuple(s.key() for s in self.steps))


@dataclass
class BlockResult:
    """What functionalizing a block found: the arguments it changed and what it yields."""

    block: Block
    roots: list[Alias]
    sources: list[YieldSource | None]
    terminator: Operation
    yielded: list[Alias | None]
    """The aliases of the yielded values (for their layouts)."""

    @property
    def mutated(self) -> dict[int, Alias]:
        return {i: root for i, root in enumerate(self.roots) if root.storage.version}

    def final(self, index: int) -> SSAValue:
        return self.roots[index].storage.current


@dataclass
class HopEffects:
    """How a rebuilt HOP's results relate to its operands (indices into the body's arguments)."""

    state_results: dict[int, int] = field(default_factory=dict)
    """Operand -> the result that holds its final value."""
    result_sources: dict[int, YieldSource] = field(default_factory=dict)
    doubtful: dict[int, list[int | Alias]] = field(default_factory=dict)
    """Result -> operands (or outer storages) it may or may not alias (Note [doubtful aliases])."""
    layouts: dict[int, Alias] = field(default_factory=dict)
    """Result -> the value inside whose layout it has (else unknown; Note [reshape aliasing])."""


def yield_sources(state: AliasState, roots: list[Alias], values: list[SSAValue]
                  ) -> list[YieldSource | None]:
    """Where each yielded value's storage comes from (before the yields are rewritten)."""
    argument_of = {root.storage: i for i, root in enumerate(roots)}
    aliases = [state.alias_of(v) if isinstance(v.type, TensorType) else None for v in values]
    storages = [a.storage if a is not None else v for a, v in zip(aliases, values)]
    first_whole: dict[object, int] = {}
    for k, (alias, storage) in enumerate(zip(aliases, storages)):
        if (alias is None or alias.parent is None) and storage not in first_whole:
            first_whole[storage] = k
    sources: list[YieldSource | None] = []
    for k, (alias, storage) in enumerate(zip(aliases, storages)):
        steps = alias.steps() if alias is not None else ()
        if storage in argument_of:
            sources.append(YieldSource("arg", argument_of[storage], steps))
        elif alias is not None and alias.storage.home is not state.block:
            sources.append(YieldSource("outer", -1, steps, alias.storage.root))
        elif first_whole.get(storage, k) != k:
            sources.append(YieldSource("result", first_whole[storage], steps))
        else:
            sources.append(None)
    return sources


def clone_shared_yields(result: BlockResult, positions: range) -> None:
    """Clones yields at ``positions`` that are tensor arguments, outer values or repeated
    (a symbolic number yielded shares no memory)."""
    terminator, block = result.terminator, result.block
    seen: set[SSAValue] = set()
    values = list(terminator.operands)
    for k, value in enumerate(values):
        owner = value.owner
        defined_here = isinstance(owner, Operation) and owner.parent_block() is block
        if k in positions and isinstance(value.type, TensorType) and (not defined_here or value in seen):
            clone = build("aten.clone", [[value]], {}, [value.type], terminator)
            block.insert_op_before(clone, terminator)
            values[k] = clone.results[0]
        seen.add(value)
    terminator.operands = values


def append_yields(result: BlockResult, values: list[SSAValue]) -> None:
    result.terminator.operands = [*result.terminator.operands, *values]


def _operand_group(op: Operation, position: int) -> str:
    """The name of the operand group (``xs``, ``additional``, ...) holding ``position``."""
    for name, _ in type(op).get_irdl_definition().operands:
        field = getattr(op, name)
        size = 1 if isinstance(field, SSAValue) else len(field)
        if position < size:
            return name
        position -= size
    raise IndexError(position)


def check_mutable(op: Operation, result: BlockResult) -> None:
    """Rejects changes to operands the HOP does not let its body change
    (``HopRegionInterface.mutable_operands``)."""
    interface = hop_interface(op)
    entry = next(e for e in interface.entries(op) if e.region is result.block.parent)
    allowed = interface.mutable_operands(op)
    for index, root in result.mutated.items():
        position = entry.operand_of(index)
        if position is None or position not in allowed:
            what = "an argument that no operand feeds" if position is None \
                else f"an operand ({_operand_group(op, position)})"
            raise op_error(root.storage.mutated_by,
                           f"changes {describe(result.block.args[index])} in place, {what} of the "
                           f"enclosing '{op.name}' body, which '{op.name}' does not allow (Note "
                           "[mutation through HOP regions])")


# --------------------------------------------------------------------------- effects per kind


def single_body_effects(result: BlockResult, user_count: int) -> tuple[list[SSAValue], HopEffects]:
    """Extra yields and effects of a body run once (wrap, checkpoint, subgraph)."""
    effects = HopEffects()
    extras: list[SSAValue] = []
    for index in sorted(result.mutated):
        whole = next((k for k, s in enumerate(result.sources[:user_count])
                      if s is not None and s.kind == "arg" and s.index == index and not s.steps), None)
        if whole is None:
            whole = user_count + len(extras)
            extras.append(result.final(index))
        effects.state_results[index] = whole
    effects.result_sources = {k: s for k, s in enumerate(result.sources[:user_count]) if s is not None}
    effects.layouts = {k: a for k, a in enumerate(result.yielded[:user_count]) if a is not None}
    return extras, effects


def cond_effects(then: BlockResult, otherwise: BlockResult, user_count: int,
                 layouts: AliasLayouts) -> tuple[list[SSAValue], list[SSAValue], HopEffects]:
    """Extra yields of each branch and the effects of a cond."""
    effects = HopEffects()
    for k, (a, b) in enumerate(zip(then.yielded[:user_count], otherwise.yielded[:user_count])):
        if a is not None and b is not None and layouts.is_contiguous(a) and layouts.is_contiguous(b):
            effects.layouts[k] = a
    then_extras: list[SSAValue] = []
    else_extras: list[SSAValue] = []
    for index in sorted(set(then.mutated) | set(otherwise.mutated)):
        wanted = YieldSource("arg", index, ())
        whole = next((k for k in range(user_count)
                      if then.sources[k] == wanted and otherwise.sources[k] == wanted), None)
        if whole is None:
            whole = user_count + len(then_extras)
            then_extras.append(then.final(index))
            else_extras.append(otherwise.final(index))
        effects.state_results[index] = whole
    for k in range(user_count):
        a, b = then.sources[k], otherwise.sources[k]
        if a is not None and b is not None and a.key() == b.key():
            effects.result_sources[k] = a
        else:
            effects.doubtful[k] = [d for d in map(_doubt, (a, b)) if d is not None]
    return then_extras, else_extras, effects


def _doubt(source: YieldSource | None) -> int | Alias | None:
    """What a result may share memory with when its yield is ``source`` in some runs only."""
    if source is None or source.kind == "result":
        return None
    return source.index if source.kind == "arg" else source.root


def loop_effects(op: Operation, result: BlockResult, copies_when_skipped: bool = False
                 ) -> HopEffects:
    """Loop bodies: result k aliases operand k when yield k is argument k itself, for the
    ``RegionEntry.carried`` values k (the others are stacked: new tensors).

    Otherwise result k is doubtful (Note [doubtful aliases]) when it may share
    memory with what the body yields (a view of an argument or an outer
    value), and, unless ``copies_when_skipped`` (``hop.while``, which returns
    a copy then, as PyTorch does), because a loop that runs no iteration
    returns operand k itself.
    """
    effects = HopEffects()
    count = next(e.carried for e in hop_interface(op).entries(op) if e.region is result.block.parent)
    for k, source in enumerate(result.sources[:count]):
        if source is not None and source.kind == "arg" and source.index == k and not source.steps:
            effects.result_sources[k] = source
            continue
        skipped = [] if copies_when_skipped else [k]
        effects.doubtful[k] = skipped + [d for d in [_doubt(source)]
                                         if d is not None and d not in skipped]
    return effects


def apply_effects(state: AliasState, new_op: Operation, operands: list[SSAValue],
                  effects: HopEffects, origin: Operation) -> None:
    """Writes back changed operands and records aliasing results, after ``new_op``.

    A result that is a new tensor has the layout of what the body yields, if
    known (Note [reshape aliasing]).
    """
    state.cursor = new_op.next_op
    state.layout_origins.update({r: effects.layouts.get(k) for k, r in enumerate(new_op.results)})
    storages = [state.alias_of(v).storage if isinstance(v.type, TensorType) else None
                for v in operands]
    for index in effects.state_results:
        shared = [k for k, s in enumerate(storages) if s is storages[index] and k != index]
        if shared and (isinstance(origin, hop.InvokeSubgraphOp) or shared[0] in effects.state_results):
            raise op_error(origin, f"changes {describe(operands[index])} in place, which shares "
                                   f"memory with another operand, {describe(operands[shared[0]])}; "
                                   "pass it once")
    for index, result_index in effects.state_results.items():
        state.write(operands[index], new_op.results[result_index], origin)
    for k, source in effects.result_sources.items():
        if source.kind == "arg":
            base = state.alias_of(operands[source.index])
        elif source.kind == "result":
            base = state.alias_of(new_op.results[source.index])
        else:
            base = source.root
        state.register_result_alias(new_op.results[k], base, source.steps)
    for k, doubts in effects.doubtful.items():
        if doubts:
            others = [operands[d] if isinstance(d, int) else d.storage.base for d in doubts]
            state.mark_doubtful(new_op.results[k], others,
                                f"'{origin.name}' returns it as a view of its operand only "
                                "in some runs")
