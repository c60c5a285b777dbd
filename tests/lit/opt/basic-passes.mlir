// The passes of earlier sessions, each on its own (upstream's files cover their details).
// RUN: stablehlo-opt -inline %s | FileCheck %s --check-prefix=INLINE
// RUN: stablehlo-opt --chlo-legalize-to-stablehlo %s | FileCheck %s --check-prefix=CHLO
// RUN: stablehlo-opt --chlo-pre-serialization-pipeline %s | FileCheck %s --check-prefix=CHLO
// RUN: stablehlo-opt --stablehlo-complex-math-expander %s | FileCheck %s --check-prefix=CMATH
// RUN: stablehlo-opt --strip-debuginfo --mlir-print-debuginfo %s | FileCheck %s --check-prefix=STRIP
// RUN: stablehlo-opt -emit-bytecode %s | stablehlo-opt --pass-pipeline='builtin.module(stablehlo-deserialize)' | FileCheck %s --check-prefix=DESER

// INLINE-LABEL: func.func @main
// INLINE-NOT: call @helper
// INLINE: stablehlo.multiply
// DESER: func.func private @helper
// DESER: func.func @main
// DESER: call @helper
// CHLO-NOT: chlo.
// CHLO: stablehlo.broadcast_in_dim
// CMATH-NOT: stablehlo.log_plus_one {{.*}}complex
// STRIP-NOT: loc("{{.*}}basic-passes.mlir"

func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32> loc("basic-passes.mlir":1:1)
  return %0 : tensor<2xf32>
}

func.func @main(%a: tensor<2xf32>, %b: tensor<f32>, %z: tensor<2xcomplex<f32>>) -> (tensor<2xf32>, tensor<2xcomplex<f32>>) {
  %0 = call @helper(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = chlo.broadcast_add %0, %b : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %2 = stablehlo.log_plus_one %z : tensor<2xcomplex<f32>>
  return %1, %2 : tensor<2xf32>, tensor<2xcomplex<f32>>
}
