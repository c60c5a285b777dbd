// RUN: stablehlo-opt --stablehlo-aggressive-simplification --split-input-file %s | FileCheck %s
// RUN: stablehlo-opt --stablehlo-aggressive-simplification=fold-op-element-limit=1 --split-input-file %s | FileCheck %s --check-prefix=LIMIT
// RUN: not stablehlo-opt --stablehlo-aggressive-simplification=fold-op-element-limit=x %s 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: 'x' value invalid for integer argument!

// CHECK-LABEL: func.func @identities
// CHECK-NEXT: return %arg0, %arg0, %arg0
func.func @identities(%arg0: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %zero = stablehlo.constant dense<0> : tensor<2xi32>
  %one = stablehlo.constant dense<1> : tensor<2xi32>
  %0 = stablehlo.add %zero, %arg0 : tensor<2xi32>
  %1 = stablehlo.multiply %arg0, %one : tensor<2xi32>
  %2 = stablehlo.transpose %arg0, dims = [0] : (tensor<2xi32>) -> tensor<2xi32>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @select_of_constants
// CHECK: stablehlo.constant dense<[1, 4]>
// LIMIT-LABEL: func.func @select_of_constants
// LIMIT: stablehlo.select
func.func @select_of_constants() -> tensor<2xi32> {
  %p = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
  %0 = stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xi32>
  return %0 : tensor<2xi32>
}
