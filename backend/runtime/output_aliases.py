"""Outputs that are the program's inputs, or views of them, stay so after compilation.

Note [aliased outputs]
~~~~~~~~~~~~~~~~~~~~~~
In eager PyTorch ``def f(x): x.add_(1); return x`` returns ``x`` itself, and
``return x.t()`` returns a view sharing ``x``'s memory: writing to the output
later writes to ``x``. A functionalized module computes every output afresh,
so the compiled call would return copies. ``OutputAliases`` restores what
eager returns, as AOTAutograd does: from Dynamo's graph, whose fake values
share storage exactly where the program's tensors do, it finds each output
that is a graph input (returned as that very input) or a view of one
(rebuilt with ``torch.as_strided`` on the input, whose value the copy-back has
already made final, with the view's strides and storage offset). Strides and
offsets may be symbolic: their symbols are bound at each call from the
graph's ``SymInt`` inputs and from the input sizes that are a lone symbol.

Not restored (the output stays a correct copy): a view whose dtype differs
from its input's (``x.view(torch.int32)``), one whose layout depends on a
symbol no input binds (an unbacked size), and outputs that alias each other
but no input (two views of one intermediate).

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
Strides that depend on a symbol no input binds are left as they come.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy
import torch
import torch.fx
from torch.multiprocessing.reductions import StorageWeakRef

Layout = int | sympy.Expr


@dataclass(frozen=True)
class _InputAlias:
    """Output ``output`` is input ``input`` (``stride`` None) or its view with this layout."""

    output: int
    input: int
    stride: tuple[Layout, ...] | None
    offset: Layout


@dataclass(frozen=True)
class _SymbolSource:
    """Symbol ``symbol`` is input ``input`` (``dim`` None, a ``SymInt``) or its size ``dim``."""

    symbol: sympy.Symbol
    input: int
    dim: int | None


class OutputAliases:
    """Restores, per call, the outputs of a Dynamo graph that alias its inputs."""

    def __init__(self, graph_module: torch.fx.GraphModule):
        inputs = [node.meta.get("example_value")
                  for node in graph_module.graph.find_nodes(op="placeholder")]
        self._sources = _symbol_sources(inputs)
        bound = {source.symbol for source in self._sources}
        output_node = graph_module.graph.find_nodes(op="output")[0]
        values = [node.meta.get("example_value") if isinstance(node, torch.fx.Node) else node
                  for node in output_node.args[0]]
        self._aliases = [alias for index, value in enumerate(values)
                         if (alias := _input_alias(index, value, inputs, bound)) is not None]
        aliased = {alias.output for alias in self._aliases}
        self._strided = [(index, stride) for index, value in enumerate(values)
                         if index not in aliased and (stride := _eager_strides(value, bound)) is not None]

    def __bool__(self) -> bool:
        return bool(self._aliases or self._strided)

    def restore(self, inputs: Sequence[object], outputs: list[object]) -> list[object]:
        """``outputs`` with each aliasing output replaced by the input or view eager returns."""
        symbols = {source.symbol: _symbol_value(source, inputs) for source in self._sources}
        for alias in self._aliases:
            base = inputs[alias.input]
            if alias.stride is None:
                outputs[alias.output] = base
                continue
            result = outputs[alias.output]
            stride = [_evaluate(s, symbols) for s in alias.stride]
            outputs[alias.output] = base.as_strided(result.shape, stride,
                                                    _evaluate(alias.offset, symbols))
        for index, layout in self._strided:
            result = outputs[index]
            stride = tuple(_evaluate(s, symbols) for s in layout)
            if result.stride() != stride:
                outputs[index] = torch.empty_strided(result.shape, stride, dtype=result.dtype,
                                                     device=result.device).copy_(result)
        return outputs


def _eager_strides(value: object, bound: set[sympy.Symbol]) -> tuple[Layout, ...] | None:
    """The strides eager gives the output ``value``, where they are not row-major (Note [output strides])."""
    if not isinstance(value, torch.Tensor) or value.layout != torch.strided:
        return None
    sizes = [_layout(s) for s in value.shape]
    strides = tuple(_layout(s) for s in value.stride())
    free = set().union(*(s.free_symbols for s in strides if isinstance(s, sympy.Expr)))
    if not free <= bound:
        return None
    row_major: Layout = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size != 1 and sympy.expand(stride - row_major) != 0:
            return strides
        row_major = row_major * size
    return None


def _input_alias(index: int, value: object, inputs: list[object],
                 bound: set[sympy.Symbol]) -> _InputAlias | None:
    if not isinstance(value, torch.Tensor):
        return None
    storage = StorageWeakRef(value.untyped_storage())
    for position, candidate in enumerate(inputs):
        if not isinstance(candidate, torch.Tensor) or \
                StorageWeakRef(candidate.untyped_storage()) != storage:
            continue
        if value is candidate:
            return _InputAlias(index, position, None, 0)
        stride = tuple(_layout(s) for s in value.stride())
        offset = _layout(value.storage_offset())
        free = set().union(*(s.free_symbols for s in (*stride, offset) if isinstance(s, sympy.Expr)))
        if value.dtype != candidate.dtype or not free <= bound:
            return None
        return _InputAlias(index, position, stride, offset)
    return None


def _symbol_sources(inputs: list[object]) -> list[_SymbolSource]:
    sources: dict[sympy.Symbol, _SymbolSource] = {}
    for position, value in enumerate(inputs):
        if isinstance(value, torch.SymInt) and isinstance(value.node.expr, sympy.Symbol):
            sources.setdefault(value.node.expr, _SymbolSource(value.node.expr, position, None))
        elif isinstance(value, torch.Tensor):
            for dim, size in enumerate(value.shape):
                expr = _layout(size)
                if isinstance(expr, sympy.Symbol):
                    sources.setdefault(expr, _SymbolSource(expr, position, dim))
    return list(sources.values())


def _layout(value: int | torch.SymInt) -> Layout:
    return value.node.expr if isinstance(value, torch.SymInt) else int(value)


def _symbol_value(source: _SymbolSource, inputs: Sequence[object]) -> int:
    value = inputs[source.input]
    return int(value) if source.dim is None else value.shape[source.dim]


def _evaluate(layout: Layout, symbols: dict[sympy.Symbol, int]) -> int:
    return layout if isinstance(layout, int) else int(layout.xreplace(symbols))
