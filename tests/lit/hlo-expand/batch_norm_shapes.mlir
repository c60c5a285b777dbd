// RUN: hlo-expand --batch_norm_expander --split-input-file %s | FileCheck %s

// Rank 4, feature last, bf16: everything stays in bf16 as XLA computes it.
// CHECK-LABEL: func.func @nhwc_bf16
// CHECK: stablehlo.constant dense<1.001360e-05> : tensor<bf16>
// CHECK: stablehlo.constant dense<4.800000e+01> : tensor<bf16>
// CHECK: stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x4x6x3xbf16>, tensor<bf16>) -> tensor<3xbf16>
// CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [3] : (tensor<3xbf16>) -> tensor<2x4x6x3xbf16>
// CHECK-NOT: batch_norm
func.func @nhwc_bf16(%x: tensor<2x4x6x3xbf16>, %s: tensor<3xbf16>, %o: tensor<3xbf16>) -> tensor<2x4x6x3xbf16> {
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 3 : i64} : (tensor<2x4x6x3xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> (tensor<2x4x6x3xbf16>, tensor<3xbf16>, tensor<3xbf16>)
  func.return %0#0 : tensor<2x4x6x3xbf16>
}

// -----

// Dynamic sizes: the element count is XLA's product of get_dimension_size, and broadcasts
// follow the operand's run-time shape.
// CHECK-LABEL: func.func @dynamic
// CHECK-DAG: %[[D0:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3x?xf64>) -> tensor<i32>
// CHECK-DAG: %[[N0:.*]] = stablehlo.multiply %[[D0]], %{{.*}} : tensor<i32>
// CHECK-DAG: %[[D2:.*]] = stablehlo.get_dimension_size %arg0, dim = 2 : (tensor<?x3x?xf64>) -> tensor<i32>
// CHECK: %[[N:.*]] = stablehlo.multiply %[[D2]], %[[N0]] : tensor<i32>
// CHECK: stablehlo.convert %[[N]] : (tensor<i32>) -> tensor<f64>
// CHECK: stablehlo.dynamic_broadcast_in_dim %{{.*}}, %{{.*}}, dims = [1] : (tensor<3xf64>, tensor<3xi64>) -> tensor<?x3x?xf64>
// CHECK-NOT: batch_norm
func.func @dynamic(%x: tensor<?x3x?xf64>, %s: tensor<3xf64>, %m: tensor<3xf64>, %v: tensor<3xf64>) -> (tensor<?x3x?xf64>, tensor<3xf64>) {
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %x) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<?x3x?xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<?x3x?xf64>) -> (tensor<?x3x?xf64>, tensor<3xf64>, tensor<3xf64>)
  func.return %0#0, %0#1 : tensor<?x3x?xf64>, tensor<3xf64>
}
