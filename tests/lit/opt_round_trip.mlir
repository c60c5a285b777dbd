// RUN: stablehlo-opt %s | FileCheck %s
// RUN: stablehlo-opt %s | stablehlo-opt | FileCheck %s

// CHECK-LABEL: func.func @add
func.func @add(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
