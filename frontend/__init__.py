"""Capture of PyTorch programs into hop-level IR, and ``hopc.compile``.

    capture.py          hopc.capture: Dynamo -> ATen -> IR, verified
    direct_capture.py   static programs without HOPs: straight to ATen (Note [direct capture])
    dynamo_capture.py   Dynamo's graph of a program, its inputs and module tensors
    kept_regions.py     wrap and checkpoint kept through ATen tracing (Note [kept regions])
    aten_lowering.py    pre-dispatch ATen tracing (Note [pre-dispatch capture])
    constant_hoisting.py  constants made in HOP bodies become operands (Note [hoisted constants])
    module_import.py    the module: symbols, globals, subgraphs, entry function
    errors.py           located errors about the user's program
    compile.py          hopc.compile
    compile_session.py  hopc's compiles hidden from other threads' Dynamo entry (Note [compile session across threads])
    dynamo_backend.py   torch.compile(backend="hopc")

The FX importer that capture uses is ``hopc.fx_import``'s.
Running a module is the runtime's (``hopc.backend.runtime``): the frontend captures, the runtime runs.
"""
