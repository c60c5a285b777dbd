// RUN: stablehlo-opt -emit-bytecode %s | stablehlo-opt | FileCheck %s
// RUN: stablehlo-opt -emit-bytecode -emit-bytecode-version 3 %s | stablehlo-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: stablehlo-opt -emit-bytecode %s | stablehlo-opt -emit-bytecode | stablehlo-opt | FileCheck %s

// CHECK-LABEL: func.func @main
// GENERIC: "func.func"() <{function_type = (tensor<2xf32>) -> tensor<f32>, sym_name = "main"}>
func.func @main(%arg0: tensor<2xf32>) -> tensor<f32> {
  // CHECK: %[[C:.*]] = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: stablehlo.compare  LT, %arg0, %[[C]]
  %1 = stablehlo.compare LT, %arg0, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %2 = stablehlo.select %1, %arg0, %0 : tensor<2xi1>, tensor<2xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  // CHECK: stablehlo.reduce
  // GENERIC: "stablehlo.reduce"
  // GENERIC: ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
  %3 = stablehlo.reduce(%2 init: %init) across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %4 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %4 : tensor<f32>
  }
  return %3 : tensor<f32>
}
