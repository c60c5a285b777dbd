// RUN: stablehlo-opt --stablehlo-legalize-deprecated-ops --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: not stablehlo-opt --stablehlo-legalize-deprecated-ops --split-input-file %s 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: stablehlo-opt --stablehlo-legalize-deprecated-ops=fail-on-unused=false --split-input-file %s | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @deprecated
// CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xi32>) -> tensor<5x2x3xi32>
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %arg1, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, HIGH] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: %[[T:.*]] = stablehlo.after_all : !stablehlo.token
// CHECK-NEXT: %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[E:.*]] = stablehlo.einsum %[[ONE]], %arg1, config = ",ij->j" : (tensor<f32>, tensor<4x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = "stablehlo.all_reduce"(%arg1) <{replica_groups = dense<0> : tensor<1x1xi64>}> ({
// CHECK: stablehlo.add
// Upstream's pass keeps einsum and torch_index_select:
// CHECK: stablehlo.einsum %arg1, %arg1, config = "ij,jk->ik"
// CHECK: "stablehlo.torch_index_select"
func.func @deprecated(%arg0: tensor<2x3xi32>, %arg1: tensor<4x4xf32>, %arg2: tensor<2xi32>) -> (tensor<5x2x3xi32>, tensor<4x4xf32>, !stablehlo.token, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) {
  %0 = "stablehlo.broadcast"(%arg0) {broadcast_sizes = array<i64: 5>} : (tensor<2x3xi32>) -> tensor<5x2x3xi32>
  %1 = stablehlo.dot %arg1, %arg1, precision = [DEFAULT, HIGH] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = "stablehlo.create_token"() : () -> !stablehlo.token
  %3 = "stablehlo.unary_einsum"(%arg1) {einsum_config = "ij->j"} : (tensor<4x4xf32>) -> tensor<4xf32>
  %4 = "stablehlo.cross-replica-sum"(%arg1) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %5 = stablehlo.einsum %arg1, %arg1, config = "ij,jk->ik" : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %6 = "stablehlo.torch_index_select"(%arg1, %arg2) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<4x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<5x2x3xi32>, tensor<4x4xf32>, !stablehlo.token, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>
}

// -----

// KEEP-LABEL: func.func @rng
// KEEP: stablehlo.rng
// ERR: stablehlo-legalize-deprecated-ops.mlir:[[# @LINE + 3]]:8: error: failed to legalize operation 'stablehlo.rng' that was explicitly marked illegal
func.func @rng(%a: tensor<f32>, %b: tensor<f32>, %s: tensor<1xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.rng' that was explicitly marked illegal}}
  %0 = stablehlo.rng %a, %b, %s, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// KEEP-LABEL: func.func @map
// KEEP: "stablehlo.map"
// ERR: error: failed to legalize operation 'stablehlo.map' that was explicitly marked illegal
func.func @map(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.map' that was explicitly marked illegal}}
  %0 = "stablehlo.map"(%arg0) ({
    ^bb0(%x: tensor<f32>):
      %1 = stablehlo.negate %x : tensor<f32>
      stablehlo.return %1 : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
