"""Derivatives traced in one batch: each the graph its own trace gives (Note [batched derivative traces])."""

from __future__ import annotations

import os
import sys
import time

import pytest
import torch
from autograd_harness import entry_values, mark_requires_grad
from xdsl.dialects.builtin import f32

import hopc
from hopc.dialects.hop_module_structure import entry_signature
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import TensorType
from hopc.passes.autograd import batched_derivatives, derivatives, differentiate
from hopc.passes.pipeline import run_pipeline
from hopc.torch_bridge.batched_trace import BatchedFunction, trace_batch
from hopc.torch_bridge.op_tracer import TraceLimits, trace

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontend"))
from frontend_corpus import CASES


def _functional(case):
    """The corpus case captured, through the pipeline, its floating inputs and parameters marked."""
    torch.manual_seed(0)
    program = case.make()
    args = case.inputs[0]
    module = run_pipeline(hopc.capture(program, tuple(args), dynamic_shapes=case.dynamic_shapes))
    values = entry_values(program, args, module)
    roles = entry_signature(module).arguments
    mark_requires_grad(module, [i for i, (v, role) in enumerate(zip(values, roles, strict=True))
                                if role.kind in ("user", "hop.parameter") and isinstance(v, torch.Tensor)
                                and v.is_floating_point()])
    return module


def _differentiated(module, batched: bool, monkeypatch) -> tuple[str, dict[tuple, str]]:
    """The differentiated module's text and each derivative traced for it (key -> graph code),
    from an empty cache, with or without the batch."""
    derivatives._CACHE.clear()
    with monkeypatch.context() as patches:
        if not batched:
            patches.setattr(batched_derivatives, "trace_expected_derivatives", lambda builder: None)
        try:
            text = str(differentiate(module.clone()))
        except HopcError as error:
            text = f"error: {error}"
    return text, {key: derivative.graph.code for key, derivative in derivatives._CACHE.items()}


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_a_batch_gives_the_derivatives_of_single_traces(case, monkeypatch):
    """Every derivative of the corpus case has the graph its own trace gives, and the
    differentiated module is the same text (or the same error). The batch may trace a
    derivative the walk never asks for (foreseen too many, or after the error)."""
    module = _functional(case)
    alone, alone_graphs = _differentiated(module, False, monkeypatch)
    batched, batched_graphs = _differentiated(module, True, monkeypatch)
    assert batched == alone
    assert {key: batched_graphs.get(key) for key in alone_graphs} == alone_graphs


def test_the_ops_of_a_block_are_traced_in_one_run(monkeypatch):
    """No derivative of the three distinct ops is traced alone: the batch traced them."""
    singles = []
    monkeypatch.setattr(derivatives, "trace", lambda *args, **kwargs: singles.append(args) or trace(*args, **kwargs))
    derivatives._CACHE.clear()
    differentiate(hopc.parse(_MODULE.format(middle=_SIN, middle_type=_MODULE_TYPES[_SIN])))
    assert singles == []
    assert len(derivatives._CACHE) == 3


_MODULE = """
builtin.module {{
  hop.symbol @s0 backed [2, oo] hint 8
  func.func @forward(%x: !hop.tensor<[4, s0], f32> {{hop.requires_grad}}) -> !hop.tensor<[], f32> {{
    %t = aten.tanh(%x) : (!hop.tensor<[4, s0], f32>) -> !hop.tensor<[4, s0], f32>
    {middle}
    %s = aten.sum(%m) : ({middle_type}) -> !hop.tensor<[], f32>
    func.return %s : !hop.tensor<[], f32>
  }}
}}
"""
_SIN = """%m = aten.sin(%t) : (!hop.tensor<[4, s0], f32>) -> !hop.tensor<[4, s0], f32>"""
_UNFOLD = ("%m = aten.unfold_copy(%t) {dimension = 1 : i64, size = 3 : i64, step = 2 : i64} : "
           "(!hop.tensor<[4, s0], f32>) -> !hop.tensor<[4, (s0 - 3) // 2 + 1, 3], f32>")
_MODULE_TYPES = {_SIN: "!hop.tensor<[4, s0], f32>", _UNFOLD: "!hop.tensor<[4, (s0 - 3) // 2 + 1, 3], f32>"}


def test_an_op_that_guards_is_left_to_its_own_trace_which_names_it():
    """The unfold's derivative would guard: the batch leaves it out, its own trace reports
    it at its line, and the others come from the batch."""
    derivatives._CACHE.clear()
    module = _MODULE.format(middle=_UNFOLD, middle_type=_MODULE_TYPES[_UNFOLD])
    with pytest.raises(HopcError, match=r"aten.unfold_copy: tracing it would install a guard") as error:
        differentiate(hopc.parse(module))
    assert error.value.location is not None and error.value.location.line == 6
    assert sorted(key[0] for key in derivatives._CACHE) == ["aten.sum", "aten.tanh"]


def _square(shapes, x, tangent):
    y = x * x
    return y, torch.autograd.grad([y], [x], [tangent])


def _failing(shapes, x, tangent):
    raise RuntimeError("no")


def _sleeping(shapes, x, tangent):
    time.sleep(30)


def test_each_function_is_traced_within_the_time_limit_of_its_own_trace():
    """The one past the limit is left out after its own limit, not the batch's."""
    square = [TensorType([3, "p0"], f32), TensorType([3, "p0"], f32)]
    functions = [BatchedFunction(_square, square, [True, False], {}),
                 BatchedFunction(_sleeping, square, [True, False], {}),
                 BatchedFunction(_square, square, [True, False], {})]
    trace_batch([functions[0], functions[2]])  # PyTorch's first trace in the process, untimed
    started = time.monotonic()
    first, slept, last = trace_batch(functions, TraceLimits(seconds=2))
    assert slept is None and first is not None and last is not None
    assert time.monotonic() - started < 5.5  # the batch's limit, 3 x 2 s, would be past


def test_a_function_that_fails_is_left_out_and_the_others_traced_again():
    square = [TensorType([3, "p0"], f32), TensorType([3, "p0"], f32)]
    functions = [BatchedFunction(_square, square, [True, False], {}),
                 BatchedFunction(_failing, square, [True, False], {}),
                 BatchedFunction(_square, square, [True, False], {})]
    first, failed, last = trace_batch(functions)
    alone = trace(_square, square, what="square", requires_grad=[True, False], pass_shapes=True)
    assert failed is None
    assert first is not None and last is not None
    assert first.graph.code == last.graph.code == alone.graph.code
    assert first.result_types == alone.result_types
    assert first.shapes.shape_env is last.shapes.shape_env  # one run


def _scratch(shapes, x, y):
    scratch = torch.zeros_like(x)
    scratch.add_(y)  # nothing reads it: only ownership keeps it in the split graph, as in its own trace
    return x * 2


def test_an_in_place_op_whose_result_nothing_reads_stays_in_its_function_graph():
    types = [TensorType([3, "p0"], f32), TensorType([3, "p0"], f32)]
    functions = [BatchedFunction(_scratch, types, [False, False], {}),
                 BatchedFunction(_square, types, [True, False], {})]
    scratch, _ = trace_batch(functions)
    alone = trace(_scratch, types, what="scratch", pass_shapes=True)
    assert scratch is not None
    assert "torch.ops.aten.add_.Tensor" in alone.graph.code
    assert scratch.graph.code == alone.graph.code
