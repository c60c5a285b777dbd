// RUN: stablehlo-opt --stablehlo-refine-arguments='types=tensor<3xf32>,tensor<2x5xi32>' %s | FileCheck %s
// RUN: stablehlo-opt --pass-pipeline='builtin.module(stablehlo-refine-arguments{types=tensor<3xf32>,tensor<2x5xi32>},stablehlo-refine-shapes)' %s | FileCheck %s --check-prefix=PIPE
// RUN: not stablehlo-opt --stablehlo-refine-arguments='types=!bad.type' %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not stablehlo-opt --stablehlo-refine-arguments='types=tensor<3xf32>' %s 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not stablehlo-opt --stablehlo-refine-arguments='types=tensor<3xf32>,tensor<3x5xi32>' %s 2>&1 | FileCheck %s --check-prefix=STATIC

// CHECK-LABEL: func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<2x5xi32>) -> tensor<?xf32>
// CHECK-NEXT: %[[S0:.*]] = stablehlo.constant dense<3> : tensor<1xi64>
// CHECK-NEXT: %[[W0:.*]] = stablehlo.custom_call @stablehlo.shape_refinement_operand_wrapper(%arg0, %[[S0]]) {indices_of_shape_operands = dense<1> : tensor<1xi64>} : (tensor<3xf32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK-NEXT: %[[S1:.*]] = stablehlo.constant dense<[2, 5]> : tensor<2xi64>
// CHECK-NEXT: %[[W1:.*]] = stablehlo.custom_call @stablehlo.shape_refinement_operand_wrapper(%arg1, %[[S1]])
// CHECK-SAME: (tensor<2x5xi32>, tensor<2xi64>) -> tensor<2x?xi32>
// CHECK-NEXT: %[[A:.*]] = stablehlo.abs %[[W0]] : tensor<?xf32>
// CHECK-NEXT: return %[[A]] : tensor<?xf32>

// The wrappers go away once shapes are refined.
// PIPE-LABEL: func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<2x5xi32>) -> tensor<3xf32>
// PIPE-NOT: custom_call
// PIPE: stablehlo.abs %arg0 : tensor<3xf32>

// BAD: error: 'builtin.module' op Invalid type string: !bad.type
// COUNT: error: 'func.func' op number of refinements must match number of op operands 1 vs 2
// STATIC: error: 'func.func' op invalid refinement for argument 1, refinement dimension sizes must match for static dimensions in tensor<2x?xi32> -> tensor<3x5xi32>
func.func @main(%arg0: tensor<?xf32>, %arg1: tensor<2x?xi32>) -> tensor<?xf32> {
  %0 = stablehlo.abs %arg0 : tensor<?xf32>
  return %0 : tensor<?xf32>
}
