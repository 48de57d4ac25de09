"""Gradients through hop.invoke_subgraph, hop.checkpoint and hop.wrap (issue 11 items 4 and 5).

The rules are ``hopc.passes.autograd.hops.invoke_subgraph``, ``.checkpoint``
(Note [checkpoint recompute]) and ``.wrap``.
"""

from __future__ import annotations

import torch
from autograd_harness import check_gradients, differentiated, mark_requires_grad
from torch._higher_order_ops.wrap import wrap
from torch.export import Dim
from torch.utils.checkpoint import checkpoint
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import SSAValue

import hopc
from hopc.backend.interpreter import run_module
from hopc.dialects import hop
from hopc.dialects.hop_module_structure import entry_function, entry_signature
from hopc.dialects.verify import verify_module
from hopc.passes.autograd import differentiate
from hopc.passes.pipeline import run_pipeline


@torch.compiler.nested_compile_region
def _region(a, w):
    return (a @ w).tanh() * 2


def _subgraph_names(module: ModuleOp) -> list[str]:
    return [op.sym_name.data for op in module.ops if isinstance(op, hop.SubgraphOp)]


def _calls(function: FuncOp) -> list[str]:
    return [op.callee.string_value() for op in function.walk() if isinstance(op, hop.InvokeSubgraphOp)]


def test_region_called_at_two_sizes_shares_one_pair():
    def program(x, y, w):
        return _region(x, w).sum(0) + _region(y, w).sum(0)

    dynamic = ({0: Dim("n", min=2)}, {0: Dim("m", min=2)}, None)
    module = check_gradients(program, [torch.randn(3, 4), torch.randn(5, 4), torch.randn(4, 4)],
                             dynamic_shapes=dynamic,
                             run_args=[torch.randn(6, 4), torch.randn(2, 4), torch.randn(4, 4)])
    names = _subgraph_names(module)
    assert len(names) == 2, names  # the pair; the original subgraph, no longer called, is gone
    forward_name, backward_name = sorted(names, key=lambda n: "_backward_" in n)
    assert _calls(entry_function(module, "forward")) == [forward_name, forward_name]
    assert _calls(entry_function(module, "backward")) == [backward_name, backward_name]


def test_region_with_an_undifferentiated_call_keeps_the_original():
    def program(x, y, w):
        return _region(x, w) + _region(y, w)

    values = [torch.randn(3, 4), torch.randn(3, 4), torch.randn(4, 4)]
    module = run_pipeline(hopc.capture(program, tuple(values)))
    mark_requires_grad(module, [0])  # only x: the call on (y, w) has no active operand
    differentiate(module)
    verify_module(module)
    calls = _calls(entry_function(module, "forward"))
    assert calls[1] == "subgraph_0" and calls[0] != calls[1], calls
    assert len(_subgraph_names(module)) == 3
    _, gradients, _ = _forward_backward(module, values, seed=0)
    x = values[0].clone().requires_grad_()
    (expected,) = torch.autograd.grad(program(x, *values[1:]).sum(), [x])
    torch.testing.assert_close(gradients[0], expected)


class _Checkpointed(torch.nn.Module):
    """An MLP whose middle segment is checkpointed."""

    def __init__(self, dropout: float = 0.0):
        super().__init__()
        self.first = torch.nn.Linear(8, 16)
        dropped = [torch.nn.Dropout(dropout)] if dropout else []
        self.segment = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), *dropped,
                                           torch.nn.Linear(32, 16))
        self.last = torch.nn.Linear(16, 4)

    def forward(self, x):
        hidden = self.first(x).relu()
        return self.last(checkpoint(self.segment, hidden, use_reentrant=False))


def _saved_values(module: ModuleOp) -> list[SSAValue]:
    forward = entry_function(module, "forward")
    returned = forward.body.block.last_op
    return [returned.operands[i] for i in entry_signature(module, "forward").saved_results.values()]


class _Segment(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.segment = _Checkpointed().segment

    def forward(self, x):
        return checkpoint(self.segment, x, use_reentrant=False)


def test_checkpoint_saves_only_the_region_inputs():
    torch.manual_seed(0)
    module = check_gradients(_Segment(), [torch.randn(5, 16)])
    forward = entry_function(module, "forward")
    (call,) = [op for op in forward.walk() if isinstance(op, hop.InvokeSubgraphOp)]
    assert set(_saved_values(module)) == set(call.inputs)  # x and the segment's parameters
    assert _calls(entry_function(module, "backward"))[0] == call.callee.string_value()  # the recompute


def test_checkpoint_between_layers_saves_none_of_its_values():
    torch.manual_seed(0)
    module = check_gradients(_Checkpointed(), [torch.randn(5, 8)])
    (call,) = [op for op in entry_function(module, "forward").walk() if isinstance(op, hop.InvokeSubgraphOp)]
    saved = _saved_values(module)
    # The last linear's weight gradient reads the checkpoint's result, as in eager; its residuals
    # (the values inside the region) are never saved.
    assert not set(call.results[1:]) & set(saved), saved
    assert set(call.inputs[1:]) <= set(saved)  # the segment's parameters, for the recompute


def _forward_backward(module: ModuleOp, values: list[torch.Tensor], seed: int
                      ) -> tuple[list[torch.Tensor], dict[int, torch.Tensor], list[torch.Tensor]]:
    """(user outputs, gradients by argument, the backward's extra results) under ``seed``."""
    forward = entry_signature(module, "forward")
    backward = entry_signature(module, "backward")
    torch.manual_seed(seed)
    results = run_module(module, [v.clone() for v in values], function="forward")
    outputs = [results[i] for i in forward.user_outputs]
    torch.rand(7)  # draws between forward and backward must not change the recompute
    saved = {k: results[i] for k, i in forward.saved_results.items()}
    cotangents = [torch.ones_like(o) for o in outputs]
    arguments = [saved[role.target] if role.kind == "hop.saved" else
                 cotangents[forward.user_outputs.index(role.target)] for role in backward.arguments]
    state = torch.get_rng_state()
    returned = run_module(module, arguments, function="backward")
    assert torch.equal(torch.get_rng_state(), state), "the backward restores the generator's state"
    gradients = {backward.gradient_results[i]: g for i, g in enumerate(returned)
                 if i in backward.gradient_results}
    return outputs, gradients, returned[len(backward.gradient_results):]


def test_checkpoint_with_dropout_gives_eager_gradients_with_the_same_seed():
    torch.manual_seed(0)
    model = _Checkpointed(dropout=0.5).train()
    x = torch.randn(64, 8)
    _, module, values = differentiated(model, [x])
    rng_ops = [op.name for op in module.walk() if op.name.endswith("_rng_state")]
    assert rng_ops == ["hop.get_rng_state", "hop.get_rng_state", "hop.set_rng_state",
                       "hop.set_rng_state"], rng_ops  # forward: read; backward: read, set, restore
    outputs, gradients, _ = _forward_backward(module, values, seed=3)

    leaves = [v.detach().clone().requires_grad_() for v in values]
    signature = entry_signature(module, "forward")
    named = {role.target: leaves[i] for i, role in enumerate(signature.arguments) if role.kind != "user"}
    torch.manual_seed(3)
    eager = torch.func.functional_call(model, named, (leaves[0],))
    torch.testing.assert_close(outputs[0], eager, rtol=1e-5, atol=1e-6)  # the same masks
    expected = torch.autograd.grad(eager, leaves, torch.ones_like(eager))
    for index, want in enumerate(expected):
        torch.testing.assert_close(gradients[index], want, rtol=1e-4, atol=1e-5,
                                   msg=lambda m, i=index: f"argument {i}: {m}")


def test_checkpoint_recompute_is_bit_identical_to_the_forward():
    def program(x, w):
        return checkpoint(lambda a: torch.nn.functional.dropout((a @ w).tanh(), 0.3, training=True),
                          x, use_reentrant=False)

    _, module, values = differentiated(program, [torch.randn(32, 16), torch.randn(16, 16)])
    backward = entry_function(module, "backward")
    recompute = next(op for op in backward.walk() if isinstance(op, hop.InvokeSubgraphOp))
    _return_also(backward, recompute.results[0])
    outputs, _, (recomputed,) = _forward_backward(module, values, seed=5)
    assert torch.equal(recomputed, outputs[0])


def _return_also(function: FuncOp, value: SSAValue) -> None:
    """Makes ``function`` also return ``value`` (after its results)."""
    returned = function.body.block.last_op
    assert isinstance(returned, ReturnOp)
    function.body.block.insert_op_before(ReturnOp(*returned.operands, value), returned)
    function.body.block.erase_op(returned)
    function.function_type = FunctionType.from_lists(function.function_type.inputs.data,
                                                     [*function.function_type.outputs.data, value.type])
    if function.res_attrs is not None:
        function.res_attrs = ArrayAttr([*function.res_attrs.data, DictionaryAttr({})])


def test_region_inside_a_checkpoint():
    def program(x, w):
        return checkpoint(lambda a: _region(a, w).sin(), x, use_reentrant=False)

    module = check_gradients(program, [torch.randn(3, 4), torch.randn(4, 4)])
    assert len(_subgraph_names(module)) == 4  # the region's pair inside the checkpoint's


def test_wrap():
    def program(x, y):
        return wrap(lambda a, b: a.sin() * b, x, y) + 1

    module = check_gradients(program, [torch.randn(4), torch.randn(4)])
    assert sum(isinstance(op, hop.WrapOp) for op in entry_function(module, "forward").walk()) == 1
    assert sum(isinstance(op, hop.WrapOp) for op in entry_function(module, "backward").walk()) == 1


def test_wrap_inside_a_checkpoint_with_dynamic_size():
    def program(x, w):
        return checkpoint(lambda a: wrap(lambda b: b.cos() @ w, a), x, use_reentrant=False).exp()

    check_gradients(program, [torch.randn(3, 4), torch.randn(4, 2)],
                    dynamic_shapes=({0: Dim("n", min=2)}, None), run_args=[torch.randn(7, 4), torch.randn(4, 2)])
