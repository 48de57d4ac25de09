# RUN: %python %s | filecheck %s
# torch.cond -> hop.cond: the predicate, the operands both branches take, one region per branch.

import torch
from lit_helpers import run

import hopc


@run
def cond_on_tensor():
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))

    print(hopc.capture(program, (torch.randn(4),)))


# CHECK-LABEL: TEST: cond_on_tensor
# CHECK:       func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
# CHECK:         %[[SUM:.*]] = aten.sum(%x)
# CHECK:         %[[PRED:.*]] = aten.gt.Scalar(%[[SUM]]) {other = 0 : i64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
# CHECK:         %[[R:.*]] = hop.cond %[[PRED]](%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
# CHECK-NEXT:    ^bb0(%[[A:.*]]: !hop.tensor<[4], f32>):
# CHECK-NEXT:      %[[S:.*]] = aten.sin(%[[A]])
# CHECK-NEXT:      hop.yield %[[S]]
# CHECK-NEXT:    } else {
# CHECK-NEXT:    ^bb0(%[[B:.*]]: !hop.tensor<[4], f32>):
# CHECK-NEXT:      %[[C:.*]] = aten.cos(%[[B]])
# CHECK-NEXT:      hop.yield %[[C]]
# CHECK-NEXT:    }
# CHECK:         func.return %[[R]]


@run
def cond_on_size_with_closure():
    # The predicate is a symbolic boolean; the closed-over tensor becomes a constant operand.
    offset = torch.arange(3.0)

    def program(x):
        return torch.cond(x.shape[0] > 4, lambda x: x + offset, lambda x: x - offset, (x,))

    batch = torch.export.Dim("batch", min=2, max=32)
    print(hopc.capture(program, (torch.randn(5, 3),), dynamic_shapes=({0: batch},)))


# CHECK-LABEL: TEST: cond_on_size_with_closure
# CHECK:       hop.symbol @[[S:s[0-9]+]] backed [2, 32]
# CHECK:       hop.constant @[[OFFSET:.*]] = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32> : !hop.tensor<[3], f32>
# CHECK:       func.func @forward(%x: !hop.tensor<[[[S]], 3], f32>, %[[O:.*]]: !hop.tensor<[3], f32> {hop.constant = @[[OFFSET]]})
# CHECK:         %[[SIZE:.*]] = hop.sym_size %x[0] : !hop.tensor<[[[S]], 3], f32> -> !hop.symint<[[S]]>
# CHECK:         %[[FOUR:.*]] = hop.sym_constant : !hop.symint<4>
# CHECK:         %[[PRED:.*]] = hop.sym_gt %[[SIZE]], %[[FOUR]] : !hop.symint<[[S]]>, !hop.symint<4> -> !hop.symbool<Gt([[S]], 4)>
# CHECK:         hop.cond %[[PRED]](%x, %[[O]]) : !hop.symbool<Gt([[S]], 4)>, (!hop.tensor<[[[S]], 3], f32>, !hop.tensor<[3], f32>)
# CHECK:           aten.add.Tensor
# CHECK:         } else {
# CHECK:           aten.sub.Tensor


@run
def nested_cond():
    def program(x, y):
        def outer_then(x, y):
            return torch.cond(y.sum() > 0, lambda x, y: x + y, lambda x, y: x * y, (x, y))

        return torch.cond(x.sum() > 0, outer_then, lambda x, y: x - y, (x, y))

    print(hopc.capture(program, (torch.randn(2), torch.randn(2))))


# CHECK-LABEL: TEST: nested_cond
# CHECK:       hop.cond %{{.*}}(%x, %y)
# CHECK:         hop.cond %{{.*}}(%{{.*}}, %{{.*}})
# CHECK:           aten.add.Tensor
# CHECK:         } else {
# CHECK:           aten.mul.Tensor
# CHECK:       } else {
# CHECK:         aten.sub.Tensor


@run
def branches_with_different_unbacked_sizes():
    # Each branch yields its own data-dependent size; the result has a fresh symbol of its own.
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x[x > 0], lambda x: x[x < 0], (x,))

    print(hopc.capture(program, (torch.randn(6),)))


# CHECK-LABEL: TEST: branches_with_different_unbacked_sizes
# CHECK-DAG:   hop.symbol @[[T:u[0-9]+]] unbacked [0, 6]
# CHECK-DAG:   hop.symbol @[[E:u[0-9]+]] unbacked [0, 6]
# CHECK-DAG:   hop.symbol @[[R:u[0-9]+]] unbacked [0, 6]
# CHECK:       hop.cond %{{.*}}(%x) : !hop.tensor<[], i1>, (!hop.tensor<[6], f32>) -> !hop.tensor<[[[R]]], f32> then {
# CHECK:         hop.yield %{{.*}} : !hop.tensor<[[[T]]], f32>
# CHECK:       } else {
# CHECK:         hop.yield %{{.*}} : !hop.tensor<[[[E]]], f32>
