# RUN: %python %s | filecheck %s
# Float values of sizes and data are symbolic floats (Note [float expressions] in
# hopc.ir.symbolic_float): math.sqrt of a dynamic size, true division and a float
# power of a size, a float .item(), a boolean .item() as torch.cond's predicate.

import math

import torch
from lit_helpers import run
from torch.export import Dim

import hopc


@run
def scaled_by_sqrt_of_dynamic_size():
    def program(x):
        return x / math.sqrt(x.size(-1))

    print(hopc.capture(program, (torch.randn(3, 5),), dynamic_shapes=({1: Dim("n")},)))


# CHECK-LABEL: TEST: scaled_by_sqrt_of_dynamic_size
# CHECK:       hop.symbol @[[N:s[0-9]+]] backed [2, oo]
# CHECK:       func.func @forward(%x: !hop.tensor<[3, [[N]]], f32>) -> !hop.tensor<[3, [[N]]], f32>
# CHECK:         %[[SIZE:.*]] = hop.sym_size %x[1] : !hop.tensor<[3, [[N]]], f32> -> !hop.symint<[[N]]>
# CHECK:         %[[FLOAT:.*]] = hop.sym_float %[[SIZE]] : !hop.symint<[[N]]> -> !hop.symfloat<float([[N]])>
# CHECK:         hop.sym_sqrt %[[FLOAT]] : !hop.symfloat<float([[N]])> -> !hop.symfloat<sqrt([[N]])>
# CHECK:         aten.div.Scalar(%x) {other = #hop.expr<sqrt([[N]])>}


@run
def true_division_and_float_power_of_size():
    def program(x):
        return x * (x.size(0) / 2) + x.size(0) ** 0.5

    print(hopc.capture(program, (torch.randn(6),), dynamic_shapes=({0: Dim("n")},)))


# CHECK-LABEL: TEST: true_division_and_float_power_of_size
# CHECK:         %[[SIZE:.*]] = hop.sym_size %x[0] : !hop.tensor<[[[N:s[0-9]+]]], f32> -> !hop.symint<[[N]]>
# CHECK:         hop.sym_truediv %[[SIZE]], %{{.*}} : !hop.symint<[[N]]>, !hop.symint<2> -> !hop.symfloat<[[N]] / 2>
# CHECK:         aten.mul.Scalar(%x) {other = #hop.expr<[[N]] / 2>}
# CHECK:         %[[FLOAT:.*]] = hop.sym_float %[[SIZE]] : !hop.symint<[[N]]> -> !hop.symfloat<float([[N]])>
# CHECK:         hop.sym_pow %[[FLOAT]], %{{.*}} : !hop.symfloat<float([[N]])>, !hop.symfloat<0.5> -> !hop.symfloat<pow([[N]], 0.5)>
# CHECK:         aten.add.Scalar(%{{.*}}) {other = #hop.expr<pow([[N]], 0.5)>}


@run
def float_item():
    def program(x, y):
        return x * y.sum().item()

    print(hopc.capture(program, (torch.randn(4), torch.randn(4))))


# CHECK-LABEL: TEST: float_item
# CHECK:       hop.symbol @[[F:zuf[0-9]+]] unbacked float
# CHECK:         %[[SUM:.*]] = aten.sum(%y)
# CHECK:         hop.item %[[SUM]] : !hop.tensor<[], f32> -> !hop.symfloat<[[F]]>
# CHECK:         aten.mul.Scalar(%x) {other = #hop.expr<[[F]]>}


@run
def bool_item_as_cond_predicate():
    def program(x, y):
        positive = (y.sum() > 0).item()
        return torch.cond(positive, lambda x: x + 1, lambda x: x - 1, (x,))

    print(hopc.capture(program, (torch.randn(4), torch.randn(4))))


# CHECK-LABEL: TEST: bool_item_as_cond_predicate
# CHECK:       hop.symbol @[[U:u[0-9]+]] unbacked [0, 1]
# CHECK:         %[[READ:.*]] = hop.item %{{.*}} : !hop.tensor<[], i1> -> !hop.symint<[[U]]>
# CHECK:         %[[BOOL:.*]] = hop.sym_eq %[[READ]], %{{.*}} : !hop.symint<[[U]]>, !hop.symint<1> -> !hop.symbool<Eq([[U]], 1)>
# CHECK:         hop.cond %[[BOOL]](%x) : !hop.symbool<Eq([[U]], 1)>
