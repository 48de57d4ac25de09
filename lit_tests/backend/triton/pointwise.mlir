// RUN: hopc-translate --emit-triton %s | filecheck %s

// Pointwise kernels (Note [pointwise indexing] in hopc.backend.triton.emit):
// sizes and strides are runtime arguments, inputs read through their strides.

hop.symbol @s0 backed [2, oo] hint 5

// A broadcast [16] input over a dynamic [s0, 16] iteration: one flat index,
// decomposed by the runtime sizes; each input has a stride per dimension.
// CHECK-LABEL: # kernel.kernel @"broadcast" (pointwise)
// CHECK-NEXT:  @triton.jit
// CHECK-NEXT:  def k_broadcast(in0, in1, out0, numel, size0, size1, stride0_0, stride0_1, stride1_0, stride1_1, XBLOCK: tl.constexpr):
// CHECK-NEXT:      offset = tl.program_id(0).to(tl.int64) * XBLOCK + tl.arange(0, XBLOCK)
// CHECK-NEXT:      mask = offset < numel
// CHECK-NEXT:      index1 = offset % size1
// CHECK-NEXT:      rest1 = offset // size1
// CHECK-NEXT:      index0 = rest1
// CHECK-NEXT:      [[A:a[0-9]+]] = tl.load(in0 + index0 * stride0_0 + index1 * stride0_1, mask=mask)
// CHECK-NEXT:      [[B:a[0-9]+]] = tl.load(in1 + index0 * stride1_0 + index1 * stride1_1, mask=mask)
// CHECK-NEXT:      [[M:t[0-9]+]] = [[A]] * [[B]]
// CHECK-NEXT:      [[S:t[0-9]+]] = tl.sin([[M]])
// CHECK-NEXT:      tl.store(out0 + offset, [[S]], mask=mask)
kernel.kernel @broadcast "pointwise" {
^bb0(%a: !hop.tensor<[s0, 16], f32>, %b: !hop.tensor<[16], f32>):
  %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s0, 16], f32>, !hop.tensor<[16], f32>) -> !hop.tensor<[s0, 16], f32>
  %s = aten.sin(%m) : (!hop.tensor<[s0, 16], f32>) -> !hop.tensor<[s0, 16], f32>
  kernel.yield %s : !hop.tensor<[s0, 16], f32>
}

// A 0-d input and a scalar with alpha: literals are printed from values,
// infinities as float("inf"); the trailing symint is no kernel argument.
// CHECK-LABEL: # kernel.kernel @"scalars" (pointwise)
// CHECK:       def k_scalars(in0, in1, out0, numel, size0, stride0_0, stride1_0, XBLOCK: tl.constexpr):
// CHECK:           [[X:a[0-9]+]] = tl.load(in0 + index0 * stride0_0, mask=mask)
// CHECK-NEXT:      [[C:a[0-9]+]] = tl.load(in1 + index0 * stride1_0, mask=mask)
// CHECK-NEXT:      [[ADD:t[0-9]+]] = [[X]] + ([[C]] * 2.5)
// CHECK-NEXT:      [[MIN:t[0-9]+]] = tl.where([[ADD]] < -float("inf"), -float("inf"), [[ADD]])
// CHECK-NEXT:      tl.store(out0 + offset, [[MIN]], mask=mask)
kernel.kernel @scalars "pointwise" {
^bb0(%x: !hop.tensor<[s0], f32>, %c: !hop.tensor<[], f32>, %n: !hop.symint<s0>):
  %a = aten.add.Tensor(%x, %c) {alpha = 2.5 : f64} : (!hop.tensor<[s0], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[s0], f32>
  %m = aten.clamp_min(%a) {min = 0xFFF0000000000000 : f64} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  kernel.yield %m : !hop.tensor<[s0], f32>
}

// f16 computes in f32 (opmath) and each result is rounded to its IR dtype;
// a comparison gives bool (Note [triton dtypes] in hopc.backend.triton.ops).
// The source is for CUDA: exp is libdevice's (Note [kernel targets]).
// CHECK-LABEL: # kernel.kernel @"half" (pointwise)
// CHECK:           [[H:t[0-9]+]] = (libdevice.exp(([[X:a[0-9]+]]).to(tl.float32))).to(tl.float16)
// CHECK-NEXT:      [[L:t[0-9]+]] = ([[H]]).to(tl.float32) < 0.5
// CHECK-NEXT:      tl.store(out0 + offset, [[H]], mask=mask)
// CHECK-NEXT:      tl.store(out1 + offset, [[L]], mask=mask)
kernel.kernel @half "pointwise" {
^bb0(%x: !hop.tensor<[s0, 4], f16>):
  %e = aten.exp(%x) : (!hop.tensor<[s0, 4], f16>) -> !hop.tensor<[s0, 4], f16>
  %l = aten.lt.Scalar(%e) {other = 0.5 : f64} : (!hop.tensor<[s0, 4], f16>) -> !hop.tensor<[s0, 4], i1>
  kernel.yield %e, %l : !hop.tensor<[s0, 4], f16>, !hop.tensor<[s0, 4], i1>
}

// An extern kernel is run by its library: a comment, no source.
// CHECK-LABEL: # kernel.kernel @"matmul" (extern): run by its library
// CHECK-NOT:   def k_matmul
kernel.kernel @matmul "extern" {
^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4, 4], f32>):
  %m = aten.mm(%a, %b) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  kernel.yield %m : !hop.tensor<[s0, 4], f32>
}
