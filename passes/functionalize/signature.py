"""The copy-back signature: entry inputs and buffers changed in place, as extra results.

After functionalize, the entry function returns the final value of each
argument the program changed in place, marked ``{hop.copy_back_to = i}``
(Note [entry signature] in ``hopc.dialects.hop_module``). Whoever runs the function
copies those results into the arguments: ``apply_copy_back`` in
``hopc.backend.runtime.module_call`` does it for a module run on PyTorch tensors.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, IntegerAttr, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue

from hopc.dialects.hop_module_structure import COPY_BACK
from hopc.ir.diagnostics import op_error


def add_copy_back_results(function: FuncOp, finals: dict[int, SSAValue],
                          changed_by: dict[int, Operation]) -> None:
    """Returns ``finals[i]`` as a result copied back to argument ``i``, in argument order.

    ``changed_by[i]`` is the op that changed argument ``i`` (for the error when
    it is a module constant, which has nowhere to be copied back to).
    """
    if not finals:
        return
    argument_attributes = function.arg_attrs.data if function.arg_attrs is not None else ()
    for index, attributes in enumerate(argument_attributes):
        if index in finals and "hop.constant" in attributes.data:
            raise op_error(changed_by[index], f"changes the module constant passed as "
                                              f"argument {index} in place")
    ordered = sorted(finals)
    terminator = function.body.block.last_op
    terminator.operands = [*terminator.operands, *(finals[i] for i in ordered)]
    outputs = list(function.function_type.outputs.data)
    result_attributes = (list(function.res_attrs.data) if function.res_attrs is not None
                         else [DictionaryAttr({}) for _ in outputs])
    for index in ordered:
        outputs.append(finals[index].type)
        result_attributes.append(DictionaryAttr({COPY_BACK: IntegerAttr(index, i64)}))
    function.function_type = FunctionType.from_lists(function.function_type.inputs.data, outputs)
    function.res_attrs = ArrayAttr(result_attributes)
