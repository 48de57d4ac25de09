"""PyTorch's per-op derivatives: traced without guards, cached by pattern, refused where PyTorch has none."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp

import hopc
from hopc.ir.diagnostics import HopcError, location_from_attribute
from hopc.passes.autograd import batched_derivatives, derivatives, differentiate

_MODULE = """
builtin.module {{
  hop.symbol @s0 backed [2, oo] hint 5
  hop.symbol @s1 backed [2, oo] hint 7
  func.func @forward(%x: !hop.tensor<[{x}, 4], f32> {{hop.requires_grad}}) -> !hop.tensor<[], f32> {{
    {body}
  }}
}}
"""


def _differentiated(body: str, x: str = "s0") -> ModuleOp:
    return differentiate(hopc.parse(_MODULE.format(x=x, body=body)))


def test_symbolic_slice_and_convolution_install_no_guard(monkeypatch):
    """The traces behind a symbolic slice's derivative end with an empty guard list (Note [trace guards])."""
    seen = []
    original = derivatives.trace

    def recording(*args, **kwargs):
        traced = original(*args, **kwargs)
        seen.append(list(traced.shapes.shape_env.guards))
        return traced

    monkeypatch.setattr(derivatives, "trace", recording)
    monkeypatch.setattr(batched_derivatives, "trace_expected_derivatives", lambda builder: None)  # one trace each
    derivatives._CACHE.clear()
    _differentiated("""
    %r = aten.slice.Tensor(%x) {dim = 0 : i64, start = 1 : i64, end = #hop.expr<s0 - 1>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0 - 2, 4], f32>
    %s = aten.sum(%r) : (!hop.tensor<[s0 - 2, 4], f32>) -> !hop.tensor<[], f32>
    func.return %s : !hop.tensor<[], f32>""")
    assert seen and all(guards == [] for guards in seen)


def test_derivatives_are_cached_by_symbol_pattern():
    derivatives._CACHE.clear()
    body = """
    %t = aten.tanh(%x) : (!hop.tensor<[{x}, 4], f32>) -> !hop.tensor<[{x}, 4], f32>
    %s = aten.sum(%t) : (!hop.tensor<[{x}, 4], f32>) -> !hop.tensor<[], f32>
    func.return %s : !hop.tensor<[], f32>"""
    _differentiated(body.format(x="s0"), "s0")
    entries = len(derivatives._CACHE)
    _differentiated(body.format(x="s1"), "s1")  # same pattern, other symbol: no new trace
    assert len(derivatives._CACHE) == entries
    _differentiated(body.format(x="3"), "3")  # a static size is another pattern
    assert len(derivatives._CACHE) > entries


def test_an_op_without_a_derivative_is_a_located_error():
    text = _MODULE.format(x="s0", body="""
    %f = aten.floor_divide.Scalar(%x) {other = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> loc("model.py":12:5)
    %s = aten.sum(%f) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], f32>
    func.return %s : !hop.tensor<[], f32>""")
    with pytest.raises(HopcError, match="aten.floor_divide.Scalar has no derivative in PyTorch") as caught:
        differentiate(hopc.parse(text))
    assert (caught.value.location.file, caught.value.location.line) == ("model.py", 12)


def test_backward_ops_name_their_forward_op():
    module = _differentiated("""
    %t = aten.tanh(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> loc("model.py":3:9)
    %s = aten.sum(%t) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], f32> loc("model.py":4:9)
    func.return %s : !hop.tensor<[], f32>""")
    backward = next(op for op in module.ops if getattr(op, "sym_name", None) and op.sym_name.data == "backward")
    tanh_backward = next(op for op in backward.walk() if op.name == "aten.tanh_backward")
    assert tanh_backward.attributes["hop.seq_nr"].value.data == 0
    location = tanh_backward.location
    assert location.desc.data == "backward of aten.tanh"
    assert location.location.line.data == 3
    assert location_from_attribute(location).line == 3  # diagnostics point at the forward's line
