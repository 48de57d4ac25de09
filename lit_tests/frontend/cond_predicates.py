# RUN: %python %s | filecheck %s
# A cond predicate that is a one-element tensor of another dtype -> bool(pred) as a 0-d i1 tensor.

import torch
from lit_helpers import run

import hopc


@run
def integer_predicate():
    def program(x, flag):
        return torch.cond(flag, lambda x: x.sin(), lambda x: x.cos(), (x,))

    print(hopc.capture(program, (torch.randn(4), torch.tensor(1))))


# CHECK-LABEL: TEST: integer_predicate
# CHECK:       %[[NE:.*]] = aten.ne.Scalar(%flag) {other = 0 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
# CHECK-NOT:   aten.reshape
# CHECK-NEXT:  hop.cond %[[NE]](%x) : !hop.tensor<[], i1>


@run
def one_element_float_predicate():
    def program(x, flag):
        return torch.cond(flag, lambda x: x.sin(), lambda x: x.cos(), (x,))

    print(hopc.capture(program, (torch.randn(4), torch.ones(1, 1))))


# CHECK-LABEL: TEST: one_element_float_predicate
# CHECK:       %[[NE:.*]] = aten.ne.Scalar(%flag) {other = 0 : i64} : (!hop.tensor<[1, 1], f32>) -> !hop.tensor<[1, 1], i1>
# CHECK-NEXT:  %[[SCALAR:.*]] = aten.reshape(%[[NE]]) {shape = []} : (!hop.tensor<[1, 1], i1>) -> !hop.tensor<[], i1>
# CHECK-NEXT:  hop.cond %[[SCALAR]](%x) : !hop.tensor<[], i1>


@run
def boolean_predicate_unchanged():
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))

    print(hopc.capture(program, (torch.randn(4),)))


# CHECK-LABEL: TEST: boolean_predicate_unchanged
# CHECK-NOT:   aten.ne.Scalar
# CHECK:       %[[GT:.*]] = aten.gt.Scalar
# CHECK-NEXT:  hop.cond %[[GT]](%x)
