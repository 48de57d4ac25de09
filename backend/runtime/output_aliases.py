"""Outputs that are the program's inputs, other outputs, or views of them, stay so after compilation.

Note [aliased outputs]
~~~~~~~~~~~~~~~~~~~~~~
In eager PyTorch ``def f(x): x.add_(1); return x`` returns ``x`` itself,
``return x.t()`` returns a view sharing ``x``'s memory (writing to the output
later writes to ``x``), and ``y = x * 2; return y, y[0]`` returns two tensors
sharing one memory. A functionalized module computes every output afresh, so
the compiled call would return copies. ``OutputAliases`` restores what eager
returns, as AOTAutograd does: each such output is rebuilt at each call by
replaying, on the tensor it aliases as it is at this call (an input, whose
value the copy-back has already made final, or another output), the view ops
that made it (``hopc.frontend.output_views``: Note [output view replay]).
The replay computes every size, stride and storage offset from the live
tensor, as eager did, so nothing of the first call's layout is assumed: Dynamo
guards sizes and strides but not storage offsets, and ``x.t()`` of
``base[1:3]`` must not land where ``x.t()`` of ``base[2:4]`` did. Autograd sees
eager's view ops too (``x.t()`` has ``TBackward0``, ``y.detach()`` requires no
grad), each replayed in the grad mode the program ran it in.

An intermediate that two outputs view but the program does not return is
returned by the module as an extra output, after the program's, from which
both are replayed; ``restore`` drops it.

A view a custom ``torch.autograd.Function`` returns (its forward returns an
input or a view of one) has that Function's backward in eager, not the view
ops' (``custom_gradient``, Note [kept autograd functions] in
``hopc.frontend.autograd_functions``): its steps are replayed without grad,
and the view is handed to autograd by ``_ViewWithGradientOf``, whose
backward passes the cotangent to the output the module computed, so on to
the user's backward, as eager's view output does.

Integer arguments of a replayed view op are symbolic where the graph's are;
their symbols are bound at each call from the graph's ``SymInt`` inputs and
from the sizes, strides and storage offsets of the tensors at hand that are a
lone symbol. Not restored (the output stays a correct copy): a view whose
arguments depend on a symbol no input or output binds (an unbacked size read
inside the program).

Note [output strides]
~~~~~~~~~~~~~~~~~~~~~
The contract: every other tensor output has the strides eager gives it (as
``torch.compile`` promises), so a user's later ``.view(...)`` works where
eager's does. Functionalize makes views copies, so ``x.t() * 2`` would come
back row-major where eager, following its operand's layout, returns it
column-major. The strides Dynamo's graph records for each output are eager's;
an output whose recorded strides are not row-major is checked at each call
and, when the run produced other strides, copied into a tensor with eager's
(``torch.empty_strided``). Outputs eager returns row-major cost nothing.
Strides that depend on a symbol nothing binds are left as they come. Outputs
are given eager's strides before the views of them are replayed.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sympy
import torch

from hopc.ir.diagnostics import HopcError, user_location

Layout = int | sympy.Expr


class Chained:
    """The argument of a ``ViewStep`` that is the value the chain has reached."""

    def __repr__(self) -> str:
        return "CHAINED"


CHAINED = Chained()


@dataclass(frozen=True)
class ViewStep:
    """``op(*arguments, **keywords)`` with ``CHAINED`` the value so far and each sympy
    expression (also inside lists) evaluated (``symbolic``: there is one), run with grad mode
    ``grad_enabled``."""

    op: Callable[..., object]
    arguments: tuple[object, ...]
    keywords: tuple[tuple[str, object], ...]
    grad_enabled: bool
    symbolic: bool

    def replay(self, value: object, symbols: dict[sympy.Symbol, int]) -> object:
        arguments = [value if argument is CHAINED else
                     (_evaluate_argument(argument, symbols) if self.symbolic else argument)
                     for argument in self.arguments]
        keywords = {name: _evaluate_argument(argument, symbols) if self.symbolic else argument
                    for name, argument in self.keywords}
        if self.grad_enabled == torch.is_grad_enabled():
            return self.op(*arguments, **keywords)
        with torch.set_grad_enabled(self.grad_enabled):
            return self.op(*arguments, **keywords)


@dataclass(frozen=True)
class OutputAlias:
    """Output ``output`` is input (``of_input``) or output ``root`` after ``steps``; with
    ``custom_gradient``, it takes the gradient of the output the module computed (Note
    [aliased outputs])."""

    output: int
    root: int
    of_input: bool
    steps: tuple[ViewStep, ...]
    custom_gradient: bool = False


class _ViewWithGradientOf(torch.autograd.Function):
    """``apply(computed, view)`` is ``view`` (an alias of it, as autograd makes of a Function's
    input returned), whose gradient goes to ``computed`` (Note [aliased outputs])."""

    @staticmethod
    def forward(ctx: Any, computed: torch.Tensor, view: torch.Tensor) -> torch.Tensor:
        return view

    @staticmethod
    def backward(ctx: Any, gradient: torch.Tensor) -> tuple[torch.Tensor, None]:
        return gradient, None


@dataclass(frozen=True)
class SymbolSource:
    """Symbol ``symbol`` is input (``of_input``) or output ``index``, read by ``read``:
    ``"value"`` (a ``SymInt``), or the tensor's ``"size"``/``"stride"`` of ``dim``, or its ``"offset"``."""

    symbol: sympy.Symbol
    of_input: bool
    index: int
    read: str
    dim: int = 0

    def value(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> int:
        value = (inputs if self.of_input else outputs)[self.index]
        if self.read == "value":
            return int(value)
        if self.read == "size":
            return value.shape[self.dim]
        if self.read == "stride":
            return value.stride(self.dim)
        return value.storage_offset()


class OutputAliases:
    """Restores, per call, the outputs of a compiled graph that alias its inputs or each other.

    Invariants (``hopc.frontend.output_views`` establishes them): no alias's
    root is itself a restored output; an output with eager ``strides`` is not
    restored; the module returns ``module_output_count`` outputs: the
    program's ``output_count``, then the extra intermediates aliases start from.
    """

    def __init__(self, aliases: Sequence[OutputAlias], strides: Sequence[tuple[int, tuple[Layout, ...]]],
                 sources: Sequence[SymbolSource], output_count: int, module_output_count: int):
        self._aliases = tuple(aliases)
        self._strided = tuple(strides)
        self._sources = tuple(sources)
        self._output_count = output_count
        self._extra = module_output_count != output_count

    def __bool__(self) -> bool:
        return bool(self._aliases or self._strided or self._extra)

    def restore(self, inputs: Sequence[Any], outputs: list[Any]) -> list[Any]:
        """The program's outputs: ``outputs`` (the module's) with eager's strides, each aliasing
        output replaced by the input, output or view eager returns, the extra ones dropped.
        ``inputs``: every argument of the module's entry, in order."""
        symbols = {source.symbol: source.value(inputs, outputs) for source in self._sources}
        for index, layout in self._strided:
            result = outputs[index]
            stride = tuple(_evaluate(s, symbols) for s in layout)
            if result.stride() != stride:
                outputs[index] = _laid_out(result, stride)
        for alias in self._aliases:
            value = (inputs if alias.of_input else outputs)[alias.root]
            with torch.no_grad() if alias.custom_gradient else contextlib.nullcontext():
                for step in alias.steps:
                    value = step.replay(value, symbols)
            computed = outputs[alias.output]
            if value.shape != computed.shape:
                raise _misbuilt(alias, value, computed)
            if alias.custom_gradient and computed.requires_grad:
                value = _ViewWithGradientOf.apply(computed, value)
            outputs[alias.output] = value
        return outputs[:self._output_count] if self._extra else outputs


def _misbuilt(alias: OutputAlias, value: torch.Tensor, computed: torch.Tensor) -> HopcError:
    return HopcError(f"internal error in hopc: output {alias.output} rebuilt as a view has shape "
                     f"{tuple(value.shape)}, where the compiled program computed "
                     f"{tuple(computed.shape)}; please report it",
                     user_location(traceback.extract_stack()))


def _evaluate(layout: Layout, symbols: dict[sympy.Symbol, int]) -> int:
    return layout if isinstance(layout, int) else int(layout.xreplace(symbols))


def _evaluate_argument(argument: object, symbols: dict[sympy.Symbol, int]) -> object:
    if isinstance(argument, sympy.Expr):
        return int(argument.xreplace(symbols))
    if isinstance(argument, (list, tuple)):
        return type(argument)(_evaluate_argument(a, symbols) for a in argument)
    return argument


def _laid_out(result: torch.Tensor, stride: tuple[int, ...]) -> torch.Tensor:
    """``result``'s values with ``stride``: a copy, but for the dimensions of stride 0 (eager's
    output is an expansion there, equal along them), which are expanded from one slice."""
    expanded = [dim for dim, (size, step) in enumerate(zip(result.shape, stride)) if step == 0 and size > 1]
    source = result
    for dim in expanded:
        source = source.narrow(dim, 0, 1)
    laid_out = torch.empty_strided(source.shape, stride, dtype=result.dtype, device=result.device).copy_(source)
    return laid_out.expand(result.shape) if expanded else laid_out

