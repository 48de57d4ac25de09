# RUN: %python %s | filecheck %s
# Python's | on symbolic booleans is hop.sym_or: a torch._check of a
# disjunction stays a hop.assert of the whole condition (a conjunction:
# symbolic_conjunction.py).

import torch
from lit_helpers import run

import hopc


@run
def checked_disjunction():
    def program(x, i):
        k = i.item()
        torch._check((k < 0) | (k < x.shape[0]))
        return x * k

    print(hopc.capture(program, (torch.randn(5, 3), torch.tensor(1))))


# CHECK-LABEL: TEST: checked_disjunction
# CHECK:       hop.symbol @[[K:u[0-9]+]] unbacked [-oo, oo]
# CHECK:         %[[NEGATIVE:.*]] = hop.sym_lt %{{.*}}, %{{.*}} : !hop.symint<[[K]]>, !hop.symint<0> -> !hop.symbool<Lt([[K]], 0)>
# CHECK:         %[[INSIDE:.*]] = hop.sym_lt %{{.*}}, %{{.*}} : !hop.symint<[[K]]>, !hop.symint<5> -> !hop.symbool<Lt([[K]], 5)>
# CHECK:         %[[EITHER:.*]] = hop.sym_or %[[NEGATIVE]], %[[INSIDE]] : !hop.symbool<Lt([[K]], 0)>, !hop.symbool<Lt([[K]], 5)> -> !hop.symbool<Or(Lt([[K]], 0), Lt([[K]], 5))>
# CHECK:         hop.assert %[[EITHER]], "{{.*}}" : !hop.symbool<Or(Lt([[K]], 0), Lt([[K]], 5))>
