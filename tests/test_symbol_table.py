"""``hopc.ir.symbol_table.lookup_symbol`` finds what xDSL's walk finds, as the module changes."""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region
from xdsl.traits import SymbolTable

from hopc.dialects.kernel import KernelOp, LaunchOp
from hopc.dialects.parse import parse_module
from hopc.ir.symbol_table import lookup_symbol

T = "!hop.tensor<[4], f32>"
MODULE = f"""
builtin.module attributes {{kernel.device = "cpu"}} {{
  kernel.kernel @sin "pointwise" {{
  ^bb0(%a: {T}):
    %s = aten.sin(%a) : ({T}) -> {T}
    kernel.yield %s : {T}
  }}
  kernel.kernel @cos "pointwise" {{
  ^bb0(%a: {T}):
    %s = aten.cos(%a) : ({T}) -> {T}
    kernel.yield %s : {T}
  }}
  func.func @f(%x: {T}) -> {T} {{
    %a = kernel.launch @sin(%x) : ({T}) -> {T}
    %b = kernel.launch @cos(%a) : ({T}) -> {T}
    func.return %b : {T}
  }}
}}
"""

NAMES = ("sin", "cos", "tan", "f")


def _launch(module):
    return next(op for op in module.walk() if isinstance(op, LaunchOp))


def _agree(module) -> None:
    at = _launch(module)
    for name in NAMES:
        assert lookup_symbol(at, SymbolRefAttr(name)) is SymbolTable.lookup_symbol(at, SymbolRefAttr(name))


def test_lookups_agree_with_xdsl():
    module = parse_module(MODULE)
    _agree(module)
    assert lookup_symbol(_launch(module), SymbolRefAttr("sin")).sym_name.data == "sin"
    assert _launch(module).kernel() is lookup_symbol(_launch(module), SymbolRefAttr("sin"))


def test_lookups_follow_a_rename_an_erasure_and_a_new_symbol():
    module = parse_module(MODULE)
    _agree(module)  # the table is built
    sin, cos = [op for op in module.ops if isinstance(op, KernelOp)]
    sin.properties["sym_name"] = StringAttr("tan")
    _agree(module)
    assert lookup_symbol(_launch(module), SymbolRefAttr("sin")) is None
    cos.detach()
    cos.erase()
    _agree(module)
    block = Block(arg_types=[])
    module.body.block.insert_op_before(KernelOp("cos", "pointwise", Region(block)), module.body.block.first_op)
    _agree(module)
    assert lookup_symbol(_launch(module), SymbolRefAttr("cos")) is module.body.block.first_op


def test_a_nested_reference_is_xdsls_lookup():
    module = parse_module(MODULE)
    nested = SymbolRefAttr("sin", ["inner"])
    assert lookup_symbol(_launch(module), nested) is SymbolTable.lookup_symbol(_launch(module), nested)
