"""What the random-program generators share: drawing choices, writing IR text, making inputs.

``program_generator`` (mutation through views) and ``symbolic_program_generator``
(symbols used inside nested regions) write different programs; this module is
the part that does not depend on which: a writer that draws choices and fresh
SSA names, the text of tensor types, blocks, HOP headers and a whole module,
and random entry arguments for any module.

``choose(n)`` returns an int in ``range(n)``: hypothesis's ``draw`` of
``integers(0, n - 1)`` (so examples shrink) or ``random.randrange``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import torch
from xdsl.dialects.builtin import ModuleOp

from hopc.dialects.hop_module_structure import declared_symbols, entry_function
from hopc.ir.types import SymIntType, TensorType
from hopc.torch_bridge.torch_values import dtype_of, evaluate_dim

Choose = Callable[[int], int]


class Typed(Protocol):
    """A value as the program text names it: an SSA name (``%v1``) and a type."""

    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...


class ProgramWriter:
    """Draws choices and fresh SSA names; each generator's writer builds on it."""

    def __init__(self, choose: Choose, max_depth: int):
        self.choose, self.max_depth = choose, max_depth
        self.count = 0

    def pick(self, items: list):
        return items[self.choose(len(items))]

    def fresh(self, prefix: str = "v") -> str:
        """A new SSA name, ``%<prefix><n>``."""
        self.count += 1
        return f"%{prefix}{self.count}"


# --------------------------------------------------------------------------- text


def tensor_type(shape: Iterable[int | str], dtype: str) -> str:
    return f"!hop.tensor<[{', '.join(map(str, shape))}], {dtype}>"


def size_attribute(dim: int | str) -> str:
    """A dimension as an element of a size attribute: ``4 : i64`` or ``#hop.expr<s0>``."""
    return f"{dim} : i64" if isinstance(dim, int) else f"#hop.expr<{dim}>"


def names(values: Iterable[Typed]) -> str:
    return ", ".join(v.name for v in values)


def types(values: Iterable[Typed]) -> str:
    return ", ".join(v.type for v in values)


def _signature(arguments: Iterable[Typed]) -> str:
    return ", ".join(f"{a.name}: {a.type}" for a in arguments)


def block_header(arguments: Iterable[Typed]) -> str:
    return f"^bb0({_signature(arguments)}):"


def yield_line(values: Sequence[Typed]) -> str:
    return f"hop.yield {names(values)} : {types(values)}"


def call_header(op: str, results: Sequence[Typed], operands: Sequence[Typed]) -> str:
    """``%r = hop.wrap(%a) : (A) -> (R)`` (or ``hop.checkpoint``); the region follows."""
    return f"{names(results)} = {op}({names(operands)}) : ({types(operands)}) -> ({types(results)})"


def cond_header(results: Sequence[Typed], predicate: str, predicate_type: str,
                operands: Sequence[Typed]) -> str:
    """``%r = hop.cond %p(%a) : P, (A) -> (R) then``; the two regions follow."""
    return (f"{names(results)} = hop.cond {predicate}({names(operands)}) : {predicate_type}, "
            f"({types(operands)}) -> ({types(results)}) then")


def while_header(results: Sequence[str], carried: Sequence[Typed],
                 additional: Sequence[Typed]) -> str:
    """``%r = hop.while (%c) additional (%a) : (C) -> (C), A cond``; the regions follow.

    The results ``results`` (names) have the types of ``carried``.
    """
    return (f"{', '.join(results)} = hop.while ({names(carried)}) additional ({names(additional)}) : "
            f"({types(carried)}) -> ({types(carried)}), {types(additional)} cond")


def module_text(symbols: Iterable[str], function: str, arguments: Sequence[Typed],
                body: Iterable[str], outputs: Sequence[Typed]) -> str:
    """The ``symbols`` declarations, then ``func.func @function`` on ``arguments`` whose
    ``body`` (lines indented as they stand in it) is followed by returning ``outputs``."""
    declarations = "".join(f"{line}\n" for line in symbols)
    return (f"{declarations}func.func @{function}({_signature(arguments)}) -> ({types(outputs)}) {{\n"
            + "\n".join(body)
            + f"\n  func.return {names(outputs)} : {types(outputs)}\n}}\n")


# --------------------------------------------------------------------------- inputs


def symbol_sizes(module: ModuleOp, generator: torch.Generator, low: int = 2,
                 high: int = 6) -> dict[str, int]:
    """A random value in ``[low, high)`` for each backed symbol, within its declared range."""
    sizes = {}
    for name, symbol in declared_symbols(module).items():
        lower, upper = symbol.value_range
        floor = max(low, lower or 0)
        ceiling = high if upper is None else min(high, upper + 1)
        sizes[name] = int(torch.randint(floor, max(ceiling, floor + 1), (), generator=generator))
    return sizes


def random_arguments(module: ModuleOp, sizes: dict[str, int], generator: torch.Generator,
                     predicate: bool | None = None) -> list[object]:
    """One value per entry argument: tensors of the shapes ``sizes`` gives, small ints.

    Every 0-d boolean tensor (a predicate) is ``predicate`` where one is given.
    """
    arguments: list[object] = []
    for type_ in entry_function(module).function_type.inputs.data:
        if isinstance(type_, SymIntType):
            arguments.append(evaluate_dim(type_.value, sizes))
            continue
        assert isinstance(type_, TensorType)
        shape = [evaluate_dim(dim, sizes) for dim in type_.shape]
        dtype = dtype_of(type_.element_type)
        if dtype == torch.bool and not shape and predicate is not None:
            arguments.append(torch.tensor(predicate))
        elif dtype == torch.bool:
            arguments.append(torch.randint(0, 2, shape, generator=generator).bool())
        elif dtype.is_floating_point:
            arguments.append(torch.randn(shape, generator=generator, dtype=dtype))
        else:
            arguments.append(torch.randint(0, 4, shape, generator=generator, dtype=dtype))
    return arguments
