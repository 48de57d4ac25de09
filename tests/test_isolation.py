"""Note [isolated regions]: lift-symbols makes every region isolated, and later passes keep it.

Every chunk of the passes' lit tests and every random program of
``symbolic_program_generator`` (which captures sizes and tensors) is isolated
after ``lift-symbols``; each of canonicalize, cse, dce and functionalize, run on
an isolated module, leaves it isolated.
"""

from __future__ import annotations

import random

import pytest
from lit_chunks import pass_chunks
from symbolic_program_generator import generate_program
from xdsl.dialects.builtin import ModuleOp

from hopc.dialects.hop_interface import first_capture, hop_interface
from hopc.ir.context import make_context
from hopc.ir.diagnostics import HopcError
from hopc.ir.parse import parse_module
from hopc.ir.verify import verify_module
from hopc.passes import pass_class

LATER_PASSES = ("canonicalize", "cse", "dce", "functionalize")
CHUNK_FILES = ("canonicalize", "cse", "dce", "lift_symbols", "functionalize")


def _isolated(module: ModuleOp) -> bool:
    return all(first_capture(op) is None for op in module.walk() if hop_interface(op) is not None)


def _run(name: str, module: ModuleOp) -> ModuleOp:
    pass_class(name)().apply(make_context(), module)
    verify_module(module)
    return module


def _lifted(text: str) -> ModuleOp:
    return _run("lift-symbols", parse_module(text))


def _parses(chunk: str) -> bool:
    try:
        parse_module(chunk)
    except HopcError:  # an invalid-IR chunk: nothing to lift
        return False
    return True


CHUNKS = [c for c in pass_chunks(CHUNK_FILES) if _parses(c.values[1])]


@pytest.mark.parametrize(("origin", "chunk"), CHUNKS)
def test_lift_symbols_isolates_every_region(origin: str, chunk: str):
    assert _isolated(_lifted(chunk))


@pytest.mark.parametrize("name", LATER_PASSES)
@pytest.mark.parametrize(("origin", "chunk"), CHUNKS)
def test_later_pass_keeps_regions_isolated(name: str, origin: str, chunk: str):
    module = _lifted(chunk)
    try:
        _run(name, module)
    except HopcError as error:  # a chunk the pass rejects by design
        pytest.skip(f"{name} rejects it: {error}")
    assert _isolated(module)


@pytest.mark.parametrize("seed", range(10))
def test_random_program_is_isolated_after_lifting_and_stays_so(seed: int):
    module = _lifted(generate_program(random.Random(seed).randrange))
    assert _isolated(module)
    for name in ("canonicalize", "cse", "dce"):
        assert _isolated(_run(name, module))
