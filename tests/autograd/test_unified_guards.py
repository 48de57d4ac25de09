"""Guards of derivative traces are the Dynamo frame's guards (Note [derivatives in a frame]).

Each program's derivative guards on a size (or needs a fact Dynamo guarded in
the forward); compiled with ``dynamic=True`` it trains like eager at every
size and recompiles exactly where ``aot_eager`` does.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch._dynamo.eval_frame import _debug_get_cache_entry_list
from torch._dynamo.utils import counters

import hopc
from hopc.ir.diagnostics import HopcError
from hopc.passes.autograd import differentiate

torch.manual_seed(0)
_CONV = torch.nn.Conv2d(3, 4, 3, stride=2)


def _max_pool(x):
    return F.max_pool2d(x, 3, 2, ceil_mode=True)


def _unfold(x):
    return x.unfold(1, 3, 2)


def _reshape(x):
    return x.reshape(2, 3, -1, 2)


def _squeeze_symbolic_dim(x):
    return x.squeeze(1) * 2


def _squeeze(x):
    return x[:, :x.shape[1] // 2].squeeze(1) * 2  # dim 1 is 1 exactly where x.shape[1] is 2 or 3


def _select(x, i):
    return x.select(0, i) * 2


def _conv(x):
    return _CONV(x)


def _glu(x):
    return F.glu(x, 1)  # its backward guards that x.shape[1] is even


PROGRAMS = {
    "max_pool2d_ceil": (_max_pool, [((1, 2, 8, 8),), ((1, 2, 9, 9),), ((1, 2, 10, 11),), ((1, 2, 3, 3),)]),
    "unfold": (_unfold, [((2, 8),), ((2, 9),), ((2, 4),), ((2, 3),)]),
    "reshape": (_reshape, [((12, 2),), ((12, 4),), ((24, 2),), ((6, 4),)]),
    "squeeze_symbolic_dim": (_squeeze_symbolic_dim, [((3, 4),), ((3, 5),), ((3, 1),)]),
    "squeeze": (_squeeze, [((3, 4),), ((3, 6),), ((3, 2),), ((3, 3),)]),
    "select": (_select, [((5, 3), 1), ((6, 3), 2), ((7, 3), 4)]),
    "conv_stride_2": (_conv, [((1, 3, 8, 8),), ((1, 3, 9, 9),), ((1, 3, 12, 13),)]),
    "glu": (_glu, [((3, 4),), ((3, 6),), ((5, 8),)]),
}


def _train(compiled, program, calls) -> list[int]:
    """Runs ``compiled`` at each call's sizes against eager; the graphs compiled after each call."""
    torch._dynamo.reset()
    counters.clear()
    graphs = []
    for shape, *rest in calls:
        x = torch.randn(*shape, requires_grad=True)
        out = compiled(x, *rest)
        out.sum().backward()
        gradient, x.grad = x.grad, None
        expected = program(x, *rest)
        expected.sum().backward()
        torch.testing.assert_close(out, expected)
        torch.testing.assert_close(gradient, x.grad)
        graphs.append(counters["stats"]["unique_graphs"])
    return graphs


@pytest.mark.parametrize("name", PROGRAMS)
def test_trains_like_eager_and_recompiles_like_aot_eager(name):
    program, calls = PROGRAMS[name]
    hopc_graphs = _train(hopc.compile(program, dynamic=True), program, calls)
    aot_graphs = _train(torch.compile(program, backend="aot_eager", dynamic=True), program, calls)
    assert hopc_graphs == aot_graphs


def _frame_guard_parts(grad: bool) -> list[str]:
    """The guard code of ``_glu``'s frame, compiled at an even size, that an odd size fails."""
    torch._dynamo.reset()
    hopc.compile(_glu, dynamic=True)(torch.randn(3, 8, requires_grad=grad))
    guard_manager = _debug_get_cache_entry_list(_glu.__code__)[0].guard_manager
    result = guard_manager.check_verbose({"x": torch.randn(3, 7, requires_grad=grad)})
    assert not result.result
    return result.verbose_code_parts


def test_a_guard_of_the_backward_trace_is_installed_in_the_frame():
    backward_guard = "L['x'].size()[1] == (2*(L['x'].size()[1] // 2))"
    assert any(backward_guard in part for part in _frame_guard_parts(grad=True))
    assert not any(backward_guard in part for part in _frame_guard_parts(grad=False))


_UNFOLD_MODULE = """
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 8
  func.func @forward(%x: !hop.tensor<[4, s0], f32> {hop.requires_grad}) -> !hop.tensor<[], f32> {
    %u = aten.unfold_copy(%x) {dimension = 1 : i64, size = 3 : i64, step = 2 : i64} : (!hop.tensor<[4, s0], f32>) -> !hop.tensor<[4, (s0 - 3) // 2 + 1, 3], f32>
    %s = aten.sum(%u) : (!hop.tensor<[4, (s0 - 3) // 2 + 1, 3], f32>) -> !hop.tensor<[], f32>
    func.return %s : !hop.tensor<[], f32>
  }
}
"""


def test_outside_dynamo_a_guard_stays_a_located_refusal():
    """No frame to install it in; the derivative a frame traced (just before) is not reused."""
    hopc.compile(_unfold, dynamic=True)(torch.randn(2, 8, requires_grad=True))
    with pytest.raises(HopcError, match=r"aten.unfold_copy: tracing it would install a guard") as error:
        differentiate(hopc.parse(_UNFOLD_MODULE))
    assert error.value.location is not None and error.value.location.line == 5


class _Frozen(torch.nn.Module):
    def __init__(self, program):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor(1.5))
        self.program = program

    def forward(self, x, *rest):
        return self.program(x, *rest) * self.scale


@pytest.mark.parametrize("name", ["unfold", "squeeze", "glu"])
def test_frozen_program_matches_eager_at_every_size(name):
    program, calls = PROGRAMS[name]
    model = _Frozen(program)
    torch._dynamo.reset()
    compiled = hopc.compile(model, dynamic=True, freeze=True)
    with torch.no_grad():
        for shape, *rest in calls:
            x = torch.randn(*shape)
            torch.testing.assert_close(compiled(x, *rest), model(x, *rest))
