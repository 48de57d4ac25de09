"""Runs a hand-written kernel both ways: its Triton launcher and the reference interpreter.

``check_kernel`` builds a module holding the kernel and a function that
launches it, runs the function in the reference interpreter (the kernel's
ATen ops, op by op, in eager) and the kernel's generated Triton code (under
``TRITON_INTERPRET=1`` on the CPU), and compares the results.
"""

from __future__ import annotations

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported: kernels run on CPU tensors

from collections.abc import Sequence

import torch

from hopc.backend.interpreter import run_module
from hopc.backend.triton.launcher import Launcher, compile_kernel
from hopc.dialects.kernel import KernelOp
from hopc.dialects.parse import parse_module


def kernel_module(kind: str, arguments: Sequence[str], body: str, yields: Sequence[tuple[str, str]],
                  symbol: str = "k") -> str:
    """A module of ``kernel.kernel @symbol`` and ``func.func @main`` launching it.

    ``arguments`` are the block argument types (``%a0 ..``); ``yields`` the
    (value, type) pairs the kernel yields; ``s0`` and ``s1`` are declared.
    """
    names = [f"%a{i}" for i in range(len(arguments))]
    signature = ", ".join(f"{n}: {t}" for n, t in zip(names, arguments))
    values = ", ".join(v for v, _ in yields)
    types = ", ".join(t for _, t in yields)
    launched = ", ".join(f"%r{i}" for i in range(len(yields)))
    return f"""
hop.symbol @s0 backed [2, oo] hint 5
hop.symbol @s1 backed [2, oo] hint 7
kernel.kernel @{symbol} "{kind}" {{
^bb0({signature}):
{body}
  kernel.yield {values} : {types}
}}
func.func @main({signature}) -> ({types}) {{
  {launched} = kernel.launch @{symbol}({", ".join(names)}) : ({", ".join(arguments)}) -> ({types})
  func.return {launched} : {types}
}}
"""


def kernel_of(module) -> KernelOp:
    return next(op for op in module.ops if isinstance(op, KernelOp))


def check_kernel(text: str, args: Sequence[torch.Tensor | int], **tolerances) -> Launcher:
    """Runs the module's kernel both ways on ``args`` and asserts the results agree; its launcher."""
    module = parse_module(text)
    expected = run_module(module, list(args))
    launcher = compile_kernel(kernel_of(module))
    outs = [torch.empty_like(e, memory_format=torch.contiguous_format) for e in expected]
    launcher(list(args), outs)
    for got, want in zip(outs, expected, strict=True):
        torch.testing.assert_close(got, want, equal_nan=True, **tolerances)
    return launcher
