"""A pass the pipeline skips leaves its input unchanged (Note [skipped passes] in ``hopc.passes.pipeline``).

Every lit input of the functional stage's passes (``chunks_for_pass``) that
``UNCHANGED_BY[name]`` accepts must come out of the pass as it went in, text
for text; the predicate must accept some of them (else the check is empty)
and refuse the ones the pass changes.
"""

from __future__ import annotations

import pytest
from lit_chunks import chunks_for_pass

import hopc
from hopc.dialects.context import make_context
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.passes import pass_class
from hopc.passes.pipeline import STAGES, UNCHANGED_BY, run_pipeline

CHUNKS = [param for name in STAGES for param in chunks_for_pass(name)]
"""The lit inputs of the pipeline's passes: captured-level modules with every kind of op."""


def _parsed(chunk: str):
    """The verified module of ``chunk``, or None where it is no valid module on its own."""
    try:
        module = parse_module(chunk)
        verify_module(module)
    except Exception:  # a chunk of another level (kernel) or one that needs a flag: not an input here
        return None
    return module


@pytest.mark.parametrize("skipped", sorted(UNCHANGED_BY))
def test_skipped_pass_is_the_identity_on_every_module_the_predicate_accepts(skipped: str):
    accepted = refused = 0
    for param in CHUNKS:
        module = _parsed(param.values[1])
        if module is None:
            continue
        if not UNCHANGED_BY[skipped](module):
            refused += 1
            continue
        accepted += 1
        before = hopc.to_text(module)
        pass_class(skipped)().apply(make_context(), module)
        assert hopc.to_text(module) == before, f"{skipped} changed {param.id}, which it is skipped on"
    assert accepted >= 5 and refused >= 5, (accepted, refused)


@pytest.mark.parametrize("chunk", [param.values[1] for param in chunks_for_pass("functionalize")][:40])
def test_functionalize_is_not_skipped_where_it_changes_the_module(chunk: str):
    module = _parsed(chunk)
    if module is None:
        pytest.skip("not a valid module on its own")
    before = hopc.to_text(module)
    accepted = UNCHANGED_BY["functionalize"](module)
    pass_class("functionalize")().apply(make_context(), module)
    assert not (accepted and hopc.to_text(module) != before)


MUTATION_FREE = """\
func.func @f(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %0 = aten.add.Tensor(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %1 = aten.sin(%0) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %1 : !hop.tensor<[4], f32>
}
"""
"""A module with nothing to functionalize; each case below puts one other op in place of ``aten.sin``."""


@pytest.mark.parametrize(("replacement", "skipped"), [
    ("aten.sin", True),
    ("aten.sin_", False),  # in place: functionalize rewrites it
    ("aten.detach", False),  # a view of its operand: functionalize makes it a copy
])
def test_functionalize_is_skipped_only_without_mutation_and_views(replacement: str, skipped: bool):
    module = parse_module(MUTATION_FREE.replace("aten.sin", replacement))
    assert UNCHANGED_BY["functionalize"](module) is skipped


def test_pipeline_with_the_skip_gives_what_every_pass_gives():
    module = parse_module(MUTATION_FREE)
    every_pass = module.clone()
    for name in STAGES:
        pass_class(name)().apply(make_context(), every_pass)
    assert hopc.to_text(run_pipeline(module)) == hopc.to_text(every_pass)
