"""functionalize preserves semantics, establishes its invariant, and its helpers agree with torch.

Every ``// -----`` chunk of ``lit_tests/passes/functionalize.mlir`` runs in the
reference interpreter before and after the pass on the same inputs (cloned per
run): several random input sets, every shape symbol at two sizes, every 0-d
boolean input (a predicate) true and false. The outputs must be equal, and so
must the inputs afterwards: the original run changes them in place, the
functional one returns their final values, which ``apply_copy_back`` copies in.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import torch
from xdsl.dialects.builtin import ModuleOp

from hopc.backend.interpreter import run_module
from hopc.backend.runtime.module_call import apply_copy_back
from hopc.dialects.aten_schema import functional_variant, lookup
from hopc.dialects.context import make_context
from hopc.dialects.hop_module_structure import declared_symbols, entry_function, entry_signature
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError
from hopc.ir.dims import dim_symbols
from hopc.ir.types import DTYPES, TensorType
from hopc.passes.functionalize import FunctionalizePass
from hopc.passes.verify_functional import verify_functional
from hopc.torch_bridge.torch_values import dtype_of, evaluate_dim

LIT = Path(__file__).resolve().parent.parent / "lit_tests" / "passes" / "functionalize.mlir"


def functionalized(text: str) -> ModuleOp:
    """The module of ``text`` after the pass, checked: it verifies and is functional."""
    module = parse_module(text, make_context())
    FunctionalizePass().apply(make_context(), module)
    verify_module(module)
    verify_functional(module)
    return module


def _size_choices(module: ModuleOp) -> list[dict[str, int]]:
    names: set[str] = set()
    for type_ in entry_function(module).function_type.inputs.data:
        if isinstance(type_, TensorType):
            for dim in type_.shape:
                names |= dim_symbols(dim)
    declared = declared_symbols(module)
    choices = []
    for offset in (0, 2):
        sizes = {}
        for name in sorted(names):
            low = declared[name].value_range[0] if name in declared else 2
            sizes[name] = max(low or 0, 2) + offset
        choices.append(sizes)
    return choices


def _arguments(module: ModuleOp, sizes: dict[str, int], predicates: tuple[bool, ...],
               seed: int) -> list[object]:
    """Random entry arguments; one with ``hop.strides`` is laid out with those strides."""
    generator = torch.Generator().manual_seed(seed)
    flags = iter(predicates)
    strides = entry_signature(module).strides
    arguments: list[object] = []
    for index, type_ in enumerate(entry_function(module).function_type.inputs.data):
        if not isinstance(type_, TensorType):
            arguments.append(sizes[str(type_.value)])  # type: ignore[attr-defined]
            continue
        shape = [evaluate_dim(d, sizes) for d in type_.shape]
        dtype = dtype_of(type_.element_type)
        if dtype == torch.bool and not shape:
            value = torch.tensor(next(flags))
        elif dtype == torch.bool:
            value = torch.rand(shape, generator=generator) > 0.5
        elif dtype.is_floating_point:
            value = torch.randn(shape, generator=generator).to(dtype)
        else:
            value = torch.randint(0, 3, shape, generator=generator).to(dtype)
        if index in strides:
            laid_out = [evaluate_dim(d, sizes) for d in strides[index]]
            value = torch.empty_strided(shape, laid_out, dtype=dtype).copy_(value)
        arguments.append(value)
    return arguments


def _predicate_count(module: ModuleOp) -> int:
    return sum(1 for t in entry_function(module).function_type.inputs.data
               if isinstance(t, TensorType) and not t.shape and t.element_type == DTYPES["bool"])


def _clone(values: list[object]) -> list[object]:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def assert_same_behaviour(before: ModuleOp, after: ModuleOp, seeds: int = 2) -> None:
    """``after`` (functional, with copy-back results) behaves as ``before`` on random inputs."""
    for sizes in _size_choices(before):
        for predicates in itertools.product((False, True), repeat=_predicate_count(before)):
            for seed in range(seeds):
                arguments = _arguments(before, sizes, predicates, seed)
                original, functional = _clone(arguments), _clone(arguments)
                expected = run_module(before, original)
                outputs = apply_copy_back(after, functional, run_module(after, functional))
                assert len(outputs) == len(expected)
                for got, want in zip(outputs, expected):
                    torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
                for got, want in zip(functional, original):
                    if isinstance(want, torch.Tensor):
                        torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)


def _chunks() -> list:
    chunks = LIT.read_text().split("// -----")
    return [pytest.param(chunk, id=f"chunk{index}") for index, chunk in enumerate(chunks)]


@pytest.mark.parametrize("chunk", _chunks())
def test_lit_chunk_keeps_semantics(chunk: str) -> None:
    assert_same_behaviour(parse_module(chunk), functionalized(chunk))


# --------------------------------------------------------------------------- unit tests


def test_functional_module_is_unchanged() -> None:
    text = """func.func @f(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %0 = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %0 : !hop.tensor<[4], f32>
}"""
    assert str(functionalized(text)) == str(parse_module(text))


def test_apply_copy_back_writes_inputs_and_returns_user_outputs() -> None:
    module = functionalized("""func.func @f(%x: !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> {
  %0 = aten.mul_.Scalar(%x) {other = 3 : i64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %1 = aten.neg(%x) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %1 : !hop.tensor<[2], f32>
}""")
    x = torch.tensor([1.0, 2.0])
    outputs = apply_copy_back(module, [x], run_module(module, [x]))
    assert torch.equal(x, torch.tensor([3.0, 6.0]))
    assert len(outputs) == 1 and torch.equal(outputs[0], torch.tensor([-3.0, -6.0]))


def test_verify_functional_rejects_views() -> None:
    module = parse_module("""func.func @f(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[2, 2], f32> {
  %0 = aten.view(%x) {size = [2, 2]} : (!hop.tensor<[4], f32>) -> !hop.tensor<[2, 2], f32>
  func.return %0 : !hop.tensor<[2, 2], f32>
}""")
    with pytest.raises(HopcError, match="returns a view of its operand"):
        verify_functional(module)


@pytest.mark.parametrize(("name", "functional"), [
    ("aten.add_.Tensor", "aten.add.Tensor"),
    ("aten.add.out", "aten.add.Tensor"),
    ("aten.max.dim_max", "aten.max.dim"),
    ("aten.copy_", "aten.copy"),
    ("aten.index_put_", "aten.index_put"),
    ("aten._foreach_add_.Scalar", "aten._foreach_add.Scalar"),
    ("aten.__ilshift__.Scalar", "aten.__lshift__.Scalar"),
    ("aten.__ior__.Tensor", "aten.__or__.Tensor"),
    ("aten.t_", None),
])
def test_functional_form(name: str, functional: str | None) -> None:
    found = functional_variant(lookup(name))
    assert (found.op_name if found else None) == functional


_VIEW_CHAINS = {
    "rows": ("aten.slice.Tensor", "{dim = 0 : i64, start = 1 : i64, end = 3 : i64}", [2, 6]),
    "columns": ("aten.slice.Tensor", "{dim = 1 : i64, start = 0 : i64, end = 3 : i64}", [4, 3]),
    "every_other_row": ("aten.slice.Tensor",
                        "{dim = 0 : i64, start = 0 : i64, end = 4 : i64, step = 2 : i64}", [2, 6]),
    "transposed": ("aten.t", "", [6, 4]),
    "row": ("aten.select.int", "{dim = 0 : i64, index = 2 : i64}", [6]),
    "column": ("aten.select.int", "{dim = 1 : i64, index = 2 : i64}", [4]),
    "diagonal": ("aten.diagonal", "", [4]),
    "unsqueezed": ("aten.unsqueeze", "{dim = 1 : i64}", [4, 1, 6]),
}


def _type(shape: list[int]) -> str:
    return f"!hop.tensor<[{', '.join(map(str, shape))}], f32>"


@pytest.mark.parametrize("chain", sorted(_VIEW_CHAINS))
@pytest.mark.parametrize("op", ["aten.reshape", "aten.contiguous", "aten.flatten.using_ints"])
def test_reshape_and_contiguous_alias_as_in_eager_mode(chain: str, op: str) -> None:
    """Note [reshape aliasing]: a change through the result reaches x exactly when eager's does."""
    view, attributes, shape = _VIEW_CHAINS[chain]
    numel = 1
    for size in shape:
        numel *= size
    result_shape = shape if op == "aten.contiguous" else [numel]
    op_attributes = "{shape = [-1]}" if op == "aten.reshape" else ""
    text = f"""func.func @f(%x: !hop.tensor<[4, 6], f32>) -> {_type(result_shape)} {{
  %v = {view}(%x) {attributes} : (!hop.tensor<[4, 6], f32>) -> {_type(shape)}
  %r = {op}(%v) {op_attributes} : ({_type(shape)}) -> {_type(result_shape)}
  %0 = aten.add_.Scalar(%r) {{other = 1 : i64}} : ({_type(result_shape)}) -> {_type(result_shape)}
  %1 = aten.mul_.Scalar(%x) {{other = 2 : i64}} : (!hop.tensor<[4, 6], f32>) -> !hop.tensor<[4, 6], f32>
  func.return %r : {_type(result_shape)}
}}"""
    assert_same_behaviour(parse_module(text), functionalized(text))
