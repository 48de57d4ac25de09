"""Strides of views, to tell whether a ``reshape`` or ``contiguous`` aliases its input.

Note [reshape aliasing]
~~~~~~~~~~~~~~~~~~~~~~~
``reshape``, ``flatten`` and ``ravel`` return a view when the input's strides
allow one and a copy otherwise; ``contiguous`` returns its input when that is
contiguous already. Which one happens decides what a later in-place op
changes, so functionalize decides it as PyTorch does: it follows the layout
(sizes, strides and storage offset, sympy expressions over the shape symbols)
of each view from its base, which it takes to be dense and row-major, and
applies PyTorch's ``computeStride``. A symbol is at least its declared lower
bound (``hop.symbol @s0 backed [2, oo]``; 0 when the module declares none). A
comparison that depends on the symbols' values gives None, and the op's
result is *doubtful*: functionalize copies, and fails at a later mutation that
would tell the two apart (Note [doubtful aliases] in ``aliases.py``).

The layout of a base: an entry argument is row-major, or has the strides its
``hop.strides`` gives (Note [entry signature]); a region argument has
its operand's layout; the result of an op is row-major when each of its
tensor operands is contiguous or not dense (elementwise ops keep the strides
of dense inputs, permuted ones included, and lay out others row-major), and
unknown (every answer None) otherwise; a HOP's result has the layout of what
its body yields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hopc.ir.dim_arguments import normalized_dim, normalized_dims
from hopc.ir.dims import Dim
from hopc.passes.functionalize.views import ViewStep, dim_of, ints_of

if TYPE_CHECKING:
    import sympy

# sympy is imported where a layout is first computed, so that a module with no
# reshape or contiguous to decide never loads it (Note [lazy sympy] in hopc.ir.dims).


@dataclass(frozen=True)
class Layout:
    sizes: tuple[sympy.Expr, ...]
    strides: tuple[sympy.Expr, ...]
    offset: sympy.Expr


class LayoutRules:
    """Layouts of views over shape symbols with the given lower bounds."""

    def __init__(self, lower_bounds: Mapping[str, int]):
        self._lower_bounds = lower_bounds
        self._cache: dict[Dim, sympy.Expr] = {}

    def expression(self, dim: Dim) -> sympy.Expr:
        """``dim`` with each symbol ``s`` written ``lower(s) + s'``, ``s'`` a nonnegative integer."""
        import sympy

        from hopc.ir import symbolic

        if isinstance(dim, int):
            return sympy.Integer(dim)
        if dim not in self._cache:
            parsed = symbolic.parse_expr(dim)
            self._cache[dim] = parsed.xreplace({
                s: sympy.Symbol(s.name, integer=True, nonnegative=True)
                + self._lower_bounds.get(s.name, 0) for s in parsed.free_symbols})
        return self._cache[dim]

    def base(self, shape: Sequence[Dim]) -> Layout:
        import sympy

        sizes = tuple(self.expression(d) for d in shape)
        strides, running = [], sympy.Integer(1)
        for size in reversed(sizes):
            strides.append(running)
            running = running * size
        return Layout(sizes, tuple(reversed(strides)), sympy.Integer(0))

    # ------------------------------------------------------------------- one step

    def apply(self, layout: Layout, step: ViewStep) -> Layout | None:
        """The layout of ``step``'s result given its input's; None when it has no strides."""
        import sympy

        sizes = tuple(self.expression(d) for d in step.result_type.shape)
        p = step.copy_properties
        rank = len(layout.sizes)
        strides, offset = list(layout.strides), layout.offset
        name = step.copy_name
        if step.kind == "reshape":
            try:
                new = _compute_stride(layout.sizes, layout.strides, list(sizes))
            except _Undecided:
                new = None
            return None if new is None else Layout(sizes, new, offset)
        if name == "aten.select_copy.int":
            dim = normalized_dim(dim_of(p["dim"]), rank)
            index = self.expression(dim_of(p["index"]))
            if index.is_negative:
                index = index + layout.sizes[dim]
            offset += index * strides.pop(dim)
        elif name == "aten.slice_copy.Tensor":
            dim = normalized_dim(dim_of(p.get("dim"), 0), rank)
            start = self.expression(dim_of(p.get("start"), 0))
            if start.is_negative:
                start = start + layout.sizes[dim]
            offset += start * strides[dim]
            strides[dim] = strides[dim] * self.expression(dim_of(p.get("step"), 1))
        elif name == "aten.diagonal_copy":
            diagonal = dim_of(p.get("offset"), 0)
            dim1 = normalized_dim(dim_of(p.get("dim1"), 0), rank)
            dim2 = normalized_dim(dim_of(p.get("dim2"), 1), rank)
            offset += diagonal * strides[dim2] if diagonal >= 0 else -diagonal * strides[dim1]
            step_stride = strides[dim1] + strides[dim2]
            strides = [s for d, s in enumerate(strides) if d not in (dim1, dim2)] + [step_stride]
        elif name == "aten.as_strided_copy":
            strides = [self.expression(d) for d in _dims(p["stride"])]
            offset = self.expression(dim_of(p.get("storage_offset"), 0))
        elif name in ("aten.transpose_copy.int", "aten.t_copy", "aten.permute_copy"):
            strides = [strides[d] for d in _order(step, rank)]
        elif name == "aten.expand_copy":
            padded = [sympy.Integer(0)] * (len(sizes) - rank) + strides
            old = [sympy.Integer(1)] * (len(sizes) - rank) + list(layout.sizes)
            strides = [0 if o == 1 and n != 1 else s for s, o, n in zip(padded, old, sizes)]
        elif name == "aten.unfold_copy":
            dim = normalized_dim(dim_of(p["dimension"]), rank)
            strides = strides + [strides[dim]]
            strides[dim] = strides[dim] * dim_of(p["step"])
        else:
            return None
        return Layout(sizes, tuple(sympy.Integer(s) if isinstance(s, int) else s for s in strides),
                      offset)


def _dims(attribute) -> list[Dim]:
    return [dim_of(a) for a in attribute.data]


def _order(step: ViewStep, rank: int) -> list[int]:
    """The permutation of a transpose, t or permute: result dim i is input dim order[i]."""
    if step.copy_name == "aten.permute_copy":
        return list(normalized_dims(ints_of(step.copy_properties["dims"]), rank))
    if step.copy_name == "aten.t_copy":
        return list(range(rank))[::-1]
    order = list(range(rank))
    a = normalized_dim(dim_of(step.copy_properties["dim0"]), rank)
    b = normalized_dim(dim_of(step.copy_properties["dim1"]), rank)
    order[a], order[b] = order[b], order[a]
    return order


# --------------------------------------------------------------------------- decisions


def _equal(a: sympy.Expr, b: sympy.Expr) -> bool | None:
    import sympy

    difference = sympy.expand(a - b)
    if difference == 0:
        return True
    return False if difference.is_zero is False else None


def _less(a: sympy.Expr, b: sympy.Expr) -> bool | None:
    import sympy

    difference = sympy.expand(b - a)
    if difference.is_positive:
        return True
    return False if difference.is_nonpositive else None


def is_dense(layout: Layout) -> bool | None:
    """Whether the elements fill a block of memory without gaps, in some dim order."""
    import sympy

    dims = [(stride, size) for size, stride in zip(layout.sizes, layout.strides)
            if _equal(size, sympy.Integer(1)) is not True]
    if not all(stride.is_Integer for stride, _ in dims):
        return None
    expected = sympy.Integer(1)
    for stride, size in sorted(dims, key=lambda d: int(d[0])):
        if stride != expected:
            return False
        expected = expected * size
    return True


def is_contiguous(layout: Layout) -> bool | None:
    """PyTorch's ``is_contiguous``: row-major strides, ignoring dims of size 1."""
    import sympy

    expected, unknown = sympy.Integer(1), False
    for size, stride in zip(reversed(layout.sizes), reversed(layout.strides)):
        is_one = _equal(size, sympy.Integer(1))
        if is_one:
            continue
        matches = _equal(stride, expected)
        if matches is False and is_one is False:
            return False
        unknown |= matches is None or is_one is None
        expected = expected * size
    return None if unknown else True


class _Undecided(Exception):
    pass


def _decide(answer: bool | None) -> bool:
    if answer is None:
        raise _Undecided
    return answer


def _compute_stride(old_sizes, old_strides, new_sizes):
    import sympy

    if not old_sizes:
        return tuple(sympy.Integer(1) for _ in new_sizes)
    new_strides = [sympy.Integer(0)] * len(new_sizes)
    view_d = len(new_sizes) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel, view_numel = sympy.Integer(1), sympy.Integer(1)
    for tensor_d in range(len(old_sizes) - 1, -1, -1):
        tensor_numel = tensor_numel * old_sizes[tensor_d]
        if tensor_d == 0 or (
                not _decide(_equal(old_sizes[tensor_d - 1], sympy.Integer(1)))
                and not _decide(_equal(old_strides[tensor_d - 1], tensor_numel * chunk_base_stride))):
            while view_d >= 0 and (_decide(_less(view_numel, tensor_numel))
                                   or _decide(_equal(new_sizes[view_d], sympy.Integer(1)))):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel = view_numel * new_sizes[view_d]
                view_d -= 1
            if not _decide(_equal(view_numel, tensor_numel)):
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel, view_numel = sympy.Integer(1), sympy.Integer(1)
    return tuple(new_strides) if view_d == -1 else None


def reshape_aliases(layout: Layout | None, shape: Sequence[sympy.Expr]) -> bool | None:
    """Whether ``reshape(shape)`` of a tensor with ``layout`` is a view (None: undecidable).

    PyTorch's ``computeStride``: a view exists when each run of dims that are
    contiguous with each other maps onto whole dims of the new shape.
    """
    if layout is None:
        return None
    try:
        return _compute_stride(layout.sizes, layout.strides, list(shape)) is not None
    except _Undecided:
        return None


ROW_MAJOR = object()
"""The ``layout_origin`` of a dense row-major base."""


class AliasLayouts:
    """Layouts of aliases (``aliasesAlias``), computed on demand and cached."""

    def __init__(self, rules: LayoutRules):
        self.rules = rules
        self._row_major: dict[object, bool] = {}

    def of(self, alias) -> Layout | None:
        if alias.layout is False:
            if alias.parent is None:
                alias.layout = self._base(alias.storage)
            else:
                parent = self.of(alias.parent)
                alias.layout = None if parent is None else self.rules.apply(parent, alias.step)
        return alias.layout

    def _base(self, storage) -> Layout | None:
        origin = storage.layout_origin
        if origin is None or isinstance(origin, Layout):
            return origin
        if origin is ROW_MAJOR or (isinstance(origin, list)
                                   and all(self._lays_out_row_major(a) for a in origin)):
            return self.rules.base(storage.base.type.shape)
        if isinstance(origin, list):
            return None
        return self.of(origin)

    def _lays_out_row_major(self, alias) -> bool:
        """Whether an op's result is row-major as far as this operand goes."""
        if self.is_contiguous(alias):
            return True
        layout = self.of(alias)
        return layout is not None and is_dense(layout) is False

    def is_contiguous(self, alias) -> bool | None:
        if self._row_major_by_construction(alias):
            return True
        layout = self.of(alias)
        return None if layout is None else is_contiguous(layout)

    def _row_major_by_construction(self, alias) -> bool:
        """Whether ``alias`` is row-major whatever the symbols' values, known without a layout.

        So a module with no reshape or contiguous to decide never computes one
        (nor imports sympy): a row-major base is; so is the result of an op
        whose operands all are, a base laid out as such an alias (a HOP's
        result), and a reshape of one (it keeps every element in order).
        """
        if alias not in self._row_major:
            origin = alias.storage.layout_origin
            if alias.parent is not None:
                known = alias.step.kind == "reshape" and self._row_major_by_construction(alias.parent)
            elif isinstance(origin, list):
                known = all(self._row_major_by_construction(a) for a in origin)
            else:
                known = origin is ROW_MAJOR or (origin is not None and not isinstance(origin, Layout)
                                                and self._row_major_by_construction(origin))
            self._row_major[alias] = known
        return self._row_major[alias]

    def is_dense_base(self, alias) -> bool:
        """Whether ``alias`` covers its storage from offset 0 in row-major order."""
        layout = self.of(alias)
        return layout is not None and layout.offset == 0 and is_contiguous(layout) is True

    def reshape_aliases(self, alias, shape: Sequence[Dim]) -> bool | None:
        if alias.parent is None and alias.storage.layout_origin is ROW_MAJOR:
            return True
        return reshape_aliases(self.of(alias), [self.rules.expression(d) for d in shape])
