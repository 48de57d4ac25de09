"""The planned executor's planners for the ops that are not HOPs, one module per dialect.

Each module registers its planners with ``@PLANNER_RULES.register(OpClass)``
(``hopc.backend.runtime.plan``), which imports every module here, and every HOP
kind's module of ``hopc.backend.hops``, before its first lookup (Note [rule
tables] in ``hopc.ir.rule_table``): ``aten`` (every ATen op) and ``hop`` (the
shape-symbol ops and constants on the hot path of a call). An op without a
planner runs its reference implementation (Note [planned execution]).
"""
