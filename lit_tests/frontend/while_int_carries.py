# RUN: %python %s | filecheck %s
# while_loop carrying a Python int -> a 0-d i64 tensor carry, converted at the loop boundary (Note [int carries]).

import torch
from lit_helpers import run
from torch._higher_order_ops.while_loop import while_loop

import hopc


@run
def python_int_counter():
    def program(x):
        return while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x + 1), (0, x))

    print(hopc.capture(program, (torch.randn(4),)))


# CHECK-LABEL: TEST: python_int_counter
# CHECK:       func.func @forward(%x: !hop.tensor<[4], f32>) -> (!hop.symint<[[OUT:.*]]>, !hop.tensor<[4], f32>)
# CHECK-NEXT:    %[[ZERO:.*]] = aten.scalar_tensor() {s = 0 : i64, dtype = i64} : () -> !hop.tensor<[], i64>
# CHECK-NEXT:    %[[I:.*]], %[[Y:.*]] = hop.while(%[[ZERO]], %x) : (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) cond {
# CHECK-NEXT:    ^bb0(%[[CT:.*]]: !hop.tensor<[], i64>, %{{.*}}: !hop.tensor<[4], f32>):
# CHECK-NEXT:      %[[CI:.*]] = hop.item %[[CT]] : !hop.tensor<[], i64> -> !hop.symint<[[U:.*]]>
# CHECK:           %[[LT:.*]] = hop.sym_lt %[[CI]]
# CHECK-NEXT:      hop.yield %[[LT]]
# CHECK-NEXT:    } body {
# CHECK-NEXT:    ^bb0(%[[BT:.*]]: !hop.tensor<[], i64>, %{{.*}}: !hop.tensor<[4], f32>):
# CHECK-NEXT:      %[[BI:.*]] = hop.item %[[BT]] : !hop.tensor<[], i64> -> !hop.symint<[[V:.*]]>
# CHECK:           %[[NEXT:.*]] = hop.sym_add %[[BI]]
# CHECK:           %[[NT:.*]] = aten.scalar_tensor() {s = #hop.expr<[[V]] + 1>, dtype = i64} : () -> !hop.tensor<[], i64>
# CHECK-NEXT:      hop.yield %[[NT]], %{{.*}} : !hop.tensor<[], i64>, !hop.tensor<[4], f32>
# CHECK-NEXT:    }
# CHECK-NEXT:    %[[RESULT:.*]] = hop.item %[[I]] : !hop.tensor<[], i64> -> !hop.symint<[[OUT]]>
# CHECK-NEXT:    func.return %[[RESULT]], %[[Y]]
