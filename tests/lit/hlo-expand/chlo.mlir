// HLO has no CHLO: hlo-expand legalizes CHLO ops first, with or without expander flags.
// RUN: hlo-expand %s | FileCheck %s
// RUN: hlo-expand %s | stablehlo-translate --interpret

// CHECK-LABEL: func.func @main
// CHECK-NOT: chlo.
// CHECK: stablehlo.broadcast_in_dim
// CHECK: stablehlo.add
func.func @main() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %y = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %0 = chlo.broadcast_add %x, %y : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %0, dense<[[11.0, 22.0], [13.0, 24.0]]> : tensor<2x2xf32>
  func.return
}
