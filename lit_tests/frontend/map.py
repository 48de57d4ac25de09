# RUN: %python %s | filecheck %s
# map -> hop.map: the body runs on each slice along dim 0; extra operands are loop-invariant.

import torch
from lit_helpers import run
from torch._higher_order_ops.map import map as map_hop

import hopc


@run
def rows_times_matrix():
    def program(xs, w):
        return map_hop(lambda row, w: (row @ w).tanh(), xs, w)

    print(hopc.capture(program, (torch.randn(5, 3), torch.randn(3, 2))))


# CHECK-LABEL: TEST: rows_times_matrix
# CHECK:       %[[R:.*]] = hop.map xs(%xs) additional(%w) : (!hop.tensor<[5, 3], f32>), (!hop.tensor<[3, 2], f32>) -> !hop.tensor<[5, 2], f32> {
# CHECK-NEXT:  ^bb0(%[[ROW:.*]]: !hop.tensor<[3], f32>, %[[W:.*]]: !hop.tensor<[3, 2], f32>):
# CHECK-NEXT:    %[[MM:.*]] = aten.matmul(%[[ROW]], %[[W]]) : (!hop.tensor<[3], f32>, !hop.tensor<[3, 2], f32>) -> !hop.tensor<[2], f32>
# CHECK-NEXT:    %[[T:.*]] = aten.tanh(%[[MM]])
# CHECK-NEXT:    hop.yield %[[T]] : !hop.tensor<[2], f32>
# CHECK:       func.return %[[R]]
