"""Note [isolated regions]: every HOP region is isolated at every level, and every pass keeps it.

The module verifier rejects a capture with an error located at the reader;
``--verify-isolated`` reports the same on its own. Every module of the random
program generators is isolated as written, and stays isolated after each
pass and after every stage of the pipeline; so does every chunk of the
passes' lit tests under each pass.
"""

from __future__ import annotations

import program_generator
import pytest
import symbolic_program_generator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lit_chunks import pass_chunks
from xdsl.dialects.builtin import ModuleOp

from hopc.dialects.context import make_context
from hopc.dialects.hop_interface import first_capture, hop_interface
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError
from hopc.passes import pass_class
from hopc.passes.pipeline import STAGES
from hopc.passes.verify_isolated import verify_isolated

PASSES = ("functionalize", "lift-symbols", "canonicalize", "cse", "dce")
CHUNK_FILES = ("canonicalize", "cse", "dce", "lift-symbols", "functionalize", "pipeline")
T = "!hop.tensor<[4], f32>"

CAPTURING = f"""
func.func @f(%p: !hop.tensor<[], i1>, %x: {T}) -> {T} {{
  %s = aten.sin(%x) : ({T}) -> {T}
  %r = hop.wrap(%x, %p) : ({T}, !hop.tensor<[], i1>) -> {T} {{
  ^bb0(%a: {T}, %pa: !hop.tensor<[], i1>):
    %c = hop.cond %pa(%a) : !hop.tensor<[], i1>, ({T}) -> {T} then {{
    ^bb0(%b: {T}):
      %t = aten.add.Tensor(%b, %s) : ({T}, {T}) -> {T}
      hop.yield %t : {T}
    }} else {{
    ^bb0(%b: {T}):
      hop.yield %b : {T}
    }}
    hop.yield %c : {T}
  }}
  func.return %r : {T}
}}"""

ISOLATED = f"""
func.func @f(%p: !hop.tensor<[], i1>, %x: {T}) -> {T} {{
  %s = aten.sin(%x) : ({T}) -> {T}
  %r = hop.wrap(%x, %p, %s) : ({T}, !hop.tensor<[], i1>, {T}) -> {T} {{
  ^bb0(%a: {T}, %pa: !hop.tensor<[], i1>, %sa: {T}):
    %c = hop.cond %pa(%a, %sa) : !hop.tensor<[], i1>, ({T}, {T}) -> {T} then {{
    ^bb0(%b: {T}, %sb: {T}):
      %t = aten.add.Tensor(%b, %sb) : ({T}, {T}) -> {T}
      hop.yield %t : {T}
    }} else {{
    ^bb0(%b: {T}, %sb: {T}):
      hop.yield %b : {T}
    }}
    hop.yield %c : {T}
  }}
  func.return %r : {T}
}}"""


def _assert_isolated(module: ModuleOp) -> None:
    for op in module.walk():
        if hop_interface(op) is not None:
            assert first_capture(op) is None, f"{op.name} captures: {first_capture(op)}"


def _run(name: str, module: ModuleOp) -> ModuleOp:
    pass_class(name)().apply(make_context(), module)
    verify_module(module)
    _assert_isolated(module)
    return module


# --------------------------------------------------------------------------- the verifier


def test_the_verifier_locates_a_capture_at_the_reader_and_names_the_value():
    with pytest.raises(HopcError) as error:
        verify_module(parse_module(CAPTURING))
    assert (error.value.location.line, error.value.location.column) == (8, 7)
    assert error.value.message.startswith(
        f"'aten.add.Tensor' op uses %s of type {T}, defined outside the region of 'hop.cond'")


def test_a_capture_is_reported_by_the_innermost_hop_around_the_reader():
    module = parse_module(CAPTURING)
    wrap, cond = (op for op in module.walk() if hop_interface(op) is not None)
    assert first_capture(wrap) is None  # the cond reads %s: the cond's to report
    reader, value = first_capture(cond)
    assert (reader.name, value.name_hint) == ("aten.add.Tensor", "s")


def test_verify_isolated_reports_the_same_capture():
    module = parse_module(CAPTURING)
    with pytest.raises(HopcError) as checked:
        verify_isolated(module)
    with pytest.raises(HopcError) as verified:
        verify_module(module)
    assert checked.value.format() == verified.value.format()


def test_the_same_program_with_explicit_operands_verifies():
    module = parse_module(ISOLATED)
    verify_module(module)
    _assert_isolated(module)


# --------------------------------------------------------------------------- generators and passes


def _choose(data: st.DataObject):
    return lambda n: data.draw(st.integers(0, n - 1))


@pytest.mark.parametrize("generator", [program_generator, symbolic_program_generator])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_modules_are_isolated_before_and_after_every_pass(generator, data: st.DataObject):
    text = generator.generate_program(_choose(data))
    module = parse_module(text)
    verify_module(module)
    _assert_isolated(module)
    for name in PASSES:
        _run(name, parse_module(text))


@pytest.mark.parametrize("generator", [program_generator, symbolic_program_generator])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_modules_stay_isolated_through_the_pipeline(generator, data: st.DataObject):
    module = parse_module(generator.generate_program(_choose(data)))
    for name in STAGES:
        _run(name, module)


def _verified(chunk: str) -> ModuleOp | None:
    try:
        module = parse_module(chunk)
        verify_module(module)
    except HopcError:  # an invalid-IR chunk
        return None
    return module


CHUNKS = [c for c in pass_chunks(CHUNK_FILES) if _verified(c.values[1]) is not None]


@pytest.mark.parametrize("name", PASSES)
@pytest.mark.parametrize(("origin", "chunk"), CHUNKS)
def test_every_pass_keeps_lit_chunks_isolated(name: str, origin: str, chunk: str):
    module = _verified(chunk)
    _assert_isolated(module)
    try:
        pass_class(name)().apply(make_context(), module)
    except HopcError as error:  # a chunk the pass rejects by design
        pytest.skip(f"{name} rejects it: {error}")
    verify_module(module)
    _assert_isolated(module)
