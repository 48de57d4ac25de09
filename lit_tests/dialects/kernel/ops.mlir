// RUN: hopc-opt %s | filecheck %s
// RUN: hopc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic | hopc-opt | filecheck %s

// Round trip of every kernel op and the buffer type, in custom and generic
// form; the last RUN parses the generic form back and expects the custom form.

// CHECK:       builtin.module attributes {kernel.device = "cpu"} {
// CHECK:         kernel.kernel @mul_sin "pointwise" {
// CHECK-NEXT:    ^bb0(%a: !hop.tensor<[s0, 16], f32>, %b: !hop.tensor<[16], f32>, %n: !hop.symint<s0>):
// CHECK:           kernel.yield %s : !hop.tensor<[s0, 16], f32>
// CHECK:         kernel.kernel @mm "extern" {
// CHECK:         %buf = kernel.alloc(%n) : (!hop.symint<s0>) -> !kernel.buffer<[s0, 16], f32, [16, 1], cpu>
// CHECK-NEXT:    %r = kernel.launch @mul_sin(%x, %w, %n) into(%buf : !kernel.buffer<[s0, 16], f32, [16, 1], cpu>) : (!hop.tensor<[s0, 16], f32>, !hop.tensor<[16], f32>, !hop.symint<s0>) -> !hop.tensor<[s0, 16], f32>
// CHECK-NEXT:    %t = kernel.alloc() : () -> !kernel.buffer<[16, 8], f32, [1, 16], cpu>
// CHECK-NEXT:    %m = kernel.launch @mm(%r, %v) : (!hop.tensor<[s0, 16], f32>, !hop.tensor<[16, 16], f32>) -> !hop.tensor<[s0, 16], f32>
// GENERIC:     "kernel.kernel"() <{sym_name = "mul_sin", kind = "pointwise"}> ({
// GENERIC:     "kernel.alloc"(%{{.*}}) : (!hop.symint<s0>) -> !kernel.buffer<[s0, 16], f32, [16, 1], cpu>
// GENERIC:     "kernel.launch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{callee = @mul_sin, operandSegmentSizes = array<i32: 3, 1>}>
builtin.module attributes {kernel.device = "cpu"} {
  hop.symbol @s0 backed [2, oo] hint 5
  kernel.kernel @mul_sin "pointwise" {
  ^bb0(%a: !hop.tensor<[s0, 16], f32>, %b: !hop.tensor<[16], f32>, %n: !hop.symint<s0>):
    %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s0, 16], f32>, !hop.tensor<[16], f32>) -> !hop.tensor<[s0, 16], f32>
    %s = aten.sin(%m) : (!hop.tensor<[s0, 16], f32>) -> !hop.tensor<[s0, 16], f32>
    kernel.yield %s : !hop.tensor<[s0, 16], f32>
  }
  kernel.kernel @mm "extern" {
  ^bb0(%a: !hop.tensor<[s0, 16], f32>, %b: !hop.tensor<[16, 16], f32>):
    %m = aten.mm(%a, %b) : (!hop.tensor<[s0, 16], f32>, !hop.tensor<[16, 16], f32>) -> !hop.tensor<[s0, 16], f32>
    kernel.yield %m : !hop.tensor<[s0, 16], f32>
  }
  func.func @forward(%x: !hop.tensor<[s0, 16], f32>, %w: !hop.tensor<[16], f32>, %v: !hop.tensor<[16, 16], f32>) -> !hop.tensor<[s0, 16], f32> {
    %n = hop.sym_size %x[0] : !hop.tensor<[s0, 16], f32> -> !hop.symint<s0>
    %buf = kernel.alloc(%n) : (!hop.symint<s0>) -> !kernel.buffer<[s0, 16], f32, [16, 1], cpu>
    %r = kernel.launch @mul_sin(%x, %w, %n) into(%buf : !kernel.buffer<[s0, 16], f32, [16, 1], cpu>) : (!hop.tensor<[s0, 16], f32>, !hop.tensor<[16], f32>, !hop.symint<s0>) -> !hop.tensor<[s0, 16], f32>
    %t = kernel.alloc() : () -> !kernel.buffer<[16, 8], f32, [1, 16], cpu>
    %m = kernel.launch @mm(%r, %v) : (!hop.tensor<[s0, 16], f32>, !hop.tensor<[16, 16], f32>) -> !hop.tensor<[s0, 16], f32>
    func.return %m : !hop.tensor<[s0, 16], f32>
  }
}
