"""Views of inputs come back as eager's at every call, whatever the input's storage offset
(Note [aliased outputs], Note [output view replay]).

Dynamo guards no storage offset: a second call with an input of the same shape at
another place in its base runs the same compiled graph, and each output view must
be rebuilt on that input, not where the first call's was.
"""

from __future__ import annotations

import pytest
import torch

import hopc

EXECUTORS = ("auto", "aten", "planned", "interpreter")

VIEW_CHAINS = {
    "t": lambda x: x.t(),
    "select": lambda x: x[1],
    "slice": lambda x: x[:, 1:3],
    "view": lambda x: x.view(-1),
    "transpose_slice": lambda x: x.transpose(0, 1)[1:],
    "diagonal": lambda x: x.diagonal(),
    "expand": lambda x: x[0].expand(3, 4),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "permute_step": lambda x: x.permute(1, 0)[::2],
    "narrow": lambda x: x.narrow(1, 1, 2),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "split": lambda x: x.split(2, 1)[1],
    "unbind": lambda x: x.unbind(0)[1],
    "detach": lambda x: x.detach(),
    "as_strided": lambda x: x.as_strided((2, 2), (1, 4)),
    "as_strided_at": lambda x: x.as_strided((2, 2), (1, 4), 3),
    "ellipsis_none": lambda x: x[..., None, 1],
    "squeeze": lambda x: x[0:1].squeeze(0),
    "self": lambda x: x,
}
"""Each a view chain of a (rows, 4) input with rows >= 2, eager's value aliasing the input."""


def all_views(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return tuple(chain(x) for chain in VIEW_CHAINS.values())


def _check_as_eager(outputs, expected, base, eager_base):
    for name, output, wanted in zip(VIEW_CHAINS, outputs, expected, strict=True):
        assert torch.equal(output, wanted), name
        assert (output.shape, output.stride(), output.storage_offset()) == \
            (wanted.shape, wanted.stride(), wanted.storage_offset()), name
        assert output.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(), name
        assert (output.requires_grad, type(output.grad_fn).__name__) == \
            (wanted.requires_grad, type(wanted.grad_fn).__name__), name
    with torch.no_grad():  # written afterwards through the base: every view sees it, as in eager
        base.mul_(3)
        eager_base.mul_(3)
    for name, output, wanted in zip(VIEW_CHAINS, outputs, expected, strict=True):
        assert torch.equal(output, wanted), name


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("executor", EXECUTORS)
def test_view_chains_follow_the_input_at_each_offset(executor, grad):
    torch._dynamo.reset()
    compiled = hopc.compile(all_views, executor=executor)
    leaf = torch.arange(32.0, requires_grad=grad)
    eager_leaf = leaf.detach().clone().requires_grad_(grad)
    with torch.set_grad_enabled(grad):
        base, eager_base = leaf * 1, eager_leaf * 1  # written in place below: not a leaf
        for start, rows in ((4, 2), (1, 2), (2, 3)):  # same shape, other offset; then another size
            first = start * 4
            x = base[first:first + rows * 4].view(rows, 4)
            eager_x = eager_base[first:first + rows * 4].view(rows, 4)
            _check_as_eager(compiled(x), all_views(eager_x), base, eager_base)


def test_view_chains_follow_the_input_with_dynamic_shapes():
    torch._dynamo.reset()
    compiled = hopc.compile(all_views, dynamic=True)
    base, eager_base = torch.arange(32.0), torch.arange(32.0)
    with torch.no_grad():
        for start, rows in ((3, 2), (1, 2), (0, 3), (2, 4)):  # offset 0 specializes; then back
            x = base[start * 4:(start + rows) * 4].view(rows, 4)
            eager_x = eager_base[start * 4:(start + rows) * 4].view(rows, 4)
            _check_as_eager(compiled(x), all_views(eager_x), base, eager_base)


MATRIX_VIEWS = {
    "t": lambda x: x.t(),
    "rows": lambda x: x[1:],
    "columns": lambda x: x[:, 1:],
    "step": lambda x: x[::2],
    "narrow": lambda x: x.narrow(1, 0, 2),
    "expand": lambda x: x[:1].expand(2, -1),
    "select_unsqueeze": lambda x: x[-1].unsqueeze(0),
    "permute": lambda x: x.permute(1, 0),
}
"""Views of a matrix with at least 3 rows and 3 columns, each a matrix with at least 1 row and 2 columns."""

FINAL_VIEWS = {**MATRIX_VIEWS, "reshape": lambda x: x.reshape(-1), "flatten": lambda x: x.flatten(),
               "detach": lambda x: x.detach(), "diagonal": lambda x: x.diagonal(offset=1)}
"""Last views of a pair; ``reshape`` and ``flatten`` copy where the layout asks for it, as in eager."""


def view_pairs(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return tuple(last(first(x)) for first in MATRIX_VIEWS.values() for last in FINAL_VIEWS.values())


def test_pairs_of_views_follow_the_input_at_each_offset():
    torch._dynamo.reset()
    compiled = hopc.compile(view_pairs, executor="interpreter")  # the replay is the executor's caller
    base, eager_base = torch.arange(48.0).view(8, 6), torch.arange(48.0).view(8, 6)
    memory = base.untyped_storage().data_ptr()
    eager_memory = eager_base.untyped_storage().data_ptr()
    with torch.no_grad():
        for rows, columns in ((slice(3, 6), slice(2, 6)), (slice(1, 4), slice(1, 5))):
            outputs = compiled(base[rows, columns])
            expected = view_pairs(eager_base[rows, columns])
            for number, (output, wanted) in enumerate(zip(outputs, expected, strict=True)):
                assert torch.equal(output, wanted), number
                assert (output.stride(), output.storage_offset()) == (wanted.stride(), wanted.storage_offset()), number
                assert (output.untyped_storage().data_ptr() == memory) == \
                    (wanted.untyped_storage().data_ptr() == eager_memory), number


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_write_through_the_output_lands_in_the_input_passed(executor):
    torch._dynamo.reset()
    compiled = hopc.compile(lambda x: x.t(), executor=executor)
    memory = torch.arange(20.0)
    base = memory.view(5, 4)
    compiled(base[2:4])
    out = compiled(base[1:3])
    assert out._base is memory and torch.equal(out, base[1:3].t())
    out.fill_(-1)
    assert base[1:3].eq(-1).all() and base[0].ge(0).all() and base[3:].ge(0).all()


def test_a_mutated_input_view_is_rebuilt_at_its_offset():
    def scaled_rows(x):
        x.mul_(2)
        return x[0], x.view(-1)[1:]

    torch._dynamo.reset()
    compiled = hopc.compile(scaled_rows)
    base, eager_base = torch.arange(20.0).view(5, 4), torch.arange(20.0).view(5, 4)
    for rows in (slice(2, 4), slice(1, 3)):
        outputs, expected = compiled(base[rows]), scaled_rows(eager_base[rows])
        assert torch.equal(base, eager_base)
        for output, wanted in zip(outputs, expected, strict=True):
            assert output.storage_offset() == wanted.storage_offset() and torch.equal(output, wanted)


class _Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(4))

    def forward(self, x):
        return x.t(), x[0], x * self.weight


@pytest.mark.parametrize("executor", EXECUTORS)
def test_frozen_views_follow_the_input_at_each_offset(executor):
    torch._dynamo.reset()
    module = _Scaled()
    compiled = hopc.compile(module, freeze=True, executor=executor)
    memory = torch.arange(20.0)
    base = memory.view(5, 4)
    with torch.no_grad():
        for rows in (slice(2, 4), slice(1, 3), slice(0, 3)):
            outputs, expected = compiled(base[rows]), module(base[rows])
            for output, wanted in zip(outputs, expected, strict=True):
                assert torch.equal(output, wanted)
                assert (output.stride(), output.storage_offset()) == (wanted.stride(), wanted.storage_offset())
            assert outputs[0]._base is memory and outputs[1]._base is memory
