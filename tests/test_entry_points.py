"""Named entry points and roles (Note [entry signature]): signature queries and running entries by kind."""

import pytest
import torch

from hopc.backend.interpreter import run_module
from hopc.dialects import hop
from hopc.dialects.hop_function_signature import USER, Role, function_signature
from hopc.dialects.hop_module_structure import entry_function, entry_functions, entry_signature, verify_structure
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError

SQUARE = """
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  %y = aten.mul.Tensor(%x, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y, %x : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
func.func @backward(%saved_x: !hop.tensor<[4], f32> {hop.saved = 0 : i64}, %ct: !hop.tensor<[4], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[4], f32> {hop.gradient_of = 0 : i64}) {
  %twice = aten.mul.Scalar(%saved_x) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %grad = aten.mul.Tensor(%twice, %ct) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %grad : !hop.tensor<[4], f32>
}
"""

GLOBALS = """
hop.parameter @weight : !hop.tensor<[4], f32>
hop.buffer @count : !hop.tensor<[], i64>
func.func @step(%x: !hop.tensor<[4], f32> {hop.strides = [2 : i64]}, %w: !hop.tensor<[4], f32> {hop.parameter = @weight, hop.requires_grad}, %n: !hop.tensor<[], i64> {hop.buffer = @count}) -> (!hop.tensor<[4], f32>, !hop.tensor<[], i64> {hop.copy_back_to = 2 : i64}) {
  %y = aten.mul.Tensor(%x, %w) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %m = aten.add.Scalar(%n) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
  func.return %y, %m : !hop.tensor<[4], f32>, !hop.tensor<[], i64>
}
"""


def parsed(text: str):
    module = parse_module(text)
    verify_module(module)
    return module


def test_entry_op_is_registered_in_the_hop_dialect():
    assert hop.EntryOp.name in {op.name for op in hop.Hop.operations}
    assert hop.ParameterOp.name == "hop.parameter"


def test_entries_are_named_by_kind():
    module = parsed(SQUARE)
    assert {kind: f.sym_name.data for kind, f in entry_functions(module).items()} == {
        "forward": "forward", "backward": "backward"}
    assert entry_function(module, "backward").sym_name.data == "backward"


def test_module_without_entry_ops_has_its_public_function_as_forward():
    module = parsed(GLOBALS)
    assert list(entry_functions(module)) == ["forward"]
    assert entry_signature(module).name == "step"


def test_missing_kind_is_a_located_error():
    module = parsed(GLOBALS)
    with pytest.raises(HopcError, match="the module has no backward entry"):
        entry_function(module, "backward")


def test_forward_signature_queries():
    signature = entry_signature(parsed(SQUARE))
    assert signature.arguments == (Role(USER),)
    assert signature.requires_grad == frozenset({0})
    assert signature.user_inputs == (0,)
    assert signature.user_outputs == (0,)
    assert signature.saved_results == {0: 1}
    assert signature.results_with_role("hop.saved") == {1: 0}


def test_backward_signature_queries():
    signature = entry_signature(parsed(SQUARE), "backward")
    assert signature.saved_arguments == {0: 0}
    assert signature.cotangent_arguments == {1: 0}
    assert signature.gradient_results == {0: 0}
    assert signature.user_inputs == ()
    assert signature.user_outputs == ()


def test_global_and_copy_back_queries_keep_their_meaning():
    signature = entry_signature(parsed(GLOBALS))
    assert signature.globals_by_argument == {1: ("hop.parameter", "weight"), 2: ("hop.buffer", "count")}
    assert signature.arguments_with_role("hop.parameter") == {1: "weight"}
    assert signature.requires_grad == frozenset({1})
    assert signature.copy_back == {1: 2}
    assert signature.user_inputs == (0,)
    assert signature.user_outputs == (0,)
    assert signature.strides == {0: (2,)}


def test_function_signature_reads_any_function():
    module = parsed(SQUARE)
    backward = entry_function(module, "backward")
    assert function_signature(backward).arguments == (Role("hop.saved", 0), Role("hop.cotangent_of", 0))


def test_verify_structure_checks_the_backward_against_the_forward():
    module = parsed(SQUARE)
    forward = entry_function(module)
    forward.res_attrs = None  # the forward no longer saves x
    with pytest.raises(HopcError, match=r"@backward argument 0 \(hop.saved = 0\): @forward saves no such value"):
        verify_structure(module)


def test_forward_and_backward_run_by_kind_match_torch_autograd():
    x, ct = torch.randn(4, requires_grad=True), torch.randn(4)
    module = parsed(SQUARE)
    y, saved = run_module(module, [x.detach()])
    (grad,) = run_module(module, [saved, ct], function="backward")
    (expected,) = torch.autograd.grad(x * x, x, ct)
    torch.testing.assert_close(y, (x * x).detach())
    torch.testing.assert_close(grad, expected)


def test_entries_run_by_kind_or_by_symbol_name():
    module = parsed(SQUARE.replace("@forward", "@square").replace("@backward", "@square_backward"))
    x, ct = torch.randn(4), torch.randn(4)
    (by_kind,) = run_module(module, [x, ct], function="backward")
    (by_name,) = run_module(module, [x, ct], function="square_backward")
    torch.testing.assert_close(by_kind, 2 * x * ct)
    torch.testing.assert_close(by_name, 2 * x * ct)
    torch.testing.assert_close(run_module(module, [x])[0], x * x)


def test_running_an_unknown_function_is_an_error():
    with pytest.raises(HopcError, match="has no entry kind or func.func named 'sideways'"):
        run_module(parsed(SQUARE), [], function="sideways")


def test_an_entry_naming_no_function_is_located_without_verification():
    module = parse_module("""
    func.func @forward() {
      func.return
    }
    hop.entry forward @nowhere""")
    with pytest.raises(HopcError, match="'hop.entry' op forward names @nowhere, which is not a func.func") as caught:
        run_module(module, [])
    assert caught.value.location.line == 5


def test_a_kind_that_is_also_another_functions_name_is_an_error():
    module = parsed(SQUARE.replace("@forward", "@square").replace("func.func @backward", """func.func private @forward() {
  func.return
}
func.func @backward"""))
    with pytest.raises(HopcError, match="has two functions called 'forward': its forward entry @square, and @forward"):
        run_module(module, [torch.randn(4)], function="forward")
