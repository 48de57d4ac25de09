# RUN: %python %s | filecheck %s
# associative_scan -> hop.associative_scan (Note [associative scan capture]): dim moved to 0
# around the op, the combine body on two slices of each xs, in combine_mode "generic" too.

import torch
from lit_helpers import run
from torch._higher_order_ops.associative_scan import associative_scan

import hopc
from hopc.ir.diagnostics import HopcError


@run
def running_product_along_dim_1():
    def program(x):
        return associative_scan(lambda a, b: a * b, x, 1, combine_mode="generic")

    print(hopc.capture(program, (torch.randn(2, 5, 3),)))


# CHECK-LABEL: TEST: running_product_along_dim_1
# CHECK:       %[[MOVED:.*]] = aten.movedim.int(%x) {source = 1 : i64, destination = 0 : i64} : (!hop.tensor<[2, 5, 3], f32>) -> !hop.tensor<[5, 2, 3], f32>
# CHECK:       %[[R:.*]] = hop.associative_scan xs(%[[MOVED]]) additional() : (!hop.tensor<[5, 2, 3], f32>), () -> !hop.tensor<[5, 2, 3], f32> {
# CHECK-NEXT:  ^bb0(%[[A:.*]]: !hop.tensor<[2, 3], f32>, %[[B:.*]]: !hop.tensor<[2, 3], f32>):
# CHECK-NEXT:    %[[M:.*]] = aten.mul.Tensor(%[[A]], %[[B]])
# CHECK-NEXT:    hop.yield %[[M]] : !hop.tensor<[2, 3], f32>
# CHECK:       aten.movedim.int(%[[R]]) {source = 0 : i64, destination = 1 : i64}


@run
def reverse_pair_with_closure():
    def program(x, y, w):
        return associative_scan(lambda a, b: (a[0] * b[0], a[1] + b[1] + w), (x, y), 0, reverse=True,
                                combine_mode="generic")

    print(hopc.capture(program, (torch.randn(4, 3), torch.randn(4, 3), torch.randn(3))))


# CHECK-LABEL: TEST: reverse_pair_with_closure
# CHECK:       %[[X:.*]] = aten.flip(%{{.*}}) {dims = [0 : i64]}
# CHECK:       %[[Y:.*]] = aten.flip(%{{.*}}) {dims = [0 : i64]}
# CHECK:       hop.associative_scan xs(%[[X]], %[[Y]]) additional(%w) : (!hop.tensor<[4, 3], f32>, !hop.tensor<[4, 3], f32>), (!hop.tensor<[3], f32>) -> !hop.tensor<[4, 3], f32>, !hop.tensor<[4, 3], f32> {
# CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[3], f32>, %{{.*}}: !hop.tensor<[3], f32>, %{{.*}}: !hop.tensor<[3], f32>, %{{.*}}: !hop.tensor<[3], f32>, %{{.*}}: !hop.tensor<[3], f32>):
# CHECK:       aten.flip
# CHECK:       aten.flip


@run
def combine_not_elementwise():
    def program(x):
        return associative_scan(lambda a, b: a @ b, x, 0, combine_mode="generic")

    try:
        hopc.capture(program, (torch.randn(4, 3, 3),))
    except HopcError as error:
        print(error)


# CHECK-LABEL: TEST: combine_not_elementwise
# CHECK:       associative_scan.py:[[# @LINE - 10]]:1: error: cannot capture the program: {{.*}}pointwise
