# RUN: %python %s | filecheck %s
# nested_compile_region -> hop.invoke_subgraph: every call of one region shares one hop.subgraph.

import torch

import hopc
from lit_helpers import run


@torch.compiler.nested_compile_region
def region(a, w):
    return (a @ w).relu()


@run
def two_calls_share_one_subgraph():
    def program(x, y, w):
        return region(x, w) + region(y, w)

    print(hopc.capture(program, (torch.randn(2, 3), torch.randn(2, 3), torch.randn(3, 3))))


# CHECK-LABEL: TEST: two_calls_share_one_subgraph
# CHECK:       hop.subgraph @[[SUB:.*]] {
# CHECK-NEXT:  ^bb0(%[[A:.*]]: !hop.tensor<[2, 3], f32>, %[[W:.*]]: !hop.tensor<[3, 3], f32>):
# CHECK-NEXT:    %[[M:.*]] = aten.matmul(%[[A]], %[[W]])
# CHECK-NEXT:    %[[R:.*]] = aten.relu(%[[M]])
# CHECK-NEXT:    hop.yield %[[R]]
# CHECK-NEXT:  }
# CHECK-NOT:   hop.subgraph
# CHECK:       %[[P:.*]] = hop.invoke_subgraph @[[SUB]](%x, %w) : (!hop.tensor<[2, 3], f32>, !hop.tensor<[3, 3], f32>) -> !hop.tensor<[2, 3], f32>
# CHECK:       %[[Q:.*]] = hop.invoke_subgraph @[[SUB]](%y, %w)
# CHECK:       aten.add.Tensor(%[[P]], %[[Q]])


@run
def called_once_stays_a_region():
    def program(x, w):
        return region(x, w) * 2

    print(hopc.capture(program, (torch.randn(2, 3), torch.randn(3, 3))))


# CHECK-LABEL: TEST: called_once_stays_a_region
# CHECK:       hop.subgraph
# CHECK:       hop.invoke_subgraph
