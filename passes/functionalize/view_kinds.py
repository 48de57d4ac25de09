"""What each ATen view op is to functionalize: an identity, a ``ViewStep``, or a copy.

``classify_view`` turns one result of a view op into one of

- ``IDENTITY``: the result is its input (``alias``, ``to`` without
  a dtype change, ``contiguous`` of a contiguous tensor);
- a ``ViewStep`` (``views``), with its copying form and inverse;
- a ``Fresh`` copy: an op whose schema may alias but that copies here
  (``reshape`` of a layout it cannot view, ``to`` another dtype).

Multi-result views are one step per result: the ``i``-th result of ``split``
is a ``slice``, of ``unbind`` a ``select``. A view op missing from the table
is a located error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64
from xdsl.ir import Attribute

from hopc.dialects.aten import AtenOp
from hopc.ir.diagnostics import op_error
from hopc.ir.dim_arguments import normalized_dim, normalized_dims
from hopc.ir.dims import Dim
from hopc.ir.types import DTYPES, TensorType, dim_attribute
from hopc.passes.functionalize.views import (
    IDENTITY,
    Fresh,
    ViewStep,
    add_dims,
    dim_of,
    ints_of,
    shape_attribute,
)


@dataclass(frozen=True)
class _View:
    op: AtenOp
    result_index: int
    is_contiguous: Callable[[], bool | None]
    """Whether the input's layout is contiguous (None: cannot tell); Note [reshape aliasing]."""
    reshape_aliases: Callable[[tuple[Dim, ...]], bool | None]

    @property
    def input_type(self) -> TensorType:
        return self.op.operands[0].type  # type: ignore[return-value]

    @property
    def result_type(self) -> TensorType:
        return self.op.results[self.result_index].type  # type: ignore[return-value]

    def prop(self, name: str) -> Attribute | None:
        return self.op.properties.get(name)

    def props(self, *names: str) -> dict[str, Attribute]:
        return {n: self.op.properties[n] for n in names if n in self.op.properties}

    def step(self, kind: str, copy_name: str, copy_properties: dict[str, Attribute],
             inverse_name: str | None = None, inverse_properties: dict | None = None,
             takes_input: bool = False) -> ViewStep:
        return ViewStep(kind, self.op, copy_name, copy_properties, self.input_type,
                        self.result_type, inverse_name, inverse_properties or {}, takes_input)

    def reshape(self, copy_name: str, copy_properties: dict[str, Attribute]) -> ViewStep:
        """A view keeping every element in order: the inverse reshapes back."""
        return self.step("reshape", copy_name, copy_properties, "aten.view_copy",
                         {"size": shape_attribute(self.input_type.shape)})

    def permutation(self, copy_name: str, copy_properties: dict[str, Attribute],
                    order: list[int]) -> ViewStep:
        inverse = [0] * len(order)
        for position, dim in enumerate(order):
            inverse[dim] = position
        return self.step("permute", copy_name, copy_properties, "aten.permute_copy",
                         {"dims": ArrayAttr([IntegerAttr(d, i64) for d in inverse])})

    def swap(self, dim0: int, dim1: int) -> ViewStep:
        """A transpose, its own inverse."""
        properties = {"dim0": IntegerAttr(dim0, i64), "dim1": IntegerAttr(dim1, i64)}
        return self.step("permute", "aten.transpose_copy.int", properties,
                         "aten.transpose_copy.int", properties)

    def slice(self, dim: int, start: Dim, end: Dim) -> ViewStep:
        properties = {"dim": IntegerAttr(dim, i64), "start": dim_attribute(start),
                      "end": dim_attribute(end)}
        return self.step("slice", "aten.slice_copy.Tensor", properties,
                         "aten.slice_scatter", properties, True)


def _select(v: _View) -> ViewStep:
    p = v.props("dim", "index")
    return v.step("select", "aten.select_copy.int", p, "aten.select_scatter", p, True)


def _slice(v: _View) -> ViewStep:
    p = v.props("dim", "start", "end", "step")
    return v.step("slice", "aten.slice_copy.Tensor", p, "aten.slice_scatter", p, True)


def _narrow(v: _View) -> ViewStep:
    start = dim_of(v.prop("start"))
    return v.slice(dim_of(v.prop("dim")), start, add_dims(start, dim_of(v.prop("length"))))


def _diagonal(v: _View) -> ViewStep:
    p = v.props("offset", "dim1", "dim2")
    if v.op.name == "aten.linalg_diagonal":
        p = {"offset": v.prop("offset") or IntegerAttr(0, i64),
             "dim1": v.prop("dim1") or IntegerAttr(-2, i64),
             "dim2": v.prop("dim2") or IntegerAttr(-1, i64)}
    return v.step("diagonal", "aten.diagonal_copy", p, "aten.diagonal_scatter", p, True)


def _as_strided(v: _View) -> ViewStep:
    p = v.props("size", "stride", "storage_offset")
    return v.step("as_strided", "aten.as_strided_copy", p, "aten.as_strided_scatter", p, True)


def _split(v: _View) -> ViewStep:
    """Result ``i`` of split/chunk is a slice at the sizes of the results before it."""
    dim = normalized_dim(dim_of(v.prop("dim"), 0), v.input_type.rank)
    start: Dim = 0
    for result in v.op.results[: v.result_index]:
        start = add_dims(start, result.type.shape[dim])  # type: ignore[attr-defined]
    return v.slice(dim, start, add_dims(start, v.result_type.shape[dim]))


def _unbind(v: _View) -> ViewStep:
    p = {"dim": IntegerAttr(dim_of(v.prop("dim"), 0), i64), "index": IntegerAttr(v.result_index, i64)}
    return v.step("select", "aten.select_copy.int", p, "aten.select_scatter", p, True)


def _movedim(v: _View) -> ViewStep:
    rank = v.input_type.rank
    source, destination = v.prop("source"), v.prop("destination")
    sources = ints_of(source) if isinstance(source, ArrayAttr) else [dim_of(source)]
    targets = ints_of(destination) if isinstance(destination, ArrayAttr) else [dim_of(destination)]
    order: list[int | None] = [None] * rank
    for s, d in zip(sources, targets):
        order[normalized_dim(d, rank)] = normalized_dim(s, rank)
    rest = iter(d for d in range(rank) if d not in order)
    dims = [d if d is not None else next(rest) for d in order]
    return v.permutation("aten.permute_copy", {"dims": ArrayAttr([IntegerAttr(d, i64) for d in dims])},
                         dims)


def _permute(v: _View) -> ViewStep:
    rank = v.input_type.rank
    dims = list(normalized_dims(ints_of(v.prop("dims")), rank))
    return v.permutation("aten.permute_copy", v.props("dims"), dims)


def _maybe_view(v: _View) -> ViewStep | Fresh:
    """reshape/flatten/ravel: a view if the input's layout allows one, else a copy."""
    shape = v.result_type.shape
    aliases = v.reshape_aliases(shape)
    step = v.reshape("aten.view_copy", {"size": shape_attribute(shape)})
    if aliases:
        return step
    return Fresh(step.copy_name, step.copy_properties, doubtful=aliases is None)


def _contiguous(v: _View) -> object:
    contiguous = v.is_contiguous()
    return IDENTITY if contiguous else Fresh("aten.clone", {}, doubtful=contiguous is None)


def _to(v: _View) -> object:
    copy = v.prop("copy")
    if v.result_type.element_type == v.input_type.element_type and not (
            isinstance(copy, IntegerAttr) and copy.value.data):
        return IDENTITY
    return Fresh("aten._to_copy", {"dtype": v.result_type.element_type})


def _same(kind: str, copy_name: str, *names: str, inverse: str | None = None,
          takes_input: bool = False) -> Callable[[_View], ViewStep]:
    def classify(v: _View) -> ViewStep:
        p = v.props(*names)
        return v.step(kind, copy_name, p, inverse, p if inverse else None, takes_input)

    return classify


def _real_identity(v: _View) -> object:
    complex_types = (DTYPES["complex64"], DTYPES["complex128"])
    if v.input_type.element_type in complex_types:
        raise op_error(v.op, "is a view of a complex tensor that functionalize does not support")
    return IDENTITY


_CLASSIFIERS: dict[str, Callable[[_View], object]] = {
    "aten.alias": lambda v: IDENTITY,
    # Not an identity: the copy keeps detach's meaning to autograd, a gradient barrier.
    "aten.detach": lambda v: v.reshape("aten.detach_copy", {}),
    "aten.lift_fresh": lambda v: IDENTITY,
    "aten.positive": lambda v: IDENTITY,
    "aten.resolve_conj": lambda v: IDENTITY,
    "aten.resolve_neg": lambda v: IDENTITY,
    "aten.conj": _real_identity,
    "aten.real": _real_identity,
    "aten.contiguous": _contiguous,
    "aten.to.dtype": _to, "aten.to.other": _to, "aten.to.dtype_layout": _to, "aten.to.device": _to,
    "aten.view": lambda v: v.reshape("aten.view_copy", v.props("size")),
    "aten.view_as": lambda v: v.reshape("aten.view_copy", {"size": shape_attribute(v.result_type.shape)}),
    "aten.unflatten.int": lambda v: v.reshape("aten.view_copy",
                                              {"size": shape_attribute(v.result_type.shape)}),
    "aten.unsqueeze": lambda v: v.reshape("aten.unsqueeze_copy", v.props("dim")),
    "aten.squeeze": lambda v: v.reshape("aten.squeeze_copy", {}),
    "aten.squeeze.dim": lambda v: v.reshape("aten.squeeze_copy.dim", v.props("dim")),
    "aten.squeeze.dims": lambda v: v.reshape("aten.squeeze_copy.dims", v.props("dim")),
    "aten.reshape": _maybe_view, "aten.reshape_as": _maybe_view,
    "aten.flatten.using_ints": _maybe_view, "aten.ravel": _maybe_view,
    "aten.select.int": _select,
    "aten.slice.Tensor": _slice,
    "aten.narrow": _narrow,
    "aten.diagonal": _diagonal, "aten.linalg_diagonal": _diagonal,
    "aten.as_strided": _as_strided,
    "aten.transpose.int": lambda v: v.swap(dim_of(v.prop("dim0")), dim_of(v.prop("dim1"))),
    "aten.swapaxes": lambda v: v.swap(dim_of(v.prop("axis0")), dim_of(v.prop("axis1"))),
    "aten.swapdims": lambda v: v.swap(dim_of(v.prop("dim0")), dim_of(v.prop("dim1"))),
    "aten.t": lambda v: v.step("permute", "aten.t_copy", {}, "aten.t_copy", {}),
    "aten.mT": lambda v: v.swap(-2, -1),
    "aten.permute": _permute,
    "aten.movedim.int": _movedim, "aten.movedim.intlist": _movedim,
    "aten.moveaxis.int": _movedim, "aten.moveaxis.intlist": _movedim,
    "aten.expand": _same("expand", "aten.expand_copy", "size", "implicit"),
    "aten.expand_as": lambda v: v.step("expand", "aten.expand_copy",
                                       {"size": shape_attribute(v.result_type.shape)}),
    "aten.broadcast_to": _same("expand", "aten.expand_copy", "size"),
    "aten.unfold": _same("unfold", "aten.unfold_copy", "dimension", "size", "step"),
    "aten.split.Tensor": _split, "aten.split.sizes": _split, "aten.split_with_sizes": _split,
    "aten.chunk": _split,
    "aten.unbind.int": _unbind,
    "aten.view.dtype": lambda v: v.step("dtype", "aten.view_copy.dtype", v.props("dtype"),
                                        "aten.view_copy.dtype",
                                        {"dtype": v.input_type.element_type}),
    "aten.view_as_real": _same("complex", "aten.view_as_real_copy",
                               inverse="aten.view_as_complex_copy"),
    "aten.view_as_complex": _same("complex", "aten.view_as_complex_copy",
                                  inverse="aten.view_as_real_copy"),
}


MAYBE_COPYING = frozenset(name for name, classify in _CLASSIFIERS.items()
                          if classify in (_maybe_view, _contiguous, _to))
"""View ops that copy instead for some inputs (Note [reshape aliasing])."""


def classify_view(op: AtenOp, result_index: int, is_contiguous: Callable[[], bool | None],
                  reshape_aliases: Callable[[tuple[Dim, ...]], bool | None]) -> object:
    """``IDENTITY``, a ``ViewStep`` or a ``Fresh`` copy for result ``result_index`` of ``op``."""
    classifier = _CLASSIFIERS.get(op.SCHEMA.op_name)
    if classifier is None:
        raise op_error(op, "is a view that functionalize cannot replace by a copy")
    return classifier(_View(op, result_index, is_contiguous, reshape_aliases))
