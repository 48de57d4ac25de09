"""No IR text reaches generated source (Note [no IR text in generated source])."""

from __future__ import annotations

import ast

import torch
from triton_kernels import check_kernel, kernel_module, kernel_of

from hopc.backend.triton.emit import emit_kernel
from hopc.backend.triton.names import comment_text, function_name, literal
from hopc.dialects.parse import parse_module

HOSTILE = 'x; import os\\n\\"\\"\\"'
F32 = "!hop.tensor<[s0], f32>"


def hostile_module() -> str:
    return kernel_module("pointwise", [F32], f"  %t = aten.sin(%a0) : ({F32}) -> {F32}", [("%t", F32)],
                         symbol=f'"{HOSTILE}"')


def test_hostile_symbol_and_name_hints_stay_out_of_the_source():
    kernel = kernel_of(parse_module(hostile_module()))
    for value in [*kernel.body.block.args, *(r for op in kernel.computation for r in op.results)]:
        value._name = 'q"\nimport os'  # past xDSL's check of name hints: the generator never reads them
    source = emit_kernel(kernel).source
    tree = ast.parse(source)
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                and all(alias.name != "triton" and not alias.name.startswith("triton.") for alias in node.names)]
    symbol = kernel.sym_name.data
    assert [line for line in source.splitlines() if "import os" in line] == \
        [f"# kernel.kernel {comment_text(symbol)} (pointwise)"]
    assert [f.name for f in tree.body if isinstance(f, ast.FunctionDef)] == [function_name(kernel.sym_name.data)]
    assert function_name(kernel.sym_name.data).isidentifier()


def test_hostile_symbol_kernel_still_computes():
    check_kernel(hostile_module(), [torch.randn(6)])


def test_literals_are_printed_from_values():
    assert literal(float("inf"), torch.float32) == 'float("inf")'
    assert literal(float("-inf"), torch.float16) == '-float("inf")'
    assert literal(float("nan"), torch.float64) == 'float("nan")'
    assert literal(3, torch.float32) == "3.0"
    assert literal(True, torch.bool) == "True"
    assert literal(2**40, torch.int64) == str(2**40)
