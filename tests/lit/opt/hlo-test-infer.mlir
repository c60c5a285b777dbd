// RUN: stablehlo-opt %s --hlo-test-infer --allow-unregistered-dialect --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @types
// CHECK: "hlo_test_infer.return_types"(%0) {types0 = tensor<2x3xf32>}
// CHECK: "hlo_test_infer.return_types"(%1) {types0 = tensor<?x3xi1>}
// CHECK: "hlo_test_infer.return_types"(%2) {types0 = tensor<?xf32, #stablehlo.bounds<4>>}
func.func @types(%a: tensor<3xf32>, %b: tensor<2x1xf32>, %c: tensor<?x3xf32>, %d: tensor<?xf32, #stablehlo.bounds<4>>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<?x3xi1>, tensor<?xf32, #stablehlo.bounds<4>>) {
  %0 = chlo.broadcast_add %a, %b : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %1 = chlo.broadcast_compare %c, %a {comparison_direction = #chlo<comparison_direction LT>} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xi1>
  %2 = chlo.broadcast_multiply %d, %s : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<4>>
  %3 = "hlo_test_infer.get_return_types"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "hlo_test_infer.get_return_types"(%1) : (tensor<?x3xi1>) -> tensor<?x3xi1>
  %5 = "hlo_test_infer.get_return_types"(%2) : (tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<?xf32, #stablehlo.bounds<4>>
  return %3, %4, %5 : tensor<2x3xf32>, tensor<?x3xi1>, tensor<?xf32, #stablehlo.bounds<4>>
}

// -----

// The reified shape replaces the test op; the now unused chlo op is erased.
// CHECK-LABEL: func @reify
// CHECK-NEXT: %0 = shape.shape_of %arg0 : tensor<?xf32> -> tensor<1xindex>
// CHECK-NEXT: %1 = shape.shape_of %arg1 : tensor<?x?xf32> -> tensor<2xindex>
// CHECK-NEXT: %2 = shape.broadcast %0, %1 : tensor<1xindex>, tensor<2xindex> -> tensor<2xindex>
// CHECK-NEXT: return %2 : tensor<2xindex>
func.func @reify(%a: tensor<?xf32>, %b: tensor<?x?xf32>) -> tensor<2xindex> {
  %0 = chlo.broadcast_subtract %a, %b : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x?xf32>) -> tensor<2xindex>
  return %1 : tensor<2xindex>
}

// -----

// CHECK-LABEL: func @no_prefix_padding
// CHECK: "hlo_test_infer.reify_return_type_shapes"
func.func @no_prefix_padding(%a: tensor<?xf32>, %b: tensor<?x?xf32>) -> tensor<2xindex> {
  // expected-warning @+1 {{unsupported non prefix-padded dynamic rank broadcast_dimensions = array<i64: 0>}}
  %0 = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x?xf32>) -> tensor<2xindex>
  return %1 : tensor<2xindex>
}

// -----

// StableHLO ops report the type their verifier infers.
// CHECK-LABEL: func @stablehlo
// CHECK: types0 = tensor<2x3xi32>
func.func @stablehlo(%a: tensor<3x2xi32>) -> tensor<2x3xi32> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<3x2xi32>) -> tensor<2x3xi32>
  %1 = "hlo_test_infer.get_return_types"(%0) : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return %1 : tensor<2x3xi32>
}

// -----

func.func @mismatch(%a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<2xcomplex<f32>> {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{mismatched operand types}}
  %0 = chlo.broadcast_complex %a, %b : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

// StableHLO reification: static sizes are constants (hoisted, shared), dynamic ones tensor.dim.
// CHECK-LABEL: func @reify_concatenate
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[D0:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x3xf32>
// CHECK: %[[D1:.*]] = tensor.dim %arg1, %[[C0]] : tensor<?x3xf32>
// CHECK: %[[SUM:.*]] = arith.addi %[[D0]], %[[D1]] : index
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[SUM]], %[[C3]] : tensor<2xindex>
// CHECK: return %[[SHAPE]] : tensor<2xindex>
func.func @reify_concatenate(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> tensor<2xindex> {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x3xf32>) -> tensor<2xindex>
  return %1 : tensor<2xindex>
}

// -----

// An op without reification is left alone.
// CHECK-LABEL: func @no_reify
// CHECK: "hlo_test_infer.reify_return_type_shapes"(%0)
func.func @no_reify(%a: tensor<2xf32>) -> tensor<1xindex> {
  %0 = stablehlo.custom_call @foo(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<2xf32>) -> tensor<1xindex>
  return %1 : tensor<1xindex>
}
