"""The reference interpreter's rules for every op that is not a HOP, one module per dialect.

Each module registers its implementations with ``@INTERPRETER_RULES.register(OpClass)``
(``hopc.backend.interpreter``), which imports every module here, and every HOP kind's
module of ``hopc.backend.hops``, before its first lookup (Note [rule tables] in
``hopc.ir.rule_table``), as xDSL's ``xdsl/interpreters/<dialect>.py``: ``aten`` (every
ATen op), ``hop`` (shape symbols, constants, asserts), ``rng`` (the random-number
state), ``profiler`` and ``kernel``.
"""
