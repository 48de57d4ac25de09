"""Host code's lowerings of the ops that are not HOPs, one module per dialect.

Each module registers its lowerings with ``@HOST_LOWERINGS.register(OpClass)``
(``hopc.backend.host.codegen``), which imports every module here, and every HOP
kind's module of ``hopc.backend.hops``, before its first lookup (Note [rule
tables] in ``hopc.ir.rule_table``): ``aten`` (every ATen op, one direct call),
``hop`` (shape symbols, constants, asserts, and the ops that call their reference
implementation) and ``kernel`` (buffers, launches, CUDA graph segments).
"""
