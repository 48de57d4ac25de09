"""What Dynamo traces in a PyTorch function's stead in hopc's programs, one module per HOP kind
that needs one (``DYNAMO_STAND_INS`` of ``hopc.fx_import.capture_rules``).

Apart from the kinds' other capture rules (``hopc.fx_import.hops``), and importing torch
alone: ``hopc.frontend.dynamo_capture`` installs every stand-in when it is imported, before
Dynamo traces anything, and so does a frame that the compile cache serves, which imports no
IR (Note [imports of a cache hit] in ``hopc.frontend.dynamo_backend``).
"""
