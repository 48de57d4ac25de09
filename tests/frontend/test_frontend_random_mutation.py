"""Random programs of views and in-place ops: ``hopc.compile`` agrees with eager, or refuses.

Each program is Python text built one statement at a time from views
(indexing, slicing, ``t``, ``reshape``, ``flatten``, ``unsqueeze``, ``narrow``,
``diagonal``), in-place ops (arithmetic, ``zero_``, ``fill_``, ``clamp_``,
``copy_``, item assignment) and functional ops (``torch.cond``, ``wrap`` and
``checkpoint`` among them, whose results a later view may change), on two inputs of which one may
be a transposed (non-contiguous) tensor; a statement eager PyTorch rejects is
dropped. Sizes are static, or symbolic (``dynamic=True``). The compiled program must return eager's values and leave the inputs
as eager does; where hopc cannot tell what eager would do, it must raise its
own located ``HopcError``, never return something else. An output that is an
input or a view of one shares that input's memory, at eager's offset.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
import torch
from torch._higher_order_ops.wrap import wrap
from torch.utils.checkpoint import checkpoint

import hopc
from hopc.ir.diagnostics import HopcError

_VIEWS = ["{x}[{i}]", "{x}[:, {i}:]", "{x}[{i}:]", "{x}.t()", "{x}.reshape(-1)", "{x}.flatten()",
          "{x}.unsqueeze(0)", "{x}.narrow(0, {i}, 1)", "{x}.diagonal()", "{x}.transpose(0, -1)"]
_IN_PLACE = ["{x}.add_({c})", "{x}.mul_({c})", "{x}.zero_()", "{x}.fill_({c})",
             "{x}.clamp_(min={c})", "{x}.copy_({y}.clone())", "{x}[{i}] = {c}",
             "{x}.sub_({y}.clone())"]
"""An operand of an in-place op is a clone: where it overlaps the destination, what eager
computes depends on the order its kernel visits elements (PyTorch leaves it undefined)."""
_FUNCTIONAL = ["{x}.sin()", "{x} * {c} + {y}", "{x}.sum(0)", "{x}.clone()",
               "torch.cond({x}.sum() > 0, lambda p, q: p * 2 + q.sum(), lambda p, q: p - q.mean(), "
               "({x}, {y}))",
               "wrap(lambda p, q: p.sin() + q.sum(), {x}, {y})",
               "checkpoint(lambda p: p.cos() * 2, {x}, use_reentrant=False)"]
_NAMES = {"torch": torch, "wrap": wrap, "checkpoint": checkpoint}


def _statement(rng: random.Random, names: list[str], fresh: str) -> str:
    x, y = rng.choice(names), rng.choice(names)
    fields = {"x": x, "y": y, "i": rng.randrange(3), "c": rng.choice([-1.5, 0.5, 2.0])}
    kind = rng.random()
    if kind < 0.4:
        return f"{fresh} = " + rng.choice(_VIEWS).format(**fields)
    if kind < 0.8:
        return rng.choice(_IN_PLACE).format(**fields)
    return f"{fresh} = " + rng.choice(_FUNCTIONAL).format(**fields)


def _program(source: str) -> Callable:
    namespace = dict(_NAMES)
    exec(source, namespace)
    return namespace["program"]


def _runs(source: str, inputs: tuple[torch.Tensor, ...]) -> bool:
    try:
        _program(source)(*(t.clone() for t in inputs))
    except (RuntimeError, IndexError, ValueError):
        return False
    return True


def random_program(seed: int, inputs: tuple[torch.Tensor, ...], length: int = 8) -> str:
    """A program of ``length`` statements on ``a`` and ``b`` that eager runs on ``inputs``.

    Odd seeds return two of the values as they are (views of the inputs among
    them), even seeds fresh copies of them.
    """
    rng = random.Random(seed)
    names, body = ["a", "b"], []
    while len(body) < length:
        fresh = f"v{len(body)}"
        candidate = body + [_statement(rng, names, fresh)]
        returned = rng.sample(names, min(2, len(names)))
        source = "def program(a, b):\n" + "".join(f"    {line}\n" for line in candidate) + \
            f"    return {', '.join(name + (' * 1' if seed % 2 else '') for name in returned)}\n"
        if _runs(source, inputs):
            body = candidate
            if candidate[-1].startswith(f"{fresh} ="):
                names.append(fresh)
    return source


def _inputs(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    a = torch.randn(4, 3, generator=generator)
    b = torch.randn(3, 4, generator=generator).t() if seed % 2 else torch.randn(4, 3, generator=generator)
    return a, b


@pytest.mark.parametrize(("seed", "dynamic"), [(seed, None) for seed in range(30)]
                         + [(seed, True) for seed in range(30, 50)])
def test_random_program_matches_eager(seed, dynamic):
    inputs = _inputs(seed)
    source = random_program(seed, inputs)
    program = _program(source)
    eager_inputs = tuple(t.clone() for t in inputs)
    hopc_inputs = tuple(t.clone() for t in inputs)
    expected = program(*eager_inputs)
    torch._dynamo.reset()
    try:
        actual = hopc.compile(program, fullgraph=True, dynamic=dynamic)(*hopc_inputs)
    except HopcError:
        return  # refused, with a located error: never a different answer
    for got, want in zip((*actual, *hopc_inputs), (*expected, *eager_inputs), strict=True):
        torch.testing.assert_close(got, want, msg=lambda message: f"{message}\n{source}")
    assert _memory(actual, hopc_inputs) == _memory(expected, eager_inputs), source


def _memory(outputs: tuple, inputs: tuple) -> list[tuple[int, int] | None]:
    """For each output: the input whose memory it shares and its offset there, or None."""
    places = []
    for output in outputs:
        shared = [i for i, t in enumerate(inputs)
                  if t.untyped_storage().data_ptr() == output.untyped_storage().data_ptr()]
        places.append((shared[0], output.storage_offset()) if shared else None)
    return places
