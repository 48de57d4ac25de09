"""Errors name the construct and the user's line; ops carry the user's locations."""

import subprocess
import sys

import pytest
import torch
from frontend_models import TransformerBlock

import hopc
from hopc.fx_import.locations import node_location
from hopc.ir.diagnostics import HopcError, location_of


def complex_item(x):
    return x * x.to(torch.complex64).sum().item().real


def python_branch_on_data(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


def autocast(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return x @ x


def aliasing_branch(x):
    return torch.cond(x.sum() > 0, lambda x: x, lambda x: x.clone(), (x,))


@pytest.mark.parametrize(("program", "line_text", "message"), [
    (complex_item, "return x * x.to(torch.complex64).sum().item().real", "item"),
    (python_branch_on_data, "if x.sum() > 0:", "Data-dependent branching"),
    (autocast, "return x @ x", "torch.autocast"),
    (aliasing_branch, "return torch.cond(", "aliasing"),
])
def test_unsupported_constructs_are_located_errors(program, line_text, message):
    with pytest.raises(HopcError, match=message) as raised:
        hopc.capture(program, (torch.randn(3, 3),))
    location = raised.value.location
    assert location is not None and location.file == __file__
    with open(__file__) as source:
        assert line_text in source.read().splitlines()[location.line - 1]


def test_compile_raises_hopc_errors_unwrapped():
    with pytest.raises(HopcError, match="torch.autocast") as raised:
        hopc.compile(autocast)(torch.randn(3, 3))
    assert raised.value.location is not None and raised.value.location.file == __file__


def test_ops_are_located_at_user_lines():
    module = hopc.capture(TransformerBlock(), (torch.randn(2, 5, 16),))
    located = [location_of(op) for op in module.walk() if op.name.startswith("aten.")]
    assert located and all(location is not None for location in located)
    assert all(location.file.endswith("frontend_models.py") for location in located)


def test_compile_reports_what_dynamo_cannot_trace_at_the_user_line():
    torch._dynamo.reset()
    with pytest.raises(HopcError, match="cannot compile the program: Data-dependent branching") \
            as raised:
        hopc.compile(python_branch_on_data, fullgraph=True)(torch.randn(3))
    location = raised.value.location
    assert location.file == __file__
    assert location.line == python_branch_on_data.__code__.co_firstlineno + 1


def mutates_its_input(x):
    x.add_(1)
    return x * 2


def test_printed_locations_lead_hopc_opt_to_the_user_line(tmp_path):
    module = hopc.capture(mutates_its_input, (torch.randn(3),))
    text = hopc.to_text(module, debuginfo=True)
    assert hopc.to_text(module) == str(module) and "loc(" not in str(module)
    assert hopc.to_text(hopc.parse(text)) == str(module)
    path = tmp_path / "captured.mlir"
    path.write_text(text)
    result = subprocess.run([sys.executable, "-m", "hopc.tools.opt", str(path), "--verify-functional"],
                            capture_output=True, text=True, check=False)
    line = mutates_its_input.__code__.co_firstlineno + 1
    assert result.returncode == 1
    assert result.stderr.startswith(f"{__file__}:{line}:5: error: 'aten.add_.Scalar' op changes")


def test_node_without_stack_trace_has_no_location():
    graph = torch.fx.Graph()
    node = graph.placeholder("x")
    assert node_location(node) is None
