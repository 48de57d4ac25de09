"""How the backend runs each HOP, one module per kind: its reference implementation, its
planner where it has one, and its lowering to host code.

A module registers its rules with ``@INTERPRETER_RULES.register(ItsOp)``
(``hopc.backend.interpreter``), ``@PLANNER_RULES.register(ItsOp)``
(``hopc.backend.runtime.plan``) and ``@HOST_LOWERINGS.register(ItsOp)``
(``hopc.backend.host.codegen``); each table imports every module here before its
first lookup (Note [rule tables] in ``hopc.ir.rule_table``), so a new HOP's
backend is a new file here and nothing else. A HOP without a planner runs its
reference implementation in the planned executor; one without a lowering is
rewritten into others before host code (``hop.flex_attention``). ``bodies`` holds
what several kinds share to run their bodies; it registers nothing.
"""
