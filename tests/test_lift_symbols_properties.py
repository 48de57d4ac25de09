"""Property tests of ``lift-symbols`` on random programs with symbols used inside nested regions.

For each program of ``symbolic_program_generator``: after the pass the module
verifies, ``verify-symbol-closed`` passes, a naive restatement of the
invariant holds in every HOP region (Note [where a symbol is bound], without
its ordering), each region has at most one ``!hop.symint`` argument per
symbol, a second run changes nothing, and the interpreter gives identical
results before and after on two input sets with different sizes. Programs of
``program_generator`` (mutation through views, regions changing their
operands) go through ``functionalize`` then ``lift-symbols``, as in the
pipeline, and must also keep their results, mutated inputs included.
"""

from __future__ import annotations

from collections import Counter
from io import StringIO

import program_generator
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from program_generator_core import random_arguments, symbol_sizes
from symbolic_program_generator import generate_program
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from hopc.backend.interpreter import run_module
from hopc.backend.runtime.module_call import apply_copy_back
from hopc.dialects.context import make_context
from hopc.dialects.hop import HOP_REGION_OPS
from hopc.dialects.hop_module_structure import declared_symbols
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.ir.symbol_uses import symbols_of_attribute
from hopc.passes import pass_class
from hopc.passes.lift_symbols import LiftSymbolsPass
from hopc.passes.lift_symbols_analysis import plain_symbol, whole_dimensions
from hopc.passes.verify_symbol_closed import VerifySymbolClosedPass

CONTEXT = make_context()


def _printed(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def _assert_every_hop_region_binds_what_it_uses(module: ModuleOp) -> None:
    backed = {name for name, op in declared_symbols(module).items() if op.kind.data == "backed"}
    for op in module.walk():
        if not isinstance(op, HOP_REGION_OPS):
            continue
        for region in op.regions:
            block = region.block
            arguments = [plain_symbol(a.type) for a in block.args]
            repeated = [name for name, n in Counter(filter(None, arguments)).items() if n > 1]
            assert not repeated, f"{op.name} binds {repeated} twice"
            bound, used = set(filter(None, arguments)), set()
            for arg in block.args:
                used.update(symbols_of_attribute(arg.type))
            for inner in block.ops:
                used.update(n for v in (*inner.operands, *inner.results) for n in symbols_of_attribute(v.type))
                used.update(n for a in inner.properties.values() for n in symbols_of_attribute(a))
                for result in inner.results:
                    bound.update(n for n in [plain_symbol(result.type)] if n)
                    bound.update(n for _, n in whole_dimensions(result.type) if n not in backed)
            assert used <= bound, f"{op.name} uses {sorted(used - bound)} unbound"


def _run(module: ModuleOp, arguments: list[object]) -> list[object]:
    return run_module(module, [a.clone() if isinstance(a, torch.Tensor) else a for a in arguments])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_lifting_closes_every_region_and_keeps_results(data):
    text = generate_program(lambda n: data.draw(st.integers(0, n - 1)))
    module = parse_module(text, CONTEXT)
    verify_module(module)
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**16)))
    inputs = [random_arguments(module, symbol_sizes(module, generator), generator) for _ in range(2)]
    before = [_run(module, arguments) for arguments in inputs]

    LiftSymbolsPass().apply(CONTEXT, module)
    verify_module(module)
    VerifySymbolClosedPass().apply(CONTEXT, module)
    _assert_every_hop_region_binds_what_it_uses(module)
    once = _printed(module)
    LiftSymbolsPass().apply(CONTEXT, module)
    assert _printed(module) == once

    for arguments, expected in zip(inputs, before):
        actual = _run(module, arguments)
        assert len(actual) == len(expected)
        for want, got in zip(expected, actual):
            assert torch.equal(want, got)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_functionalize_then_lift_keeps_results_and_mutations(data):
    text = program_generator.generate_program(lambda n: data.draw(st.integers(0, n - 1)))
    module = parse_module(text, CONTEXT)
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**16)))
    sizes = {"s0": data.draw(st.integers(2, 5)), "s1": data.draw(st.integers(2, 5))}
    arguments = random_arguments(module, sizes, generator)
    expected_inputs = [a.clone() if isinstance(a, torch.Tensor) else a for a in arguments]
    expected = run_module(module, expected_inputs)

    pass_class("functionalize")().apply(CONTEXT, module)
    LiftSymbolsPass().apply(CONTEXT, module)
    verify_module(module)
    VerifySymbolClosedPass().apply(CONTEXT, module)
    _assert_every_hop_region_binds_what_it_uses(module)

    actual_inputs = [a.clone() if isinstance(a, torch.Tensor) else a for a in arguments]
    results = run_module(module, actual_inputs)
    outputs = apply_copy_back(module, actual_inputs, results)
    assert len(outputs) == len(expected)
    for want, got in zip([*expected, *expected_inputs], [*outputs, *actual_inputs]):
        assert torch.equal(want, got) if isinstance(want, torch.Tensor) else want == got
