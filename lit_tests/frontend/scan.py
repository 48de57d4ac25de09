# RUN: %python %s | filecheck %s
# scan -> hop.scan: init, scanned operands (the body sees one slice), per-step outputs stacked.

import torch
from lit_helpers import run
from torch._higher_order_ops.scan import scan

import hopc


@run
def cumulative_sum():
    def program(init, xs):
        def combine(carry, x):
            carry = carry + x
            return carry, carry.clone()

        return scan(combine, init, xs)

    print(hopc.capture(program, (torch.zeros(3), torch.randn(5, 3))))


# CHECK-LABEL: TEST: cumulative_sum
# CHECK:       %[[C:.*]], %[[YS:.*]] = hop.scan init(%init) xs(%xs) additional() : (!hop.tensor<[3], f32>), (!hop.tensor<[5, 3], f32>), () -> !hop.tensor<[3], f32>, !hop.tensor<[5, 3], f32> {
# CHECK-NEXT:  ^bb0(%[[CARRY:.*]]: !hop.tensor<[3], f32>, %[[X:.*]]: !hop.tensor<[3], f32>):
# CHECK-NEXT:    %[[ADD:.*]] = aten.add.Tensor(%[[CARRY]], %[[X]])
# CHECK-NEXT:    %[[CLONE:.*]] = aten.clone(%[[ADD]])
# CHECK-NEXT:    hop.yield %[[ADD]], %[[CLONE]] : !hop.tensor<[3], f32>, !hop.tensor<[3], f32>
# CHECK:       func.return %[[C]], %[[YS]]


@run
def reverse_flips_operands():
    # scan(reverse=True) is a forward scan over flipped operands, as PyTorch implements it.
    def program(init, xs):
        return scan(lambda c, x: (c * x, c + x), init, xs, reverse=True)

    print(hopc.capture(program, (torch.ones(2), torch.randn(4, 2))))


# CHECK-LABEL: TEST: reverse_flips_operands
# CHECK:       %[[FLIPPED:.*]] = aten.flip(%xs) {dims = [0 : i64]}
# CHECK:       hop.scan init(%init) xs(%[[FLIPPED]])
# CHECK-NOT:   reverse
# CHECK:       aten.flip
