// RUN: stablehlo-opt --stablehlo-target-independent-optimization %s | FileCheck %s
// RUN: stablehlo-opt --stablehlo-target-independent-optimization=fold-op-element-limit=1 %s | FileCheck %s --check-prefix=LIMIT
// RUN: stablehlo-opt --stablehlo-target-independent-optimization=optimize-float=false %s | FileCheck %s --check-prefix=NOFLOAT

// Folding and simplification in one run: the constant moves right, then folds away.
// CHECK-LABEL: func.func @both
// CHECK-DAG: %[[C:.*]] = stablehlo.constant dense<[4, 6]> : tensor<2xi32>
// CHECK-DAG: %[[F:.*]] = stablehlo.constant dense<3.000000e+00> : tensor<f32>
// CHECK: return %arg0, %[[C]], %[[F]]
// LIMIT-LABEL: func.func @both
// LIMIT: stablehlo.concatenate
// NOFLOAT-LABEL: func.func @both
// NOFLOAT: stablehlo.add {{.*}} : tensor<f32>
func.func @both(%arg0: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>, tensor<f32>) {
  %zero = stablehlo.constant dense<0> : tensor<2xi32>
  %0 = stablehlo.add %zero, %arg0 : tensor<2xi32>
  %a = stablehlo.constant dense<[2]> : tensor<1xi32>
  %b = stablehlo.constant dense<[3]> : tensor<1xi32>
  %1 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %2 = stablehlo.add %1, %1 : tensor<2xi32>
  %f = stablehlo.constant dense<1.5> : tensor<f32>
  %3 = stablehlo.add %f, %f : tensor<f32>
  return %0, %2, %3 : tensor<2xi32>, tensor<2xi32>, tensor<f32>
}
