"""Backward rules of the HOPs, one module per kind, and the helpers they share.

A rule registers itself with ``@BACKWARD_RULES.register(ItsOp)``
(``hopc.passes.autograd.rules``), which imports every module here before its
first lookup: a new HOP's rule is a new file here and nothing else.
"""
