# REQUIRES: dynamo-asserts-whole-conjunctions
# RUN: %python %s | filecheck %s
# Python's & on symbolic booleans is hop.sym_and: a torch._check of a
# conjunction and narrow's own check of its start (an And) each stay a
# hop.assert of the whole condition. Dynamo 2.11 asserts the user's
# conjunction as its parts (Ge(u1, 0), Le(u1, 3)), which hopc keeps as they are
# (lit.cfg.py).

import torch
from lit_helpers import run

import hopc


@run
def narrow_at_a_checked_item():
    def program(x, i):
        k = i.item()
        torch._check((k >= 0) & (k + 2 <= x.shape[0]))
        return x.narrow(0, k, 2)

    print(hopc.capture(program, (torch.randn(5, 3), torch.tensor(1))))


# CHECK-LABEL: TEST: narrow_at_a_checked_item
# CHECK:       hop.symbol @[[K:u[0-9]+]] unbacked [0, 3]
# CHECK:         %[[ITEM:.*]] = hop.item %i : !hop.tensor<[], i64> -> !hop.symint<[[K]]>
# CHECK:         %[[AT_LEAST:.*]] = hop.sym_ge %[[ITEM]], %{{.*}} : !hop.symint<[[K]]>, !hop.symint<0> -> !hop.symbool<Ge([[K]], 0)>
# CHECK:         %[[AT_MOST:.*]] = hop.sym_le %[[ITEM]], %{{.*}} : !hop.symint<[[K]]>, !hop.symint<3> -> !hop.symbool<Le([[K]], 3)>
# CHECK:         %[[NARROW_CHECK:.*]] = hop.sym_and %{{.*}}, %[[AT_MOST]] : !hop.symbool<Ge([[K]], 0)>, !hop.symbool<Le([[K]], 3)> -> !hop.symbool<And(Ge([[K]], 0), Le([[K]], 3))>
# CHECK:         hop.assert %[[NARROW_CHECK]], "{{.*}}" : !hop.symbool<And(Ge([[K]], 0), Le([[K]], 3))>
# CHECK:         %[[END:.*]] = hop.sym_le %{{.*}}, %{{.*}} : !hop.symint<[[K]] + 2>, !hop.symint<5> -> !hop.symbool<Le([[K]] + 2, 5)>
# CHECK:         %[[CHECK:.*]] = hop.sym_and %[[AT_LEAST]], %[[END]] : !hop.symbool<Ge([[K]], 0)>, !hop.symbool<Le([[K]] + 2, 5)> -> !hop.symbool<And(Ge([[K]], 0), Le([[K]] + 2, 5))>
# CHECK:         hop.assert %[[CHECK]], "{{.*}}" : !hop.symbool<And(Ge([[K]], 0), Le([[K]] + 2, 5))>
# CHECK:         aten.narrow(%x) {dim = 0 : i64, start = #hop.expr<[[K]]>, length = 2 : i64}
