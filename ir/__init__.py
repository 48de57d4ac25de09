"""IR core: types and symbolic shapes, diagnostics, resources, substitution.

The bottom layer of hopc's packages (the ``[tool.importlinter]`` contract of
``pyproject.toml``): it imports no dialect and no torch, only xDSL, sympy
(on first use) and itself. What knows the ``hop`` module structure is in
``hopc.dialects``; what turns our types into PyTorch values is in ``hopc.torch_bridge``.
"""
