"""TrainingCall runs hand-written differentiated modules under autograd (Note [training call]).

Each module is a forward and a backward written in IR as the ``autograd``
pass would write them (Note [entry signature]); gradients through the call
must be eager PyTorch's.
"""

from __future__ import annotations

import pytest
import torch

import hopc
from hopc.backend.runtime.training_call import TrainingCall, _Differentiated
from hopc.ir.diagnostics import HopcError

T3 = "!hop.tensor<[3], f32>"

SCALE = f"""
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: {T3} {{hop.requires_grad}}, %w: {T3} {{hop.requires_grad}}) -> ({T3}, {T3} {{hop.saved = 0 : i64}}, {T3} {{hop.saved = 1 : i64}}) {{
  %y = aten.mul.Tensor(%x, %w) : ({T3}, {T3}) -> {T3}
  func.return %y, %x, %w : {T3}, {T3}, {T3}
}}
func.func @backward(%x: {T3} {{hop.saved = 0 : i64}}, %w: {T3} {{hop.saved = 1 : i64}}, %ct: {T3} {{hop.cotangent_of = 0 : i64}}) -> ({T3} {{hop.gradient_of = 0 : i64}}, {T3} {{hop.gradient_of = 1 : i64}}) {{
  %gx = aten.mul.Tensor(%ct, %w) : ({T3}, {T3}) -> {T3}
  %gw = aten.mul.Tensor(%ct, %x) : ({T3}, {T3}) -> {T3}
  func.return %gx, %gw : {T3}, {T3}
}}
"""
"""``y = x * w``, saving ``x`` and ``w``."""

COUNTED = f"""
hop.parameter @w : {T3}
hop.buffer @count : !hop.tensor<[], i64>
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: {T3}, %w: {T3} {{hop.parameter = @w, hop.requires_grad}}, %n: !hop.tensor<[], i64> {{hop.buffer = @count}}) -> ({T3}, !hop.tensor<[], i64> {{hop.copy_back_to = 2 : i64}}, !hop.tensor<[], i64>, {T3} {{hop.saved = 0 : i64}}) {{
  %y = aten.mul.Tensor(%x, %w) : ({T3}, {T3}) -> {T3}
  %m = aten.add.Scalar(%n) {{other = 1 : i64}} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
  %top = aten.argmax(%y) : ({T3}) -> !hop.tensor<[], i64>
  func.return %y, %m, %top, %x : {T3}, !hop.tensor<[], i64>, !hop.tensor<[], i64>, {T3}
}}
func.func @backward(%x: {T3} {{hop.saved = 0 : i64}}, %ct: {T3} {{hop.cotangent_of = 0 : i64}}) -> ({T3} {{hop.gradient_of = 1 : i64}}) {{
  %gw = aten.mul.Tensor(%ct, %x) : ({T3}, {T3}) -> {T3}
  func.return %gw : {T3}
}}
"""
"""``y = x * w`` with an integer output ``argmax(y)`` and a buffer ``count += 1``; only ``w`` requires grad."""

SUMMED = """
hop.symbol @s0 backed [2, oo]
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[s0], f32> {hop.requires_grad}) -> (!hop.tensor<[], f32>, !hop.symint<s0> {hop.saved = 0 : i64}) {
  %total = aten.sum(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[], f32>
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  func.return %total, %n : !hop.tensor<[], f32>, !hop.symint<s0>
}
func.func @backward(%n: !hop.symint<s0> {hop.saved = 0 : i64}, %ct: !hop.tensor<[], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[s0], f32> {hop.gradient_of = 0 : i64}) {
  %grad = aten.expand(%ct) {size = [#hop.expr<s0>]} : (!hop.tensor<[], f32>) -> !hop.tensor<[s0], f32>
  func.return %grad : !hop.tensor<[s0], f32>
}
"""
"""``x.sum()`` for any size, saving the size as a ``!hop.symint`` (an int at run time)."""

SIZED_SCALE = """
hop.symbol @s0 backed [2, oo]
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[s0], f32> {hop.requires_grad}, %w: !hop.tensor<[s0], f32> {hop.requires_grad}) -> (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32> {hop.saved = 0 : i64}, !hop.symint<s0> {hop.saved = 1 : i64}, !hop.tensor<[s0], f32> {hop.saved = 2 : i64}) {
  %y = aten.mul.Tensor(%x, %w) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  func.return %y, %x, %n, %w : !hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>, !hop.symint<s0>, !hop.tensor<[s0], f32>
}
func.func @backward(%ct: !hop.tensor<[s0], f32> {hop.cotangent_of = 0 : i64}, %w: !hop.tensor<[s0], f32> {hop.saved = 2 : i64}, %n: !hop.symint<s0> {hop.saved = 1 : i64}, %x: !hop.tensor<[s0], f32> {hop.saved = 0 : i64}) -> (!hop.tensor<[s0], f32> {hop.gradient_of = 1 : i64}, !hop.tensor<[s0], f32> {hop.gradient_of = 0 : i64}) {
  %gw = aten.mul.Tensor(%ct, %x) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  %scaled = aten.mul.Tensor(%ct, %w) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  %gx = aten.mul.Scalar(%scaled) {other = #hop.expr<s0>} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  func.return %gw, %gx : !hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>
}
"""
"""``x * w`` whose backward scales the gradient of ``x`` by its size (a deliberate extra factor),
saving a tensor, a size and a tensor, taken by the backward in another order than saved, with
the gradients in another order than the arguments."""

T23 = "!hop.tensor<[2, 3], f32>"

TWO_OUTPUTS = f"""
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: {T23} {{hop.requires_grad}}) -> ({T23}, {T23}, {T23} {{hop.saved = 0 : i64}}) {{
  %double = aten.mul.Scalar(%x) {{other = 2 : i64}} : ({T23}) -> {T23}
  %square = aten.mul.Tensor(%x, %x) : ({T23}, {T23}) -> {T23}
  func.return %double, %square, %x : {T23}, {T23}, {T23}
}}
func.func @backward(%x: {T23} {{hop.saved = 0 : i64}}, %ct_double: {T23} {{hop.cotangent_of = 0 : i64}}, %ct_square: {T23} {{hop.cotangent_of = 1 : i64}}) -> ({T23} {{hop.gradient_of = 0 : i64}}) {{
  %from_double = aten.mul.Scalar(%ct_double) {{other = 2 : i64}} : ({T23}) -> {T23}
  %twice = aten.mul.Scalar(%x) {{other = 2 : i64}} : ({T23}) -> {T23}
  %from_square = aten.mul.Tensor(%twice, %ct_square) : ({T23}, {T23}) -> {T23}
  %grad = aten.add.Tensor(%from_double, %from_square) : ({T23}, {T23}) -> {T23}
  func.return %grad : {T23}
}}
"""
"""``(2 * x, x * x)``."""

WEIGHT_GRADIENT_ONLY = SCALE.replace(
    f"-> ({T3} {{hop.gradient_of = 0 : i64}}, {T3} {{hop.gradient_of = 1 : i64}})",
    f"-> ({T3} {{hop.gradient_of = 1 : i64}})").replace(
    f"func.return %gx, %gw : {T3}, {T3}", f"func.return %gw : {T3}")
"""``SCALE`` whose backward returns the gradient of ``w`` only."""

DOUBLED_IN_PLACE = f"""
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: {T3} {{hop.requires_grad}}) -> ({T3}, {T3} {{hop.copy_back_to = 0 : i64}}) {{
  %doubled = aten.mul.Scalar(%x) {{other = 2 : i64}} : ({T3}) -> {T3}
  %y = aten.mul.Scalar(%doubled) {{other = 3 : i64}} : ({T3}) -> {T3}
  func.return %y, %doubled : {T3}, {T3}
}}
func.func @backward(%ct: {T3} {{hop.cotangent_of = 0 : i64}}, %ct_x: {T3} {{hop.cotangent_of = 1 : i64}})
    -> ({T3} {{hop.gradient_of = 0 : i64}}) {{
  %tripled = aten.mul.Scalar(%ct) {{other = 3 : i64}} : ({T3}) -> {T3}
  %total = aten.add.Tensor(%tripled, %ct_x) : ({T3}, {T3}) -> {T3}
  %grad = aten.mul.Scalar(%total) {{other = 2 : i64}} : ({T3}) -> {T3}
  func.return %grad : {T3}
}}
"""
"""``x.mul_(2); return x * 3`` on an input that requires grad: its new value takes a cotangent."""

DECAYED = f"""
hop.buffer @average : {T3}
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%w: {T3} {{hop.requires_grad}}, %average: {T3} {{hop.buffer = @average}}) -> ({T3}, {T3} {{hop.copy_back_to = 1 : i64}}, {T3} {{hop.saved = 0 : i64}}) {{
  %y = aten.mul.Tensor(%w, %average) : ({T3}, {T3}) -> {T3}
  %half = aten.mul.Scalar(%average) {{other = 5.000000e-01 : f64}} : ({T3}) -> {T3}
  func.return %y, %half, %average : {T3}, {T3}, {T3}
}}
func.func @backward(%average: {T3} {{hop.saved = 0 : i64}}, %ct: {T3} {{hop.cotangent_of = 0 : i64}}) -> ({T3} {{hop.gradient_of = 0 : i64}}) {{
  %grad = aten.mul.Tensor(%ct, %average) : ({T3}, {T3}) -> {T3}
  func.return %grad : {T3}
}}
"""
"""``y = w * average; average *= 0.5``: the backward needs ``average`` as it was on entry."""

RECORDED = f"""
hop.buffer @last : {T3}
hop.buffer @doubled : {T3}
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: {T3}, %w: {T3} {{hop.requires_grad}}, %last: {T3} {{hop.buffer = @last}}, %doubled: {T3} {{hop.buffer = @doubled}}) -> ({T3}, {T3} {{hop.copy_back_to = 2 : i64}}, {T3} {{hop.copy_back_to = 3 : i64}}, {T3} {{hop.saved = 0 : i64}}) {{
  %y = aten.mul.Tensor(%x, %w) : ({T3}, {T3}) -> {T3}
  %twice = aten.mul.Scalar(%y) {{other = 2 : i64}} : ({T3}) -> {T3}
  func.return %y, %y, %twice, %x : {T3}, {T3}, {T3}, {T3}
}}
func.func @backward(%x: {T3} {{hop.saved = 0 : i64}}, %ct: {T3} {{hop.cotangent_of = 0 : i64}}) -> ({T3} {{hop.gradient_of = 1 : i64}}) {{
  %grad = aten.mul.Tensor(%ct, %x) : ({T3}, {T3}) -> {T3}
  func.return %grad : {T3}
}}
"""
"""``y = x * w; last.copy_(y.detach()); doubled.copy_(2 * y.detach()); return y``.

One value is both a user output and a copy-back.
"""


def _leaves(*tensors: torch.Tensor) -> list[torch.Tensor]:
    return [t.detach().clone().requires_grad_() for t in tensors]


def test_gradients_are_eagers():
    x, w = torch.randn(3), torch.randn(3)
    compiled_x, compiled_w = _leaves(x, w)
    (y,) = TrainingCall(hopc.parse(SCALE))(compiled_x, compiled_w)
    (y * y).sum().backward()
    eager_x, eager_w = _leaves(x, w)
    eager = eager_x * eager_w
    (eager * eager).sum().backward()
    torch.testing.assert_close(y, eager)
    torch.testing.assert_close(compiled_x.grad, eager_x.grad)
    torch.testing.assert_close(compiled_w.grad, eager_w.grad)


def test_gradients_accumulate_over_calls():
    x, w = _leaves(torch.randn(3), torch.randn(3))
    call = TrainingCall(hopc.parse(SCALE))
    for _ in range(2):
        call(x, w)[0].sum().backward()
    torch.testing.assert_close(w.grad, 2 * x.detach())


def test_no_grad_call_runs_the_forward_only():
    x, w = _leaves(torch.randn(3), torch.randn(3))
    with torch.no_grad():
        (y,) = TrainingCall(hopc.parse(SCALE))(x, w)
    assert y.grad_fn is None and not y.requires_grad
    torch.testing.assert_close(y, x.detach() * w.detach())


def test_inputs_that_do_not_require_grad_run_the_forward_only():
    (y,) = TrainingCall(hopc.parse(SCALE))(torch.randn(3), torch.randn(3))
    assert y.grad_fn is None


def test_copy_back_and_integer_output():
    x, w = torch.randn(3), _leaves(torch.randn(3))[0]
    count = torch.tensor(5)
    y, top = TrainingCall(hopc.parse(COUNTED))(x, w, count)
    assert count.item() == 6 and not count.requires_grad
    assert top.dtype == torch.int64 and not top.requires_grad
    assert top.item() == (x * w.detach()).argmax().item()
    y.sum().backward()
    torch.testing.assert_close(w.grad, x)
    with torch.no_grad():
        TrainingCall(hopc.parse(COUNTED))(x, w, count)
    assert count.item() == 7


def test_saved_input_that_the_call_changes_keeps_its_value_on_entry():
    w, average = _leaves(torch.randn(3))[0], torch.randn(3)
    on_entry = average.clone()
    (y,) = TrainingCall(hopc.parse(DECAYED))(w, average)
    torch.testing.assert_close(average, on_entry / 2)
    y.sum().backward()
    torch.testing.assert_close(w.grad, on_entry)


def test_copy_backs_take_no_gradient_and_outputs_keep_theirs():
    x, w, last, doubled = torch.randn(3), _leaves(torch.randn(3))[0], torch.zeros(3), torch.zeros(3)
    (y,) = TrainingCall(hopc.parse(RECORDED))(x, w, last, doubled)
    assert y.requires_grad and not last.requires_grad and not doubled.requires_grad
    torch.testing.assert_close(last, y.detach())
    torch.testing.assert_close(doubled, 2 * y.detach())
    y.sum().backward()
    torch.testing.assert_close(w.grad, x)


def test_saved_size_is_an_int():
    call = TrainingCall(hopc.parse(SUMMED))
    for size in (2, 5):
        x = _leaves(torch.randn(size))[0]
        (total,) = call(x)
        (3 * total).backward()
        torch.testing.assert_close(x.grad, torch.full((size,), 3.0))


def test_saved_tensors_and_sizes_reach_their_backward_arguments():
    """The interpreter checks each backward argument against its type and the size's binding."""
    call = TrainingCall(hopc.parse(SIZED_SCALE), executor="interpreter")
    for size in (2, 5):
        x, w = _leaves(torch.randn(size), torch.randn(size))
        (y,) = call(x, w)
        weights = torch.randn(size)
        (y * weights).sum().backward()
        torch.testing.assert_close(w.grad, weights * x.detach())
        torch.testing.assert_close(x.grad, weights * w.detach() * size)


def test_call_enters_the_function_as_autograd_function_apply_does():
    """Note [autograd function entry]: a dead functorch wrapper (a tensor that escaped a
    ``torch.func`` transform) is unwrapped, so gradients reach the same tensors as through
    ``torch.autograd.Function.apply``; a call under an active transform is a located error."""
    escaped = []
    torch.func.grad(lambda x: escaped.append(x) or x.sum())(torch.randn(3))
    (dead,) = escaped
    assert torch._C._functorch.is_functorch_wrapped_tensor(dead)
    call = TrainingCall(hopc.parse(SCALE))
    w, reference_w = _leaves(dead.detach(), dead.detach())
    call(dead, w)[0].sum().backward()
    dead_grad, dead.grad = dead.grad, None
    _Differentiated.apply(call, dead, reference_w)[0].sum().backward()
    assert dead_grad is None and dead.grad is None
    torch.testing.assert_close(w.grad, reference_w.grad)
    with pytest.raises(HopcError, match="torch.func transform") as raised:
        torch.func.grad(lambda x: call(x, w)[0].sum())(torch.randn(3))
    assert raised.value.location is not None and raised.value.location.file == __file__


def test_output_without_gradient_gets_zeros():
    x = _leaves(torch.randn(2, 3))[0]
    double, _ = TrainingCall(hopc.parse(TWO_OUTPUTS))(x)
    double.sum().backward()
    torch.testing.assert_close(x.grad, torch.full((2, 3), 2.0))


def test_non_contiguous_cotangent():
    x = torch.randn(2, 3)
    compiled_x, eager_x = _leaves(x, x)
    _, square = TrainingCall(hopc.parse(TWO_OUTPUTS))(compiled_x)
    weights = torch.randn(3, 2)
    (square.t() * weights).sum().backward()
    (eager_x * eager_x).t().mul(weights).sum().backward()
    torch.testing.assert_close(compiled_x.grad, eager_x.grad)


def test_structurally_zero_gradient_is_none():
    """A backward may return no gradient for an argument: it gets none, as a leaf eager never reaches."""
    x, w = _leaves(torch.randn(3), torch.randn(3))
    (y,) = TrainingCall(hopc.parse(WEIGHT_GRADIENT_ONLY))(x, w)
    y.sum().backward()
    assert x.grad is None
    torch.testing.assert_close(w.grad, x.detach())


def test_trailing_parameter_gets_its_gradient():
    x, w = torch.randn(3), _leaves(torch.randn(3))[0]
    y, _ = TrainingCall(hopc.parse(COUNTED), trailing=[w, torch.tensor(0)])(x)
    y.sum().backward()
    torch.testing.assert_close(w.grad, x)


def test_double_backward_is_a_located_error():
    x, w = _leaves(torch.randn(3), torch.randn(3))
    (y,) = TrainingCall(hopc.parse(SCALE))(x, w)
    with pytest.raises(HopcError, match="double backward") as raised:
        torch.autograd.grad(y.sum(), w, create_graph=True)
    assert raised.value.location is not None and raised.value.location.file == __file__


def test_saved_tensor_changed_before_backward_is_caught_as_in_eager():
    x, w = _leaves(torch.randn(3), torch.randn(3))
    (y,) = TrainingCall(hopc.parse(SCALE))(x * 1, w)
    with torch.no_grad():
        w.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_argument_not_differentiated_for_is_refused():
    x, w = torch.randn(3), torch.randn(3)
    with pytest.raises(HopcError, match="argument 0 of @forward requires grad") as raised:
        TrainingCall(hopc.parse(COUNTED))(x.requires_grad_(), w, torch.tensor(0))
    assert raised.value.location is not None and raised.value.location.file == __file__


def test_changed_input_that_requires_grad_is_differentiated_as_in_eager():
    """The input's new value is copied back under autograd: a gradient through a later use of the
    input reaches the Function and the input's value on entry (Note [training call])."""
    (a,) = _leaves(torch.randn(3))
    x = a * 1
    (y,) = TrainingCall(hopc.parse(DOUBLED_IN_PLACE))(x)
    torch.testing.assert_close(x, a.detach() * 2)
    ((y * torch.tensor([1.0, 2.0, 3.0])).sum() + (x * x).sum()).backward()
    (b,) = _leaves(a.detach())
    eager = b * 1
    eager.mul_(2)
    ((eager * 3 * torch.tensor([1.0, 2.0, 3.0])).sum() + (eager * eager).sum()).backward()
    torch.testing.assert_close(a.grad, b.grad)


def test_compile_runs_a_differentiated_module():
    """``hopc.compile`` of a module with a backward entry runs it as it is."""
    x, w = _leaves(torch.randn(3), torch.randn(3))
    (y,) = hopc.compile(hopc.parse(SCALE))(x, w)
    y.sum().backward()
    torch.testing.assert_close(x.grad, w.detach())


def test_compiled_module_without_a_backward_refuses_a_call_that_needs_gradients():
    call = hopc.compile(hopc.parse(f"""
func.func @forward(%x: {T3}, %w: {T3}) -> {T3} {{
  %y = aten.mul.Tensor(%x, %w) : ({T3}, {T3}) -> {T3}
  func.return %y : {T3}
}}
"""))
    with pytest.raises(HopcError, match="compiled without a backward"):
        call(torch.randn(3, requires_grad=True), torch.randn(3))


def test_compile_differentiates_a_module_that_marks_requires_grad():
    call = hopc.compile(hopc.parse(f"""
func.func @forward(%x: {T3}, %w: {T3} {{hop.requires_grad}}) -> {T3} {{
  %y = aten.mul.Tensor(%x, %w) : ({T3}, {T3}) -> {T3}
  %z = aten.sin(%y) : ({T3}) -> {T3}
  func.return %z : {T3}
}}
"""))
    assert isinstance(call, TrainingCall)
    x, w = torch.randn(3), torch.randn(3)
    compiled_w, eager_w = _leaves(w, w)
    call(x, compiled_w)[0].sum().backward()
    (x * eager_w).sin().sum().backward()
    torch.testing.assert_close(compiled_w.grad, eager_w.grad)
