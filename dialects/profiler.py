"""The ``profiler`` dialect: ``torch.profiler.record_function`` ranges kept in the program.

A program's ``with torch.profiler.record_function("name"):`` block is traced
(Dynamo's ``capture_profiler_record_function``) as PyTorch's two profiler
operators around the ops it runs, and imported as their two ops, here around
a block that computes ``x.sin()``::

    %range = profiler.record_function_enter "name" : !profiler.range
    %y = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    profiler.record_function_exit %range

Running the enter op opens a range named ``name`` in the active
``torch.profiler`` (and costs next to nothing without one); the exit op
closes the range its operand opened. Neither reads or writes a tensor; both
have an effect outside the program, so no pass removes, merges or reorders
them. Restrictions: each range is closed once, after it is opened, in the
block that opened it (``with`` nesting guarantees it).
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)


@irdl_attr_definition
class RangeType(ParametrizedAttribute, TypeAttribute):
    """An open profiler range, as ``record_function_enter`` returns it: ``!profiler.range``."""

    name = "profiler.range"


@irdl_op_definition
class RecordFunctionEnterOp(IRDLOperation):
    """Opens a profiler range: ``torch.ops.profiler._record_function_enter_new(name, args)``.

        range = torch.autograd.profiler.record_function(name, args).__enter__()

    Example::

        %range = profiler.record_function_enter "attention" : !profiler.range
    """

    name = "profiler.record_function_enter"
    range_name = prop_def(StringAttr, prop_name="name")
    args = opt_prop_def(StringAttr)
    range = result_def(RangeType)
    assembly_format = "$name (`args` $args^)? attr-dict `:` type($range)"

    def __init__(self, range_name: str, args: str | None = None):
        properties = {"name": StringAttr(range_name)}
        if args is not None:
            properties["args"] = StringAttr(args)
        super().__init__(properties=properties, result_types=[RangeType()])


@irdl_op_definition
class RecordFunctionExitOp(IRDLOperation):
    """Closes the range ``range``: ``torch.ops.profiler._record_function_exit(range)``.

        range.__exit__(None, None, None)

    Example::

        %range = profiler.record_function_enter "attention" : !profiler.range
        profiler.record_function_exit %range
    """

    name = "profiler.record_function_exit"
    range = operand_def(RangeType)
    assembly_format = "$range attr-dict"

    def __init__(self, range: SSAValue):
        super().__init__(operands=[range])


Profiler = Dialect("profiler", [RecordFunctionEnterOp, RecordFunctionExitOp], [RangeType])
