"""``hopc-opt --functionalize --lift-symbols`` loads sympy only for a module that needs it.

Note [lazy sympy] in ``hopc.ir.dims``: importing sympy costs more than the two
passes on a module of hundreds of ops. A module whose dims are integers and
plain symbols, with views and a ``hop.cond`` whose branch reshapes, needs
neither sympy (``AliasLayouts`` in ``passes/functionalize/layout.py`` decides
the contiguity of a reshape of a row-major tensor without a layout) nor torch.
Nor does one with in-place ops whose functional form certainly has ``self``'s
type (Note [in-place result types] in ``passes/functionalize/mutation.py``);
one whose type is uncertain (a comparison) is typed by the tracer
(``hopc.torch_bridge.aten_builders``), which loads both. Each case runs in a fresh
interpreter.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

T = "!hop.tensor<[s0, 8], f32>"
TRANSPOSED = "!hop.tensor<[8, s0], f32>"
ROW = "!hop.tensor<[8], f32>"
PREDICATE = "!hop.tensor<[], i1>"

PLAIN_SYMBOLS = f"""\
hop.symbol @s0 backed [2, oo]
func.func @forward(%x: {T}, %p: {PREDICATE}) -> {T} {{
  %row = aten.select.int(%x) {{dim = 0 : i64, index = 0 : i64}} : ({T}) -> {ROW}
  %t = aten.transpose.int(%x) {{dim0 = 0 : i64, dim1 = 1 : i64}} : ({T}) -> {TRANSPOSED}
  %c = hop.cond %p(%x) : {PREDICATE}, ({T}) -> {T} then {{
  ^bb0(%a: {T}):
    %s = aten.sin(%a) : ({T}) -> {T}
    %v = aten.view(%s) {{size = [8, #hop.expr<s0>]}} : ({T}) -> {TRANSPOSED}
    %b = aten.view(%v) {{size = [#hop.expr<s0>, 8]}} : ({TRANSPOSED}) -> {T}
    hop.yield %b : {T}
  }} else {{
  ^bb0(%e: {T}):
    hop.yield %e : {T}
  }}
  %y = aten.add.Tensor(%c, %x) : ({T}, {T}) -> {T}
  func.return %y : {T}
}}
"""

IN_PLACE = f"""\
hop.symbol @s0 backed [2, oo]
func.func @forward(%x: {T}, %y: {T}, %count: !hop.tensor<[], i64>) -> {T} {{
  %row = aten.select.int(%x) {{dim = 0 : i64, index = 0 : i64}} : ({T}) -> {ROW}
  %inc = aten.add_.Scalar(%row) {{other = 1 : i64}} : ({ROW}) -> {ROW}
  %t = aten.transpose.int(%x) {{dim0 = 0 : i64, dim1 = 1 : i64}} : ({T}) -> {TRANSPOSED}
  %dbl = aten.mul_.Scalar(%t) {{other = 2 : i64}} : ({TRANSPOSED}) -> {TRANSPOSED}
  %neg = aten.neg_(%x) : ({T}) -> {T}
  %sum = aten.add_.Tensor(%x, %y) {{alpha = 2 : i64}} : ({T}, {T}) -> {T}
  %step = aten.add_.Scalar(%count) {{other = 1 : i64}} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
  func.return %sum : {T}
}}
"""

IN_PLACE_COMPARISON = f"""\
hop.symbol @s0 backed [2, oo]
func.func @forward(%x: {T}) -> {T} {{
  %eq = aten.eq_.Scalar(%x) {{other = 0 : i64}} : ({T}) -> {T}
  func.return %eq : {T}
}}
"""

COMPOUND_DIM = """\
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
func.func @forward(%b: !hop.tensor<[s0, s1], f32>, %x: !hop.tensor<[s0*s1 + s0], f32>) \
-> !hop.tensor<[s0*s1 + s0], f32> {
  %y = aten.sin(%x) : (!hop.tensor<[s0*s1 + s0], f32>) -> !hop.tensor<[s0*s1 + s0], f32>
  func.return %y : !hop.tensor<[s0*s1 + s0], f32>
}
"""

RUN_AND_LIST_IMPORTS = """\
import sys
from hopc.tools.opt import main
main(sys.argv[1:])
print("imported:", *sorted(name for name in ("sympy", "torch") if name in sys.modules))
"""


def _imports_of_two_passes(module_text: str, tmp_path) -> str:
    path = tmp_path / "input.mlir"
    path.write_text(module_text)
    run = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST_IMPORTS, "--functionalize", "--lift-symbols", str(path)],
        capture_output=True, text=True, check=True)
    return run.stdout.splitlines()[-1]


@pytest.mark.parametrize(("module_text", "imported"), [
    (PLAIN_SYMBOLS, "imported:"),
    (IN_PLACE, "imported:"),
    (COMPOUND_DIM, "imported: sympy"),  # the control: the check sees sympy when it is loaded
    (IN_PLACE_COMPARISON, "imported: sympy torch"),  # and torch, when the tracer is needed
], ids=["plain-symbols", "in-place", "compound-dim", "in-place-comparison"])
def test_two_passes_import_sympy_only_when_needed(module_text: str, imported: str, tmp_path):
    assert _imports_of_two_passes(module_text, tmp_path) == imported
