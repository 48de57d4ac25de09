"""Views as functionalize sees them: a step from an input to a result, its copy and inverse.

A ``ViewStep`` is one view (``view_kinds`` makes them from ATen
view ops): ``replay`` builds its copying form, which computes the view's value
from its input's (``aten.select.int`` -> ``aten.select_copy.int``), and
``scatter`` its inverse, which writes a new value of the view back into its
input (``aten.select_scatter``; for views that keep every element, the full
replacement ``view_copy`` back to the input's shape, or the transpose back).
See Note [view replay] in ``functionalize.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.ir.dims import Dim, canonical_dim
from hopc.ir.types import ExprAttr, NoneAttr, TensorType, dim_attribute


@dataclass(frozen=True, eq=False)
class ViewStep:
    """One view from an input to a result.

    ``kind`` says what sort of view it is: ``reshape`` keeps every element in
    order, ``as_strided`` addresses the storage of the base directly, ...
    """

    kind: str
    source: Operation
    copy_name: str
    copy_properties: dict[str, Attribute]
    input_type: TensorType
    result_type: TensorType
    inverse_name: str | None = None
    inverse_properties: dict[str, Attribute] = field(default_factory=dict)
    inverse_takes_input: bool = False
    """Whether the inverse scatters into the input (``select_scatter``) or replaces it."""

    def key(self) -> tuple:
        """Equal keys replay to equal values (used to compare the branches of a cond)."""
        return (self.copy_name, tuple(sorted(self.copy_properties.items(), key=lambda i: i[0])),
                self.input_type, self.result_type)


@dataclass(frozen=True)
class Fresh:
    """The op copies: it becomes ``name`` with ``properties``; ``doubtful`` if it might alias."""

    name: str
    properties: dict[str, Attribute]
    doubtful: bool = False


IDENTITY = object()


def build(name: str, groups: list[list[SSAValue]], properties: dict[str, Attribute],
          result_types: list[Attribute], origin: Operation) -> AtenOp:
    """Builds ``aten.<name>``, located at ``origin``."""
    cls = op_class(name)
    assert cls is not None, name
    new = cls.build_from_groups(groups, properties, result_types)
    new.location = origin.location
    return new


def replay(step: ViewStep, value: SSAValue, origin: Operation) -> AtenOp:
    """``step``'s copying form applied to ``value``."""
    return build(step.copy_name, [[value]], dict(step.copy_properties), [step.result_type], origin)


def scatter(step: ViewStep, input_value: SSAValue, new_value: SSAValue,
            origin: Operation) -> AtenOp:
    """The new value of ``step``'s input once its view has been set to ``new_value``."""
    assert step.inverse_name is not None
    groups = [[input_value], [new_value]] if step.inverse_takes_input else [[new_value]]
    return build(step.inverse_name, groups, dict(step.inverse_properties), [step.input_type], origin)


# --------------------------------------------------------------------------- attribute helpers


def shape_attribute(shape: tuple[Dim, ...]) -> ArrayAttr:
    return ArrayAttr([dim_attribute(d) for d in shape])


def dim_of(attribute: Attribute | None, default: Dim | None = None) -> Dim | None:
    """The int or expression an attribute holds; ``default`` when absent or ``#hop.none``."""
    if attribute is None or isinstance(attribute, NoneAttr):
        return default
    if isinstance(attribute, IntegerAttr):
        return attribute.value.data
    if isinstance(attribute, ExprAttr):
        return attribute.value
    raise ValueError(f"{attribute} is not an integer")


def ints_of(attribute: Attribute | None) -> list[int]:
    assert isinstance(attribute, ArrayAttr)
    return [a.value.data for a in attribute.data]  # type: ignore[attr-defined]


def add_dims(a: Dim, b: Dim) -> Dim:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return canonical_dim(f"({a}) + ({b})")
