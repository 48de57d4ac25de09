"""``hop.associative_scan`` end to end (Note [associative scan capture], Note [associative scan
backward]): gradients against eager and the oracle, every executor in grad mode and under no_grad,
dynamic lengths, and the refusals. The reference for eager is PyTorch's own ``associative_scan``
(``combine_mode="generic"``, a tree of combines), and a plain Python loop over the scanned dim."""

from __future__ import annotations

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported: kernels run on CPU tensors

import pytest
import torch
from autograd_harness import check_gradients
from torch._higher_order_ops.associative_scan import associative_scan
from torch.export import Dim

import hopc
from hopc.backend.interpreter import run_module
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.dialects import hop
from hopc.dialects.hop_interface import hop_interface
from hopc.ir.diagnostics import HopcError


def _affine(a, b):
    """Composes two affine maps ``x -> a0 * x + a1`` (associative, not commutative)."""
    return a[0] * b[0], a[1] * b[0] + b[1]


def affine_scan(x, y):
    return associative_scan(_affine, (x, y), 1, combine_mode="generic")


def affine_loop(x, y):
    """``affine_scan`` as a plain Python loop over dim 1."""
    outputs, carry = [], None
    for i in range(x.size(1)):
        step = (x[:, i], y[:, i])
        carry = step if carry is None else _affine(carry, step)
        outputs.append(carry)
    return torch.stack([o[0] for o in outputs], 1), torch.stack([o[1] for o in outputs], 1)


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_the_loop_is_the_reference():
    x, y = torch.randn(2, 6, 3), torch.randn(2, 6, 3)
    torch.testing.assert_close(affine_scan(x, y), affine_loop(x, y))


def test_gradients_of_an_affine_recurrence():
    module = check_gradients(affine_scan, [torch.randn(2, 6, 3), torch.randn(2, 6, 3)])
    assert any(op.name == "hop.scan" for op in module.walk())


def test_gradients_reverse_with_a_loop_invariant_operand():
    def program(x, w):
        return associative_scan(lambda a, b: a + b + w, x, 0, reverse=True, combine_mode="generic")

    check_gradients(program, [torch.randn(5, 3), torch.randn(3)])


def test_gradients_with_a_dynamic_length():
    length = Dim("length", min=2)
    check_gradients(affine_scan, [torch.randn(2, 6, 3), torch.randn(2, 6, 3)],
                    dynamic_shapes=({1: length}, {1: length}),
                    run_args=[torch.randn(2, 9, 3), torch.randn(2, 9, 3)])


def test_one_slice_is_its_own_scan():
    check_gradients(affine_scan, [torch.randn(2, 1, 3), torch.randn(2, 1, 3)])


def _outputs_and_gradients(program, x, y, grad: bool) -> list[torch.Tensor]:
    x, y = x.clone().requires_grad_(grad), y.clone().requires_grad_(grad)
    if not grad:
        with torch.no_grad():
            return list(program(x, y))
    outputs = program(x, y)
    cotangents = [torch.randn(o.shape, generator=torch.Generator().manual_seed(1)) for o in outputs]
    return [o.detach() for o in outputs] + list(torch.autograd.grad(outputs, [x, y], cotangents))


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_every_executor_agrees_with_eager_and_the_interpreter(executor: str, grad: bool):
    """Two lengths: the second call compiles the length, one symbol for both inputs
    (Note [associative scan capture]), as a dynamic size."""
    compiled, oracle = hopc.compile(affine_scan, executor=executor), hopc.compile(affine_scan, executor="interpreter")
    for length in (5, 8):
        x, y = torch.randn(2, length, 3), torch.randn(2, length, 3)
        expected = _outputs_and_gradients(affine_loop, x, y, grad)
        torch.testing.assert_close(_outputs_and_gradients(affine_scan, x, y, grad), expected)
        actual = _outputs_and_gradients(compiled, x, y, grad)
        torch.testing.assert_close(actual, expected, msg=lambda m: f"{executor} against eager: {m}")
        torch.testing.assert_close(actual, _outputs_and_gradients(oracle, x, y, grad),
                                   msg=lambda m: f"{executor} against the interpreter: {m}")


def test_a_loop_invariant_operand_compiles_under_no_grad():
    w = torch.randn(3)

    def program(x):
        return associative_scan(lambda a, b: a + b + w, x, 0, combine_mode="generic")

    x = torch.randn(4, 3)
    with torch.no_grad():
        torch.testing.assert_close(hopc.compile(program)(x), program(x))


def test_a_loop_invariant_operand_in_grad_mode_is_pytorchs_located_refusal():
    """Dynamo runs the HOP's own autograd kernel, which refuses lifted operands (PyTorch 2.13)."""
    w = torch.randn(3)

    def program(x):
        return associative_scan(lambda a, b: a + b + w, x, 0, combine_mode="generic")

    with pytest.raises(HopcError, match="test_autograd_associative_scan.py:.*lifted parameters"):
        hopc.compile(program)(torch.randn(4, 3, requires_grad=True))


def test_a_combine_that_is_not_elementwise_is_a_located_error():
    def program(x):
        return associative_scan(lambda a, b: a @ b, x, 0, combine_mode="generic")

    with pytest.raises(HopcError, match="test_autograd_associative_scan.py:.*pointwise"):
        hopc.capture(program, (torch.randn(4, 3, 3),))


class Shifted(torch.nn.Module):
    """A running sum that adds ``exp(shift)`` at every step (associative: ``a + b + c``)."""

    def __init__(self):
        super().__init__()
        self.shift = torch.nn.Parameter(torch.randn(3))

    def forward(self, x):
        return associative_scan(lambda a, b: a + b + self.shift.exp(), x, 0, combine_mode="generic")


def test_frozen_weights_fold_into_the_combine_body():
    module, x = Shifted().eval(), torch.randn(6, 3)
    with torch.no_grad():
        torch.testing.assert_close(hopc.compile(module, freeze=True, executor="aten")(x), module(x))


_RUNNING_PRODUCT = """
func.func @f(%x: !hop.tensor<[{length}, 3], f32>) -> !hop.tensor<[{length}, 3], f32> {{
  %r = hop.associative_scan xs(%x) additional() : (!hop.tensor<[{length}, 3], f32>), () -> !hop.tensor<[{length}, 3], f32> {{
  ^bb0(%a: !hop.tensor<[3], f32>, %b: !hop.tensor<[3], f32>):
    %p = aten.mul.Tensor(%a, %b) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    hop.yield %p : !hop.tensor<[3], f32>
  }}
  func.return %r : !hop.tensor<[{length}, 3], f32>
}}
"""


def test_each_scanned_operand_feeds_two_block_arguments():
    module = hopc.parse(_RUNNING_PRODUCT.format(length=4))
    (op,) = [op for op in module.walk() if isinstance(op, hop.AssociativeScanOp)]
    (entry,) = hop_interface(op).entries(op)
    assert entry.arguments_of(0) == tuple(op.body.block.args)
    assert entry.sliced == (0,) and not entry.results


def test_the_interpreter_runs_it_left_to_right_and_refuses_no_slices():
    x = torch.randn(4, 3)
    (result,) = run_module(hopc.parse(_RUNNING_PRODUCT.format(length=4)), [x])
    torch.testing.assert_close(result, torch.cumprod(x, 0))
    with pytest.raises(HopcError, match="scans no slices"):
        run_module(hopc.parse(_RUNNING_PRODUCT.format(length=0)), [torch.randn(0, 3)])


class _OtherBackend:
    """Another ``torch.compile`` backend: records Dynamo's graphs and runs them as they are."""

    def __init__(self):
        self.graphs = []

    def __call__(self, graph_module, example_inputs):
        self.graphs.append(graph_module)
        return graph_module.forward


def _holds_the_hop(graph_module) -> bool:
    return any(node.target is torch.ops.higher_order.associative_scan for node in graph_module.graph.nodes)


@pytest.fixture
def hopc_modules(monkeypatch):
    """The captured-level modules hopc's Dynamo backend compiles, one per graph."""
    from hopc import driver  # the Dynamo backend imports compile_captured from it where it captures

    modules, original = [], driver.compile_captured

    def recording(module, *args, **kwargs):
        modules.append(module)
        return original(module, *args, **kwargs)

    monkeypatch.setattr(driver, "compile_captured", recording)
    return modules


def _holds_hop_associative_scan(module) -> bool:
    return any(isinstance(op, hop.AssociativeScanOp) for op in module.walk())


def _compiled_by_the_other_backend(program, x, y) -> _OtherBackend:
    other = _OtherBackend()
    torch.testing.assert_close(torch.compile(program, backend=other, fullgraph=True)(x, y), affine_loop(x, y))
    return other


@pytest.mark.parametrize("hopc_first", [True, False], ids=["hopc_first", "other_first"])
def test_the_stand_in_is_hopcs_alone(hopc_modules, hopc_first: bool):
    """Note [Dynamo stand-ins are hopc's]: the same frame, compiled by hopc and by another
    backend in either order, is PyTorch's tree of combines for the other backend and the HOP for
    hopc, each from its own compile (Dynamo's cache keeps them apart)."""
    x, y = torch.randn(2, 6, 3), torch.randn(2, 6, 3)
    compiled = hopc.compile(affine_scan)
    if hopc_first:
        torch.testing.assert_close(compiled(x, y), affine_loop(x, y))
    other = _compiled_by_the_other_backend(affine_scan, x, y)
    torch.testing.assert_close(compiled(x, y), affine_loop(x, y))
    (graph,) = other.graphs
    assert not _holds_the_hop(graph)
    assert "_vmap_increment_nesting" in graph.code  # generic_associative_scan's vmap-ed combines
    (module,) = hopc_modules
    assert _holds_hop_associative_scan(module)


def test_every_hopc_route_captures_the_hop_and_leaves_other_backends_alone(hopc_modules):
    x, y = torch.randn(2, 6, 3), torch.randn(2, 6, 3)
    assert _holds_hop_associative_scan(hopc.capture(affine_scan, (x, y)))
    torch.testing.assert_close(torch.compile(affine_scan, backend="hopc")(x, y), affine_loop(x, y))
    (module,) = hopc_modules
    assert _holds_hop_associative_scan(module)
    assert not _holds_the_hop(_compiled_by_the_other_backend(affine_scan, x, y).graphs[0])
