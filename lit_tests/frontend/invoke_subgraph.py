# RUN: %python %s | filecheck %s
# nested_compile_region -> hop.invoke_subgraph: every call of one region shares one hop.subgraph.

import torch
from lit_helpers import run
from torch.export import Dim

import hopc


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


@torch.compiler.nested_compile_region
def scaled(a, n):
    return a.reshape(-1) * n


@run
def calls_of_different_sizes_share_one_subgraph():
    def program(x, y):
        return scaled(x, y.size(0)) + 1, scaled(y, x.size(0))

    print(hopc.capture(program, (torch.randn(4, 3), torch.randn(5, 3)),
                       dynamic_shapes=({0: Dim("a")}, {0: Dim("b")})))


# One subgraph over the symbols its arguments bind (Note [subgraph symbols]);
# each call binds them to its own sizes, the second swapping the two.
# CHECK-LABEL: TEST: calls_of_different_sizes_share_one_subgraph
# CHECK:       hop.subgraph @[[SUB:.*]] {
# CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[[[A:s[0-9]+]], 3], f32>, %{{.*}}: !hop.symint<[[B:s[0-9]+]]>):
# CHECK:         hop.yield %{{.*}} : !hop.tensor<[3*[[A]]], f32>
# CHECK-NEXT:  }
# CHECK-NOT:   hop.subgraph
# CHECK:       hop.invoke_subgraph @[[SUB]](%x, %{{.*}}) : (!hop.tensor<[[[A]], 3], f32>, !hop.symint<[[B]]>) -> !hop.tensor<[3*[[A]]], f32>
# CHECK:       hop.invoke_subgraph @[[SUB]](%y, %{{.*}}) : (!hop.tensor<[[[B]], 3], f32>, !hop.symint<[[A]]>) -> !hop.tensor<[3*[[B]]], f32>
