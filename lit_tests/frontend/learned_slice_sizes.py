# RUN: %python %s | filecheck %s
# A slice at a read size, which a broadcast against an input's rows or a constant equates with them,
# keeps its own symbol, and the broadcast's assertion compares the two at run time (Note [reads the
# trace learned about] in hopc.fx_import.shape_symbols).

import torch
from lit_helpers import run
from torch.export import Dim

import hopc


@run
def slice_broadcast_against_the_rows():
    def program(x, w):
        count = (x[:, 0] > 0).sum().item()
        return x[:count] * w

    rows = Dim("rows")
    print(hopc.capture(program, (torch.ones(6, 4), torch.ones(6, 4)), dynamic_shapes=({0: rows}, {0: rows})))


# CHECK-LABEL: TEST: slice_broadcast_against_the_rows
# CHECK:       hop.symbol @[[ROWS:s[0-9]+]] backed
# CHECK:       func.func @forward(%x: !hop.tensor<[[[ROWS]], 4], f32>, %w: !hop.tensor<[[[ROWS]], 4], f32>)
# CHECK:         hop.item %{{.*}} : !hop.tensor<[], i64> -> !hop.symint<[[READ:u[0-9]+]]>
# CHECK:         %[[SLICE:.*]] = aten.slice.Tensor(%x) {start = 0 : i64, end = #hop.expr<[[READ]]>} : (!hop.tensor<[[[ROWS]], 4], f32>) -> !hop.tensor<[[[SIZE:u[0-9]+]], 4], f32>
# CHECK:         %[[SIZE_VALUE:.*]] = hop.sym_size %[[SLICE]][0] : !hop.tensor<[[[SIZE]], 4], f32> -> !hop.symint<[[SIZE]]>
# CHECK:         %[[EQ:.*]] = hop.sym_eq %[[SIZE_VALUE]], %{{.*}} : !hop.symint<[[SIZE]]>, !hop.symint<[[ROWS]]> -> !hop.symbool<Eq([[SIZE]], [[ROWS]])>
# CHECK:         hop.assert %[[EQ]], "{{.*}}" : !hop.symbool<Eq([[SIZE]], [[ROWS]])>
# CHECK:         aten.mul.Tensor(%[[SLICE]], %w) : (!hop.tensor<[[[SIZE]], 4], f32>, !hop.tensor<[[[ROWS]], 4], f32>) -> !hop.tensor<[[[ROWS]], 4], f32>


@run
def slice_broadcast_against_a_constant():
    def program(x):
        count = (x[:, 0] > 0).sum().item()
        return x[:count] * torch.ones(6, 4)

    print(hopc.capture(program, (torch.ones(6, 4),), dynamic_shapes=({0: Dim("rows", min=6)},)))


# CHECK-LABEL: TEST: slice_broadcast_against_a_constant
# CHECK:         hop.item %{{.*}} : !hop.tensor<[], i64> -> !hop.symint<[[READ:u[0-9]+]]>
# CHECK:         %[[SLICE:.*]] = aten.slice.Tensor(%x) {start = 0 : i64, end = #hop.expr<[[READ]]>} : {{.*}} -> !hop.tensor<[[[SIZE:u[0-9]+]], 4], f32>
# CHECK:         %[[SIZE_VALUE:.*]] = hop.sym_size %[[SLICE]][0] : !hop.tensor<[[[SIZE]], 4], f32> -> !hop.symint<[[SIZE]]>
# CHECK:         %[[EQ:.*]] = hop.sym_eq %[[SIZE_VALUE]], %{{.*}} : !hop.symint<[[SIZE]]>, !hop.symint<6> -> !hop.symbool<Eq([[SIZE]], 6)>
# CHECK:         hop.assert %[[EQ]], "{{.*}}" : !hop.symbool<Eq([[SIZE]], 6)>
# CHECK:         aten.mul.Tensor(%[[SLICE]], %{{.*}}) : (!hop.tensor<[[[SIZE]], 4], f32>, !hop.tensor<[6, 4], f32>) -> !hop.tensor<[6, 4], f32>
