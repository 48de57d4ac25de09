// RUN: hopc-opt %s | filecheck %s
// RUN: hopc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic | hopc-opt | filecheck %s
// RUN: hopc-opt %s --canonicalize --cse --dce | filecheck %s --check-prefix=KEPT

// Round trip of the profiler ops, custom and generic form; nested ranges, one
// with args. The passes keep every range (the ops have effects) and its place.

// CHECK-LABEL: func.func @ranges
// CHECK-NEXT:    %[[OUTER:.*]] = profiler.record_function_enter "outer" : !profiler.range
// CHECK-NEXT:    %[[SIN:.*]] = aten.sin(%x)
// CHECK-NEXT:    %[[INNER:.*]] = profiler.record_function_enter "inner" args "a=1" : !profiler.range
// CHECK-NEXT:    profiler.record_function_exit %[[INNER]]
// CHECK-NEXT:    profiler.record_function_exit %[[OUTER]]
// GENERIC:       "profiler.record_function_enter"() <{name = "outer"}> : () -> !profiler.range
// GENERIC:       "profiler.record_function_enter"() <{name = "inner", args = "a=1"}> : () -> !profiler.range
// GENERIC:       "profiler.record_function_exit"(%{{.*}}) : (!profiler.range) -> ()
// KEPT-LABEL:  func.func @ranges
// KEPT:          profiler.record_function_enter "outer"
// KEPT-NEXT:     aten.sin
// KEPT-NEXT:     profiler.record_function_enter "inner"
// KEPT-NEXT:     profiler.record_function_exit
// KEPT-NEXT:     profiler.record_function_exit
// KEPT:          profiler.record_function_enter "outer"
// KEPT-NEXT:     profiler.record_function_exit
func.func @ranges(%x: !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32> {
  %outer = profiler.record_function_enter "outer" : !profiler.range
  %sin = aten.sin(%x) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
  %inner = profiler.record_function_enter "inner" args "a=1" : !profiler.range
  profiler.record_function_exit %inner
  profiler.record_function_exit %outer
  %again = profiler.record_function_enter "outer" : !profiler.range
  profiler.record_function_exit %again
  func.return %sin : !hop.tensor<[3], f32>
}
