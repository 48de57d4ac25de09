"""The op tracer (hopc.torch_bridge.op_tracer, hopc.torch_bridge.op_result_types): hints, guards, limits, cache, devices."""

import operator
import time

import pytest
import torch
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, i64

import hopc
from hopc.dialects.aten_schema import lookup
from hopc.dialects.hop import SymbolOp
from hopc.ir.diagnostics import HopcError, Location
from hopc.ir.types import DTYPES, ExprAttr, TensorType
from hopc.torch_bridge.op_result_types import OpTracer
from hopc.torch_bridge.op_tracer import TraceLimits, trace
from hopc.torch_bridge.torch_symbolic import DEFAULT_HINT, SymbolFacts

HERE = Location("model.py", 12, 5)


def tensor(*shape, dtype="float32"):
    return TensorType(shape, DTYPES[dtype])


def ints(*values):
    return ArrayAttr([IntegerAttr(v, i64) for v in values])


# --------------------------------------------------------------------------- hints


def test_capture_records_the_example_size_as_the_hint():
    module = hopc.capture(lambda x: x.sin(), (torch.randn(5, 3),),
                          dynamic_shapes=({0: torch.export.Dim("n")},))
    [symbol] = [op for op in module.body.block.ops if isinstance(op, SymbolOp)]
    assert (symbol.kind.data, symbol.hint_value) == ("backed", 5)
    assert f"hop.symbol @{symbol.symbol} backed [2, oo] hint 5" in str(module)


def test_trace_uses_the_recorded_hint():
    traced = trace(lambda x: x * 2, [tensor("s0", 4)], what="mul",
                   symbols={"s0": SymbolFacts(hint=5)})
    assert traced.shapes.symint("s0").node.hint == 5


def test_a_symbol_without_hint_takes_the_default_clamped_into_its_range():
    assert SymbolFacts().example() == DEFAULT_HINT
    assert SymbolFacts(lower=2, upper=64).example() == 64
    assert SymbolFacts(lower=DEFAULT_HINT + 1).example() == DEFAULT_HINT + 1


# --------------------------------------------------------------------------- guards


def test_symbolic_slice_traces_without_a_guard():
    result = OpTracer().result_types(lookup("aten.slice.Tensor"), [[tensor("s0", 8)]],
                                     {"dim": IntegerAttr(0, i64), "start": IntegerAttr(1, i64),
                                      "end": ExprAttr("s0 - 1")})
    assert result == [tensor("s0 - 2", 8)]


_CONVOLUTION = {"stride": ints(1, 1), "padding": ints(0, 0), "dilation": ints(1, 1),
                "transposed": IntegerAttr(0, 1), "output_padding": ints(0, 0),
                "groups": IntegerAttr(1, i64)}


def test_symbolic_convolution_traces_without_a_guard():
    result = OpTracer().result_types(
        lookup("aten.convolution"), [[tensor("s0", 3, "s1", "s1")], [tensor(8, 3, 3, 3)], []],
        _CONVOLUTION, symbols={"s1": SymbolFacts(hint=5, lower=3)})
    assert result == [tensor("s0", 8, "s1 - 2", "s1 - 2")]


def test_convolution_needs_the_range_that_fits_its_kernel():
    # The input must be at least as large as the kernel: without s1 >= 3 in
    # the range, the trace would assume it from the hint.
    with pytest.raises(HopcError, match=r"aten.convolution: .*guard on shape symbols \(s1 >= 3\)"):
        OpTracer().result_types(
            lookup("aten.convolution"), [[tensor("s0", 3, "s1", "s1")], [tensor(8, 3, 3, 3)], []],
            _CONVOLUTION, symbols={"s1": SymbolFacts(hint=5)})


def test_a_trace_that_guards_is_a_located_error():
    with pytest.raises(HopcError, match=r"branchy: tracing it would install a guard .*s0") as error:
        trace(lambda x: x * 2 if x.shape[0] > 10 else x, [tensor("s0", 4)], what="branchy",
              location=HERE)
    assert error.value.location == HERE


def test_split_on_a_dynamic_size_fails_fast_and_located():
    started = time.monotonic()
    with pytest.raises(HopcError, match=r"aten.split.Tensor: .*guard.*s0") as error:
        OpTracer().result_types(lookup("aten.split.Tensor"), [[tensor("s0", 8)]],
                                {"split_size": IntegerAttr(3, i64)}, location=HERE)
    assert time.monotonic() - started < 3
    assert error.value.location == HERE


# --------------------------------------------------------------------------- limits


def test_too_many_results_is_a_located_error():
    tracer = OpTracer(TraceLimits(max_results=100))
    with pytest.raises(HopcError, match=r"aten.split.Tensor: the trace gives 300 results, more "
                                        r"than the limit of 100") as error:
        tracer.result_types(lookup("aten.split.Tensor"), [[tensor(300)]],
                            {"split_size": IntegerAttr(1, i64)}, location=HERE)
    assert error.value.location == HERE


def test_a_trace_past_its_time_limit_is_an_error_and_returns_promptly():
    def long(x):
        for _ in range(100_000):
            x = x + 1
        return x

    started = time.monotonic()
    with pytest.raises(HopcError, match=r"long: tracing ran past its time limit of 0.2 s"):
        trace(long, [tensor("s0")], what="long", limits=TraceLimits(seconds=0.2))
    assert time.monotonic() - started < 5


# --------------------------------------------------------------------------- cache


def test_cache_hits_on_a_repeated_signature_and_across_symbol_names():
    tracer = OpTracer()
    add = lookup("aten.add.Tensor")
    assert tracer.result_types(add, [[tensor("s0", 4)], [tensor("s0", 4)]], {}) == [tensor("s0", 4)]
    assert tracer.result_types(add, [[tensor("s0", 4)], [tensor("s0", 4)]], {}) == [tensor("s0", 4)]
    assert tracer.result_types(add, [[tensor("s7", 4)], [tensor("s7", 4)]], {}) == [tensor("s7", 4)]
    assert (tracer.hits, tracer.misses) == (2, 1)


@pytest.mark.parametrize("changed", ["dtype", "requires_grad", "range"])
def test_cache_misses_on_a_different_signature(changed):
    tracer = OpTracer()
    add = lookup("aten.add.Tensor")
    tracer.result_types(add, [[tensor("s0", 4)], [tensor("s0", 4)]], {})
    other = {
        "dtype": {"operand_types": [[tensor("s0", 4, dtype="float64")], [tensor("s0", 4)]]},
        "requires_grad": {"requires_grad": [True, False]},
        "range": {"symbols": {"s0": SymbolFacts(lower=2, upper=64)}},
    }[changed]
    arguments = {"operand_types": [[tensor("s0", 4)], [tensor("s0", 4)]], **other}
    tracer.result_types(add, arguments.pop("operand_types"), {}, **arguments)
    assert (tracer.hits, tracer.misses) == (0, 2)


def test_each_call_gets_fresh_symbols_for_data_dependent_sizes():
    tracer = OpTracer()
    names = iter(["u0", "u1"])
    nonzero = lookup("aten.nonzero")
    first = tracer.result_types(nonzero, [[tensor("s0")]], {}, fresh_symbol=lambda: next(names))
    second = tracer.result_types(nonzero, [[tensor("s0")]], {}, fresh_symbol=lambda: next(names))
    assert (first, second) == ([tensor("u0", 1, dtype="int64")], [tensor("u1", 1, dtype="int64")])
    assert tracer.hits == 1


def test_repeated_signatures_are_much_cheaper_than_the_first():
    tracer = OpTracer()
    add = lookup("aten.add.Tensor")
    operands = [[tensor("s0", 4)], [tensor(4)]]
    started = time.perf_counter()
    tracer.result_types(add, operands, {})
    first = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(20):
        tracer.result_types(add, operands, {})
    assert (time.perf_counter() - started) / 20 < first / 5


# --------------------------------------------------------------------------- devices


@pytest.mark.skipif(torch._C._dispatch_has_kernel_for_dispatch_key("aten::empty.memory_format", "CUDA"),
                    reason="this torch has CUDA kernels")
def test_a_device_without_kernels_is_refused_without_tracing():
    with pytest.raises(HopcError, match=r"aten.empty.memory_format: .*no kernels for device "
                                        r"'cuda'") as error:
        OpTracer().result_types(lookup("aten.empty.memory_format"), [],
                                {"size": ints(4), "device": StringAttr("cuda")}, location=HERE)
    assert error.value.location == HERE


def test_attention_traces_the_cpu_path():
    q = tensor("s0", 4, "s1", 16)
    result = OpTracer().result_types(lookup("aten.scaled_dot_product_attention"),
                                     [[q], [q], [q], []], {"is_causal": IntegerAttr(1, 1)})
    assert result == [q]


# --------------------------------------------------------------------------- function form


def test_gradient_of_mul_traces_to_aten_ops_over_our_symbols():
    def joint(x, y):
        out = torch.ops.aten.mul.Tensor(x, y)
        return out, torch.autograd.grad([out], [x, y], [torch.ones_like(out)])

    traced = trace(joint, [tensor("s0", "s1"), tensor("s1")], what="aten.mul.Tensor",
                   requires_grad=[True, True])
    assert traced.result_types == [tensor("s0", "s1"), tensor("s0", "s1"), tensor("s1")]
    arithmetic = {operator.add, operator.sub, operator.mul, operator.floordiv}
    calls = [n for n in traced.graph.graph.nodes if n.op == "call_function"]
    assert any(n.target == torch.ops.aten.mul.Tensor for n in calls)
    for node in calls:
        assert node.target in arithmetic or node.target.namespace == "aten", node.target
        value = node.meta["val"]
        if isinstance(value, torch.Tensor):
            assert traced.shapes.tensor_type(value).shape in {("s0", "s1"), ("s1",), (1, "s1")}, node
