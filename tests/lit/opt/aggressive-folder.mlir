// RUN: stablehlo-opt --stablehlo-aggressive-folder --split-input-file %s | FileCheck %s
// RUN: stablehlo-opt --stablehlo-aggressive-folder=fold-op-element-limit=2 --split-input-file %s | FileCheck %s --check-prefix=LIMIT
// RUN: stablehlo-opt --stablehlo-aggressive-folder=optimize-float=false --split-input-file %s | FileCheck %s --check-prefix=NOFLOAT
// RUN: stablehlo-opt --stablehlo-aggressive-folder=assume-no-undeclared-side-effects=true --split-input-file %s | FileCheck %s --check-prefix=PURE
// RUN: not stablehlo-opt --stablehlo-aggressive-folder=fold-op-element-limit=x %s 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: 'x' value invalid for integer argument!

// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<[3, 5, 7]> : tensor<3xi32>
// CHECK-NEXT: return %[[C]]
// LIMIT-LABEL: func.func @chain
// LIMIT: stablehlo.concatenate
func.func @chain() -> tensor<3xi32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.constant dense<[3]> : tensor<1xi32>
  %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<2xi32>, tensor<1xi32>) -> tensor<3xi32>
  %3 = stablehlo.add %2, %2 : tensor<3xi32>
  %4 = stablehlo.constant dense<1> : tensor<3xi32>
  %5 = stablehlo.add %3, %4 : tensor<3xi32>
  return %5 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @float_math
// CHECK-NEXT: stablehlo.constant dense<4.000000e+00> : tensor<f32>
// NOFLOAT-LABEL: func.func @float_math
// NOFLOAT: stablehlo.multiply
func.func @float_math() -> tensor<f32> {
  %0 = stablehlo.constant dense<2.0> : tensor<f32>
  %1 = stablehlo.multiply %0, %0 : tensor<f32>
  return %1 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @dead_while_with_call
// CHECK: stablehlo.while
// PURE-LABEL: func.func @dead_while_with_call
// PURE-NOT: stablehlo.while
func.func private @callee() -> tensor<i64>
func.func @dead_while_with_call() -> tensor<i64> {
  %0 = stablehlo.constant dense<0> : tensor<i64>
  %1 = stablehlo.while(%iterArg = %0) : tensor<i64>
    cond {
    %2 = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %2 : tensor<i1>
  } do {
    %2 = func.call @callee() : () -> tensor<i64>
    stablehlo.return %2 : tensor<i64>
  }
  return %0 : tensor<i64>
}
