"""Property: on random programs, functionalize keeps behaviour and leaves no mutation or view.

Programs come from ``program_generator``: inputs with static and symbolic
dimensions, in-place ops through chains of views, nested cond/while/wrap/
checkpoint regions that change their operands. After the pass the module verifies, ``--verify-functional`` holds, and
the reference interpreter gives the same outputs and the same final inputs
(through the copy-back results) as for the original, for two sizes of every
shape symbol.
"""

from __future__ import annotations

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from program_generator import SYMBOL_RANGE, SYMBOLS, generate_program
from program_generator_core import random_arguments
from test_functionalize import functionalized

from hopc.backend.interpreter import run_module
from hopc.backend.runtime.module_call import apply_copy_back
from hopc.dialects.parse import parse_module


def _clone(values: list) -> list:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


@settings(max_examples=200, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_functionalize_keeps_behaviour(data: st.DataObject) -> None:
    text = generate_program(lambda n: data.draw(st.integers(0, n - 1)))
    before = parse_module(text)
    after = functionalized(text)
    for seed in range(2):
        sizes = {s: data.draw(st.integers(*SYMBOL_RANGE)) for s in SYMBOLS}
        arguments = random_arguments(before, sizes, torch.Generator().manual_seed(seed),
                                     predicate=bool(seed))
        original, functional = _clone(arguments), _clone(arguments)
        expected = run_module(before, original)
        outputs = apply_copy_back(after, functional, run_module(after, functional))
        for got, want in zip(outputs, expected, strict=True):
            torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
        for got, want in zip(functional, original):
            if isinstance(want, torch.Tensor):
                torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
