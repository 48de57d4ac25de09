// hopc-opt's hopc-pipeline runs the stages hopc.compile runs (Note [compile
// stages] in hopc.driver), up to the one named: each stage's output has what
// that stage establishes and nothing of the stages after it. (tests/test_driver.py
// runs every stage, and the options, in one process.)

// RUN: hopc-opt %s --pass-pipeline='builtin.module(hopc-pipeline{to=functional})' | filecheck %s --check-prefix=FUNCTIONAL
// RUN: hopc-opt %s --pass-pipeline='builtin.module(hopc-pipeline{to=differentiated})' | filecheck %s --check-prefix=DIFFERENTIATED
// RUN: hopc-opt %s --pass-pipeline='builtin.module(hopc-pipeline{to=frozen})' | filecheck %s --check-prefix=FROZEN
// RUN: hopc-opt %s --pass-pipeline='builtin.module(hopc-pipeline{to=kernel})' | filecheck %s --check-prefix=KERNEL
// RUN: hopc-opt %s --pass-pipeline='builtin.module(hopc-pipeline{to=planned})' | filecheck %s --check-prefix=PLANNED

// Functional: the in-place op is gone; no backward yet.
// FUNCTIONAL-NOT:   hop.entry backward
// FUNCTIONAL:       func.func @forward
// FUNCTIONAL-NOT:   aten.sin_
// FUNCTIONAL:         aten.sin(

// Differentiated: %x requires grad, so a forward saving values and a backward.
// DIFFERENTIATED:   hop.entry backward @backward
// DIFFERENTIATED:   func.func @forward({{.*}}{hop.saved = 0 : i64}
// DIFFERENTIATED:   func.func @backward
// DIFFERENTIATED-NOT: kernel.

// Frozen in place of differentiated: the parameter is a constant, no backward.
// FROZEN-NOT:       hop.parameter
// FROZEN-NOT:       hop.entry backward
// FROZEN:           hop.constant @w
// FROZEN:           hop.get_constant @w
// FROZEN-NOT:       kernel.

// Kernel: ATen ops fused into launched kernels, no buffers planned yet.
// KERNEL:           builtin.module attributes {kernel.device = "cpu"}
// KERNEL:           kernel.kernel @{{.*}} "pointwise"
// KERNEL:           func.func @forward
// KERNEL-NOT:       kernel.alloc
// KERNEL:             kernel.launch

// Planned: launch results written into buffers, each function's peak bytes on it.
// PLANNED:          func.func @forward{{.*}}kernel.peak_bytes = 8 : i64
// PLANNED:            kernel.alloc()
// PLANNED:            kernel.launch {{.*}} into(
// PLANNED:          func.func @backward

// A stage that is no IR is refused.
// RUN: not hopc-opt %s -p 'hopc-pipeline{to=executable}' 2>&1 | filecheck %s --check-prefix=EXECUTABLE
// EXECUTABLE: error: hopc-pipeline: to is one of captured, functional, differentiated, frozen, kernel, planned, not 'executable'

hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @forward(%x: !hop.tensor<[2], f32> {hop.requires_grad}, %w: !hop.tensor<[2], f32> {hop.parameter = @w}) -> !hop.tensor<[2], f32> {
  %t = aten.mul.Tensor(%x, %w) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %s = aten.sin_(%t) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %s : !hop.tensor<[2], f32>
}
