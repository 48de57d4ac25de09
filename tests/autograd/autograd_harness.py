"""Checks the gradients of ``--autograd`` against eager PyTorch and the interpreter oracle.

``differentiated(program, args)`` captures a program (``hopc.capture``), runs
the pipeline, marks every floating-point user input and parameter
``{hop.requires_grad}`` and runs ``differentiate``. ``check_gradients`` runs
the forward and backward entries on the reference interpreter and compares
the gradients with two independent references:

- eager: ``torch.autograd.grad`` of the program itself;
- the oracle: the reference interpreter run on the functional forward module
  with requires-grad inputs, differentiated by ``torch.autograd.grad``
  (Note "Gradient oracle" in NOTES-training-and-kernels.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, UnitAttr

import hopc
from hopc.backend.interpreter import run_module
from hopc.backend.runtime.entry_values import constant_tensor
from hopc.dialects import hop
from hopc.dialects.hop_module import ConstantOp
from hopc.dialects.hop_module_structure import differentiable_results, entry_function, entry_signature
from hopc.dialects.verify import verify_module
from hopc.passes.autograd import differentiate
from hopc.passes.autograd.hops.cond_recompute import COND_BACKWARD
from hopc.passes.pipeline import run_pipeline


def mark_requires_grad(module: ModuleOp, indices: Sequence[int]) -> None:
    """Marks arguments ``indices`` of the forward entry ``{hop.requires_grad}``."""
    function = entry_function(module)
    attributes = [dict(d.data) for d in function.arg_attrs.data] if function.arg_attrs else \
        [{} for _ in function.args]
    for index in indices:
        attributes[index]["hop.requires_grad"] = UnitAttr()
    function.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in attributes])


def entry_values(program, args: Sequence[torch.Tensor], module: ModuleOp) -> list[torch.Tensor]:
    """The forward entry's arguments: the user's inputs, parameters and buffers by name, constants."""
    signature = entry_signature(module)
    named = dict(program.named_parameters()) | dict(program.named_buffers()) \
        if isinstance(program, torch.nn.Module) else {}
    constants = {op.symbol: constant_tensor(op) for op in module.ops if isinstance(op, ConstantOp)}
    values, inputs = [], iter(args)
    for role in signature.arguments:
        if role.kind == "user":
            values.append(next(inputs))
        else:
            values.append(constants[role.target] if role.kind == "hop.constant" else named[role.target])
    return values


def differentiated(program, args: Sequence[torch.Tensor], *, dynamic_shapes=None, joint: bool = False,
                   cond_backward: str | None = None) -> tuple[ModuleOp, ModuleOp, list[torch.Tensor]]:
    """(functional module, differentiated module, entry values) of ``program`` on ``args``.

    ``cond_backward`` ("save" or "recompute") asks every cond for that backward
    mode (Note [cond backward modes]); None lets the pass choose.
    """
    module = run_pipeline(hopc.capture(program, tuple(args), dynamic_shapes=dynamic_shapes))
    values = entry_values(program, args, module)
    roles = entry_signature(module).arguments
    mark_requires_grad(module, [i for i, (v, role) in enumerate(zip(values, roles))
                                if role.kind in ("user", "hop.parameter") and isinstance(v, torch.Tensor)
                                and v.is_floating_point()])
    functional = module.clone()
    if cond_backward is not None:
        for op in module.walk():
            if isinstance(op, hop.CondOp):
                op.attributes[COND_BACKWARD] = StringAttr(cond_backward)
    differentiate(module, joint=joint)
    verify_module(module)
    return functional, module, values


def _cotangents(outputs: Sequence[object], generator: torch.Generator) -> list[torch.Tensor | None]:
    return [torch.randn(o.shape, dtype=o.dtype, generator=generator)
            if isinstance(o, torch.Tensor) and o.is_floating_point() else None for o in outputs]


def check_gradients(program, args: Sequence[torch.Tensor], *, dynamic_shapes=None,
                    run_args: Sequence[torch.Tensor] | None = None,
                    rtol: float = 1e-4, atol: float = 1e-5, eager: bool = True,
                    cond_backward: str | None = None) -> ModuleOp:
    """Differentiates ``program`` (captured on ``args``) and checks its gradients on ``run_args``.

    ``eager=False`` compares with the oracle only, for a program whose eager
    backward PyTorch itself cannot run (say which failure at the call).
    Returns the differentiated module.
    """
    functional, module, _ = differentiated(program, args, dynamic_shapes=dynamic_shapes,
                                           cond_backward=cond_backward)
    run_args = list(run_args if run_args is not None else args)
    values = [v.detach().clone() for v in entry_values(program, run_args, functional)]
    forward = entry_signature(module, "forward")
    backward = entry_signature(module, "backward")
    results = run_module(module, [v.clone() for v in values], function="forward")
    with_cotangent = differentiable_results(forward)  # user outputs, copy-backs of differentiated inputs
    cotangents = _cotangents([results[i] for i in with_cotangent], torch.Generator().manual_seed(0))
    saved = {k: results[i] for k, i in forward.saved_results.items()}
    backward_args = []
    for role in backward.arguments:
        backward_args.append(saved[role.target] if role.kind == "hop.saved" else cotangents[
            with_cotangent.index(role.target)])
    gradients = run_module(module, backward_args, function="backward")
    ours = {backward.gradient_results[i]: g for i, g in enumerate(gradients)}

    differentiable = sorted(forward.requires_grad)
    leaves = [v.detach().clone().requires_grad_(i in differentiable) for i, v in enumerate(values)]
    oracle_outputs = run_module(functional, [leaf.clone() if leaf.requires_grad else leaf for leaf in leaves])
    references = [("oracle", oracle_outputs)]
    if eager:
        references.append(("eager", _eager(program, leaves, functional)))
    for name, expected_outputs in references:
        if expected_outputs is None:
            continue
        used = [(o, c) for o, c in zip([expected_outputs[i] for i in with_cotangent], cotangents)
                if c is not None and o.requires_grad]
        expected = torch.autograd.grad([o for o, _ in used], [leaves[i] for i in differentiable],
                                       [c for _, c in used], allow_unused=True, retain_graph=True)
        for index, want in zip(differentiable, expected):
            got = ours.get(index)
            if want is None:
                assert got is None or torch.count_nonzero(got) == 0, f"{name}: gradient {index}"
                continue
            if got is None:  # structurally zero: the caller takes it as zeros
                assert torch.count_nonzero(want) == 0, f"{name}: no gradient for argument {index}"
                continue
            torch.testing.assert_close(got, want, rtol=rtol, atol=atol,
                                       msg=lambda m, i=index, n=name: f"{n}, argument {i}: {m}")
    return module


def _eager(program, leaves, functional) -> list[torch.Tensor] | None:
    """The program run eagerly with ``leaves`` in place of its inputs and parameters.

    Inputs are passed as clones (what the program changes in place is then not
    a leaf, as in the functional module); None where eager autograd cannot run
    the program (an ``out=`` op on tensors that require grad).
    """
    signature = entry_signature(functional)
    inputs = [leaves[i].clone() for i in signature.user_inputs]
    try:
        if isinstance(program, torch.nn.Module):
            by_name = {role.target: leaves[i] for i, role in enumerate(signature.arguments)
                       if role.kind in ("hop.parameter", "hop.buffer")}
            outputs = torch.func.functional_call(program, by_name, tuple(inputs))
        else:
            outputs = program(*inputs)
    except RuntimeError as error:
        if "don't support automatic differentiation" in str(error):
            return None
        raise
    flat = list(outputs) if isinstance(outputs, tuple | list) else [outputs]
    results = [None] * len(signature.results)
    for position, index in enumerate(signature.user_outputs):
        results[index] = flat[position]
    for index, argument in signature.copy_back.items():  # an input's new value, changed in place
        if argument in signature.user_inputs:
            results[index] = inputs[signature.user_inputs.index(argument)]
    return results
