"""The capture rules of PyTorch's HOPs, one module per kind, and the helpers they share.

A kind's module registers its rules with the tables of
``hopc.fx_import.capture_rules`` (its import, where hoisted constants go, its
eager entry points), which import every module here before their first lookup:
a new HOP is captured by a new file here and nothing else, but for a Dynamo
stand-in where it needs one (``hopc.fx_import.stand_ins``).

Each import rule reads the HOP call as the trace records it (the first line of
its module's docstring) and builds the region op of ``hopc.dialects.hop``
whose docstring states the same semantics. Each subgraph is imported by a
nested ``GraphImporter`` (``GraphImporter.region``) into a block whose
arguments have the types the op's verifier expects.
"""
