"""Symbol names print quoted unless they are identifiers, so printing never adds IR.

A ``hop.symbol`` name with a newline once printed verbatim, and the printed
module then held a function the input never declared.
"""

from xdsl.dialects.func import FuncOp

import hopc
from hopc.dialects.hop_module import EntryOp
from hopc.dialects.hop_symbols import SymbolOp

CRAFTED = "s0 backed [1, 2]\n  func.func @evil() {"

MODULE = """\
hop.symbol @"s0 backed [1, 2]\\n  func.func @evil() {" backed [0, 10]
func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  func.return %x : !hop.tensor<[4], f32>
}
"""


def test_crafted_symbol_name_prints_as_one_quoted_symbol():
    printed = hopc.to_text(hopc.parse(MODULE))
    assert 'hop.symbol @"s0 backed [1, 2]\\0A  func.func @evil() {" backed [0, 10]\n' in printed
    assert not any(line.lstrip().startswith("func.func @evil") for line in printed.splitlines())


def test_crafted_symbol_name_survives_parse_print_parse():
    printed = hopc.to_text(hopc.parse(MODULE))
    reparsed = hopc.parse(printed)
    assert [op.symbol for op in reparsed.ops if isinstance(op, SymbolOp)] == [CRAFTED]
    assert [op.sym_name.data for op in reparsed.ops if isinstance(op, FuncOp)] == ["forward"]
    assert hopc.to_text(reparsed) == printed


def test_identifier_symbol_name_prints_bare():
    assert hopc.to_text(SymbolOp("s0", "backed", 2)) == "hop.symbol @s0 backed [2, oo]"


def test_entry_kind_prints_as_a_literal_not_raw_text():
    printed = hopc.to_text(EntryOp("forward\nfunc.func @evil", "f"))
    assert printed.count("\n") == 0
    assert '"forward\\0Afunc.func @evil" @f' in printed
