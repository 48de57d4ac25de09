"""Triton code generation for ``kernel.kernel`` ops (Note [kernel level] in ``hopc.dialects.kernel``).

- ``ops``: which ATen ops a generated kernel computes and how (``can_emit``,
  ``REDUCTIONS``), with PyTorch's dtype rules (Note [triton dtypes]);
- ``names``: the identifiers and literals that generated source may contain
  (Note [no IR text in generated source]);
- ``target``: what a kernel is written for, CUDA or Triton's interpreter
  (Note [kernel targets]);
- ``emit``: a pointwise or reduction kernel as the source of one
  ``@triton.jit`` function for a target and an index width (Note [pointwise
  indexing], Note [index width]); ``reduction``: the reduction kernels (Note
  [reduction stages]); ``library``: each target's math functions and the
  helper functions generated kernels call (``_tanh``, ``_log1p``, GELU);
- ``autotune``: block sizes chosen per size class on first launch;
- ``launcher``: compiles a kernel and runs it on tensors (``compile_kernel``).

``tests/backend/test_aot_cuda.py`` compiles every kernel of the executor
corpus for sm_90 and sm_80 ahead of time, without a GPU.

``hopc-translate --emit-triton`` (``hopc.tools.translate``) prints the source.
"""
