"""Each region parses in a value scope of its own (Note [region value scopes] in ``hopc.dialects.parse``).

A region sees the names of the scopes around it; the names it defines are
gone after it.
"""

from __future__ import annotations

import pytest

from hopc.dialects.parse import parse_module
from hopc.ir.diagnostics import HopcError

T = "!hop.tensor<[4], f32>"
P = "!hop.tensor<[], i1>"


def _cond(then_body: str, after: str) -> str:
    """A function whose ``hop.cond`` runs ``then_body`` (yielding ``%s``), then ``after``."""
    return f"""
func.func @f(%p: {P}, %x: {T}) -> {T} {{
  %c = hop.cond %p(%x) : {P}, ({T}) -> {T} then {{
  ^bb0(%a: {T}):
    {then_body}
    hop.yield %s : {T}
  }} else {{
  ^bb0(%e: {T}):
    hop.yield %e : {T}
  }}
  {after}
}}
"""


def test_a_name_of_a_region_may_be_defined_again_after_it():
    module = parse_module(_cond(f"%s = aten.sin(%a) : ({T}) -> {T}",
                                f"%s = aten.cos(%c) : ({T}) -> {T}\n  func.return %s : {T}"))
    assert [op.name for op in module.walk()].count("aten.cos") == 1


def test_a_name_of_a_region_is_undefined_after_it():
    with pytest.raises(HopcError, match="use of undefined value %s"):
        parse_module(_cond(f"%s = aten.sin(%a) : ({T}) -> {T}", f"func.return %s : {T}"))


def test_a_region_sees_the_names_around_it():
    with pytest.raises(HopcError, match="SSA value %x is already defined"):
        parse_module(_cond(f"%x = aten.sin(%a) : ({T}) -> {T}\n    %s = aten.sin(%x) : ({T}) -> {T}",
                           f"func.return %c : {T}"))
