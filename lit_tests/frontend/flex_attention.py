# RUN: %python %s | filecheck %s
# flex_attention -> hop.flex_attention: the score_mod and mask_mod graphs become the score and
# mask bodies, whose index block arguments no operand feeds; both take every captured buffer.

import warnings

import torch
from lit_helpers import run
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

import hopc
from hopc.ir.diagnostics import HopcError

warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")


@run
def bias_table_and_causal_mask():
    bias = torch.randn(2)
    mask = create_block_mask(lambda b, h, q_idx, kv_idx: q_idx >= kv_idx, None, None, 8, 8, device="cpu")

    def program(q, k, v):
        return flex_attention(q, k, v, score_mod=lambda s, b, h, q_idx, kv_idx: s + bias[h], block_mask=mask)

    print(hopc.capture(program, [torch.randn(1, 2, 8, 4) for _ in range(3)]))


# CHECK-LABEL: TEST: bias_table_and_causal_mask
# CHECK:       %[[O:.*]] = hop.flex_attention(%q, %k, %v) buffers(%[[BIAS:.*]]) {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), (!hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> score {
# CHECK-NEXT:  ^bb0(%[[S:.*]]: !hop.tensor<[], f32>, %{{.*}}: !hop.tensor<[], i32>, %[[H:.*]]: !hop.tensor<[], i32>, %{{.*}}: !hop.tensor<[], i32>, %{{.*}}: !hop.tensor<[], i32>, %[[TABLE:.*]]: !hop.tensor<[2], f32>):
# CHECK-NEXT:    %[[W:.*]] = aten.index.Tensor(%[[TABLE]], [%[[H]]])
# CHECK-NEXT:    %[[R:.*]] = aten.add.Tensor(%[[S]], %[[W]])
# CHECK-NEXT:    hop.yield %[[R]] : !hop.tensor<[], f32>
# CHECK-NEXT:  } mask {
# CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[], i32>, %{{.*}}: !hop.tensor<[], i32>, %[[M:.*]]: !hop.tensor<[], i32>, %[[N:.*]]: !hop.tensor<[], i32>, %{{.*}}: !hop.tensor<[2], f32>):
# CHECK-NEXT:    %[[KEEP:.*]] = aten.ge.Tensor(%[[M]], %[[N]])
# CHECK-NEXT:    hop.yield %[[KEEP]] : !hop.tensor<[], i1>
# CHECK:       func.return %[[O]]


@run
def return_lse_is_refused():
    mask = create_block_mask(lambda b, h, q_idx, kv_idx: q_idx >= kv_idx, None, None, 8, 8, device="cpu")

    def program(q, k, v):
        return flex_attention(q, k, v, block_mask=mask, return_lse=True)

    try:
        hopc.capture(program, [torch.randn(1, 2, 8, 4) for _ in range(3)])
    except HopcError as error:
        print(error)


# CHECK-LABEL: TEST: return_lse_is_refused
# CHECK:       flex_attention.py:[[# @LINE - 9]]:{{[0-9]+}}: error: unsupported: reading flex_attention's logsumexp or max_scores (return_lse=True)


@run
def without_block_mask():
    def program(q, k, v):
        return flex_attention(q, k, v, score_mod=lambda s, b, h, q_idx, kv_idx: s * 2)

    print(hopc.capture(program, [torch.randn(1, 2, 8, 4) for _ in range(3)]))


# No block mask: PyTorch's default, made inside the program under vmap, keeps every score; its
# block tables and the tensor constants their trace left are dropped
# (Note [flex attention block tables] in hopc.frontend.flex_attention_calls).
# CHECK-LABEL: TEST: without_block_mask
# CHECK-NOT:   hop.constant
# CHECK:       hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64}
# CHECK:       } mask {
# CHECK-NEXT:  ^bb0(%[[B:.*]]: !hop.tensor<[], i32>, %{{.*}}: !hop.tensor<[], i32>, %{{.*}}: !hop.tensor<[], i32>, %{{.*}}: !hop.tensor<[], i32>):
# CHECK-NEXT:    %[[ONES:.*]] = aten.new_ones(%[[B]]) {size = [], dtype = i1
# CHECK-NEXT:    hop.yield %[[ONES]] : !hop.tensor<[], i1>
