# RUN: %python %s | filecheck %s
# A read from data that a torch._check equates with an input's size keeps its own symbol, and the
# check compares the two at run time (Note [reads the trace learned about] in hopc.fx_import.shape_symbols).

import torch
from lit_helpers import run
from torch.export import Dim

import hopc


@run
def read_checked_equal_to_a_size():
    def program(x):
        count = (x[:, 0] > 0).sum().item()
        torch._check(count == x.shape[0])
        return x[:count] * 2

    print(hopc.capture(program, (torch.ones(6, 4),), dynamic_shapes=({0: Dim("rows")},)))


# CHECK-LABEL: TEST: read_checked_equal_to_a_size
# CHECK-DAG:   hop.symbol @[[ROWS:s[0-9]+]] backed
# CHECK-DAG:   hop.symbol @[[COUNT:u[0-9]+]] unbacked
# CHECK:       func.func @forward(%x: !hop.tensor<[[[ROWS]], 4], f32>)
# CHECK:         %[[ITEM:.*]] = hop.item %{{.*}} : !hop.tensor<[], i64> -> !hop.symint<[[COUNT]]>
# CHECK:         %[[EQ:.*]] = hop.sym_eq %[[ITEM]], %{{.*}} : !hop.symint<[[COUNT]]>, !hop.symint<[[ROWS]]> -> !hop.symbool<Eq([[COUNT]], [[ROWS]])>
# CHECK:         hop.assert %[[EQ]], "{{.*}}" : !hop.symbool<Eq([[COUNT]], [[ROWS]])>
# CHECK:         aten.slice.Tensor(%{{.*}}) {{.*}} -> !hop.tensor<[[[ROWS]], 4], f32>
