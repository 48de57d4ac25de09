"""A ``_copy`` view written into a reused buffer costs one copy (Note [copying views into buffers]
in ``hopc.backend.host.lowerings.aten``), and the buffer holds the copy's elements."""

from __future__ import annotations

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported: kernels run on CPU tensors

import pytest
import torch

from hopc.backend.runtime.executors import executor_named
from hopc.dialects.hop_module_structure import entry_function
from hopc.dialects.parse import parse_module


def _merge(view: str, result: str = "[24]") -> str:
    """Two launches of one kernel (``view``, of the transpose ``%t``, as ``%v``) into one buffer:
    the first write allocates it, the second writes into it (Note [first write allocates])."""
    tensor = f"!hop.tensor<{result}, f32>"
    buffer = f"!kernel.buffer<{result}, f32, [{'6, 1' if result == '[4, 6]' else '1'}], cpu>"
    return f"""
builtin.module attributes {{kernel.device = "cpu"}} {{
  kernel.kernel @merge "extern" {{
  ^bb0(%a: !hop.tensor<[4, 6], f32>):
    %t = aten.transpose.int(%a) {{dim0 = 0 : i64, dim1 = 1 : i64}} : (!hop.tensor<[4, 6], f32>) -> !hop.tensor<[6, 4], f32>
    {view}
    kernel.yield %v : {tensor}
  }}
  func.func @forward(%x: !hop.tensor<[4, 6], f32>, %y: !hop.tensor<[4, 6], f32>) -> ({tensor}, {tensor}) {{
    %buf = kernel.alloc() : () -> {buffer}
    %r = kernel.launch @merge(%x) into(%buf : {buffer}) : (!hop.tensor<[4, 6], f32>) -> {tensor}
    %s = aten.clone(%r) : ({tensor}) -> {tensor}
    %again = kernel.launch @merge(%y) into(%buf : {buffer}) : (!hop.tensor<[4, 6], f32>) -> {tensor}
    func.return %s, %again : {tensor}, {tensor}
  }}
}}
"""


VIEW_COPY = "%v = aten.view_copy(%t) {size = [24 : i64]} : (!hop.tensor<[6, 4], f32>) -> !hop.tensor<[24], f32>"
"""Heads merged for a projection: a transpose that ``view`` cannot view, as GPT-2's backward has it."""

FLATTEN_COPY = ("%c = aten.clone(%t) : (!hop.tensor<[6, 4], f32>) -> !hop.tensor<[6, 4], f32>\n"
                "    %v = aten.view_copy(%c) {size = [24 : i64]} : (!hop.tensor<[6, 4], f32>) -> !hop.tensor<[24], f32>")
"""A ``view_copy`` that ``view`` can view (the clone keeps the transpose's strides: not contiguous
either way, so ``reshape`` would copy; ``view`` of the buffer does not)."""


def _copies(run, *args) -> list[str]:
    """The copying ATen calls (``copy_``, ``clone``, ``view_copy``) of one run, each by its caller."""
    with torch.profiler.profile() as profile:
        run(list(args))
    return [f"{event.name} in {event.cpu_parent.name if event.cpu_parent else 'host code'}"
            for event in profile.events() if event.name in ("aten::copy_", "aten::clone", "aten::view_copy")]


@pytest.mark.parametrize("view", [VIEW_COPY, FLATTEN_COPY], ids=["view_copy of a transpose", "view_copy of a clone"])
def test_a_view_copy_into_a_reused_buffer_copies_once(view):
    module = parse_module(_merge(view))
    run = executor_named("aten").prepare(module, entry_function(module))
    assert "out=" not in run.source and ".view(" in run.source  # not view_copy.out
    x, y = torch.randn(4, 6), torch.randn(4, 6)
    first, second = run([x, y])
    assert torch.equal(first, x.t().reshape(24)) and torch.equal(second, y.t().reshape(24))
    written = [call for call in _copies(run, x, y) if call == "aten::copy_ in host code"]
    assert len(written) == 1  # the second launch's one copy, straight into the buffer


def test_a_transpose_copy_into_a_reused_buffer_copies_once():
    """Any ``_copy`` view: ``out.copy_(view(x))`` (``transpose_copy.int_out`` would copy twice)."""
    module = parse_module(_merge("%v = aten.transpose_copy.int(%t) {dim0 = 0 : i64, dim1 = 1 : i64} : "
                                 "(!hop.tensor<[6, 4], f32>) -> !hop.tensor<[4, 6], f32>",
                                 "[4, 6]"))
    run = executor_named("aten").prepare(module, entry_function(module))
    assert "out=" not in run.source and ".copy_(" in run.source
    x, y = torch.randn(4, 6), torch.randn(4, 6)
    first, second = run([x, y])
    assert torch.equal(first, x) and torch.equal(second, y)
    written = [call for call in _copies(run, x, y) if call == "aten::copy_ in host code"]
    assert len(written) == 1


PUBLIC_CALLS = {
    "t_copy": ("aten.t_copy(%x)", "[6, 4]", torch.t_copy),
    "transpose_copy": ("aten.transpose_copy.int(%x) {dim0 = 0 : i64, dim1 = 1 : i64}", "[6, 4]",
                       torch.transpose_copy),
    "view_copy": ("aten.view_copy(%x) {size = [3 : i64, 8 : i64]}", "[3, 8]", torch.view_copy),
    "slice_copy": ("aten.slice_copy.Tensor(%x) {dim = 1 : i64, start = 1 : i64, end = 5 : i64}", "[4, 4]",
                   torch.slice_copy),
}


@pytest.mark.parametrize("case", PUBLIC_CALLS)
def test_a_copying_view_calls_its_public_function(case: str):
    """``torch.t_copy(x)`` parses its arguments in C++, faster than the overload's callable
    (``hopc.backend.host.public_functions``), with the reference result."""
    from hopc.backend.host.generated_function import generate_function
    from hopc.backend.host.lowerings.kernel import lower_launch_inline
    from hopc.backend.interpreter import run_module
    from hopc.backend.lowering import lower_to_kernel

    call, shape, public = PUBLIC_CALLS[case]
    module = parse_module(f"""
builtin.module {{
  func.func @forward(%x: !hop.tensor<[4, 6], f32>) -> !hop.tensor<{shape}, f32> {{
    %r = {call} : (!hop.tensor<[4, 6], f32>) -> !hop.tensor<{shape}, f32>
    func.return %r : !hop.tensor<{shape}, f32>
  }}
}}
""")
    generated = generate_function(entry_function(lower_to_kernel(module)), lower_launch_inline, "cpu",
                                  first_write_allocates=True)
    assert public in generated.namespace.values()
    x = torch.randn(4, 6)
    (compiled,) = generated.compile()(x)
    assert torch.equal(compiled, run_module(module, [x])[0]) and compiled.is_contiguous()
