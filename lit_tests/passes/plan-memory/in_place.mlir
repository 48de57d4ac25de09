// RUN: hopc-opt %s --plan-memory --split-input-file | filecheck %s

// In place fires: each pointwise launch reads the planned value before it last
// and writes its result over it; one buffer serves the chain.
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  kernel.kernel @add "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>, %b: !hop.tensor<[4], f32>):
    %s = aten.add.Tensor(%a, %b) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  func.func @in_place_chain(%x: !hop.tensor<[8, 4], f32>, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[8, 4], f32> {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %b = kernel.launch @sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %c = kernel.launch @add(%b, %y) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[8, 4], f32>
    func.return %c : !hop.tensor<[8, 4], f32>
  }
}
// CHECK-LABEL: func.func @in_place_chain
// CHECK-SAME:    attributes {kernel.peak_bytes = 128 : i64}
// CHECK:         %[[BUF:.*]] = kernel.alloc()
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%{{.*}}) into(%[[BUF]] :
// CHECK-NEXT:    %[[B:.*]] = kernel.launch @sin(%[[A]]) into(%[[BUF]] :
// CHECK-NEXT:    kernel.launch @add(%[[B]], %{{.*}}) into(%[[BUF]] :
// CHECK-NOT:     kernel.alloc

// -----

// Must not fire: @sin is not the last reader of %a (@add reads it after).
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  kernel.kernel @add "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>, %b: !hop.tensor<[8, 4], f32>):
    %s = aten.add.Tensor(%a, %b) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  func.func @not_last_reader(%x: !hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32> {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %b = kernel.launch @sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %c = kernel.launch @add(%a, %b) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    func.return %c : !hop.tensor<[8, 4], f32>
  }
}
// CHECK-LABEL: func.func @not_last_reader
// CHECK:         %[[BUF_A:.*]] = kernel.alloc()
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%{{.*}}) into(%[[BUF_A]] :
// CHECK-NEXT:    %[[BUF_B:.*]] = kernel.alloc()
// CHECK-NEXT:    %[[B:.*]] = kernel.launch @sin(%[[A]]) into(%[[BUF_B]] :
// CHECK-NEXT:    kernel.launch @add(%[[A]], %[[B]]) into(%[[BUF_A]] :

// -----

// Must not fire: a reduction reads whole rows before it writes, so its result
// of its operand's type (x - max(x) per row) gets a new buffer.
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  kernel.kernel @center "reduction" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %m = aten.amax(%a) {dim = [1], keepdim = true} : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 1], f32>
    %s = aten.sub.Tensor(%a, %m) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 1], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  func.func @reduction_not_in_place(%x: !hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32> {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %c = kernel.launch @center(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    func.return %c : !hop.tensor<[8, 4], f32>
  }
}
// CHECK-LABEL: func.func @reduction_not_in_place
// CHECK:         %[[BUF_A:.*]] = kernel.alloc()
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%{{.*}}) into(%[[BUF_A]] :
// CHECK-NEXT:    %[[BUF_C:.*]] = kernel.alloc()
// CHECK-NEXT:    kernel.launch @center(%[[A]]) into(%[[BUF_C]] :

// -----

// Two results of one launch: the first goes over the dead operand, the second
// gets its own buffer (one launch never writes two results into one buffer).
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  kernel.kernel @sin_cos "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %c = aten.cos(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s, %c : !hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>
  }
  func.func @two_results(%x: !hop.tensor<[8, 4], f32>) -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>) {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %s, %c = kernel.launch @sin_cos(%a) : (!hop.tensor<[8, 4], f32>) -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>)
    func.return %s, %c : !hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>
  }
}
// CHECK-LABEL: func.func @two_results
// CHECK:         %[[BUF_A:.*]] = kernel.alloc()
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%{{.*}}) into(%[[BUF_A]] :
// CHECK-NEXT:    %[[BUF_C:.*]] = kernel.alloc()
// CHECK-NEXT:    kernel.launch @sin_cos(%[[A]]) into(%[[BUF_A]], %[[BUF_C]] :
