# RUN: %python %s | filecheck %s
# Custom operators (torch.library) as `custom` ops, printed, parsed back (custom and generic form),
# and refused where functionalize could not handle them (Note [custom operators]).

import torch
from lit_helpers import run, run_printing_errors

import hopc
from hopc.dialects.context import make_context
from hopc.passes.functionalize import FunctionalizePass


@torch.library.custom_op("hopclit::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.tanh(x) * scale


@scaled_tanh.register_fake
def _(x, scale):
    return torch.empty_like(x)


@torch.library.custom_op("hopclit::add_into", mutates_args=("out",))
def add_into(x: torch.Tensor, out: torch.Tensor) -> None:
    out.add_(x)


@add_into.register_fake
def _(x, out):
    return None


@run
def custom_op_round_trip():
    module = hopc.capture(lambda x: scaled_tanh(x, 2.0) + 1, (torch.randn(3, 4),))
    text = str(module)
    print(text)
    assert str(hopc.parse(text)) == text
    assert str(hopc.parse(hopc.to_text(module, generic=True))) == text


# CHECK-LABEL: TEST: custom_op_round_trip
# CHECK:       func.func @forward(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32> {
# CHECK-NEXT:    %[[Y:.*]] = custom.hopclit.scaled_tanh(%x) {scale = 2.000000e+00 : f64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
# CHECK-NEXT:    %{{.*}} = aten.add.Scalar(%[[Y]]) {other = 1 : i64}


# CHECK-LABEL: TEST: mutating_custom_op_is_refused
@run_printing_errors
def mutating_custom_op_is_refused():
    def program(x, out):
        add_into(x, out)
        # CHECK: custom_ops.py:[[# @LINE - 1]]:9: error: unsupported: the custom operator hopclit::add_into, whose schema mutates or aliases an argument
        return out * 2

    hopc.capture(program, (torch.randn(3), torch.zeros(3)))




# CHECK-LABEL: TEST: mutating_custom_op_in_hop_ir_is_refused_by_functionalize
@run_printing_errors
def mutating_custom_op_in_hop_ir_is_refused_by_functionalize():
    module = hopc.parse("""\
func.func @forward(%x: !hop.tensor<[3], f32>, %o: !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32> {
  custom.hopclit.add_into(%x, %o) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> ()
  func.return %o : !hop.tensor<[3], f32>
}""")
    FunctionalizePass().apply(make_context(), module)


# CHECK: <input>:2:3: error: 'custom.hopclit.add_into' op changes its arguments in place and has no functional form
