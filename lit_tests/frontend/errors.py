# RUN: %python %s | filecheck %s
# What hopc cannot capture is an error that names the construct and the user's line.

import torch
from lit_helpers import run_printing_errors
from torch.export import Dim

import hopc


# CHECK-LABEL: TEST: data_dependent_python_branch
@run_printing_errors
def data_dependent_python_branch():
    def program(x):
        if x.sum() > 0:
            # CHECK: errors.py:[[# @LINE - 1]]:{{[0-9]+}}: error: cannot capture the program: Data-dependent branching
            return x + 1
        return x - 1

    hopc.capture(program, (torch.randn(3),))


# CHECK-LABEL: TEST: power_by_a_symbolic_integer
@run_printing_errors
def power_by_a_symbolic_integer():
    def program(x):
        return x * 2 ** x.size(0)
        # CHECK: errors.py:[[# @LINE - 1]]:{{[0-9]+}}: error: unsupported: ** of a symbolic integer by anything but a positive literal

    hopc.capture(program, (torch.randn(3),), dynamic_shapes=({0: Dim("n")},))


# CHECK-LABEL: TEST: autocast_region
@run_printing_errors
def autocast_region():
    def program(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return x @ x
            # CHECK: errors.py:[[# @LINE - 1]]:{{[0-9]+}}: error: unsupported: torch.autocast regions

    hopc.capture(program, (torch.randn(3, 3),))


# CHECK-LABEL: TEST: branch_mutates_its_operand
@run_printing_errors
def branch_mutates_its_operand():
    def mutating(x):
        x.add_(1)
        return x.clone()

    def program(x):
        return torch.cond(x.sum() > 0, mutating, lambda x: x.clone(), (x,))
        # CHECK: errors.py:[[# @LINE - 1]]:{{[0-9]+}}: error: cannot capture the program: {{.*}}input mutation

    hopc.capture(program, (torch.randn(3),))


# CHECK-LABEL: TEST: shape_constraint_violated
@run_printing_errors
def shape_constraint_violated():
    def program(x):
        # CHECK: errors.py:[[# @LINE - 1]]:1: error: cannot capture the program: Constraints violated (batch)
        return x.view(2, -1)

    batch = torch.export.Dim("batch", min=2, max=9)
    hopc.capture(program, (torch.randn(4),), dynamic_shapes=({0: batch},))
