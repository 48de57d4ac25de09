"""``hopc.compile`` trains: autograd through a compiled program gives eager's gradients.

The end-to-end tests run the ``autograd`` pass (``hopc.passes.autograd``).
The others check the backend on its own: it marks ``{hop.requires_grad}``
(checked through a stand-in for the pass, which writes the forward and
backward of ``x * w`` by hand) and refuses what it cannot differentiate
before the pass runs.
"""

from __future__ import annotations

import copy

import pytest
import torch
from frontend_models import Mlp, TransformerBlock

import hopc
import hopc.passes.autograd
from hopc.dialects.hop_function_signature import USER
from hopc.dialects.hop_module_structure import entry_signature
from hopc.ir.diagnostics import HopcError

SEED = torch.Generator()
"""Draws the inputs of programs run twice (eager and compiled) the same way."""

def _trained_together(model: torch.nn.Module, batches: list[tuple[torch.Tensor, torch.Tensor]],
                      **options: object) -> tuple[torch.nn.Module, torch.nn.Module]:
    """The model after one SGD step per batch eagerly, and a copy after the same steps compiled."""
    eager, compiled_model = model, copy.deepcopy(model)
    compiled = hopc.compile(compiled_model, **options)
    for module, run in ((eager, eager), (compiled_model, compiled)):
        optimizer = torch.optim.SGD(module.parameters(), lr=0.1)
        for x, target in batches:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(run(x), target).backward()
            optimizer.step()
    return eager, compiled_model


def _assert_same_state(eager: torch.nn.Module, compiled: torch.nn.Module) -> None:
    torch.testing.assert_close(dict(compiled.state_dict()), dict(eager.state_dict()))
    for (name, expected), actual in zip(eager.named_parameters(), compiled.parameters()):
        torch.testing.assert_close(actual.grad, expected.grad, msg=lambda m, name=name: f"{name}.grad: {m}")


# ------------------------------------------------------------ end to end (the autograd pass)


def test_mlp_sgd_steps_equal_eager():
    torch.manual_seed(1)
    batches = [(torch.randn(4, 8), torch.randn(4, 8)) for _ in range(3)]
    _assert_same_state(*_trained_together(Mlp(), batches))


def test_transformer_block_trains_at_several_sequence_lengths():
    torch.manual_seed(2)
    batches = [(torch.randn(2, n, 16), torch.randn(2, n, 16)) for n in (5, 7, 9)]
    _assert_same_state(*_trained_together(TransformerBlock(), batches))


def test_dynamic_batch_sizes_train_with_one_module(backend_calls):
    torch.manual_seed(2)
    batches = [(torch.randn(n, 8), torch.randn(n, 8)) for n in (4, 7, 9, 3)]
    _assert_same_state(*_trained_together(Mlp(), batches))
    assert len(backend_calls) == 2  # the first size, then one symbolic size for all others


def test_batch_norm_running_stats_in_training():
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU(),
                                torch.nn.Linear(6, 6))
    batches = [(torch.randn(5, 6), torch.randn(5, 6)) for _ in range(3)]
    eager, compiled = _trained_together(model, batches)
    _assert_same_state(eager, compiled)
    assert compiled[1].num_batches_tracked.item() == 3
    assert not compiled[1].running_mean.requires_grad


def test_input_gradient_and_repeated_calls_before_one_backward():
    torch.manual_seed(4)
    model = Mlp()
    compiled = hopc.compile(copy.deepcopy(model))
    inputs = [torch.randn(3, 8) for _ in range(2)]
    compiled_inputs = [x.clone().requires_grad_() for x in inputs]
    eager_inputs = [x.clone().requires_grad_() for x in inputs]
    sum(compiled(x).square().sum() for x in compiled_inputs).backward()
    sum(model(x).square().sum() for x in eager_inputs).backward()
    for compiled_x, eager_x in zip(compiled_inputs, eager_inputs):
        torch.testing.assert_close(compiled_x.grad, eager_x.grad)


def test_grad_mode_off_call_of_the_same_compiled_model():
    torch.manual_seed(5)
    model = Mlp()
    compiled = hopc.compile(model)
    x = torch.randn(2, 8)
    compiled(x).sum().backward()
    with torch.no_grad():
        output = compiled(x)
    assert output.grad_fn is None
    torch.testing.assert_close(output, model(x).detach())


def test_integer_output_is_not_differentiable():
    def classify(x, w):
        logits = x @ w
        return logits, logits.argmax(-1)

    x, w = torch.randn(4, 3), torch.randn(3, 5, requires_grad=True)
    logits, labels = hopc.compile(classify)(x, w)
    assert not labels.requires_grad and torch.equal(labels, (x @ w).argmax(-1))
    logits.sum().backward()
    torch.testing.assert_close(w.grad, x.sum(0)[:, None].expand(3, 5))


def test_graph_break_between_differentiated_graphs():
    def broken(x, w):
        y = (x * w).sin()
        print("", end="")  # a graph break: the second graph's input is a non-leaf that requires grad
        return (y * w).sum()

    x, w = torch.randn(5), torch.randn(5)
    compiled_w, eager_w = w.clone().requires_grad_(), w.clone().requires_grad_()
    hopc.compile(broken)(x, compiled_w).backward()
    broken(x, eager_w).backward()
    torch.testing.assert_close(compiled_w.grad, eager_w.grad)


def test_double_backward_is_a_located_error():
    w = torch.randn(3, requires_grad=True)
    loss = hopc.compile(lambda x, w: (x * w).sin().sum())(torch.randn(3), w)
    with pytest.raises(HopcError, match="double backward") as raised:
        torch.autograd.grad(loss, w, create_graph=True)
    assert raised.value.location is not None and raised.value.location.file == __file__


@pytest.mark.filterwarnings("ignore:Dynamo does not know how to trace the builtin")
def test_program_calling_autograd_grad_inside():
    """Dynamo breaks the graph at ``torch.autograd.grad``, which then runs the first graph's backward."""
    def gradient_step(x, w):
        loss = (x * w).sin().sum()
        (grad,) = torch.autograd.grad(loss, w)
        return w - 0.1 * grad

    x, w = torch.randn(4), torch.randn(4)
    compiled_w, eager_w = w.clone().requires_grad_(), w.clone().requires_grad_()
    torch.testing.assert_close(hopc.compile(gradient_step)(x, compiled_w), gradient_step(x, eager_w))


# ------------------------------------------------- the backend's side, without the pass


def _scale_differentiated(module):
    """A stand-in for the autograd pass on ``x * self.w`` with ``self.calls += 1``: checks the marks
    and, as the pass does, rewrites ``module`` in place."""
    signature = entry_signature(module)
    kinds = {role.kind: index for index, role in enumerate(signature.arguments)}
    x, w, calls = kinds[USER], kinds["hop.parameter"], kinds["hop.buffer"]
    assert signature.requires_grad == {w}
    t3, count = "!hop.tensor<[3], f32>", "!hop.tensor<[], i64>"
    arguments = {x: f"%x: {t3}", w: f"%w: {t3} {{hop.parameter = @w, hop.requires_grad}}",
                 calls: f"%calls: {count} {{hop.buffer = @calls}}"}
    differentiated = hopc.parse(f"""
hop.buffer @calls : {count}
hop.parameter @w : {t3}
hop.entry forward @forward
hop.entry backward @backward
func.func @forward({", ".join(arguments[i] for i in range(3))}) -> ({t3}, {count} {{hop.copy_back_to = {calls} : i64}}, {t3} {{hop.saved = 0 : i64}}) {{
  %y = aten.mul.Tensor(%x, %w) : ({t3}, {t3}) -> {t3}
  %more = aten.add.Scalar(%calls) {{other = 1 : i64}} : ({count}) -> {count}
  func.return %y, %more, %x : {t3}, {count}, {t3}
}}
func.func @backward(%x: {t3} {{hop.saved = 0 : i64}}, %ct: {t3} {{hop.cotangent_of = 0 : i64}}) -> ({t3} {{hop.gradient_of = {w} : i64}}) {{
  %grad = aten.mul.Tensor(%ct, %x) : ({t3}, {t3}) -> {t3}
  func.return %grad : {t3}
}}
""")
    body = module.body.block
    for op in list(body.ops):
        op.detach()
        op.erase()
    for op in list(differentiated.body.block.ops):
        op.detach()
        body.add_op(op)
    return module


class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3))
        self.register_buffer("calls", torch.tensor(0))

    def forward(self, x):
        self.calls.add_(1)
        return x * self.w


def test_backend_marks_parameters_and_trains_through_the_differentiated_module(monkeypatch):
    monkeypatch.setattr(hopc.passes.autograd, "differentiate", _scale_differentiated)
    model = Scale()
    compiled = hopc.compile(model)
    x = torch.randn(3)
    compiled(x).square().sum().backward()
    torch.testing.assert_close(model.w.grad, 2 * x * x * model.w.detach())
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), x * model.w)
    assert model.calls.item() == 2 and not model.calls.requires_grad


def test_no_grad_inside_a_program_to_differentiate():
    def scaled(x, w):
        with torch.no_grad():
            scale = w.abs().max()
        return x * w / scale

    def run(program):
        x, w = torch.randn(3, generator=SEED), torch.randn(3, generator=SEED).requires_grad_()
        program(x, w).sum().backward()
        return w.grad

    SEED.manual_seed(1)
    want = run(scaled)
    SEED.manual_seed(1)
    torch.testing.assert_close(run(hopc.compile(scaled)), want)


def test_value_requiring_grad_written_into_a_buffer_is_refused():
    class Tracked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(3))
            self.register_buffer("last", torch.zeros(3))

        def forward(self, x):
            y = x * self.w
            self.last.copy_(y)
            return y

    with pytest.raises(HopcError, match="writes a value that requires grad into 'last'"):
        hopc.compile(Tracked())(torch.randn(3))


def test_changed_input_that_requires_grad_is_differentiated_as_in_eager():
    def scale_in_place(x, w):
        x.mul_(w)
        return x.sin()

    def run(program):
        a, w = (t.clone().requires_grad_() for t in (torch.randn(3, generator=SEED), torch.randn(3, generator=SEED)))
        x = a * 1  # not a leaf, so eager may change it in place
        y = program(x, w)
        (y.sum() + (x * x).sum()).backward()  # a use of x after the call: through its new value
        return x.detach(), y.detach(), a.grad, w.grad

    SEED.manual_seed(0)
    eager = run(scale_in_place)
    SEED.manual_seed(0)
    for ours, want in zip(run(hopc.compile(scale_in_place)), eager, strict=True):
        torch.testing.assert_close(ours, want)


def test_buffer_that_requires_grad_is_refused():
    class GradBuffer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.ones(3, requires_grad=True))

        def forward(self, x):
            return x * self.scale

    with pytest.raises(HopcError, match="the buffer 'scale' requires grad"):
        hopc.compile(GradBuffer())(torch.randn(3))


def test_outputs_that_need_no_gradient_run_without_a_backward():
    """Only an integer output depends on the parameters: the pass adds no backward, and the call
    runs the forward as it is."""
    layer = torch.nn.Linear(4, 3)

    def classify(x):
        return layer(x).argmax(-1)

    x = torch.randn(2, 4)
    assert torch.equal(hopc.compile(classify)(x), classify(x))


class _NoGradSpans(torch.nn.Module):
    """A scale computed under torch.no_grad() (a constant to the backward) and a counter buffer
    bumped there (Note [no-grad spans])."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        y = self.lin(x)
        with torch.no_grad():
            scale = y.abs().max() + 1
            self.calls.add_(1)
        return y / scale


def test_values_made_under_no_grad_take_no_gradient_as_in_eager():
    def run(make):
        torch.manual_seed(0)
        model = _NoGradSpans()
        call = make(model)
        x = torch.randn(4, 3, requires_grad=True)
        for _ in range(2):
            call(x).sum().backward()
        return model.lin.weight.grad, model.lin.bias.grad, x.grad, model.calls

    for ours, want in zip(run(hopc.compile), run(lambda model: model), strict=True):
        torch.testing.assert_close(ours, want)


def test_changing_a_parameter_under_no_grad_is_a_located_error():
    class Decayed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 2)

        def forward(self, x):
            y = self.lin(x).sum()
            with torch.no_grad():
                self.lin.weight.mul_(0.5)
            return y * self.lin.weight.sum()

    with pytest.raises(HopcError, match="in-place change under torch.no_grad") as raised:
        hopc.compile(Decayed())(torch.randn(4, 3))
    assert raised.value.location is not None and raised.value.location.file == __file__
