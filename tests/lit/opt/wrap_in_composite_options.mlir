// `op-names` picks the ops to wrap; `version` is written on the composite (0 is left out).
// RUN: stablehlo-opt %s --stablehlo-wrap-in-composite='op-names=stablehlo.multiply version=2' | FileCheck %s
// RUN: stablehlo-opt %s --stablehlo-wrap-in-composite=op-names=stablehlo.add | FileCheck %s --check-prefix=V0

// CHECK: stablehlo.add %arg0, %arg1
// CHECK-NEXT: stablehlo.composite "stablehlo.multiply" %0, %arg1 {decomposition = @stablehlo.multiply.impl, version = 2 : i32}
// CHECK: func.func private @stablehlo.multiply.impl
// V0: stablehlo.composite "stablehlo.add" %arg0, %arg1 {decomposition = @stablehlo.add.impl} :
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>
  %1 = stablehlo.multiply %0, %arg1 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
