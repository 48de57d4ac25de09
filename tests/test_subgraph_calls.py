"""One subgraph called at different sizes (Note [subgraph symbols]) through every pass.

Each module calls a subgraph over ``s0`` with operands of size ``s0`` and of
size ``s1``. Every pass, and the whole pipeline, must leave a verified module
that the reference interpreter runs to the same outputs and the same final
inputs as the module before, for several pairs of sizes.
"""

from __future__ import annotations

import pytest
import torch
from xdsl.dialects.builtin import ModuleOp

from hopc.backend.runtime.module_call import ModuleCall
from hopc.dialects.parse import parse_module
from hopc.passes.pipeline import STAGES, run_pipeline

SYMBOLS = """
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
"""

NESTED_AND_FREE = SYMBOLS + """
hop.subgraph @scaled {
^bb0(%a: !hop.tensor<[s0, 3], f32>):
  %w = hop.wrap(%a) : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0, 3], f32> {
  ^bb0(%b: !hop.tensor<[s0, 3], f32>):
    %m = aten.mul.Scalar(%b) {other = #hop.expr<s0>} : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0, 3], f32>
    hop.yield %m : !hop.tensor<[s0, 3], f32>
  }
  %n = aten.mul.Scalar(%w) {other = #hop.expr<s1>} : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0, 3], f32>
  %same = aten.mul.Scalar(%w) {other = #hop.expr<s1>} : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0, 3], f32>
  %unused = aten.cos(%a) : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0, 3], f32>
  %r = aten.add.Tensor(%n, %same) : (!hop.tensor<[s0, 3], f32>, !hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0, 3], f32>
  hop.yield %r : !hop.tensor<[s0, 3], f32>
}
func.func @forward(%x: !hop.tensor<[s0, 3], f32>, %y: !hop.tensor<[s1, 3], f32>) -> (!hop.tensor<[s0, 3], f32>, !hop.tensor<[s1, 3], f32>) {
  %p = hop.invoke_subgraph @scaled(%x) : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0, 3], f32>
  %q = hop.invoke_subgraph @scaled(%y) : (!hop.tensor<[s1, 3], f32>) -> !hop.tensor<[s1, 3], f32>
  func.return %p, %q : !hop.tensor<[s0, 3], f32>, !hop.tensor<[s1, 3], f32>
}
"""
"""A wrap inside the subgraph needs its parameter s0; s1 is used by name; cse and dce find work."""

VIEW_THEN_MUTATION = SYMBOLS + """
hop.subgraph @flat {
^bb0(%a: !hop.tensor<[s0, 3], f32>):
  %v = aten.view(%a) {size = [#hop.expr<3*s0>]} : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[3*s0], f32>
  hop.yield %v : !hop.tensor<[3*s0], f32>
}
func.func @forward(%x: !hop.tensor<[s0, 3], f32>, %y: !hop.tensor<[s1, 3], f32>) -> (!hop.tensor<[3*s0], f32>, !hop.tensor<[3*s1], f32>) {
  %p = hop.invoke_subgraph @flat(%x) : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[3*s0], f32>
  %q = hop.invoke_subgraph @flat(%y) : (!hop.tensor<[s1, 3], f32>) -> !hop.tensor<[3*s1], f32>
  %y1 = aten.add_.Scalar(%y) {other = 1 : i64} : (!hop.tensor<[s1, 3], f32>) -> !hop.tensor<[s1, 3], f32>
  %q2 = aten.mul.Scalar(%q) {other = 2 : i64} : (!hop.tensor<[3*s1], f32>) -> !hop.tensor<[3*s1], f32>
  func.return %p, %q2 : !hop.tensor<[3*s0], f32>, !hop.tensor<[3*s1], f32>
}
"""
"""The call's result is a view of ``y``, which changes after: functionalize replays the view
at y's size s1, not at the subgraph's s0."""

SEQUENCES = {name: (name,) for name in (*STAGES, "dce")} | {"pipeline": STAGES}


def _run(module: ModuleOp, sizes: tuple[int, int]) -> tuple[list[object], list[torch.Tensor]]:
    """User outputs and the inputs after the call, on inputs of these two sizes."""
    generator = torch.Generator().manual_seed(sum(sizes))
    inputs = [torch.randn(size, 3, generator=generator) for size in sizes]
    return ModuleCall(module)(*inputs), inputs


@pytest.mark.parametrize("text", [NESTED_AND_FREE, VIEW_THEN_MUTATION],
                         ids=["nested_and_free", "view_then_mutation"])
@pytest.mark.parametrize("sequence", SEQUENCES, ids=str)
def test_passes_keep_calls_at_other_sizes(text: str, sequence: str):
    before, after = parse_module(text), run_pipeline(parse_module(text), SEQUENCES[sequence])
    for sizes in ((3, 5), (6, 2)):
        torch.testing.assert_close(_run(after, sizes), _run(before, sizes), rtol=0, atol=0)
