// RUN: hopc-translate --emit-triton %s | filecheck %s

// Reduction kernels (Note [reduction stages] in hopc.backend.triton.reduction):
// YBLOCK rows per program, loops over the reduced dimension in RBLOCK blocks,
// every load and store masked at the end of the rows and of the columns.

hop.symbol @s0 backed [2, oo] hint 5

// A sum without keepdim: one loop, accumulated in the result's dtype, stored per row.
// CHECK-LABEL: # kernel.kernel @"row_sum" (reduction)
// CHECK-NEXT:  @triton.jit
// CHECK-NEXT:  def k_row_sum(in0, out0, rows, size0, size1, stride0_0, stride0_1, RBLOCK: tl.constexpr, YBLOCK: tl.constexpr):
// CHECK-NEXT:      row = (tl.program_id(0).to(tl.int64) * YBLOCK + tl.arange(0, YBLOCK))[:, None]
// CHECK-NEXT:      rmask = row < rows
// CHECK-NEXT:      coord0 = row
// CHECK-NEXT:      [[ACC:acc[0-9]+]] = tl.zeros([YBLOCK, RBLOCK], tl.float32)
// CHECK-NEXT:      for start in range(0, size1, RBLOCK):
// CHECK-NEXT:          col = start + tl.arange(0, RBLOCK)[None, :]
// CHECK-NEXT:          cmask = rmask & (col < size1)
// CHECK-NEXT:          [[X:a[0-9]+]] = tl.load(in0 + coord0 * stride0_0 + col * stride0_1, mask=cmask, other=0)
// CHECK-NEXT:          [[ACC]] = [[ACC]] + tl.where(cmask, [[X]], 0)
// CHECK-NEXT:      [[R:r[0-9]+]] = tl.sum([[ACC]], 1)[:, None]
// CHECK-NEXT:      tl.store(out0 + row, [[R]], mask=rmask)
kernel.kernel @row_sum "reduction" {
^bb0(%x: !hop.tensor<[s0, 64], f32>):
  %s = aten.sum.dim_IntList(%x) {dim = [-1]} : (!hop.tensor<[s0, 64], f32>) -> !hop.tensor<[s0], f32>
  kernel.yield %s : !hop.tensor<[s0], f32>
}

// Softmax in f16 with a horizontally fused sum of the input: amax and the
// plain sum share the first loop, the sum of exp(x - amax) is the second
// (level 2), the third stores; sums accumulate in f32, amax propagates NaN.
// CHECK-LABEL: # kernel.kernel @"softmax" (reduction)
// CHECK:           [[MAX:acc[0-9]+]] = tl.full([YBLOCK, RBLOCK], -float("inf"), tl.float16)
// CHECK:           [[PLAIN:acc[0-9]+]] = tl.zeros([YBLOCK, RBLOCK], tl.float32)
// CHECK-NEXT:      for start in range(0, size1, RBLOCK):
// CHECK:               [[MAX]] = tl.where(([[M:m[0-9]+]] > [[MAX]]) | ([[M]] != [[M]]), [[M]], [[MAX]])
// CHECK:               [[PLAIN]] = [[PLAIN]] + tl.where(cmask, ({{a[0-9]+}}).to(tl.float32), 0)
// CHECK-NEXT:      [[AMAX:r[0-9]+]] = tl.where(tl.sum(([[MAX]] != [[MAX]]).to(tl.int32), 1)[:, None] > 0, float("nan"), tl.max([[MAX]], 1)[:, None])
// CHECK-NEXT:      [[TOTAL:r[0-9]+]] = (tl.sum([[PLAIN]], 1)[:, None]).to(tl.float16)
// CHECK-NEXT:      [[EXPSUM:acc[0-9]+]] = tl.zeros([YBLOCK, RBLOCK], tl.float32)
// CHECK-NEXT:      for start in range(0, size1, RBLOCK):
// CHECK:               {{t[0-9]+}} = (({{a[0-9]+}}).to(tl.float32) - ([[AMAX]]).to(tl.float32)).to(tl.float16)
// CHECK:               [[EXPSUM]] = [[EXPSUM]] + tl.where(cmask,
// CHECK-NEXT:      [[SUM:r[0-9]+]] = (tl.sum([[EXPSUM]], 1)[:, None]).to(tl.float16)
// CHECK-NEXT:      for start in range(0, size1, RBLOCK):
// CHECK:               [[Y:t[0-9]+]] = (({{t[0-9]+}}).to(tl.float32) / ([[SUM]]).to(tl.float32)).to(tl.float16)
// CHECK-NEXT:          tl.store(out0 + row * size1 + col, [[Y]], mask=cmask)
// CHECK-NEXT:      tl.store(out1 + row, [[TOTAL]], mask=rmask)
kernel.kernel @softmax "reduction" {
^bb0(%x: !hop.tensor<[s0, 37], f16>):
  %m = aten.amax(%x) {dim = [-1], keepdim = true} : (!hop.tensor<[s0, 37], f16>) -> !hop.tensor<[s0, 1], f16>
  %d = aten.sub.Tensor(%x, %m) : (!hop.tensor<[s0, 37], f16>, !hop.tensor<[s0, 1], f16>) -> !hop.tensor<[s0, 37], f16>
  %e = aten.exp(%d) : (!hop.tensor<[s0, 37], f16>) -> !hop.tensor<[s0, 37], f16>
  %s = aten.sum.dim_IntList(%e) {dim = [1], keepdim = true} : (!hop.tensor<[s0, 37], f16>) -> !hop.tensor<[s0, 1], f16>
  %r = aten.div.Tensor(%e, %s) : (!hop.tensor<[s0, 37], f16>, !hop.tensor<[s0, 1], f16>) -> !hop.tensor<[s0, 37], f16>
  %t = aten.sum.dim_IntList(%x) {dim = [-1]} : (!hop.tensor<[s0, 37], f16>) -> !hop.tensor<[s0], f16>
  kernel.yield %r, %t : !hop.tensor<[s0, 37], f16>, !hop.tensor<[s0], f16>
}
