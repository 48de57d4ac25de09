# RUN: %python %s | filecheck %s
# wrap -> hop.wrap: a body called once, with the tensors it reads as explicit operands.

import torch
from lit_helpers import run
from torch._higher_order_ops.wrap import wrap

import hopc


@run
def wrap_with_closure():
    def program(x, y):
        return wrap(lambda a: a.sin() * y, x) + 1

    print(hopc.capture(program, (torch.randn(4), torch.randn(4))))


# CHECK-LABEL: TEST: wrap_with_closure
# CHECK:       %[[W:.*]] = hop.wrap(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
# CHECK-NEXT:  ^bb0(%[[A:.*]]: !hop.tensor<[4], f32>, %[[B:.*]]: !hop.tensor<[4], f32>):
# CHECK-NEXT:    %[[S:.*]] = aten.sin(%[[A]])
# CHECK-NEXT:    %[[M:.*]] = aten.mul.Tensor(%[[S]], %[[B]])
# CHECK-NEXT:    hop.yield %[[M]]
# CHECK-NEXT:  }
# CHECK-NEXT:  aten.add.Scalar(%[[W]]) {other = 1 : i64}


@run
def wrap_inside_wrap():
    def program(x):
        return wrap(lambda a: wrap(lambda b: b.exp(), a) * 2, x)

    print(hopc.capture(program, (torch.randn(4),)))


# CHECK-LABEL: TEST: wrap_inside_wrap
# CHECK:       hop.wrap(%x)
# CHECK:         hop.wrap(%{{.*}})
# CHECK:           aten.exp
# CHECK:         aten.mul.Scalar
