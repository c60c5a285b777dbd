// RUN: stablehlo-opt %s --hlo-test-broadcast --split-input-file --allow-unregistered-dialect --verify-diagnostics | FileCheck %s

// [2, 1] x [3] => [2, 3]; a scalar broadcasts to every shape.
// CHECK-LABEL: func @static
// CHECK-NEXT: %[[L:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: stablehlo.custom_call @numpy_broadcasted(%[[L]], %[[R]], %[[S]]) {has_side_effect = true}
func.func @static(%arg0: tensor<2x1xf32>, %arg1: tensor<3xf32>, %arg2: tensor<f32>) -> !stablehlo.token {
  %0 = "hlo_test_broadcast.numpy_broadcast"(%arg0, %arg1, %arg2) : (tensor<2x1xf32>, tensor<3xf32>, tensor<f32>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

// [<=4] x [1, 1] => [1, <=4]: the padded broadcast takes the bounded operand's run-time size.
// CHECK-LABEL: func @bounded
// CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x4xf32>
// CHECK-NEXT: %[[N:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK-NEXT: %[[D:.*]] = stablehlo.set_dimension_size %[[B]], %[[N]], dim = 1 : (tensor<1x4xf32>, tensor<i32>) -> tensor<1x?xf32, #stablehlo.bounds<?, 4>>
// CHECK: stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<1x?xf32, #stablehlo.bounds<?, 4>>
func.func @bounded(%arg0: tensor<?xf32, #stablehlo.bounds<4>>, %arg1: tensor<1x1xf32>) -> !stablehlo.token {
  %0 = "hlo_test_broadcast.numpy_broadcast"(%arg1, %arg0) : (tensor<1x1xf32>, tensor<?xf32, #stablehlo.bounds<4>>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

// Errors leave the op in place and do not fail the pass.
// CHECK-LABEL: func @mismatch
// CHECK-NEXT: "hlo_test_broadcast.numpy_broadcast"(%arg0, %arg1)
// expected-error @+1 {{incompatible shapes for broadcasting 2 and 3}}
func.func @mismatch(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>) -> !stablehlo.token {
  %0 = "hlo_test_broadcast.numpy_broadcast"(%arg0, %arg1) : (tensor<2xf32>, tensor<3xf32>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

func.func @empty() -> !stablehlo.token {
  // expected-error @+1 {{requires at least one operand to broadcast}}
  %0 = "hlo_test_broadcast.numpy_broadcast"() : () -> !stablehlo.token
  return %0 : !stablehlo.token
}
