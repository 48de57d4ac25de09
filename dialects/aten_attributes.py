"""Which attribute may carry a non-tensor argument of each ATen schema type.

Every argument of an ``aten`` op that is not a tensor is a property of the op
(``hopc.dialects.aten``), and ``AtenOp.verify_`` checks each with
``attribute_fits``: an ``int`` or ``SymInt`` is an integer or a ``#hop.expr``, a
``float`` a float or an integer, a ``bool`` an ``i1``, a ``Scalar`` any number,
a ``ScalarType`` an element type of ``DTYPES``, a ``str`` a string, and a
``Device``, ``Layout`` or ``MemoryFormat`` a string too, whose value
``hopc.dialects.aten_enums`` checks; ``None`` for an optional type is
``#hop.none``, and a list is an ``ArrayAttr`` of its elements' attributes. A
schema type not named here (``Generator``, ``Dimname``, ...) takes any attribute.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Attribute

from hopc.ir.types import DTYPE_NAME_BY_ELEMENT_TYPE, ExprAttr, NoneAttr


def attribute_fits(schema_type: str, attribute: Attribute) -> bool:
    """Whether ``attribute`` can carry a value of the schema type ``schema_type``."""
    if schema_type.endswith("?"):
        if isinstance(attribute, NoneAttr):
            return True
        schema_type = schema_type[:-1]
    if schema_type.endswith("]"):
        if not isinstance(attribute, ArrayAttr):
            return False
        element_type = schema_type[: schema_type.index("[")]
        return all(attribute_fits(element_type, a) for a in attribute.data)
    if schema_type == "ScalarType":
        return _is_element_type(attribute)
    checks = _ATTRIBUTE_CHECKS.get(schema_type)
    return True if checks is None else isinstance(attribute, checks) and _integer_width_ok(
        schema_type, attribute
    )


def _integer_width_ok(schema_type: str, attribute: Attribute) -> bool:
    if schema_type == "bool":
        return isinstance(attribute.type, IntegerType) and attribute.type.width.data == 1  # type: ignore[attr-defined]
    return True


def _is_element_type(attribute: Attribute) -> bool:
    return attribute in DTYPE_NAME_BY_ELEMENT_TYPE


_ATTRIBUTE_CHECKS: dict[str, tuple[type, ...]] = {
    "int": (IntegerAttr, ExprAttr),
    "SymInt": (IntegerAttr, ExprAttr),
    "float": (FloatAttr, IntegerAttr),
    "bool": (IntegerAttr,),
    "Scalar": (IntegerAttr, FloatAttr, ExprAttr),
    "str": (StringAttr,),
    "Device": (StringAttr,),
    "Layout": (StringAttr,),
    "MemoryFormat": (StringAttr,),
}
