"""The alias state of functionalize: which storage each tensor value views, and its value now.

A ``Storage`` is one tensor storage of the original program as one block sees
it: a block argument or the result of an op that is not a view. Its
``current`` value is the functional value of the whole base at the point
being rewritten. An ``Alias`` is a tensor value of the original program: a
storage and the chain of ``ViewStep``s from its base (``parent``/``step``; the
root alias has none). Reading an alias replays its chain on the base's
current value, cached until the storage is written again; writing a new value
to an alias scatters it through the chain, inner view first, and makes the
result the base's current value (Note [view replay] in ``functionalize.py``).

Note [doubtful aliases]
~~~~~~~~~~~~~~~~~~~~~~~
Some results may or may not share memory with a storage, and the IR cannot
say which: a ``reshape`` whose input layout depends on the shape symbols
(Note [reshape aliasing]), a ``hop.cond`` result that one branch returns as a
view of an operand and the other as a new tensor. Functionalize gives such a
result a storage of its own and remembers the doubt. As long as neither side
is changed in place the two readings agree; a write to the doubtful result,
or a read of it after a write to the storage it may share, would tell them
apart, and is a located error rather than a silent guess.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager

from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from hopc.ir.diagnostics import op_error
from hopc.ir.types import TensorType
from hopc.passes.functionalize.layout import ROW_MAJOR, AliasLayouts, Layout, LayoutRules
from hopc.passes.functionalize.view_kinds import classify_view
from hopc.passes.functionalize.views import IDENTITY, Fresh, ViewStep, build, replay, scatter


def describe(value: SSAValue) -> str:
    """``%name``, or which op or block argument the value is."""
    if value.name_hint:
        return f"%{value.name_hint}"
    if isinstance(value, BlockArgument):
        return f"block argument #{value.index}"
    return f"result #{value.index} of '{value.owner.name}'"  # type: ignore[union-attr]


class Storage:
    """One storage of the original program, as the block ``home`` sees it."""

    def __init__(self, base: SSAValue, home: Block):
        self.base = base
        self.current = base
        self.home = home
        self.version = 0
        self.mutated_by: Operation | None = None
        self.root = Alias(self)
        self.doubt: tuple[str, list[Storage]] | None = None
        """Why this storage may share memory with others, and which (Note [doubtful aliases])."""
        self.doubtful_dependents: list[Storage] = []
        self.poisoned_by: Operation | None = None
        self.top = self
        """The outermost storage this one stands for: a region argument's is its operand's."""
        self.layout_origin: object = ROW_MAJOR
        """Where the base's layout comes from (Note [reshape aliasing]): ``ROW_MAJOR``, the
        operand alias of a region argument, the operand aliases of an op, None: unknown."""


class Alias:
    """A tensor value of the original program: a chain of views of one storage."""

    __slots__ = ("storage", "parent", "step", "value", "value_version", "value_block", "layout",
                 "name")

    def __init__(self, storage: Storage, parent: Alias | None = None, step: ViewStep | None = None,
                 name: str | None = None):
        self.storage, self.parent, self.step, self.name = storage, parent, step, name
        self.value: SSAValue | None = None
        self.value_version = -1
        self.value_block: Block | None = None
        self.layout: Layout | None | bool = False  # False: not computed yet

    def steps(self) -> tuple[ViewStep, ...]:
        """The chain from the storage's base to this alias."""
        chain, alias = [], self
        while alias.step is not None:
            chain.append(alias.step)
            alias = alias.parent
        return tuple(reversed(chain))


class AliasState:
    """Aliases of the values seen so far, and where new ops go (before ``cursor``)."""

    def __init__(self, layout_rules: LayoutRules):
        self.aliases: dict[SSAValue, Alias] = {}
        self.sharing: dict[Storage, list[Storage]] = {}
        """Outermost storage -> the region arguments standing for it in the blocks being
        rewritten. Reading a storage after another one standing for the same memory was
        changed in a block as deep or deeper would miss the change: an error."""
        self.layouts = AliasLayouts(layout_rules)
        self.layout_origins: dict[SSAValue, object] = {}
        """Layout origins of op results that have no storage yet (see ``Storage``)."""
        self.active_blocks: dict[Block, int] = {}
        """The blocks being rewritten, each with its depth."""
        self.block: Block | None = None
        self.cursor: Operation | None = None

    @contextmanager
    def entering(self, block: Block, operands: Sequence[SSAValue] | None,
                 unknown_layouts: Collection[int] = ()) -> Iterator[list[Alias]]:
        """Rewrites ``block``; yields a fresh root alias per block argument.

        The arguments stand for ``operands``, and have their layouts but for
        those in ``unknown_layouts`` (loop-carried values that later iterations
        replace); with no operands (a subgraph's) their layouts are unknown, with
        ``()`` (the entry function's) row-major (Note [reshape aliasing]).
        """
        saved = self.block, self.cursor
        self.block = block
        self.active_blocks[block] = len(self.active_blocks)
        roots = [self.new_root(argument) for argument in block.args]
        for root in roots if operands is None else ():
            root.storage.layout_origin = None
        shared = []
        for index, (root, operand) in enumerate(zip(roots, operands or ())):
            if isinstance(operand.type, TensorType):
                same_type = operand.type == root.storage.base.type
                known = same_type and index not in unknown_layouts
                root.storage.layout_origin = self.alias_of(operand) if known else None
                root.storage.top = self.alias_of(operand).storage.top
                shared.append(root.storage)
                self.sharing.setdefault(root.storage.top, []).append(root.storage)
        try:
            yield roots
        finally:
            for storage in shared:
                self.sharing[storage.top].remove(storage)
            del self.active_blocks[block]
            self.block, self.cursor = saved

    def insert(self, op: Operation) -> SSAValue:
        """Inserts ``op`` before the cursor; returns its first result."""
        self.cursor.parent_block().insert_op_before(op, self.cursor)
        return op.results[0] if op.results else None

    def new_root(self, value: SSAValue) -> Alias:
        home = value.block if isinstance(value, BlockArgument) else value.owner.parent_block()
        alias = Storage(value, home).root
        alias.storage.layout_origin = self.layout_origins.pop(value, ROW_MAJOR)
        self.aliases[value] = alias
        return alias

    def alias_of(self, value: SSAValue) -> Alias:
        alias = self.aliases.get(value)
        return alias if alias is not None else self.new_root(value)

    # ------------------------------------------------------------------- reading

    def read(self, value: SSAValue, user: Operation) -> SSAValue:
        """The functional value of ``value`` at ``cursor``, for ``user``."""
        alias = self.aliases.get(value)
        if alias is None:
            return value
        storage = alias.storage
        if storage.poisoned_by is not None:
            why, others = storage.doubt
            raise op_error(user, f"reads {describe(value)}, which may or may not share memory "
                                 f"with {describe(others[0].base)} ({why}), after "
                                 f"'{storage.poisoned_by.name}' changed that in place "
                                 "(Note [doubtful aliases])")
        depth = self.active_blocks[storage.home]
        for other in self.sharing.get(storage.top, ()):
            if other is not storage and other.version and depth <= self.active_blocks[other.home]:
                raise op_error(user, f"reads {describe(value)}, which shares memory with "
                                     f"{describe(other.base)}, after '{other.mutated_by.name}' "
                                     f"changed {describe(other.base)} in place in this region; "
                                     "pass the value once, as one operand")
        return self._read(alias, user)

    def _read(self, alias: Alias, user: Operation) -> SSAValue:
        if alias.parent is None:
            return alias.storage.current
        if (alias.value is not None and alias.value_version == alias.storage.version
                and alias.value_block in self.active_blocks):
            return alias.value
        parent_value = self._read(alias.parent, user)
        value = self.insert(replay(alias.step, parent_value, user))
        if alias.name:
            value.name_hint = alias.name
        self._cache(alias, value)
        return value

    def _cache(self, alias: Alias, value: SSAValue) -> None:
        alias.value, alias.value_version, alias.value_block = value, alias.storage.version, self.block

    # ------------------------------------------------------------------- writing

    def write(self, value: SSAValue, new_value: SSAValue, op: Operation) -> None:
        """Makes ``new_value`` the value of ``value`` (and of its storage, through the views)."""
        alias = self.alias_of(value)
        storage = alias.storage
        if storage.home is not self.block:
            raise op_error(op, f"changes {describe(value)}, which an enclosing region owns; "
                               "it should have been made an operand of the region")
        if storage.doubt is not None:
            why, others = storage.doubt
            raise op_error(op, f"changes {describe(value)} in place, which may or may not share "
                               f"memory with {describe(others[0].base)} ({why}) "
                               "(Note [doubtful aliases])")
        expected = alias.step.result_type if alias.step is not None else storage.base.type
        if new_value.type != expected:
            raise op_error(op, f"changes {describe(value)} in place from {expected} to "
                               f"{new_value.type}, which functionalize does not support")
        updates = [(alias, new_value)]
        node = alias
        while node.parent is not None:
            if node.step.inverse_name is None:
                raise op_error(op, f"changes {describe(value)} in place through a view made by "
                                   f"'{node.step.source.name}', which has no inverse")
            parent_value = self._read(node.parent, op)
            new_value = self.insert(scatter(node.step, parent_value, new_value, op))
            node = node.parent
            if node.name or node.storage.base.name_hint:
                new_value.name_hint = node.name or node.storage.base.name_hint
            updates.append((node, new_value))
        storage.current = new_value
        storage.version += 1
        storage.mutated_by = storage.mutated_by or op
        for dependent in storage.doubtful_dependents:
            dependent.poisoned_by = dependent.poisoned_by or op
        for node, node_value in updates:
            if node.parent is not None:
                self._cache(node, node_value)

    # ------------------------------------------------------------------- views

    def register_view(self, op: Operation) -> None:
        """Records the results of view op ``op`` as aliases of its input (or copies)."""
        source = op.aliased_operand(0)  # type: ignore[attr-defined]
        alias = self.alias_of(source)
        for index, result in enumerate(op.results):
            kind = classify_view(op, index, lambda: self.layouts.is_contiguous(alias),
                                 lambda shape: self.layouts.reshape_aliases(alias, shape))
            if kind is IDENTITY:
                self.aliases[result] = alias
            elif isinstance(kind, Fresh):
                copy = build(kind.name, [[self.read(source, op)]], kind.properties,
                             [result.type], op)
                self.insert(copy)
                result.replace_all_uses_with(copy.results[0])
                if kind.doubtful:
                    self.mark_doubtful(copy.results[0], [source],
                                       f"'{op.name}' views or copies depending on strides "
                                       "that hopc cannot tell here")
            else:
                parent = alias
                if kind.kind == "as_strided":
                    parent = alias.storage.root
                    if not self.layouts.is_dense_base(parent):
                        raise op_error(op, f"views {describe(source)} with explicit strides, "
                                           "but its storage may not be dense and row-major")
                self.aliases[result] = Alias(alias.storage, parent, kind, result.name_hint)

    def register_result_alias(self, result: SSAValue, base: Alias,
                              steps: Sequence[ViewStep]) -> None:
        """``result`` (already holding its value) is ``steps`` applied to ``base``."""
        alias = base
        for step in steps:
            alias = Alias(alias.storage, alias.storage.root if step.kind == "as_strided" else alias,
                          step)
        self.aliases[result] = alias
        if steps:
            self._cache(alias, result)

    def mark_doubtful(self, value: SSAValue, others: Sequence[SSAValue], why: str) -> None:
        """``value`` may or may not share memory with ``others``, for the reason ``why``."""
        storage = self.alias_of(value).storage
        other_storages = [self.alias_of(o).storage for o in others]
        storage.doubt = (why, other_storages)
        for other in other_storages:
            other.doubtful_dependents.append(storage)
