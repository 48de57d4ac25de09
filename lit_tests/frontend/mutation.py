# RUN: %python %s | filecheck %s
# The captured level keeps mutation as PyTorch ran it: in-place ops on inputs and buffers,
# through views, out= variants. Nothing is functionalized and no result is a copy-back.

import torch
from lit_helpers import run

import hopc


@run
def inputs_and_views():
    def program(x, y):
        x.add_(1)
        y[0].mul_(2)
        return x * y

    print(hopc.capture(program, (torch.randn(2, 3), torch.randn(2, 3))))


# CHECK-LABEL: TEST: inputs_and_views
# CHECK:       %[[X:.*]] = aten.add_.Scalar(%x) {other = 1 : i64}
# CHECK-NEXT:  %[[ROW:.*]] = aten.select.int(%y) {dim = 0 : i64, index = 0 : i64} : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[3], f32>
# CHECK-NEXT:  aten.mul_.Scalar(%[[ROW]]) {other = 2 : i64}
# CHECK-NEXT:  aten.mul.Tensor(%[[X]], %y)
# CHECK-NOT:   hop.copy_back_to


@run
def out_variant():
    def program(a, b, c):
        torch.add(a, b, out=c)
        return c

    print(hopc.capture(program, (torch.randn(4), torch.randn(4), torch.empty(4))))


# CHECK-LABEL: TEST: out_variant
# CHECK:       %[[OUT:.*]] = aten.add.out(%a, %b, %c)
# CHECK:       func.return %[[OUT]]


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x):
        self.count.add_(1)
        x[x < 0] = 0.0
        return x * self.count


@run
def buffers_and_masks():
    print(hopc.capture(Counter(), (torch.randn(5),)))


# CHECK-LABEL: TEST: buffers_and_masks
# CHECK:       hop.buffer @count : !hop.tensor<[], f32>
# CHECK:       %[[C:.*]] = aten.add_.Scalar(%count) {other = 1 : i64}
# CHECK:       %[[MASK:.*]] = aten.lt.Scalar(%x)
# CHECK:       %[[PUT:.*]] = aten.index_put_(%x, [%[[MASK]]], %{{.*}})
# CHECK:       aten.mul.Tensor(%[[PUT]], %[[C]])
