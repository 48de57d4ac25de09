# RUN: %python %s | filecheck %s
# torch.profiler.record_function -> profiler.record_function_enter / _exit around the block's ops.

import torch
from lit_helpers import run

import hopc


@run
def nested_ranges():
    def program(x):
        with torch.profiler.record_function("outer"):
            y = x.sin()
            with torch.profiler.record_function("inner", "a=1"):
                y = y + 1
        return y * 2

    print(hopc.capture(program, (torch.randn(4),)))


# CHECK-LABEL: TEST: nested_ranges
# CHECK:       %[[OUTER:.*]] = profiler.record_function_enter "outer" : !profiler.range
# CHECK-NEXT:  aten.sin(%x)
# CHECK-NEXT:  %[[INNER:.*]] = profiler.record_function_enter "inner" args "a=1" : !profiler.range
# CHECK-NEXT:  aten.add.Scalar
# CHECK-NEXT:  profiler.record_function_exit %[[INNER]]
# CHECK-NEXT:  profiler.record_function_exit %[[OUTER]]
# CHECK-NEXT:  aten.mul.Scalar
