"""The ``cuda`` executor's generated code on the CPU, over the fake graph API of
``fake_cuda_graphs``: ``kernel.graph`` segments and their conditional nodes (Note [graph
recordings] in ``hopc.backend.cuda.graphs``) recorded and replayed over several calls, against
the reference interpreter; the search for a compiled program's recordings; the located refusal
of CPU tensors; the rng state with CUDA generators.
"""

from __future__ import annotations

import pytest
import torch
from fake_cuda_graphs import install_fake_pools
from interpreter_outcomes import assert_same_outcome, run_outcome
from lit_chunks import chunks_for_pass
from program_generator_core import random_arguments, symbol_sizes
from xdsl.dialects.func import FuncOp

from hopc.backend.cuda import recorded_graphs
from hopc.backend.runtime.executors import executor_named
from hopc.dialects.parse import parse_module
from hopc.ir.diagnostics import HopcError
from hopc.passes.form_cuda_graphs import form_function_graphs

CPU = torch.device("cpu")


@pytest.fixture
def fake_pools(monkeypatch):
    return install_fake_pools(monkeypatch)


def _generated_on_cpu(chunk: str):
    """The chunk moved to the CPU, segmented, and generated as the ``cuda`` executor generates
    it (``kernel.graph`` lowered by ``hopc.backend.cuda.lowering``)."""
    from hopc.backend.host.generated_function import generate_function
    from hopc.backend.host.lowerings.kernel import lower_launch_inline

    module = parse_module(chunk.replace("cuda", "cpu"))
    function = next(op for op in module.ops if isinstance(op, FuncOp))
    form_function_graphs(function)
    return generate_function(function, lower_launch_inline, "cpu").compile()


@pytest.mark.parametrize(("name", "chunk"), chunks_for_pass("form-cuda-graphs"))
def test_generated_segments_agree_with_the_interpreter_over_calls(fake_pools, name: str, chunk: str):
    """Four calls: warm-up, warm-up of the other branch, record, replay. Random values are
    compared by shape: a replay draws anew, as a CUDA graph advances its Philox offset."""
    module = parse_module(chunk.replace("cuda", "cpu"))
    run = _generated_on_cpu(chunk)
    generator = torch.Generator().manual_seed(0)
    for call in range(4):
        inputs = random_arguments(module, symbol_sizes(module, generator), generator, predicate=call % 2 == 0)
        expected, _ = run_outcome(module, inputs)
        torch.manual_seed(0)
        try:
            got = list(run(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]))
        except HopcError as error:
            got = error
        if isinstance(expected, HopcError) or isinstance(got, HopcError):
            assert isinstance(expected, HopcError) and isinstance(got, HopcError), f"{expected}\n{got}"
        elif "rand_like" in chunk:
            assert [t.shape for t in got] == [t.shape for t in expected]
        else:
            assert_same_outcome(expected, got)
    assert recorded_graphs(run) or "@nonzero" in chunk  # a data-dependent size forms no segment


CORPUS_WITH_NODES = ("mlp", "cond_with_closures", "nested_cond", "while_with_additional", "nested_hops",
                     "constants_in_bodies", "unbacked_sizes", "mutate_inputs")
"""Programs of the frontend corpus whose CUDA lowering forms segments, conditional nodes among them."""


@pytest.mark.parametrize("name", CORPUS_WITH_NODES)
def test_segmented_corpus_programs_agree_with_the_interpreter(fake_pools, name: str):
    """A captured program lowered as for CUDA (conds as selects always) but on the CPU, its
    entry segmented and generated; every input set twice (warm-ups, records, replays)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "frontend"))
    from frontend_corpus import CASES
    from frontend_harness import cloned, fresh

    import hopc
    from hopc.backend.host.generated_function import generate_function
    from hopc.backend.host.lowerings.kernel import lower_launch_inline
    from hopc.backend.interpreter import run_module
    from hopc.backend.lowering import lower_to_kernel
    from hopc.backend.runtime.entry_values import entry_values
    from hopc.backend.runtime.executors import LoweringOptions
    from hopc.dialects.hop_module_structure import entry_function
    from hopc.passes.pipeline import run_pipeline

    case = next(c for c in CASES if c.name == name)
    program = fresh(case.make())
    module = run_pipeline(hopc.capture(program, cloned(case.inputs[0]), dynamic_shapes=case.dynamic_shapes))
    kernel_module = lower_to_kernel(module, "cpu", LoweringOptions("always"))
    function = entry_function(kernel_module)
    form_function_graphs(function)
    run = generate_function(function, lower_launch_inline, "cpu").compile()
    for inputs in [*case.inputs, *case.inputs]:
        values = entry_values(module, program, cloned(inputs))
        expected = run_module(module, [v.clone() if isinstance(v, torch.Tensor) else v for v in values])
        with torch.no_grad():
            got = run(*values)
        for want, value in zip(expected, got, strict=True):
            torch.testing.assert_close(value, want)
    recorded = recorded_graphs(run)
    assert recorded and all(recording.graph.replays for recording in recorded)


def test_recorded_graphs_finds_the_segments_of_a_generated_function(fake_pools):
    chunk = next(c for _, c in (p.values for p in chunks_for_pass("form-cuda-graphs")) if "@cond_as_if_node" in c)
    run = _generated_on_cpu(chunk)
    x = torch.randn(8, 16)
    for predicate in (1.0, -1.0, 1.0, -1.0):
        run(torch.tensor(predicate), x)
    recorded = recorded_graphs(run)
    assert [(r.sizes, r.conditional_nodes) for r in recorded] == [((), 2)]
    assert recorded[0].pool is fake_pools.pool(CPU).handle


def test_the_search_reaches_a_compiled_programs_generated_call():
    import hopc
    from hopc.backend.runtime.generated_call import GeneratedCall

    compiled = hopc.compile(lambda x: x.sin() * 2, executor="aten")
    compiled(torch.randn(4))
    assert recorded_graphs(compiled) == []
    assert any(isinstance(item, GeneratedCall) for item in _reachable_items(compiled))


def _reachable_items(compiled) -> list[object]:
    import gc

    from hopc.backend.cuda.recordings import _dynamo_compiled_functions, _opaque

    seen, found, pending = set(), [], [compiled, *_dynamo_compiled_functions(compiled)]
    while pending:
        item = pending.pop()
        if id(item) in seen or _opaque(item):
            continue
        seen.add(id(item))
        found.append(item)
        pending.extend(gc.get_referents(item))
    return found


# --------------------------------------------------------------------------- the executor


def test_the_cuda_executor_refuses_cpu_tensors_with_a_located_error():
    chunk = next(c for _, c in (p.values for p in chunks_for_pass("form-cuda-graphs")) if "@one_segment" in c)
    module = parse_module(chunk)
    function = next(op for op in module.ops if isinstance(op, FuncOp))
    run = executor_named("cuda").prepare(module, function)
    with pytest.raises(HopcError, match="CUDA tensors only") as raised:
        run([torch.randn(3, 4), torch.randn(4)])
    assert raised.value.location is not None


def test_hopc_compile_with_the_cuda_executor_refuses_cpu_tensors():
    import hopc

    compiled = hopc.compile(lambda x: x.sin() * 2, executor="cuda")
    with pytest.raises(HopcError, match="CUDA tensors only"):
        compiled(torch.randn(4))


# --------------------------------------------------------------------------- random-number state on CUDA


def test_an_rng_state_joins_the_cuda_generators_after_the_cpus():
    from hopc.backend.interpreters.rng import joined_state, split_state

    cpu = torch.get_rng_state()
    devices = [torch.arange(16, dtype=torch.uint8), torch.arange(16, 32, dtype=torch.uint8)]
    state = joined_state(cpu, devices)
    assert state.numel() == cpu.numel() + 32
    restored_cpu, restored_devices = split_state(state, cpu.numel(), len(devices))
    assert torch.equal(restored_cpu, cpu)
    assert [d.tolist() for d in restored_devices] == [d.tolist() for d in devices]


def test_an_rng_state_read_without_cuda_restores_the_cpu_generator_only():
    from hopc.backend.interpreters.rng import joined_state, split_state

    cpu = torch.get_rng_state()
    assert joined_state(cpu, []) is cpu
    assert split_state(cpu, cpu.numel(), 2)[1] == []
    state = joined_state(cpu, [torch.zeros(16, dtype=torch.uint8)])
    assert split_state(state, cpu.numel(), 0)[1] == []
