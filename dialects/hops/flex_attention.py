"""``hop.flex_attention``: attention whose scores a ``score`` body changes and a ``mask`` body masks.

Registered and re-exported by ``hopc.dialects.hop``. Its bodies are the first
HOP regions whose block arguments no operand feeds: the indices ``b``, ``h``,
``q_idx``, ``kv_idx`` (``NoOperand``), which the op supplies itself.

Note [flex attention semantics]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``hop.flex_attention`` computes what PyTorch's ``flex_attention`` HOP computes
in eager mode (``torch._higher_order_ops.flex_attention.math_attention``),
the dense math over every query and key position (Python, not IR):

    scores[b, h, m, n] = (query @ key.transpose(-2, -1))[b, h, m, n] * scale
    kept[b, h, m, n]   = mask(b, h, m, n, *buffers)
    scores[b, h, m, n] = score(scores[b, h, m, n], b, h, m, n, *buffers) if kept else -inf
    output = safe_softmax(scores, dim=-1) @ value     # a row with nothing kept gives zeros

Each body is elementwise: it sees one score and four 0-d ``i32`` indices, as
``score_mod`` and ``mask_mod`` do, and runs once per position (PyTorch runs
it under ``vmap``). The block mask's sparse block tables are not operands:
eager's math reads only its ``mask_mod``, and so does this op; a block mask
made by ``create_block_mask`` from that ``mask_mod`` agrees with it. The
captured buffers (``score_mod_other_buffers``, ``mask_mod_other_buffers``)
are one operand group, ``buffers``, which both bodies take last, so that it
is the op's loop-invariant operands (where ``lift-symbols`` appends).
Restrictions: query, key and value are f32 or f64 tensors of rank 4 (eager
computes a 16-bit query's scores in f32, which its ``score_mod``, traced on
16-bit scores, does not take) and share their batch size, query and key their
last size, key and value their heads and length; the key's heads divide the
query's (grouped-query attention: each key and value head serves that many
consecutive query heads, as ``repeat_interleave`` along dim 1 makes them,
and ``h`` counts query heads); the score body
yields a score of the type it takes; PyTorch's ``lse`` and ``max_scores``
results are not the op's (the frontend refuses a program that reads them).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import Float64Type, FloatAttr
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import describe
from hopc.dialects.hop_interface import (
    FunctionalBodies,
    HopRegionInterface,
    NoOperand,
    Operand,
    RegionEntry,
    RunCount,
)
from hopc.dialects.hop_yield import YieldOp
from hopc.ir.types import DTYPES, TensorType

INDEX_TYPE = TensorType((), DTYPES["int32"])
"""The type of each index block argument (``b``, ``h``, ``q_idx``, ``kv_idx``), as PyTorch traces them."""

INDEX_COUNT = 4

_PRECISIONS = (DTYPES["float32"], DTYPES["float64"])
"""The element types eager's math computes the scores in, and the operands' (the Note's restrictions)."""


class FlexAttentionInterface(HopRegionInterface):
    """``hop.flex_attention``: the ``score`` body takes a score, the four indices, then
    ``buffers``; the ``mask`` body the four indices, then ``buffers``. Each runs once per
    (b, h, q_idx, kv_idx); none of its yields is a result of the op."""

    @classmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        buffers = tuple(Operand(p) for p in cls.invariant_operands(op))
        indices = (NoOperand(),) * INDEX_COUNT
        return (RegionEntry(op.regions[0], (NoOperand(), *indices, *buffers), RunCount.ANY),
                RegionEntry(op.regions[1], (*indices, *buffers), RunCount.ANY))

    @classmethod
    def invariant_operands(cls, op: Operation) -> range:
        return range(3, len(op.operands))


@irdl_op_definition
class FlexAttentionOp(IRDLOperation):
    """PyTorch's ``flex_attention``: softmax attention with a score body and a mask body.

        def flex_attention(query, key, value, score, mask, scale, *buffers):
            ...  # Note [flex attention semantics]

    Example (a per-head bias and a causal mask)::

        %o = hop.flex_attention(%q, %k, %v) buffers(%bias) {scale = 5.000000e-01 : f64}
            : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>),
              (!hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> score {
        ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>,
             %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>, %table: !hop.tensor<[2], f32>):
          %w = aten.index.Tensor(%table, [%h])
              : (!hop.tensor<[2], f32>, !hop.tensor<[], i32>) -> !hop.tensor<[], f32>
          %r = aten.add.Tensor(%s, %w) : (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[], f32>
          hop.yield %r : !hop.tensor<[], f32>
        } mask {
        ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>,
             %n2: !hop.tensor<[], i32>, %table2: !hop.tensor<[2], f32>):
          %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
          hop.yield %keep : !hop.tensor<[], i1>
        }

    Restrictions: those of Note [flex attention semantics]; the score body yields one score
    (its first block argument's type), the mask body one 0-d ``i1`` tensor.
    """

    name = "hop.flex_attention"
    query = operand_def(TensorType)
    key = operand_def(TensorType)
    value = operand_def(TensorType)
    buffers = var_operand_def()
    output = result_def(TensorType)
    scale = prop_def(FloatAttr)
    score = region_def("single_block")
    mask = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp), FlexAttentionInterface(),
                        FunctionalBodies())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "`(` $query `,` $key `,` $value `)` `buffers` `(` $buffers `)` attr-dict `:` "
        "`(` type($query) `,` type($key) `,` type($value) `)` `,` `(` type($buffers) `)` "
        "`->` type($output) `score` $score `mask` $mask"
    )

    def __init__(self, query: SSAValue, key: SSAValue, value: SSAValue, buffers: Sequence[SSAValue],
                 scale: float, score: Region, mask: Region):
        query_type, value_type = query.type, value.type
        assert isinstance(query_type, TensorType) and isinstance(value_type, TensorType)
        output_type = TensorType((*query_type.shape[:3], value_type.shape[3]), query_type.element_type)
        super().__init__(operands=[query, key, value, buffers], result_types=[output_type],
                         properties={"scale": FloatAttr(scale, Float64Type())},
                         regions=[score, mask])

    @property
    def scale_value(self) -> float:
        return self.scale.value.data

    def verify_(self) -> None:
        query, key, value = self._checked_attention_types()
        expected = TensorType((*query.shape[:3], value.shape[3]), query.element_type)
        if self.output.type != expected:
            raise VerifyException(f"'hop.flex_attention' result has type {self.output.type}, expected {expected}")
        buffer_types = [v.type for v in self.buffers]
        score_type = TensorType((), query.element_type)
        _check_body(self.score, "score", [score_type, *(INDEX_TYPE,) * INDEX_COUNT, *buffer_types], score_type)
        _check_body(self.mask, "mask", [*(INDEX_TYPE,) * INDEX_COUNT, *buffer_types], TensorType((), DTYPES["bool"]))

    def _checked_attention_types(self) -> tuple[TensorType, TensorType, TensorType]:
        """query ``[B, H, L, E]``, key ``[B, Hkv, S, E]``, value ``[B, Hkv, S, Ev]`` with ``Hkv``
        dividing ``H``, f32 or f64."""
        types = []
        for role, operand in (("query", self.query), ("key", self.key), ("value", self.value)):
            type_ = operand.type
            if not isinstance(type_, TensorType) or type_.rank != 4 or type_.element_type not in _PRECISIONS:
                raise VerifyException(f"'hop.flex_attention' {role} {describe(operand)} has type {type_}, "
                                      "expected an f32 or f64 tensor of rank 4")
            types.append(type_)
        query, key, value = types
        for role, operand, type_, other, dims in (("key", self.key, key, query, (0, 3)),
                                                  ("value", self.value, value, key, (0, 1, 2))):
            if any(type_.shape[d] != other.shape[d] for d in dims):
                raise VerifyException(
                    f"'hop.flex_attention' {role} {describe(operand)} has type {type_}, which does not fit "
                    f"{other} in dims {list(dims)} (same batch; key: query's last size; value: key's heads "
                    "and length)")
        if query_groups(query, key) is None:
            raise VerifyException(
                f"'hop.flex_attention' key {describe(self.key)} has {key.shape[1]} heads, which do not divide "
                f"the {query.shape[1]} heads of query {describe(self.query)} (grouped-query attention)")
        return query, key, value


def query_groups(query: TensorType, key: TensorType) -> int | None:
    """How many query heads share each key head (1 without grouped-query attention); None
    where the key's heads do not divide the query's (or differ from them symbolically)."""
    query_heads, key_heads = query.shape[1], key.shape[1]
    if query_heads == key_heads:
        return 1
    if isinstance(query_heads, int) and isinstance(key_heads, int) and key_heads and query_heads % key_heads == 0:
        return query_heads // key_heads
    return None


def _check_body(region: Region, region_name: str, argument_types: list[Attribute], yield_type: Attribute) -> None:
    """The block arguments have ``argument_types``; the body yields one value of ``yield_type``."""
    block = region.block
    actual = [a.type for a in block.args]
    if actual != argument_types:
        raise VerifyException(
            f"'hop.flex_attention' {region_name} region arguments: expected "
            f"({', '.join(map(str, argument_types))}), got ({', '.join(map(str, actual))})")
    yielded = block.last_op.operands if block.last_op is not None else ()
    if [v.type for v in yielded] != [yield_type]:
        got = ", ".join(str(v.type) for v in yielded)
        raise VerifyException(f"'hop.flex_attention' {region_name} region yields ({got}), expected {yield_type}")


OPERATIONS = (FlexAttentionOp,)
"""The ops of this module that the ``hop`` dialect registers (``hopc.dialects.hops.operations``)."""
