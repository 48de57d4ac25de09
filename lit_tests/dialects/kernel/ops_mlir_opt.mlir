// REQUIRES: mlir-opt
// RUN: hopc-opt %s --print-op-generic | %mlir-opt --allow-unregistered-dialect | filecheck %s

// The generic form of the kernel level is real MLIR: mlir-opt parses it and
// prints the ops and the buffer type back.
// CHECK: "kernel.kernel"() <{kind = "pointwise", sym_name = "neg"}>
// CHECK: "kernel.alloc"() : () -> !kernel.buffer<[4], f32, [1], cpu>
// CHECK: "kernel.launch"(%{{.*}}, %{{.*}}) <{callee = @neg, operandSegmentSizes = array<i32: 1, 1>}>
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @neg "pointwise" {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %n = aten.neg(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    kernel.yield %n : !hop.tensor<[4], f32>
  }
  func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    %buf = kernel.alloc() : () -> !kernel.buffer<[4], f32, [1], cpu>
    %r = kernel.launch @neg(%x) into(%buf : !kernel.buffer<[4], f32, [1], cpu>) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %r : !hop.tensor<[4], f32>
  }
}
