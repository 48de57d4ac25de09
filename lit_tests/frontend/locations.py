# RUN: %python %s | filecheck %s
# Every op is located at the user's line (and column) that produced it; a HOP body's ops at
# the lines of the body, the HOP at the line of its call, and a call into torch.nn at the
# user's line that called the module.
# Dynamo 2.11 records no columns (its frame summaries have no positions), so there an op's column
# is where its statement starts; each column CHECK below also takes that one.

import torch
from lit_helpers import run
from xdsl.printer import Printer

import hopc


def print_located(module):
    Printer(print_debuginfo=True).print_op(module)
    print()


# CHECK-LABEL: TEST: lines_and_columns
@run
def lines_and_columns():
    def program(x):
        y = x.sin()
        # CHECK: aten.sin{{.*}} loc("{{.*}}locations.py":[[# @LINE - 1]]:{{(13|9)}})
        z = torch.cond(y.sum() > 0, lambda a: a * 2, lambda a: a + 1, (y,))
        # CHECK: aten.sum{{.*}} loc("{{.*}}locations.py":[[# @LINE - 1]]:{{(24|9)}})
        # CHECK: aten.mul.Scalar{{.*}} loc("{{.*}}locations.py":[[# @LINE - 2]]:{{(47|9)}})
        # CHECK: aten.add.Scalar{{.*}} loc("{{.*}}locations.py":[[# @LINE - 3]]:{{(64|9)}})
        # CHECK: } loc("{{.*}}locations.py":[[# @LINE - 4]]:{{(13|9)}})
        return z

    print_located(hopc.capture(program, (torch.randn(3),)))


# CHECK-LABEL: TEST: module_calls
@run
def module_calls():
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(3, 3)

        def forward(self, x):
            return self.linear(x)
            # CHECK: aten.linear{{.*}} loc("{{.*}}locations.py":[[# @LINE - 1]]:20)

    print_located(hopc.capture(Model(), (torch.randn(2, 3),)))
