"""Differential tests of the passes on the captured corpus.

Each corpus program is captured once; functionalize, lift-symbols, both, and
the whole pipeline then run on copies of the module, and the interpreter runs
each result on every input set (other sizes included) through ``ModuleCall``,
which applies ``hop.copy_back_to`` results to the caller's tensors. Outputs,
mutated inputs and buffers must equal eager PyTorch's.
"""

import pytest
import torch
import torch.utils._pytree as pytree
from frontend_corpus import CASES
from frontend_harness import assert_same_run, cloned, eager_run, fresh, state

import hopc
from hopc.backend.runtime.entry_values import entry_values
from hopc.backend.runtime.module_call import ModuleCall
from hopc.passes.pipeline import STAGES, run_pipeline

PASS_SEQUENCES = {
    "functionalize": ("functionalize",),
    "lift-symbols": ("lift-symbols",),
    "both": ("functionalize", "lift-symbols", "verify-functional", "verify-symbol-closed"),
    "pipeline": STAGES,
}


@pytest.fixture(scope="module", params=CASES, ids=lambda case: case.name)
def captured(request):
    case = request.param
    return case, hopc.capture(fresh(case.make()), cloned(case.inputs[0]), dynamic_shapes=case.dynamic_shapes)


@pytest.mark.parametrize("sequence", PASS_SEQUENCES, ids=str)
def test_passes_keep_eager_results(captured, sequence):
    case, module = captured
    transformed = run_pipeline(module.clone(), PASS_SEQUENCES[sequence])
    program = case.make()
    for args in case.inputs:
        expected_outputs, expected_inputs, expected_state = eager_run(program, args)
        run_program, run_args = fresh(program), cloned(args)
        with torch.no_grad():
            outputs = ModuleCall(transformed)(*entry_values(transformed, run_program, run_args))
        assert_same_run((pytree.tree_leaves(expected_outputs), expected_inputs, expected_state),
                        (outputs, run_args, state(run_program)))
