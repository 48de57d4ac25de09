# RUN: %python %s | filecheck %s
# checkpoint(use_reentrant=False) -> hop.checkpoint: kept as a region, not inlined or tagged.

import torch
import torch.utils.checkpoint as checkpoint_utils
from lit_helpers import run

import hopc


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        return checkpoint_utils.checkpoint(lambda a: self.linear(a).relu(), x,
                                           use_reentrant=False) + x


@run
def checkpointed_linear():
    print(hopc.capture(Block(), (torch.randn(2, 4),)))


# CHECK-LABEL: TEST: checkpointed_linear
# CHECK:       hop.parameter @linear.weight : !hop.tensor<[4, 4], f32>
# CHECK:       hop.parameter @linear.bias : !hop.tensor<[4], f32>
# CHECK:       func.func @forward(%x: !hop.tensor<[2, 4], f32>, %[[W:.*]]: !hop.tensor<[4, 4], f32> {hop.parameter = @linear.weight}, %[[B:.*]]: !hop.tensor<[4], f32> {hop.parameter = @linear.bias})
# CHECK:         %[[C:.*]] = hop.checkpoint(%x, %[[W]], %[[B]])
# CHECK-NEXT:    ^bb0(%[[X:.*]]: !hop.tensor<[2, 4], f32>, %[[PW:.*]]: !hop.tensor<[4, 4], f32>, %[[PB:.*]]: !hop.tensor<[4], f32>):
# CHECK-NEXT:      %[[L:.*]] = aten.linear(%[[X]], %[[PW]], %[[PB]])
# CHECK-NEXT:      %[[R:.*]] = aten.relu(%[[L]])
# CHECK-NEXT:      hop.yield %[[R]]
# CHECK:         aten.add.Tensor(%[[C]], %x)
