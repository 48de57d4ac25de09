# RUN: %python %s | filecheck %s
# A checkpoint or a wrap whose body returns a size it defines only inside an expression ([4*u0])
# returns it as a !hop.symint too, which the op names as its own result types do (Note [call
# result symbols] in hopc.dialects.hop_call_results); the FX node's outputs are the results before it.

import torch
from lit_helpers import run, run_printing_errors
from torch._higher_order_ops.wrap import wrap
from torch.utils.checkpoint import checkpoint

import hopc


def four_times(x):
    y = x[x > 0]
    return torch.cat([y, y, y, y])


def squared(x):
    y = x[x > 0]
    return torch.outer(y, y).reshape(-1)


@run
def a_checkpoint_returns_a_size_only_inside_an_expression_as_a_symint():
    def program(x):
        return checkpoint(four_times, x, use_reentrant=False).sum()

    print(hopc.capture(program, (torch.randn(3, 4),)))


# CHECK-LABEL: TEST: a_checkpoint_returns_a_size_only_inside_an_expression_as_a_symint
# CHECK:       %[[R:.*]], %{{.*}} = hop.checkpoint(%x) : ({{.*}}) -> (!hop.tensor<[4*[[A:u[0-9]+]]], f32>, !hop.symint<[[A]]>) {
# CHECK:         %[[Y:.*]] = aten.index.Tensor({{.*}}) : ({{.*}}) -> !hop.tensor<[[[U:u[0-9]+]]], f32>
# CHECK:         %[[CAT:.*]] = aten.cat
# CHECK-NEXT:    %[[SIZE:.*]] = hop.sym_size %[[Y]][0] : !hop.tensor<[[[U]]], f32> -> !hop.symint<[[U]]>
# CHECK-NEXT:    hop.yield %[[CAT]], %[[SIZE]] : !hop.tensor<[4*[[U]]], f32>, !hop.symint<[[U]]>
# CHECK-NEXT:  }
# CHECK-NEXT:  aten.sum(%[[R]]) : (!hop.tensor<[4*[[A]]], f32>) -> !hop.tensor<[], f32>


@run
def a_wrap_returns_a_size_only_inside_an_expression_as_a_symint():
    def program(x):
        return wrap(four_times, x).sum()

    print(hopc.capture(program, (torch.randn(3, 4),)))


# CHECK-LABEL: TEST: a_wrap_returns_a_size_only_inside_an_expression_as_a_symint
# CHECK:       %[[R:.*]], %{{.*}} = hop.wrap(%x) : ({{.*}}) -> (!hop.tensor<[4*[[A:u[0-9]+]]], f32>, !hop.symint<[[A]]>) {
# CHECK:         hop.yield %{{.*}}, %{{.*}} : !hop.tensor<[4*[[U:u[0-9]+]]], f32>, !hop.symint<[[U]]>
# CHECK-NEXT:  }
# CHECK-NEXT:  aten.sum(%[[R]]) : (!hop.tensor<[4*[[A]]], f32>) -> !hop.tensor<[], f32>


@run
def a_size_a_result_has_whole_is_not_returned_again():
    def program(x):
        four, picked = wrap(lambda a: (four_times(a), a[a > 0]), x)
        return four.sum() + picked.sum()

    print(hopc.capture(program, (torch.randn(3, 4),)))


# Two mask indexes, two sizes: the second's is a whole dimension of a result, which names it;
# the first's is only inside [4*u], so it alone is returned as a symint too.
# CHECK-LABEL: TEST: a_size_a_result_has_whole_is_not_returned_again
# CHECK:       hop.wrap(%x) : ({{.*}}) -> (!hop.tensor<[4*[[A:u[0-9]+]]], f32>, !hop.tensor<[[[B:u[0-9]+]]], f32>, !hop.symint<[[A]]>) {


@run_printing_errors
def a_size_no_single_symbol_names_is_an_error():
    def program(x):
        return checkpoint(squared, x, use_reentrant=False).sum()

    print(hopc.capture(program, (torch.randn(3, 4),)))


# u*u is v*v has two roots, u = v and u = -v: the checkpoint cannot name u.
# CHECK-LABEL: TEST: a_size_no_single_symbol_names_is_an_error
# CHECK:       single_body_sizes.py:[[# @LINE - 7]]:{{[0-9]+}}: error: unsupported: a checkpoint whose body defines [[U:u[0-9]+]] and returns it only inside expressions: the call's result has [[V:u[0-9]+]]*[[V]] for [[U]]*[[U]], which gives [[U]] as -[[V]], [[V]], not as one symbol; return (and use) a tensor of the body that has [[U]] as a whole dimension too
