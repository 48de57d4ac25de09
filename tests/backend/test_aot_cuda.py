"""Every Triton kernel hopc generates for the executor corpus compiles for CUDA sm_90 and sm_80, without a GPU.

This process captures each program of ``tests/frontend/frontend_corpus.py``,
differentiates it (``autograd_harness.differentiated``), lowers the forward
module and the differentiated one (forward and backward entries) for CUDA,
and generates each pointwise and reduction kernel for the CUDA target in both
index widths (Note [index width] in ``hopc.backend.triton.emit``). Each is
given the arguments its launcher passes (``Launcher.arguments``) for
contiguous tensors of the symbols' hint sizes, and the block the autotuner
takes first. ``aot_compile.py`` compiles them in a fresh process where
``TRITON_INTERPRET`` is unset (Note [kernel targets] in
``hopc.backend.triton.target``), with Triton's own launch specialization.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontend"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "autograd"))
from autograd_harness import differentiated
from frontend_corpus import CASES
from triton_kernels import kernel_module, kernel_of

import hopc
from hopc.backend.lowering import lower_to_kernel
from hopc.backend.triton.autotune import fitting_blocks
from hopc.backend.triton.emit import emit_kernel
from hopc.backend.triton.launcher import Launcher
from hopc.backend.triton.target import Target
from hopc.dialects.hop_symbols import SymbolOp
from hopc.dialects.kernel import KernelOp
from hopc.dialects.parse import parse_module
from hopc.ir.types import SymIntType, TensorType
from hopc.passes.pipeline import run_pipeline
from hopc.torch_bridge.torch_values import dtype_of, evaluate_dim

pytestmark = pytest.mark.aot_cuda

NOT_DIFFERENTIATED = {"dynamic_reshapes": "floor_divide has no derivative in PyTorch"}
"""Corpus programs whose forward alone is compiled."""

UNHINTED_SIZE = 7
"""The size given to a symbol without a hint (an unbacked one), clipped to its range."""

COMPILER = pathlib.Path(__file__).with_name("aot_compile.py")


def corpus_modules():
    """The functional forward and the differentiated module of each corpus program."""
    for case in CASES:
        torch.manual_seed(0)
        inputs = list(case.inputs[0])
        if case.name in NOT_DIFFERENTIATED:
            yield run_pipeline(hopc.capture(case.make(), tuple(inputs), dynamic_shapes=case.dynamic_shapes))
            continue
        functional, module, _ = differentiated(case.make(), inputs, dynamic_shapes=case.dynamic_shapes)
        yield functional
        yield module


def symbol_sizes(module) -> dict[str, int]:
    """Each declared symbol's hint, or ``UNHINTED_SIZE`` clipped to its range."""
    sizes = {}
    for op in module.ops:
        if isinstance(op, SymbolOp):
            low, high = op.value_range
            size = op.hint_value if op.hint_value is not None else max(low or 0, UNHINTED_SIZE)
            sizes[op.symbol] = size if high is None else min(size, high)
    return sizes


def example_value(type_, sizes: dict[str, int]) -> torch.Tensor | int:
    """A contiguous meta tensor of ``type_`` at ``sizes`` (an int for a ``!hop.symint``)."""
    if isinstance(type_, SymIntType):
        return int(evaluate_dim(type_.value, sizes))
    assert isinstance(type_, TensorType), type_
    shape = [int(evaluate_dim(d, sizes)) for d in type_.shape]
    return torch.empty(shape, dtype=dtype_of(type_.element_type), device="meta")


def kernel_launches(module) -> list[dict]:
    """The CUDA launches of ``module``'s generated kernels, in both index widths, as ``aot_compile`` reads them."""
    sizes = symbol_sizes(module)
    launches = []
    for kernel in module.ops:
        if not isinstance(kernel, KernelOp) or kernel.kind.data == "extern":
            continue
        launcher = Launcher(kernel, emit_kernel(kernel, Target.CUDA))
        args = [example_value(t, sizes) for t in kernel.input_types]
        outs = [example_value(t, sizes) for t in kernel.output_types]
        arguments = launcher.arguments(args, outs)
        if arguments.count == 0:
            continue
        layout = launcher.emitted.layout
        blocks = arguments.blocks(fitting_blocks(layout.block, arguments.size)[-1], layout)
        for emitted in launcher.variants.values():
            launches.append({
                "source": emitted.source, "name": emitted.name,
                "arguments": [str(t.dtype).removeprefix("torch.") for t in arguments.tensors] + list(arguments.scalars),
                "constexprs": blocks})
    return launches


def math_kernel() -> str:
    """A kernel of every function the CUDA target takes from libdevice (Note [kernel targets]),
    in f32 and f64 (GELU in f32)."""
    lines, yields = [], []
    for index, width in enumerate((32, 64)):
        tensor = f"!hop.tensor<[s0, 16], f{width}>"
        for name in ("exp", "tanh", "erf", "log1p", "expm1", "sigmoid", "silu", "sqrt"):
            lines.append(f"  %{name}{width} = aten.{name}(%a{index}) : ({tensor}) -> {tensor}")
            yields.append((f"%{name}{width}", tensor))
        for name, exponent in (("pow", "1.5 : f64"), ("pow_int", "11 : i64")):
            lines.append(f"  %{name}{width} = aten.pow.Tensor_Scalar(%a{index}) {{exponent = {exponent}}} : "
                         f"({tensor}) -> {tensor}")
            yields.append((f"%{name}{width}", tensor))
    f32 = "!hop.tensor<[s0, 16], f32>"
    for form in ("none", "tanh"):
        lines.append(f'  %gelu_{form} = aten.gelu(%a0) {{approximate = "{form}"}} : ({f32}) -> {f32}')
        lines.append(f'  %gelu_backward_{form} = aten.gelu_backward(%a0, %a0) {{approximate = "{form}"}} : '
                     f"({f32}, {f32}) -> {f32}")
        yields += [(f"%gelu_{form}", f32), (f"%gelu_backward_{form}", f32)]
    return kernel_module("pointwise", [f32, "!hop.tensor<[s0, 16], f64>"], "\n".join(lines), yields)


def test_every_corpus_kernel_compiles_for_sm90_and_sm80(tmp_path):
    math_module = parse_module(math_kernel())
    launches = kernel_launches(math_module)
    for module in corpus_modules():
        launches += kernel_launches(lower_to_kernel(module, "cuda"))
    unique = list({json.dumps(launch, sort_keys=True): launch for launch in launches}.values())
    (tmp_path / "launches.json").write_text(json.dumps(unique))
    environment = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    environment.update(TRITON_CACHE_DIR=str(tmp_path / "cache"), TRITON_DEFAULT_FP_FUSION="1")
    finished = subprocess.run([sys.executable, str(COMPILER), str(tmp_path / "launches.json")], cwd=tmp_path,
                              env=environment, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr[-5000:]
    report = json.loads(finished.stdout.splitlines()[-1])
    assert report["failures"] == [], "\n\n".join(report["failures"])
    assert report["interpreter_imported"] is False and report["interpret_environment"] is None
    sources = {launch["source"] for launch in unique}
    assert report["kernels"] == len(sources) >= 100
    assert report["compiled"] == {"90": report["distinct"], "80": report["distinct"]}
    assert report["distinct"] >= len(sources)
    wide = [source for source in sources if "tl.program_id(0).to(tl.int64)" in source]
    assert 2 * len(wide) == len(sources)  # each kernel in both index widths


def test_math_kernel_names_every_libdevice_function():
    source = emit_kernel(kernel_of(parse_module(math_kernel())), Target.CUDA).source
    for function in ("exp", "tanh", "erf", "log1p", "expm1", "pow"):
        assert f"libdevice.{function}(" in source
    assert "tl.exp(" not in source and "tl.sigmoid(" not in source and "def _tanh(" not in source
    assert "libdevice.sqrt_rn(" in source and "tl.sqrt(" not in source
