# RUN: %python %s | filecheck %s
# Dynamic dimensions become shape symbols (equal dimensions share one), declared with their
# ranges; sizes read from data are unbacked symbols, with torch._check as ranges and asserts.

import torch
from lit_helpers import run
from torch.export import Dim

import hopc


@run
def shared_dynamic_dimension():
    def program(x, y):
        batch = x.shape[0]
        return (x + y).view(batch * 4), x.new_ones(batch // 2)

    batch = Dim("batch", min=2, max=100)
    print(hopc.capture(program, (torch.randn(6, 4), torch.randn(6, 4)),
                       dynamic_shapes=({0: batch}, {0: batch})))


# CHECK-LABEL: TEST: shared_dynamic_dimension
# CHECK:       hop.symbol @[[B:s[0-9]+]] backed [{{[0-9]+}}, 100]
# CHECK-NOT:   hop.symbol
# CHECK:       func.func @forward(%x: !hop.tensor<[[[B]], 4], f32>, %y: !hop.tensor<[[[B]], 4], f32>)
# CHECK-SAME:      -> (!hop.tensor<[4*[[B]]], f32>, !hop.tensor<[[[B]] // 2], f32>)
# CHECK:         %[[SIZE:.*]] = hop.sym_size %{{x|y}}[0] : !hop.tensor<[[[B]], 4], f32> -> !hop.symint<[[B]]>
# CHECK:         hop.sym_mul %[[SIZE]], %{{.*}} : !hop.symint<[[B]]>, !hop.symint<4> -> !hop.symint<4*[[B]]>
# CHECK:         aten.view(%{{.*}}) {size = [#hop.expr<4*[[B]]>]}
# CHECK:         hop.sym_floordiv %[[SIZE]], %{{.*}} : !hop.symint<[[B]]>, !hop.symint<2> -> !hop.symint<[[B]] // 2>
# CHECK:         aten.new_ones(%x) {size = [#hop.expr<[[B]] // 2>]


@run
def unbacked_from_item_and_nonzero():
    def program(x):
        count = (x > 0).sum().item()
        torch._check(count <= 10)
        return torch.zeros(count), x.nonzero()

    print(hopc.capture(program, (torch.randn(8),)))


# CHECK-LABEL: TEST: unbacked_from_item_and_nonzero
# CHECK-DAG:   hop.symbol @[[N:u[0-9]+]] unbacked [0, 8]
# CHECK-DAG:   hop.symbol @[[C:u[0-9]+]] unbacked [0, 10]
# CHECK:       func.func @forward(%x: !hop.tensor<[8], f32>) -> (!hop.tensor<[[[C]]], f32>, !hop.tensor<[[[N]], 1], i64>)
# CHECK:         %[[ITEM:.*]] = hop.item %{{.*}} : !hop.tensor<[], i64> -> !hop.symint<[[C]]>
# CHECK:         %[[LE:.*]] = hop.sym_le %[[ITEM]], %{{.*}} : !hop.symint<[[C]]>, !hop.symint<10> -> !hop.symbool<Le([[C]], 10)>
# CHECK:         hop.assert %[[LE]], "{{.*}}" : !hop.symbool<Le([[C]], 10)>
# CHECK:         aten.zeros() {size = [#hop.expr<[[C]]>]
# CHECK:         aten.nonzero(%x) : (!hop.tensor<[8], f32>) -> !hop.tensor<[[[N]], 1], i64>


@run
def unary_operators_and_sym_sum():
    def program(x):
        n, m = x.shape
        flipped = torch.sym_ite(torch.sym_not(n > m), 1, 2)
        return x * -n, x.new_zeros(abs(n - m)), x.new_zeros(flipped), x.new_zeros(torch.sym_sum([n, m, 1]))

    print(hopc.capture(program, (torch.randn(6, 4),), dynamic_shapes=({0: Dim("n"), 1: Dim("m")},)))


# Unary -, abs and torch.sym_not are hop.sym_neg, hop.sym_abs (Max(a, -a)) and
# hop.sym_not; torch.sym_sum is a chain of hop.sym_add.
# CHECK-LABEL: TEST: unary_operators_and_sym_sum
# CHECK:         %[[N:.*]] = hop.sym_size %x[0] : !hop.tensor<[[[S0:s[0-9]+]], [[S1:s[0-9]+]]], f32> -> !hop.symint<[[S0]]>
# CHECK:         %[[M:.*]] = hop.sym_size %x[1] : {{.*}} -> !hop.symint<[[S1]]>
# CHECK:         %[[GREATER:.*]] = hop.sym_gt %[[N]], %[[M]]
# CHECK:         hop.sym_not %[[GREATER]] : !hop.symbool<Gt([[S0]], [[S1]])> -> !hop.symbool<Le([[S0]], [[S1]])>
# CHECK:         hop.sym_neg %[[N]] : !hop.symint<[[S0]]> -> !hop.symint<-[[S0]]>
# CHECK:         aten.mul.Scalar(%x) {other = #hop.expr<-[[S0]]>}
# CHECK:         %[[DIFFERENCE:.*]] = hop.sym_sub %[[N]], %[[M]]
# CHECK:         hop.sym_abs %[[DIFFERENCE]] : !hop.symint<-[[S1]] + [[S0]]> -> !hop.symint<Max(-[[S1]] + [[S0]], [[S1]] - [[S0]])>
# CHECK:         %[[PAIR:.*]] = hop.sym_add %[[N]], %[[M]] : !hop.symint<[[S0]]>, !hop.symint<[[S1]]> -> !hop.symint<[[SUM:.*]]>
# CHECK:         hop.sym_add %[[PAIR]], %{{.*}} : !hop.symint<[[SUM]]>, !hop.symint<1> -> !hop.symint<[[SUM]] + 1>
