"""Result types of ATen ops, inferred with PyTorch's meta kernels under symbolic shapes.

``infer_result_types`` is the op form of the shared tracer
(``hopc.torch_bridge.op_result_types.SHARED_TRACER``, built on ``hopc.torch_bridge.op_tracer``):
the overload runs on fake tensors whose sizes are our shape symbols, and the
sizes of its results come back as our expression text. A data-dependent size
(``nonzero``) gets a fresh unbacked symbol from ``fresh_symbol``. Builders
(``hopc.torch_bridge.aten_builders``) use it when they make a new op; the parser
and verifier never import torch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from xdsl.ir import Attribute

from hopc.dialects.aten_schema import Schema
from hopc.ir.types import TensorType
from hopc.torch_bridge.op_result_types import SHARED_TRACER
from hopc.torch_bridge.torch_symbolic import SymbolFacts


def infer_result_types(schema: Schema, operand_types: Sequence[Sequence[TensorType]],
                       properties: Mapping[str, Attribute],
                       fresh_symbol: Callable[[], str] | None = None,
                       tensor_list_nones: Mapping[str, Sequence[int]] | None = None,
                       symbols: Mapping[str, SymbolFacts] | None = None,
                       ) -> list[Attribute]:
    """The result types of ``schema``'s op on operands of ``operand_types``.

    ``operand_types`` has one list per tensor argument (``schema.operand_arguments``);
    ``properties`` holds the non-default non-tensor arguments. Raises HopcError when
    PyTorch's meta kernel rejects the arguments or the trace guards (Note [trace guards]).
    """
    return SHARED_TRACER.result_types(schema, operand_types, properties, symbols=symbols,
                                      fresh_symbol=fresh_symbol,
                                      tensor_list_nones=tensor_list_nones)
