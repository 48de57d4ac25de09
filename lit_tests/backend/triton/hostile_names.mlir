// RUN: hopc-translate --emit-triton %s | filecheck %s

// No IR text reaches the source (Note [no IR text in generated source]): a
// symbol that is no plain name becomes k_<hash>, shown only in a JSON-escaped
// comment; SSA names are the generator's own.

// CHECK-LABEL: # kernel.kernel @"x; import os\n\"\"\"" (pointwise)
// CHECK-NEXT:  @triton.jit
// CHECK-NEXT:  def k_{{[0-9a-f]+}}(in0, out0, numel, size0, stride0_0, XBLOCK: tl.constexpr):
// CHECK-NOT:   import os
// CHECK-NOT:   evil
kernel.kernel @"x; import os\n\"\"\"" "pointwise" {
^bb0(%evil: !hop.tensor<[8], f32>):
  %evil_too = aten.neg(%evil) : (!hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
  kernel.yield %evil_too : !hop.tensor<[8], f32>
}
