// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// A hint outside the symbol's range is an error.
// expected-error @+1 {{'hop.symbol' op @s0 has hint 1 outside its range [2, oo]}}
hop.symbol @s0 backed [2, oo] hint 1

// -----

// expected-error @+1 {{'hop.symbol' op @s0 has hint 65 outside its range [2, 64]}}
hop.symbol @s0 backed [2, 64] hint 65
