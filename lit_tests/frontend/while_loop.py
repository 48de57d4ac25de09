# RUN: %python %s | filecheck %s
# while_loop -> hop.while: carried values, then additional (loop-invariant) ones; both regions take both.

import torch
from lit_helpers import run
from torch._higher_order_ops.while_loop import while_loop

import hopc


@run
def counter_and_closure():
    def program(x, w):
        def body(i, acc):
            return i + 1, acc * 0.5 + w

        return while_loop(lambda i, acc: i < 3, body, (torch.tensor(0), x))

    print(hopc.capture(program, (torch.randn(4), torch.randn(4))))


# CHECK-LABEL: TEST: counter_and_closure
# CHECK:       hop.constant @[[ZERO:.*]] = dense<0> : tensor<i64> : !hop.tensor<[], i64>
# CHECK:       func.func @forward(%x: !hop.tensor<[4], f32>, %w: !hop.tensor<[4], f32>, %[[Z:.*]]: !hop.tensor<[], i64> {hop.constant = @[[ZERO]]})
# CHECK:         %[[I:.*]] = aten.lift_fresh_copy(%[[Z]])
# CHECK:         %[[I2:.*]] = aten.detach_(%[[I]])
# CHECK:         %{{.*}}, %{{.*}} = hop.while(%[[I2]], %x) additional(%w) : (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>), !hop.tensor<[4], f32> cond {
# CHECK-NEXT:    ^bb0(%[[CI:.*]]: !hop.tensor<[], i64>, %{{.*}}: !hop.tensor<[4], f32>, %{{.*}}: !hop.tensor<[4], f32>):
# CHECK-NEXT:      %[[LT:.*]] = aten.lt.Scalar(%[[CI]]) {other = 3 : i64}
# CHECK-NEXT:      hop.yield %[[LT]] : !hop.tensor<[], i1>
# CHECK-NEXT:    } body {
# CHECK-NEXT:    ^bb0(%[[BI:.*]]: !hop.tensor<[], i64>, %[[ACC:.*]]: !hop.tensor<[4], f32>, %[[W:.*]]: !hop.tensor<[4], f32>):
# CHECK-NEXT:      %[[NEXT:.*]] = aten.add.Scalar(%[[BI]]) {other = 1 : i64}
# CHECK-NEXT:      %[[HALF:.*]] = aten.mul.Scalar(%[[ACC]]) {other = 5.000000e-01 : f64}
# CHECK-NEXT:      %[[SUM:.*]] = aten.add.Tensor(%[[HALF]], %[[W]])
# CHECK-NEXT:      hop.yield %[[NEXT]], %[[SUM]]
