// MlirOptMain's -verify-each and -mlir-disable-threading (upstream's tosa tests use the first)
// are accepted in every spelling LLVM's parser takes; a bad boolean value is still refused.
// RUN: stablehlo-opt %s --canonicalize -verify-each | FileCheck %s
// RUN: stablehlo-opt %s --canonicalize --verify-each=false | FileCheck %s
// RUN: stablehlo-opt %s --canonicalize -verify-each=1 --mlir-disable-threading | FileCheck %s
// RUN: stablehlo-opt %s --pass-pipeline='builtin.module(canonicalize)' -mlir-disable-threading | FileCheck %s
// RUN: not stablehlo-opt %s -verify-each=maybe 2>&1 | FileCheck %s --check-prefix=BADBOOL

// BADBOOL: stablehlo-opt: for the --verify-each option: 'maybe' is invalid value for boolean argument! Try 0 or 1

// CHECK-LABEL: func.func @main
// CHECK-NEXT: stablehlo.reshape %arg0
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
