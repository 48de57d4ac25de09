"""The torch bridge: hopc's types and ATen ops as PyTorch values, fake tensors and calls.

A layer above ``hopc.dialects`` and below ``hopc.fx_import`` and ``hopc.passes``
(the order is the ``[tool.importlinter]`` contract of ``pyproject.toml``, which
``tests/test_layers.py`` checks). Its modules import torch at the top; nothing
below it does, so parsing, printing and verifying a module never load torch.

    torch_values.py       attributes of ATen ops <-> the Python values torch takes; dtypes
    torch_symbolic.py     our shape symbols inside PyTorch's symbolic shapes, and back
    op_tracer.py          one tracer of ATen ops on fake tensors sized by our symbols
    op_result_types.py    the result types of one ATen overload, from the tracer, cached
    aten_infer.py         ``infer_result_types``: the tracer for an op being built
    aten_builders.py      typed builders of ATen ops, for passes
    aten_call.py          an ATen op as a torch call: on fake tensors, and run (``call_aten``)
    tensor_constants.py   tensors as module constants (``hop.constant``, global values) and back
    runtime_types.py      run-time values checked against their IR types
"""
