"""Tensors as module constants and back: ``hop.constant`` and the values of globals.

- ``constant_op(name, tensor)``: a ``hop.constant @name`` holding ``tensor``;
- ``tensor_value(name, tensor)``: the value attribute alone (for a
  ``hop.parameter``'s or ``hop.buffer``'s value, too);
- ``constant_tensor(op)``, ``global_value(op)``, ``value_tensor(value, type)``:
  the tensor a value holds;
- ``constant_bytes(op)``: its size in bytes.

Note [constant values]
~~~~~~~~~~~~~~~~~~~~~~
A value of at most ``INLINE_ELEMENT_LIMIT`` elements is inline,
``dense<[1.0, 2.0]> : tensor<2xf32>``, which a reader can check by eye; a
larger one is ``dense_resource<handle> : tensor<...>``, its bytes in the
file's resource section (``hopc.ir.resources``), as MLIR keeps large weights.
Both hold the raw little-endian elements, so converting either way is one
copy of the bytes (``torch.frombuffer``), never a Python list. Booleans are
one byte each: xDSL's inline ``i1`` stores true as ``0xff``, MLIR's blobs as
``0x01``; reading takes any nonzero byte as true. A resource handle is the
constant's name made an identifier (``handle_for``: ``0.weight`` ->
``_0.weight``), with a numeric suffix where the process's blob store holds
other bytes under it (Note [one blob store]). Captured weights are resources
whatever their size (Note [captured weights] in ``hopc.frontend.module_import``).
"""

from __future__ import annotations

import math

import torch
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, DenseResourceAttr
from xdsl.dialects.builtin import TensorType as BuiltinTensorType

from hopc.dialects.hop_module import BufferOp, ConstantOp, ParameterOp
from hopc.ir.resources import BLOBS, HANDLE, BlobOwner, blob_data, encode_blob, handle_for
from hopc.ir.types import TensorType
from hopc.torch_bridge.torch_values import dtype_of, element_type_of

INLINE_ELEMENT_LIMIT = 64
"""The most elements a constant prints inline as ``dense<...>``; a larger one is a
``dense_resource`` (Note [constant values])."""

SYMBOL_NAME = HANDLE
"""A bare symbol name, printed unquoted (``@lin.weight``) and usable as a resource handle as
it is. Any other non-empty name is a symbol name too, printed quoted (``@"0.weight"``)."""

TensorValue = DenseIntOrFPElementsAttr | DenseResourceAttr


def _raw_bytes(tensor: torch.Tensor) -> bytes:
    """The elements of ``tensor``, row-major, little-endian, as bytes (bool: one byte each)."""
    flat = tensor.detach().to("cpu").resolve_conj().resolve_neg().contiguous().reshape(-1)
    return flat.view(torch.uint8).numpy().tobytes()


def tensor_value(name: str, tensor: torch.Tensor, owner: BlobOwner | None = None, *,
                 resource: bool = False) -> TensorValue:
    """The value attribute holding ``tensor``'s elements: inline up to ``INLINE_ELEMENT_LIMIT``
    elements (unless ``resource``), else a ``dense_resource`` whose handle is made from
    ``name``, its blob held by ``owner`` or for good (Note [constant values], Note [owned
    blobs] in ``hopc.ir.resources``). ValueError for a dtype hopc's types do not hold."""
    shaped = BuiltinTensorType(element_type_of(tensor.dtype), list(tensor.shape))
    if not resource and tensor.numel() <= INLINE_ELEMENT_LIMIT:
        if tensor.dtype == torch.bool:  # xDSL's inline form of true is 0xff
            tensor = tensor.to(torch.int8).neg()
        return DenseIntOrFPElementsAttr(shaped, BytesAttr(_raw_bytes(tensor)))
    blob = encode_blob(_raw_bytes(tensor), tensor.element_size())
    return DenseResourceAttr.from_params(BLOBS.intern(handle_for(name), blob, owner), shaped)


def constant_op(name: str, tensor: torch.Tensor, owner: BlobOwner | None = None) -> ConstantOp:
    """``hop.constant @name = <tensor's elements> : ...`` (Note [constant values]), a blob
    it needs held by ``owner`` (``tensor_value``).

    ValueError where ``name`` is empty (a symbol name is any other string, printed quoted
    where it is not an identifier: ``@"0.weight"``) or hopc's types do not hold ``tensor``'s
    dtype. The op keeps a copy: later changes to ``tensor`` do not reach it.
    """
    if not name:
        raise ValueError("a constant's name is a symbol name, which is never empty")
    value = tensor_value(name, tensor, owner)
    return ConstantOp(name, value, TensorType(tuple(tensor.shape), value.type.get_element_type()))


def value_tensor(value: TensorValue, tensor_type: TensorType) -> torch.Tensor:
    """A fresh CPU tensor holding the elements of ``value``, of type ``tensor_type``
    (a verified global's value and type). KeyError for a resource without a blob."""
    dtype = dtype_of(tensor_type.element_type)
    shape = [int(dim) for dim in tensor_type.shape]
    if isinstance(value, DenseResourceAttr):
        handle = value.resource_handle.data
        blob = BLOBS.blob(handle)
        if blob is None:
            raise KeyError(f"dense_resource<{handle}> has no blob")
        data = blob_data(blob)
    else:
        data = value.data.data
    if not data:
        return torch.empty(shape, dtype=dtype)
    if dtype == torch.bool:
        return torch.frombuffer(bytearray(data), dtype=torch.uint8).ne(0).reshape(shape)
    return torch.frombuffer(bytearray(data), dtype=dtype).reshape(shape)


def constant_tensor(op: ConstantOp) -> torch.Tensor:
    """The value of a ``hop.constant`` as a fresh CPU tensor."""
    assert isinstance(op.tensor_type, TensorType)
    return value_tensor(op.value, op.tensor_type)


def global_value(op: ParameterOp | BufferOp | ConstantOp) -> torch.Tensor | None:
    """The value of a module global as a fresh CPU tensor; None for a parameter or buffer
    declared without one."""
    if op.value is None:
        return None
    assert isinstance(op.tensor_type, TensorType)
    return value_tensor(op.value, op.tensor_type)


def constant_bytes(op: ParameterOp | BufferOp | ConstantOp) -> int:
    """The size in bytes of the elements of a global of static shape (not of its text)."""
    assert isinstance(op.tensor_type, TensorType)
    elements = math.prod(int(dim) for dim in op.tensor_type.shape)
    return elements * dtype_of(op.tensor_type.element_type).itemsize
