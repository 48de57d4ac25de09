// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// hop.symbol's optional example value (Note [trace hints] in hopc.torch_bridge.op_tracer),
// in custom and generic form; the last RUN parses the generic form back.

// A backed symbol with the hint its capture recorded, one without.
// CHECK:       hop.symbol @s0 backed [2, oo] hint 5{{$}}
// CHECK-NEXT:  hop.symbol @s1 backed [2, 64]{{$}}
// CHECK-LABEL: func.func @hinted
// GENERIC:     "hop.symbol"() <{sym_name = "s0", kind = "backed", lower = 2 : i64, hint = 5 : i64}> : () -> ()
// GENERIC:     "hop.symbol"() <{sym_name = "s1", kind = "backed", lower = 2 : i64, upper = 64 : i64}> : () -> ()
hop.symbol @s0 backed [2, oo] hint 5
hop.symbol @s1 backed [2, 64]
func.func @hinted(%x: !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s0, s1], f32> {
  func.return %x : !hop.tensor<[s0, s1], f32>
}

// -----

// A hint may sit on a bound of the range, and a range may be negative.
// CHECK:       hop.symbol @u0 unbacked [-oo, 0] hint -3{{$}}
// CHECK-LABEL: func.func @negative
hop.symbol @u0 unbacked [-oo, 0] hint -3
func.func @negative() {
  func.return
}
