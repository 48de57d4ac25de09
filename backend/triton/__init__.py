"""Triton code generation for ``kernel.kernel`` ops (Note [kernel level] in ``hopc.dialects.kernel``).

- ``ops``: which ATen ops a generated kernel computes and how (``can_emit``,
  ``REDUCTIONS``), with PyTorch's dtype rules (Note [triton dtypes]);
- ``names``: the identifiers and literals that generated source may contain
  (Note [no IR text in generated source]);
- ``emit``: a pointwise or reduction kernel as the source of one
  ``@triton.jit`` function (Note [pointwise indexing]); ``reduction``: the
  reduction kernels (Note [reduction stages]); ``library``: the helper
  functions generated kernels call (``_tanh``, ``_log1p``, GELU);
- ``autotune``: block sizes chosen per size class on first launch;
- ``launcher``: compiles a kernel and runs it on tensors (``compile_kernel``).

``hopc-translate --emit-triton`` (``hopc.tools.translate``) prints the source.
"""
