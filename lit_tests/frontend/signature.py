# RUN: %python %s | filecheck %s
# The entry signature: user inputs (tensor leaves of args and kwargs, in pytree order), then
# parameters, buffers and constants, each marked and declared; the outputs, flattened.

import torch
from lit_helpers import run

import hopc


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 2)
        self.register_buffer("scale", torch.ones(2))

    def forward(self, inputs, *, bias):
        return {"out": self.linear(inputs["x"]) * self.scale + bias, "x": inputs["x"]}


@run
def module_with_pytrees():
    args = ({"x": torch.randn(3, 4)},)
    print(hopc.capture(Model(), args, {"bias": torch.randn(2)}))


# CHECK-LABEL: TEST: module_with_pytrees
# CHECK:       hop.parameter @linear.weight : !hop.tensor<[2, 4], f32>
# CHECK-NEXT:  hop.parameter @linear.bias : !hop.tensor<[2], f32>
# CHECK-NEXT:  hop.buffer @scale : !hop.tensor<[2], f32>
# CHECK:       func.func @forward(%inputs_x: !hop.tensor<[3, 4], f32>, %bias: !hop.tensor<[2], f32>,
# CHECK-SAME:      %linear_weight: !hop.tensor<[2, 4], f32> {hop.parameter = @linear.weight},
# CHECK-SAME:      %linear_bias: !hop.tensor<[2], f32> {hop.parameter = @linear.bias},
# CHECK-SAME:      %scale: !hop.tensor<[2], f32> {hop.buffer = @scale})
# CHECK-SAME:      -> (!hop.tensor<[3, 2], f32>, !hop.tensor<[3, 4], f32>)
# CHECK:         %[[L:.*]] = aten.linear(%inputs_x, %linear_weight, %linear_bias)
# CHECK:         %[[M:.*]] = aten.mul.Tensor(%[[L]], %scale)
# CHECK:         %[[A:.*]] = aten.add.Tensor(%[[M]], %bias)
# CHECK:         func.return %[[A]], %inputs_x


@run
def scalars_are_specialized():
    # A Python scalar is part of the program, not an input.
    def program(x, factor):
        return x * factor

    print(hopc.capture(program, (torch.randn(2), 3)))


# CHECK-LABEL: TEST: scalars_are_specialized
# CHECK:       func.func @forward(%x: !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
# CHECK-NEXT:    aten.mul.Scalar(%x) {other = 3 : i64}


@run
def dtypes():
    def program(x, mask):
        return x.to(torch.bfloat16).masked_fill(mask, 0.5), x.long()

    print(hopc.capture(program, (torch.randn(3), torch.tensor([True, False, True]))))


# CHECK-LABEL: TEST: dtypes
# CHECK:       func.func @forward(%x: !hop.tensor<[3], f32>, %mask: !hop.tensor<[3], i1>)
# CHECK:         aten.to.dtype(%x) {dtype = bf16} : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], bf16>
# CHECK:         aten.masked_fill.Scalar
# CHECK:         aten.to.dtype(%x) {dtype = i64} : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], i64>
