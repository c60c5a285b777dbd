// RUN: stablehlo-opt --stablehlo-canonicalize-dynamism --split-input-file --verify-diagnostics %s | FileCheck %s

// CHECK-LABEL: func.func @static_forms
// CHECK-NEXT: %[[I:.*]] = stablehlo.iota dim = 0 : tensor<6xf32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %[[I]] : (tensor<6xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %[[R]], dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[B]]
func.func @static_forms() -> tensor<4x2x3xf32> {
  %s1 = stablehlo.constant dense<6> : tensor<1xi64>
  %s2 = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %s3 = stablehlo.constant dense<[4, 2, 3]> : tensor<3xi64>
  %0 = stablehlo.dynamic_iota %s1, dim = 0 : (tensor<1xi64>) -> tensor<6xf32>
  %1 = stablehlo.dynamic_reshape %0, %s2 : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %2 = stablehlo.dynamic_broadcast_in_dim %1, %s3, dims = [1, 2] : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<4x2x3xf32>
  return %2 : tensor<4x2x3xf32>
}

// -----

// A dynamic result type keeps the dynamic op.
// CHECK-LABEL: func.func @dynamic_result
// CHECK: stablehlo.dynamic_iota
func.func @dynamic_result() -> tensor<?xf32> {
  %s = stablehlo.constant dense<6> : tensor<1xi64>
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @pad_and_slice
// CHECK: stablehlo.pad %arg0, %arg1, low = [1], high = [2], interior = [0]
// CHECK: stablehlo.slice %{{.*}} [1:5:2]
func.func @pad_and_slice(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> tensor<2xf32> {
  %lo = stablehlo.constant dense<1> : tensor<1xi64>
  %hi = stablehlo.constant dense<2> : tensor<1xi64>
  %in = stablehlo.constant dense<0> : tensor<1xi64>
  %0 = stablehlo.dynamic_pad %arg0, %arg1, %lo, %hi, %in : (tensor<4xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<7xf32>
  %start = stablehlo.constant dense<1> : tensor<1xi64>
  %limit = stablehlo.constant dense<5> : tensor<1xi64>
  %stride = stablehlo.constant dense<2> : tensor<1xi64>
  %1 = stablehlo.real_dynamic_slice %0, %start, %limit, %stride : (tensor<7xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

func.func @bad_shape_index(%arg0: tensor<4xf32>) -> tensor<1x2xf32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  // expected-error@+1 {{indices_of_shape_operands: index #0 (5) must be within bounds for operation operands (from 0 to 2)}}
  %1 = stablehlo.custom_call @foo(%arg0, %0) {indices_of_shape_operands = dense<[5]> : tensor<1xi64>} : (tensor<4xf32>, tensor<2xi64>) -> tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}
