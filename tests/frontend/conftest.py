"""Fixtures shared by the frontend tests."""

from __future__ import annotations

import pytest
import torch

from hopc.frontend import compile as compile_module


@pytest.fixture
def backend_calls(monkeypatch):
    """The graphs hopc compiles, counted through the backend ``hopc.compile`` uses.

    Dynamo starts afresh: what earlier tests compiled (sizes it has seen, which
    make a frame dynamic at once) must not change the count.
    """
    torch._dynamo.reset()
    calls = []
    original = compile_module.hopc_backend

    def counting(graph_module, example_inputs, **options):
        calls.append(graph_module)
        return original(graph_module, example_inputs, **options)

    monkeypatch.setattr(compile_module, "hopc_backend", counting)
    return calls
