// `enable-shape-assertions=false` erases assertions without checking them.
// RUN: not stablehlo-opt %s --stablehlo-check-shape-assertions 2>&1 | FileCheck %s --check-prefix=ON
// RUN: stablehlo-opt %s --stablehlo-check-shape-assertions=enable-shape-assertions=false | FileCheck %s --check-prefix=OFF

// ON: check_shape_assertions_enable.mlir:[[# @LINE + 6]]:3: error: size 7 is too big
// OFF-LABEL: func.func @main
// OFF-NOT: custom_call
func.func @main() {
  %p = stablehlo.constant dense<false> : tensor<i1>
  %n = stablehlo.constant dense<7> : tensor<i64>
  stablehlo.custom_call @shape_assertion(%p, %n) {error_message = "size {0} is too big", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
  return
}
