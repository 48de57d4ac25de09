"""Views with computed sizes in regions, and builders that guard, trained at new sizes (issue 23).

Dynamo's ``view(x, [2, -1])`` of ``[s0, s1]`` splits ``s0`` and gives
``[2, s1*(s0//2)]`` (guarding that ``s0`` is even), where PyTorch's meta
kernel, which a derivative's trace runs, gives ``[2, s0*s1//2]``: equal only
under Dynamo's guard, so a view in a cond branch was refused ("result #0 has
type [2, p1*(p0 // 2)], but the trace gives [2, p0*p1 // 2]"). The trace in
the frame's ``ShapeEnv`` has the guard, and its result takes the declared
sizes (Note [derivatives in a frame] in ``hopc.passes.autograd.derivatives``).

A builder's trace that guards (functionalize's ``add`` for an ``add_`` whose
operand has ``self``'s sizes only under a fact Dynamo guarded) is traced in the
frame too (Note [frame guards] in ``hopc.torch_bridge.op_tracer``); outside Dynamo it
stays a located error naming the guard.

Each program trains (or runs under ``no_grad``) against eager at three or
more sizes and compiles no more graphs than ``aot_eager``, counting only the
compiled calls (PyTorch's eager ``cond`` compiles graphs of its own).
"""

from __future__ import annotations

import pytest
import torch
from torch._dynamo.utils import counters

import hopc
from hopc.ir.diagnostics import HopcError
from hopc.passes.pipeline import run_pipeline

torch.manual_seed(0)
_WEIGHT = torch.randn(1, requires_grad=True)


def _in_cond(body):
    """``body`` (of ``x * w``) in both branches of a cond on the data."""

    def program(x):
        return torch.cond(x.sum() > 0, lambda x: body(x * _WEIGHT).sum(1),
                          lambda x: (body(x) * 2 * _WEIGHT).sum(1), (x,)).sum()
    return program


def _in_size_cond(body):
    """``body`` in both branches of a cond on a size (a non-tensor predicate)."""

    def program(x):
        return torch.cond(x.shape[0] > 4, lambda x: body(x * _WEIGHT).sum(1),
                          lambda x: (body(x) * 2 * _WEIGHT).sum(1), (x,)).sum()
    return program


def _in_checkpoint(body):
    def program(x):
        return torch.utils.checkpoint.checkpoint(lambda x: body(x * _WEIGHT).sin(), x,
                                                 use_reentrant=False).sum()
    return program


def _in_nested_region(body):
    region = torch.compiler.nested_compile_region(lambda x, w: body(x * w).sin())

    def program(x):
        return region(x, _WEIGHT).sum()
    return program


def _halves(x):
    return x.view(2, -1)  # [2, s1*(s0//2)] in Dynamo, [2, s0*s1//2] in the meta kernel


def _half_rows(x):
    return x.view(x.shape[0] // 2, 2 * x.shape[1])  # [s0//2, s1*(s0//(s0//2))] in Dynamo


def _reshaped(x):
    return x.reshape(2, x.shape[0] // 2 * x.shape[1])


_ODD_ROWS = [(4, 3), (6, 5), (8, 7), (5, 4)]
"""The last has an odd first size: ``view(2, -1)`` still runs, under another guard."""
_EVEN_ROWS = [(4, 3), (6, 5), (8, 7)]

VIEW_PROGRAMS = {
    "cond_halves": (_in_cond(_halves), _ODD_ROWS),
    "cond_half_rows": (_in_cond(_half_rows), _EVEN_ROWS),
    "size_cond_halves": (_in_size_cond(_halves), _EVEN_ROWS),
    "checkpoint_halves": (_in_checkpoint(_halves), _ODD_ROWS),
    "nested_region_reshaped": (_in_nested_region(_reshaped), _EVEN_ROWS),
}


def _run(compiled, program, shapes, grad: bool) -> int:
    """Runs ``compiled`` against eager at each shape; the graphs its calls compiled."""
    torch._dynamo.reset()
    counters.clear()
    graphs = 0
    for shape in shapes:
        x = torch.randn(*shape)
        before = counters["stats"]["unique_graphs"]
        with torch.set_grad_enabled(grad):
            out = compiled(x)
            gradient = torch.autograd.grad(out, _WEIGHT)[0] if grad else None
        graphs += counters["stats"]["unique_graphs"] - before
        with torch.set_grad_enabled(grad):
            expected = program(x)
            expected_gradient = torch.autograd.grad(expected, _WEIGHT)[0] if grad else None
        torch.testing.assert_close(out, expected)
        torch.testing.assert_close(gradient, expected_gradient)
    return graphs


def _check_like_aot_eager(program, shapes, grad: bool) -> None:
    # hopc's own settings for data-dependent sizes, for aot_eager and eager's cond alike
    with torch._dynamo.config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True):
        hopc_graphs = _run(hopc.compile(program, dynamic=True), program, shapes, grad)
        aot_graphs = _run(torch.compile(program, backend="aot_eager", dynamic=True), program, shapes, grad)
    assert hopc_graphs <= aot_graphs


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("name", VIEW_PROGRAMS)
def test_view_with_computed_sizes_in_a_region_runs_like_eager(name, grad):
    program, shapes = VIEW_PROGRAMS[name]
    _check_like_aot_eager(program, shapes, grad)


def _add_in_place_to_halves(x):
    """``add_`` of ``[2, s0*s1//2]`` into ``[2, s1*(s0//2)]``: equal sizes only where ``s0`` is even."""
    halves = (x * _WEIGHT).view(2, -1).clone()
    halves.add_(torch.ones(2, x.shape[0] * x.shape[1] // 2))
    return halves.sin().sum()


def _mul_in_place_by_even_rows(x):
    """``mul_`` by ``x[:2*(s0//2)]``, which has ``s0`` rows only where ``s0`` is even."""
    product = (x * _WEIGHT).clone()
    product.mul_(x[: x.shape[0] // 2 * 2])
    return product.sum()


@pytest.mark.parametrize("program", [_add_in_place_to_halves, _mul_in_place_by_even_rows],
                         ids=["add_", "mul_"])
def test_an_in_place_op_whose_functional_form_guards_trains_like_eager(program):
    _check_like_aot_eager(program, _EVEN_ROWS, grad=True)


_GUARDED_ADD = """
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 4
  hop.symbol @s1 backed [2, oo] hint 3
  func.func @forward(%x: !hop.tensor<[2, s1*(s0 // 2)], f32>, %y: !hop.tensor<[2, s0*s1 // 2], f32>)
      -> !hop.tensor<[2, s1*(s0 // 2)], f32> {
    %c = aten.clone(%x) : (!hop.tensor<[2, s1*(s0 // 2)], f32>) -> !hop.tensor<[2, s1*(s0 // 2)], f32>
    %a = aten.add_.Tensor(%c, %y) : (!hop.tensor<[2, s1*(s0 // 2)], f32>, !hop.tensor<[2, s0*s1 // 2], f32>) -> !hop.tensor<[2, s1*(s0 // 2)], f32>
    func.return %c : !hop.tensor<[2, s1*(s0 // 2)], f32>
  }
}
"""


def test_outside_dynamo_a_builder_guard_is_a_located_refusal_naming_it():
    with pytest.raises(HopcError, match=r"aten.add.Tensor: tracing it would install a guard on shape "
                                        r"symbols \(Eq\(s1\*\(\(s0//2\)\), \(\(s0\*s1\)//2\)\)\)") as error:
        run_pipeline(hopc.parse(_GUARDED_ADD))
    assert error.value.location is not None and error.value.location.line == 8


def _size_cond_of_computed_sizes(x):
    """A cond on a size whose branches use sizes computed from it (issue 23 section 1)."""
    n = x.shape[0]
    return torch.cond(n > 4, lambda x: (x * _WEIGHT).view(n * x.shape[1]).sin().sum() * (n * 2),
                      lambda x: (x * _WEIGHT).sum() * (n // 2 + 1), (x,))


def _unbacked_size_in_a_branch(x):
    """A branch's data-dependent size, used within the branch."""

    def true_branch(x):
        picked = (x * _WEIGHT)[x[:, 0] > 0]
        return picked.sum(0) * picked.shape[0]
    return torch.cond(x.sum() > 0, true_branch, lambda x: (x * _WEIGHT * 2).sum(0) * x.shape[0],
                      (x,)).sum()


def _checkpoint_of_compound_sizes(x):
    """``view(a*b, -1)`` under checkpoint, the product also returned as a size."""

    def body(x):
        a, b = x.shape
        return (x * _WEIGHT).view(a * b, -1).sin(), a * b
    flat, count = torch.utils.checkpoint.checkpoint(body, x, use_reentrant=False)
    return flat.sum() * count + flat.view(x.shape[1], -1).sum(0).sum()


@pytest.mark.parametrize("program", [_size_cond_of_computed_sizes, _unbacked_size_in_a_branch,
                                     _checkpoint_of_compound_sizes],
                         ids=["size_cond", "unbacked_in_branch", "checkpoint_compound"])
def test_regions_with_computed_sizes_train_like_eager(program):
    """Programs tried for two issue 23 reports that did not reproduce ("no forward value binds
    symbol", "a branch's backward needs size ..., which no operand of the cond carries")."""
    _check_like_aot_eager(program, [(4, 6), (6, 4), (8, 10)], grad=True)
