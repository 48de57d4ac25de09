"""The ``// -----`` chunks of the passes' lit tests, as pytest parameters."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

LIT_PASSES = Path(__file__).resolve().parent.parent / "lit_tests" / "passes"


def pass_chunks(passes: Iterable[str]) -> list:
    """``pytest.param(name, chunk, id="<name>-<index>")`` for every chunk of every
    ``lit_tests/passes/<name>.mlir`` of ``passes``."""
    params = []
    for name in passes:
        for index, chunk in enumerate((LIT_PASSES / f"{name}.mlir").read_text().split("// -----")):
            params.append(pytest.param(name, chunk, id=f"{name}-{index}"))
    return params
