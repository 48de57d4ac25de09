# RUN: %python %s | filecheck %s
# math.floor, math.ceil, int() (math.trunc) and round on symbolic numbers are
# hop.sym_floor, hop.sym_ceil, hop.sym_trunc and hop.sym_round: integers from
# floats (Note [rounding expressions]) that slice and size tensors.

import math

import torch
from lit_helpers import run

import hopc

torch._dynamo.config.capture_scalar_outputs = True


@run
def floor_of_half_a_read_integer():
    def program(x, i):
        return x[: math.floor(i.item() / 2)]

    print(hopc.capture(program, (torch.randn(6, 3), torch.tensor(5))))


# CHECK-LABEL: TEST: floor_of_half_a_read_integer
# CHECK:         %[[ITEM:.*]] = hop.item %i : !hop.tensor<[], i64> -> !hop.symint<[[K:u[0-9]+]]>
# CHECK:         %[[HALF:.*]] = hop.sym_truediv %[[ITEM]], %{{.*}} : !hop.symint<[[K]]>, !hop.symint<2> -> !hop.symfloat<[[K]] / 2>
# CHECK:         %{{.*}} = hop.sym_floor %[[HALF]] : !hop.symfloat<[[K]] / 2> -> !hop.symint<floor([[K]] / 2)>
# CHECK:         aten.slice.Tensor(%x) {start = 0 : i64, end = #hop.expr<floor([[K]] / 2)>}


@run
def roundings_of_a_read_float():
    def program(x, f):
        g = f.item()
        return torch.ones(int(g)) * round(g) + math.ceil(g)

    print(hopc.capture(program, (torch.randn(5), torch.tensor(2.5))))


# CHECK-LABEL: TEST: roundings_of_a_read_float
# CHECK:       hop.symbol @[[F:zuf[0-9]+]] unbacked float
# CHECK:         %[[ITEM:.*]] = hop.item %f : !hop.tensor<[], f32> -> !hop.symfloat<[[F]]>
# CHECK:         hop.sym_trunc %[[ITEM]] : !hop.symfloat<[[F]]> -> !hop.symint<trunc([[F]])>
# CHECK:         aten.ones() {size = [#hop.expr<trunc([[F]])>], {{.*}}} : () -> !hop.tensor<[trunc([[F]])], f32>
# CHECK:         hop.sym_round %[[ITEM]] : !hop.symfloat<[[F]]> -> !hop.symint<round([[F]])>
# CHECK:         hop.sym_ceil %[[ITEM]] : !hop.symfloat<[[F]]> -> !hop.symint<ceil([[F]])>
