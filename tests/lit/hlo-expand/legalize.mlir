// RUN: hlo-expand --legalize_broadcast --split-input-file %s | FileCheck %s --check-prefix=BROADCAST
// RUN: hlo-expand --legalize_create_token --split-input-file %s | FileCheck %s --check-prefix=TOKEN
// RUN: hlo-expand --legalize_cross_replica_sum --split-input-file %s | FileCheck %s --check-prefix=CRS
// RUN: hlo-expand --legalize_dot --split-input-file %s | FileCheck %s --check-prefix=DOT
// RUN: hlo-expand --legalize_unary_einsum --split-input-file %s | FileCheck %s --check-prefix=UNARY
// RUN: hlo-expand --legalize_einsum --split-input-file %s | FileCheck %s --check-prefix=EINSUM
// RUN: hlo-expand --legalize_torch_index_select --split-input-file %s | FileCheck %s --check-prefix=TIS
// RUN: hlo-expand --expand_all --split-input-file %s | FileCheck %s --check-prefix=ALL
// ALL-NOT: stablehlo.broadcast %
// ALL-NOT: stablehlo.create_token
// ALL-NOT: stablehlo.cross-replica-sum
// ALL-NOT: stablehlo.dot %
// ALL-NOT: einsum %
// ALL-NOT: stablehlo.torch_index_select

// BROADCAST-LABEL: func.func @broadcast
// BROADCAST: stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<2x3xf32>) -> tensor<4x5x2x3xf32>
func.func @broadcast(%arg0: tensor<2x3xf32>) -> tensor<4x5x2x3xf32> {
  %0 = "stablehlo.broadcast"(%arg0) {broadcast_sizes = array<i64: 4, 5>} : (tensor<2x3xf32>) -> tensor<4x5x2x3xf32>
  func.return %0 : tensor<4x5x2x3xf32>
}

// -----

// TOKEN-LABEL: func.func @create_token
// TOKEN: stablehlo.after_all : !stablehlo.token
func.func @create_token() -> !stablehlo.token {
  %0 = "stablehlo.create_token"() : () -> !stablehlo.token
  func.return %0 : !stablehlo.token
}

// -----

// CRS-LABEL: func.func @cross_replica_sum
// CRS: "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> ({
// CRS-NEXT: ^bb0(%[[A:.*]]: tensor<i32>, %[[B:.*]]: tensor<i32>):
// CRS-NEXT: %[[S:.*]] = stablehlo.add %[[A]], %[[B]] : tensor<i32>
// CRS-NEXT: stablehlo.return %[[S]] : tensor<i32>
// CRS-NEXT: }) : (tensor<4xi32>) -> tensor<4xi32>
func.func @cross_replica_sum(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "stablehlo.cross-replica-sum"(%arg0) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xi32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

// DOT-LABEL: func.func @dot
// DOT: stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0], precision = [HIGH, HIGHEST] : (tensor<3xf32>, tensor<3x?xf32>) -> tensor<?xf32>
func.func @dot(%arg0: tensor<3xf32>, %arg1: tensor<3x?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.dot %arg0, %arg1, precision = [HIGH, HIGHEST] : (tensor<3xf32>, tensor<3x?xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

// UNARY-LABEL: func.func @unary_einsum
// UNARY: %[[ONE:.*]] = stablehlo.constant dense<1> : tensor<i32>
// UNARY: stablehlo.einsum %[[ONE]], %arg0, config = ",ab->ba" : (tensor<i32>, tensor<2x3xi32>) -> tensor<3x2xi32>
// EINSUM-LABEL: func.func @unary_einsum
// EINSUM: stablehlo.unary_einsum
func.func @unary_einsum(%arg0: tensor<2x3xi32>) -> tensor<3x2xi32> {
  %0 = "stablehlo.unary_einsum"(%arg0) {einsum_config = "ab->ba"} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  func.return %0 : tensor<3x2xi32>
}

// -----

// Batch dimension b, contracting k, a label summed out first (z), output transposed.
// EINSUM-LABEL: func.func @einsum
// EINSUM: %[[R:.*]] = stablehlo.reduce(%arg1 init: %{{.*}}) applies stablehlo.add across dimensions = [3] : (tensor<2x5x6x7xf32>, tensor<f32>) -> tensor<2x5x6xf32>
// EINSUM: %[[D:.*]] = stablehlo.dot_general %arg0, %[[R]], batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x5xf32>, tensor<2x5x6xf32>) -> tensor<2x4x6xf32>
// EINSUM: stablehlo.transpose %[[D]], dims = [2, 0, 1] : (tensor<2x4x6xf32>) -> tensor<6x2x4xf32>
func.func @einsum(%arg0: tensor<2x4x5xf32>, %arg1: tensor<2x5x6x7xf32>) -> tensor<6x2x4xf32> {
  %0 = stablehlo.einsum %arg0, %arg1, config = "bik,bkjz->jbi" : (tensor<2x4x5xf32>, tensor<2x5x6x7xf32>) -> tensor<6x2x4xf32>
  func.return %0 : tensor<6x2x4xf32>
}

// -----

// TIS-LABEL: func.func @torch_index_select
// TIS: "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 4], collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 3>, slice_sizes = array<i64: 1, 3, 1, 5>}> : (tensor<2x3x7x5xf32>, tensor<2x4x6xi32>) -> tensor<2x3x4x6x5xf32>
func.func @torch_index_select(%arg0: tensor<2x3x7x5xf32>, %arg1: tensor<2x4x6xi32>) -> tensor<2x3x4x6x5xf32> {
  %0 = "stablehlo.torch_index_select"(%arg0, %arg1) {dim = 2 : i64, batch_dims = 1 : i64} : (tensor<2x3x7x5xf32>, tensor<2x4x6xi32>) -> tensor<2x3x4x6x5xf32>
  func.return %0 : tensor<2x3x4x6x5xf32>
}
