// --serialize verifies the parsed module first, as mlir-translate does: an invalid program
// is refused with the verifier's diagnostic and no artifact is written.
// RUN: rm -f %t.bc
// RUN: not stablehlo-translate --serialize --target=current %s -o %t.bc 2>&1 | FileCheck %s
// RUN: not test -e %t.bc

// CHECK: serialize_verifies.mlir:[[# @LINE + 2]]:8: error: The shape of reduction-region's result type at index 0 differs from the op's corresponding init-value type: 'tensor<f32>' vs 'tensor<4xf32>'
func.func @main(%a: tensor<4xf32>) -> tensor<f32> {
  %x = "stablehlo.reduce"(%a, %a) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %m = stablehlo.add %p, %q : tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  func.return %x : tensor<f32>
}
