"""``!kernel.buffer``: the storage that a ``kernel.launch`` writes a result into.

A buffer type gives the shape, element type, strides and device of one
tensor's storage (Note [kernel level] in ``hopc.dialects.kernel``, which
registers it). Strides are ints or expressions over shape symbols, one per
dimension; a buffer made without strides is contiguous (row-major,
``contiguous_strides``).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence

from xdsl.ir import Attribute, Data, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from hopc.ir.dims import Dim, canonical_dim, format_dim, shape_symbols, simple_arithmetic
from hopc.ir.types import (
    DTYPE_NAME_BY_ELEMENT_TYPE,
    TensorType,
    _BodyError,
    _dims,
    _split_top_level,
    _tensor_parameters,
    parse_type_body,
    shape_text,
)

DEVICES = ("cpu", "cuda")
"""The devices a buffer, and a kernel-level module, may be on."""


def contiguous_strides(shape: Sequence[Dim]) -> tuple[Dim, ...]:
    """Row-major strides of ``shape``: the last dimension's is 1."""
    strides: list[Dim] = []
    running: Dim = 1
    for dim in reversed(shape):
        strides.append(running)
        product = simple_arithmetic(operator.mul, running, dim)
        running = product if product is not None else canonical_dim(f"({running})*({dim})")
    return tuple(reversed(strides))


@irdl_attr_definition
class BufferType(Data[tuple[tuple[Dim, ...], Attribute, tuple[Dim, ...], str]], TypeAttribute):
    """Storage for one tensor: ``!kernel.buffer<[s0, 16], f32, [16, 1], cpu>``.

    Shape, element type, strides (one per dimension, ints or expressions over
    shape symbols) and device. Invariant: as many strides as dimensions, the
    device one of ``DEVICES``.
    """

    name = "kernel.buffer"

    def __init__(self, shape: Iterable[Dim] | tuple, element_type: Attribute | None = None,
                 strides: Iterable[Dim] | None = None, device: str = "cpu"):
        if element_type is None:  # xDSL's parser passes the parsed (shape, type, strides, device)
            shape, element_type, strides, device = shape  # type: ignore[misc]
        dims = TensorType(shape, element_type).shape
        strides = contiguous_strides(dims) if strides is None else tuple(
            s if isinstance(s, int) else canonical_dim(s) for s in strides)
        super().__init__((dims, element_type, strides, device))

    @staticmethod
    def of(tensor: TensorType, device: str) -> BufferType:
        """A contiguous buffer holding a value of type ``tensor``."""
        return BufferType(tensor.shape, tensor.element_type, None, device)

    @property
    def shape(self) -> tuple[Dim, ...]:
        return self.data[0]

    @property
    def element_type(self) -> Attribute:
        return self.data[1]

    @property
    def strides(self) -> tuple[Dim, ...]:
        return self.data[2]

    @property
    def device(self) -> str:
        return self.data[3]

    @property
    def dtype_name(self) -> str:
        return DTYPE_NAME_BY_ELEMENT_TYPE[self.element_type]

    def tensor_type(self) -> TensorType:
        """The type of a tensor stored in this buffer."""
        return TensorType(self.shape, self.element_type)

    def free_symbols(self) -> frozenset[str]:
        return shape_symbols(self.shape) | shape_symbols(self.strides)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[tuple[Dim, ...], Attribute, tuple[Dim, ...], str]:
        return parse_type_body(parser, _buffer_parameters)

    def print_parameter(self, printer: Printer) -> None:
        strides = ", ".join(format_dim(s) for s in self.strides)
        printer.print_string(f"<{shape_text(self.shape, self.element_type)}, [{strides}], {self.device}>")

    def verify(self) -> None:
        if len(self.strides) != len(self.shape):
            raise VerifyException(f"!kernel.buffer has {len(self.shape)} dimensions but "
                                  f"{len(self.strides)} strides")
        if self.device not in DEVICES:
            raise VerifyException(f"!kernel.buffer has unknown device '{self.device}' "
                                  f"(expected one of {', '.join(DEVICES)})")


def _buffer_parameters(body: str) -> tuple[tuple[Dim, ...], Attribute, tuple[Dim, ...], str]:
    """``[s0, 16], f32, [16, 1], cpu`` as (shape, element type, strides, device)."""
    pieces = _split_top_level(body)
    if len(pieces) != 4:
        raise _BodyError("expected '[dims], element-type, [strides], device' in !kernel.buffer", 0)
    (shape_text, _), (element_text, element_at), (strides_text, strides_at), (device_text, _) = pieces
    shape, element_type = _tensor_parameters(f"{shape_text},{element_text}")
    stripped = strides_text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        raise _BodyError("expected '[strides]' after the element type", strides_at)
    open_at = strides_at + strides_text.index("[") + 1
    strides = _dims(stripped[1:-1], open_at)
    return shape, element_type, strides, device_text.strip()
