"""Fused backward ops traced with every result defined.

Note [masked gradient outputs]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A fused backward (``convolution_backward``, ``native_layer_norm_backward``,
``native_batch_norm_backward``, ``native_group_norm_backward``) takes an
``output_mask`` and returns an undefined tensor (None in the trace) for each
gradient it is asked not to compute: the bias gradient of a convolution
without bias, the weight gradient of a norm without affine parameters. An op
of the IR has a typed value for every result, so such a call cannot be
imported. While a derivative is traced, ``defined_gradient_outputs`` makes
every call with a masked output one whose results are all defined, and the
masked gradients plain Nones of the traced graph (no gradient):

- ``convolution_backward`` computes the bias gradient anyway (its size is the
  output's channel count), a sum over ``grad_output`` that nothing uses;
- every other op with an ``output_mask`` is replaced by PyTorch's own
  decomposition of it (``torch._decomp``), which computes only what the mask
  asks for.

A call that masks nothing is traced as it is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch
from torch._decomp import decomposition_table
from torch.fx.experimental import proxy_tensor
from torch.fx.experimental.proxy_tensor import decompose, get_proxy_mode

aten = torch.ops.aten


def _convolution_backward(grad_output: torch.Tensor, input: torch.Tensor, weight: torch.Tensor,
                          bias_sizes: object, *rest: object) -> object:
    *arguments, output_mask = rest
    if all(output_mask):
        return NotImplemented
    bias_sizes = [grad_output.shape[1]]  # the bias of the output channels, in both directions
    gradients = aten.convolution_backward.default(grad_output, input, weight, bias_sizes, *arguments,
                                                  [True, True, True])
    return tuple(g if asked else None for g, asked in zip(gradients, output_mask, strict=True))


def _decomposed_if_masked(overload: torch._ops.OpOverload, position: int,
                          *args: object, **kwargs: object) -> object:
    output_mask = args[position] if position < len(args) else kwargs["output_mask"]
    if all(output_mask):
        return NotImplemented
    return decomposition_table[overload](*args, **kwargs)


@functools.cache
def _table() -> dict[torch._ops.OpOverload, Callable[..., object]]:
    """Each functional op with an ``output_mask`` -> how it is traced (Note [masked gradient outputs])."""
    table: dict[torch._ops.OpOverload, Callable[..., object]] = {
        overload: functools.partial(_decomposed_if_masked, overload, position)
        for overload in decomposition_table
        if isinstance(overload, torch._ops.OpOverload) and not overload._schema.is_mutable
        for position, argument in enumerate(overload._schema.arguments) if argument.name == "output_mask"
    }
    table[aten.convolution_backward.default] = _convolution_backward
    return table


@contextmanager
def defined_gradient_outputs() -> Iterator[None]:
    """Within a ``make_fx`` trace: calls with masked outputs leave none undefined."""
    mode = get_proxy_mode()
    assert mode is not None, "defined_gradient_outputs runs inside a trace"
    # torch 2.11 keeps the trace's decompositions in a global, not on its mode
    current = getattr(mode, "decomposition_table", None)
    if current is None:
        current = proxy_tensor.CURRENT_DECOMPOSITION_TABLE
    with decompose({**current, **_table()}):
        yield
