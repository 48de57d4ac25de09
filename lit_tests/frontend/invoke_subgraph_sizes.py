# RUN: %python %s | filecheck %s
# A nested_compile_region that returns a size it defines only inside an expression ([4*u0]) returns
# it as a !hop.symint too, which each call names as its own types do (Note [call result symbols]
# in hopc.dialects.hop_call_results).

import torch
from lit_helpers import run, run_printing_errors

import hopc


@torch.compiler.nested_compile_region
def four_times(x):
    y = x[x > 0]
    return torch.cat([y, y, y, y])


@torch.compiler.nested_compile_region
def four_times_and_picked(x):
    y = x[x > 0]
    return torch.cat([y, y, y, y]), y


@torch.compiler.nested_compile_region
def squared(x):
    y = x[x > 0]
    return torch.outer(y, y).reshape(-1)


@run
def a_size_only_inside_an_expression_is_returned_as_a_symint():
    def program(x):
        return four_times(x).sum() + four_times(x * 2).sum()

    print(hopc.capture(program, (torch.randn(3, 4),)))


# CHECK-LABEL: TEST: a_size_only_inside_an_expression_is_returned_as_a_symint
# CHECK:       hop.subgraph @[[SUB:.*]] {
# CHECK:         %[[Y:.*]] = aten.index.Tensor({{.*}}) : ({{.*}}) -> !hop.tensor<[[[U:u[0-9]+]]], f32>
# CHECK:         %[[CAT:.*]] = aten.cat
# CHECK-NEXT:    %[[SIZE:.*]] = hop.sym_size %[[Y]][0] : !hop.tensor<[[[U]]], f32> -> !hop.symint<[[U]]>
# CHECK-NEXT:    hop.yield %[[CAT]], %[[SIZE]] : !hop.tensor<[4*[[U]]], f32>, !hop.symint<[[U]]>
# CHECK-NEXT:  }
# CHECK:       hop.invoke_subgraph @[[SUB]](%x) : ({{.*}}) -> (!hop.tensor<[4*[[A:u[0-9]+]]], f32>, !hop.symint<[[A]]>)
# CHECK:       hop.invoke_subgraph @{{.*}}(%{{.*}}) : ({{.*}}) -> (!hop.tensor<[4*[[B:u[0-9]+]]], f32>, !hop.symint<[[B]]>)


@run
def a_size_a_result_has_whole_is_not_returned_again():
    def program(x):
        four, picked = four_times_and_picked(x)
        return four.sum() + picked.sum()

    print(hopc.capture(program, (torch.randn(3, 4),)))


# The result [u] names the size: the call needs no symint.
# CHECK-LABEL: TEST: a_size_a_result_has_whole_is_not_returned_again
# CHECK:       hop.subgraph
# CHECK:         hop.yield %{{.*}}, %{{.*}} : !hop.tensor<[4*[[U:u[0-9]+]]], f32>, !hop.tensor<[[[U]]], f32>
# CHECK-NEXT:  }
# CHECK:       hop.invoke_subgraph @{{.*}}(%x) : ({{.*}}) -> (!hop.tensor<[4*[[A:u[0-9]+]]], f32>, !hop.tensor<[[[A]]], f32>)


@run_printing_errors
def a_size_no_single_symbol_names_is_an_error():
    def program(x):
        return squared(x).sum()

    print(hopc.capture(program, (torch.randn(3, 4),)))


# u*u is v*v has two roots, u = v and u = -v: the call cannot name u.
# CHECK-LABEL: TEST: a_size_no_single_symbol_names_is_an_error
# CHECK:       invoke_subgraph_sizes.py:[[# @LINE - 7]]:{{[0-9]+}}: error: unsupported: a nested_compile_region whose body defines [[U:u[0-9]+]] and returns it only inside expressions: the call's result has [[V:u[0-9]+]]*[[V]] for [[U]]*[[U]], which gives [[U]] as -[[V]], [[V]], not as one symbol; return (and use) a tensor of the body that has [[U]] as a whole dimension too
