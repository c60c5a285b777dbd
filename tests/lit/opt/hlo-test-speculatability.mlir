// RUN: stablehlo-opt %s --hlo-test-speculatability --split-input-file --allow-unregistered-dialect | FileCheck %s

// A right expectation erases the check and the op it names; dead constants go too.
// CHECK-LABEL: func @right
// CHECK-NEXT: return
func.func @right(%s: tensor<2xf64>, %d: tensor<?xf64>, %shape: tensor<1xi64>) {
  %0 = stablehlo.abs %d : (tensor<?xf64>) -> tensor<2xf64>
  "hlo_test_speculatability.is_not_speculatable"(%0) : (tensor<2xf64>) -> ()
  %c = stablehlo.constant dense<2> : tensor<1xi64>
  %1 = stablehlo.dynamic_iota %c, dim = 0 : (tensor<1xi64>) -> tensor<2xf64>
  "hlo_test_speculatability.is_speculatable"(%1) : (tensor<2xf64>) -> ()
  %2 = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi64>) -> tensor<2xf64>
  "hlo_test_speculatability.is_not_speculatable"(%2) : (tensor<2xf64>) -> ()
  return
}

// -----

// A wrong expectation, or an op with two uses, leaves everything in place.
// CHECK-LABEL: func @kept
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %arg0, %arg0
// CHECK-NEXT: "hlo_test_speculatability.is_not_speculatable"(%[[A]])
// CHECK-NEXT: %[[N:.*]] = stablehlo.negate %arg0
// CHECK-NEXT: "hlo_test_speculatability.is_speculatable"(%[[N]])
// CHECK-NEXT: "hlo_test_speculatability.is_speculatable"(%[[N]])
// CHECK-NEXT: return
func.func @kept(%s: tensor<2xf64>) {
  %0 = stablehlo.add %s, %s : tensor<2xf64>
  "hlo_test_speculatability.is_not_speculatable"(%0) : (tensor<2xf64>) -> ()
  %1 = stablehlo.negate %s : tensor<2xf64>
  "hlo_test_speculatability.is_speculatable"(%1) : (tensor<2xf64>) -> ()
  "hlo_test_speculatability.is_speculatable"(%1) : (tensor<2xf64>) -> ()
  return
}

// -----

// Ops with regions are recursively speculatable when their inputs are static.
// CHECK-LABEL: func @recursive
// CHECK-NEXT: return
func.func @recursive(%s: tensor<2x4xf64>, %d: tensor<?x4xf64>, %init: tensor<f64>) {
  %0:2 = "stablehlo.reduce"(%s, %s, %init, %init) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>, %c: tensor<f64>, %e: tensor<f64>):
      stablehlo.return %a, %b : tensor<f64>, tensor<f64>
  }) {dimensions = array<i64: 0>} : (tensor<2x4xf64>, tensor<2x4xf64>, tensor<f64>, tensor<f64>) -> (tensor<?xf64>, tensor<?xf64>)
  "hlo_test_speculatability.is_recursively_speculatable"(%0) : (tensor<?xf64>) -> ()
  %1 = stablehlo.transpose %d, dims = [1, 0] : (tensor<?x4xf64>) -> tensor<4x?xf64>
  "hlo_test_speculatability.is_speculatable"(%1) : (tensor<4x?xf64>) -> ()
  return
}
