"""What a generated kernel is written for: real CUDA hardware or Triton's CPU interpreter.

Note [kernel targets]
~~~~~~~~~~~~~~~~~~~~~
A generated kernel is written for one target, and its source says which:

- ``cuda``: compiled by Triton for an NVIDIA GPU. There ``tl.exp`` is
  ``ex2.approx.f32`` of ``x * log2(e)``, whose error grows with ``|x|``, and
  every helper built on it (``tl.sigmoid``, a ``tanh`` from ``exp``)
  inherits it, while eager calls the accurate ``expf``/``tanhf``; so
  ``exp``, ``tanh``, ``erf``, ``log1p``, ``expm1`` and ``sigmoid`` call
  libdevice (``triton.language.extra.libdevice``), as Inductor does unless
  asked for fast math; ``sqrt`` is libdevice's ``sqrt_rn`` (``tl.sqrt`` is
  ``sqrt.approx.ftz.f32``). Still approximate there, as in Inductor: ``/``
  (``div.full.f32``, 2 ulp) and ``rsqrt`` (as eager's ``rsqrtf``).
- ``interpreter``: run by Triton's interpreter (``TRITON_INTERPRET=1``),
  which has no libdevice (its ``extern_elementwise`` raises), so the same
  functions are the core-language helpers of ``hopc.backend.triton.library``.

Triton decides whether a ``@triton.jit`` function is interpreted when the
decorator runs, from ``TRITON_INTERPRET``: one choice for the process
(``process_target``). hopc does not interpret some kernels and compile
others in one process, though wrapping a function in the interpreter's
``InterpretedFunction`` would: during every launch the interpreter replaces
the builtins of ``triton.language`` with its own, module-wide, so a kernel
compiled meanwhile on another thread (Note [concurrent calls] in
``hopc.backend.runtime.module_call``) would be traced with them; and in a
process that had run interpreted kernels, later compiles failed (NOTES-gpu,
section 0 item 6: 43 of 82 corpus kernels, ``'ir.value' object has no
attribute 'dtype'``, cause not established) where all compiled in a fresh
process. The launcher caches jit functions by (target, source), so a
function made for one target never serves the other.
"""

from __future__ import annotations

import os
from enum import StrEnum


class Target(StrEnum):
    """The hardware a generated kernel's source is written for (Note [kernel targets])."""

    CUDA = "cuda"
    INTERPRETER = "interpreter"


def interpreting() -> bool:
    """Kernels run under Triton's CPU interpreter (``TRITON_INTERPRET=1``)."""
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def process_target() -> Target:
    """The target of the kernels this process launches: the interpreter where
    ``TRITON_INTERPRET`` selects it, CUDA otherwise (Note [kernel targets])."""
    return Target.INTERPRETER if interpreting() else Target.CUDA
