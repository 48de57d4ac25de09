"""Running a module before and after ``--freeze`` on the same values, and comparing.

``run_frozen_and_not(module, arguments)`` runs the module in the reference
interpreter on one value per entry argument (its parameters' and buffers'
included), freezes a copy with those values, runs the copy on the arguments
it kept (the user inputs, and the globals it left) and returns both outcomes.
"""

from __future__ import annotations

import torch
from interpreter_outcomes import Outcome, run_outcome
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, SymbolRefAttr

from hopc.dialects.hop import ParameterOp
from hopc.dialects.hop_function_signature import USER
from hopc.dialects.hop_module_structure import entry_function, entry_signature
from hopc.dialects.verify import verify_module
from hopc.passes.freeze import freeze
from hopc.torch_bridge.tensor_constants import tensor_value


def frozen_arguments(before: ModuleOp, after: ModuleOp, arguments: list[object]) -> list[object]:
    """The values of ``after``'s entry arguments: ``before``'s user inputs in order, globals by name."""
    old = entry_signature(before)
    by_global = {role.target: arguments[i] for i, role in enumerate(old.arguments) if role.kind != USER}
    user = iter(arguments[i] for i in old.user_inputs)
    return [next(user) if role.kind == USER else by_global[role.target]
            for role in entry_signature(after).arguments]


def run_frozen_and_not(module: ModuleOp, arguments: list[object],
                       **options: object) -> tuple[tuple[Outcome, list[object]], tuple[Outcome, list[object]], ModuleOp]:
    """(outcome before, outcome after, the frozen module); the frozen one is verified."""
    frozen = module.clone()
    freeze(frozen, **options)
    verify_module(frozen)
    return run_outcome(module, arguments), run_outcome(frozen, frozen_arguments(module, frozen, arguments)), frozen


def as_parameters(module: ModuleOp, values: dict[int, torch.Tensor]) -> None:
    """Makes the entry arguments at the positions of ``values`` parameters ``@p<i>`` holding those values."""
    function = entry_function(module)
    roles = [dict(a.data) for a in function.arg_attrs.data] if function.arg_attrs else \
        [{} for _ in function.args]
    for index, value in values.items():
        name = f"p{index}"
        type_ = function.args[index].type
        module.body.block.insert_op_before(ParameterOp(name, type_, tensor_value(name, value)),
                                           module.body.block.first_op)
        roles[index]["hop.parameter"] = SymbolRefAttr(name)
    function.arg_attrs = ArrayAttr([DictionaryAttr(r) for r in roles])
