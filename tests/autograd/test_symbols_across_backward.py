"""Training with symbolic sizes under ``hopc.compile(..., dynamic=True)`` (issue 23, section 1).

Each program is trained at two or three sizes against eager. The view case is
Note [sizes of tangents] (``hopc.passes.autograd.aten_rule``): a forward view
whose sizes the derivative's trace reads from the tangent once landed among
the backward ops ("Operation using value defined out of its IsolatedFromAbove
parent"). The operator cases are Python's unary operators on sizes
(``hop.sym_neg``, ``hop.sym_abs``, ``hop.sym_not``) and ``torch.sym_sum``; a
``torch.sym_ite`` size in a derivative's trace is evaluated on torch sizes
without a guard (``hopc.torch_bridge.torch_symbolic``). The cond cases save a predicate
over an unbacked symbol, whose symbol the backward must bind as well.
"""

from __future__ import annotations

import copy

import pytest
import torch
from torch._dynamo.utils import counters

import hopc
from hopc.backend.interpreter import run_module
from hopc.backend.runtime.executors import CPU_EXECUTORS


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    counters.clear()
    yield
    torch._dynamo.reset()


def _train_against_eager(program, weight: torch.Tensor, inputs: list[torch.Tensor]) -> None:
    """Loss and the weight's gradient of ``program`` compiled equal eager's at each input."""
    compiled = hopc.compile(program, dynamic=True)
    for x in inputs:
        mine = compiled(x)
        (gradient,) = torch.autograd.grad(mine, weight)
        expected = program(x)
        (expected_gradient,) = torch.autograd.grad(expected, weight)
        torch.testing.assert_close(mine, expected, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(gradient, expected_gradient, rtol=1e-5, atol=1e-5)


def test_view_to_input_batch_and_sequence_trains_at_new_sizes():
    """``(x.view(-1, 192) * w).view(B, S, 192)``: the second view's sizes come from the tangent in
    its derivative's trace, and it must stay a forward op (Note [sizes of tangents])."""
    weight = torch.randn(192, requires_grad=True)

    def program(x):
        batch, sequence, _ = x.shape
        return (x.view(-1, 192) * weight).view(batch, sequence, 192).sum()

    _train_against_eager(program, weight, [torch.randn(2, s, 192) for s in (3, 5, 7)])


def test_softmax_of_view_trains_at_new_sizes():
    weight = torch.randn(4, requires_grad=True)

    def program(x):
        batch, sequence, _ = x.shape
        return torch.softmax((x.view(-1, 4) * weight).view(batch, sequence, 4), dim=-1).pow(2).sum()

    _train_against_eager(program, weight, [torch.randn(2, s, 4) for s in (3, 5, 7)])


def test_view_in_nested_compile_region_trains_at_new_sizes():
    weight = torch.randn(4, requires_grad=True)

    @torch.compiler.nested_compile_region
    def region(x, w):
        batch, sequence, _ = x.shape
        return (x.view(-1, 4) * w).view(batch, sequence, 4).softmax(-1)

    def program(x):
        return region(x, weight).pow(2).sum()

    _train_against_eager(program, weight, [torch.randn(2, s, 4) for s in (3, 5, 7)])


def test_unary_operators_and_sym_sum_on_sizes_train_at_new_sizes():
    """``-n`` (``x[-n:]``), ``abs``, ``sym_not``, ``sym_sum``, with the other operators, on sizes."""
    weight = torch.randn(1, requires_grad=True)

    def program(x):
        n, m = x.shape
        tail = x[-(n // 2):] * weight
        scale = abs(n - m) + torch.sym_sum([n, m, -m]) + min(n, m) * max(n, m) + n % 3 + n ** 2
        flag = torch.sym_ite(torch.sym_not(n > m), 1, 2)
        return tail.sum() * scale + (x * weight).sum() * flag

    _train_against_eager(program, weight, [torch.randn(*shape) for shape in ((6, 4), (3, 7), (9, 2))])


_UNARY_OPERATORS = """
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
func.func @forward(%x: !hop.tensor<[s0, s1], f32>)
    -> (!hop.symint<-s0>, !hop.symint<Max(-s0 + s1, s0 - s1)>, !hop.symbool<Le(s0, s1)>) {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, s1], f32> -> !hop.symint<s0>
  %m = hop.sym_size %x[1] : !hop.tensor<[s0, s1], f32> -> !hop.symint<s1>
  %neg = hop.sym_neg %n : !hop.symint<s0> -> !hop.symint<-s0>
  %d = hop.sym_sub %n, %m : !hop.symint<s0>, !hop.symint<s1> -> !hop.symint<s0 - s1>
  %abs = hop.sym_abs %d : !hop.symint<s0 - s1> -> !hop.symint<Max(-s0 + s1, s0 - s1)>
  %gt = hop.sym_gt %n, %m : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Gt(s0, s1)>
  %not = hop.sym_not %gt : !hop.symbool<Gt(s0, s1)> -> !hop.symbool<Le(s0, s1)>
  func.return %neg, %abs, %not : !hop.symint<-s0>, !hop.symint<Max(-s0 + s1, s0 - s1)>, !hop.symbool<Le(s0, s1)>
}
"""


@pytest.mark.parametrize("executor", [None, *sorted(CPU_EXECUTORS)])
def test_unary_operators_run_as_python_on_every_executor(executor):
    """``-n``, ``abs(n - m)``, ``not n > m`` at (3, 7) and (7, 3); None: the reference interpreter."""
    module = hopc.parse(_UNARY_OPERATORS)
    run = (lambda x: run_module(module, [x])) if executor is None else hopc.compile(module, executor=executor)
    for n, m in ((3, 7), (7, 3)):
        assert list(run(torch.randn(n, m))) == [-n, abs(n - m), not n > m]


def test_gpt2_trains_with_a_new_sequence_length_each_step():
    """Tiny GPT-2 at sequence lengths 5, 9, 13: losses and parameters equal eager's after each SGD
    step, with no more graph compiles than Dynamo itself makes (``slice(-n, None)`` negates a size)."""
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(n_embd=32, n_layer=2, n_head=4, vocab_size=64, n_positions=64)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config).train()
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    eager, mine = copy.deepcopy(model), copy.deepcopy(model)
    compiled = hopc.compile(mine, dynamic=True)
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager, mine)]
    batches = [torch.randint(0, 64, (2, length)) for length in (5, 9, 13)]
    for ids in batches:
        losses = [run(input_ids=ids, labels=ids).loss for run in (eager, compiled)]
        for loss, optimizer in zip(losses, optimizers):
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        torch.testing.assert_close(losses[1], losses[0], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(list(mine.parameters()), list(eager.parameters()), rtol=1e-5, atol=1e-5)
    hopc_graphs = counters["stats"]["unique_graphs"]
    torch._dynamo.reset()
    counters.clear()
    dynamo_only = torch.compile(copy.deepcopy(model), backend="eager", dynamic=True)
    for ids in batches:
        dynamo_only(input_ids=ids, labels=ids).loss.backward()
    assert 0 < hopc_graphs <= counters["stats"]["unique_graphs"]


def test_cond_on_unbacked_predicate_trains_at_new_sizes():
    """``k.item() > 2`` as the predicate: the backward takes the saved ``!hop.symbool<Gt(u0, 2)>``
    and so must bind ``u0`` too (``hopc.passes.autograd.partition`` saves it)."""
    weight = torch.randn(4, requires_grad=True)

    def program(x, k):
        return torch.cond(k.item() > 2, lambda x: (x * weight).sin(), lambda x: (x * weight).cos(), (x,)).sum()

    compiled = hopc.compile(program, dynamic=True)
    for size in (3, 5, 2, 7):  # 2: the else branch
        x, k = torch.randn(size, 4), torch.tensor(size)
        (gradient,) = torch.autograd.grad(compiled(x, k), weight)
        (expected,) = torch.autograd.grad(program(x, k), weight)
        torch.testing.assert_close(gradient, expected, rtol=1e-5, atol=1e-5)


def test_cond_on_data_dependent_predicate_trains_at_new_sizes():
    weight = torch.randn(4, requires_grad=True)

    def program(x):
        return torch.cond(x.sum() > 0, lambda x: (x * weight).sin(), lambda x: (x * weight).cos(), (x,)).sum()

    _train_against_eager(program, weight, [torch.randn(s, 4) for s in (3, 5, 7)] + [-torch.ones(4, 4)])
