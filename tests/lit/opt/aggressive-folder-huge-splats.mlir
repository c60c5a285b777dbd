// Splats fold on one element: no materialized 10^22-element (or 3.6 GB) array.
// RUN: stablehlo-opt --stablehlo-aggressive-folder %s | FileCheck %s

// CHECK-LABEL: func.func @huge
// CHECK: stablehlo.add
func.func @huge() -> tensor<99999999999x99999999999xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<99999999999x99999999999xf32>
  %1 = stablehlo.add %0, %0 : tensor<99999999999x99999999999xf32>
  func.return %1 : tensor<99999999999x99999999999xf32>
}

// CHECK-LABEL: func.func @big
// CHECK-NEXT: stablehlo.constant dense<3> : tensor<30000x30000xi32>
// CHECK-NEXT: return
func.func @big() -> tensor<30000x30000xi32> {
  %0 = stablehlo.constant dense<1> : tensor<30000x30000xi32>
  %1 = stablehlo.constant dense<2> : tensor<30000x30000xi32>
  %2 = stablehlo.add %0, %1 : tensor<30000x30000xi32>
  func.return %2 : tensor<30000x30000xi32>
}
