"""hopc.compile's options: an unknown executor is a located error at the user's call."""

from __future__ import annotations

import pytest

import hopc
from hopc.ir.diagnostics import HopcError


def test_unknown_executor_is_located_at_the_call():
    with pytest.raises(HopcError, match="unknown executor 'fast'; hopc has aten, auto, cuda, interpreter, planned, triton") as caught:
        hopc.compile(lambda x: x + 1, executor="fast")
    assert caught.value.location is not None
    assert caught.value.location.file.endswith("test_compile_options.py")
