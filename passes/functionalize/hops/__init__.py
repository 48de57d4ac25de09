"""Functionalize each HOP kind: rewrite its bodies, rebuild it with the results they now have.

One module per kind, each registering its rule with
``@FUNCTIONALIZE_RULES.register(ItsOp)`` (``hopc.passes.functionalize.functionalize``,
which imports every module here before its first lookup: Note [rule tables] in
``hopc.ir.rule_table``), so a new HOP's rule is a new file here and nothing else.
Each rule follows Note [mutation through HOP regions] in ``regions.py``: read the
operands' current values, functionalize the bodies, add the results that carry
changed operands, write those back. What several rules share is ``common``.
"""
