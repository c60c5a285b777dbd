// RUN: not stablehlo-opt -split-input-file %s 2>&1 | FileCheck %s
// RUN: not shlo parse --split-input-file %s 2>&1 | FileCheck %s

// CHECK: parse_errors.mlir:[[# @LINE + 2]]:31: error: use of undeclared SSA value name
func.func @undefined(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.add"(%arg0, %nope) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK: parse_errors.mlir:[[# @LINE + 2]]:26: error: inferred shape of elements literal ([2]) does not match type ([3])
func.func @dense() {
  "stablehlo.add"() {x = dense<[1, 2]> : tensor<3xi32>} : () -> ()
  func.return
}

// -----

// CHECK: parse_errors.mlir:[[# @LINE + 1]]:40: error: expected '>' in tensor type
func.func @unclosed(%arg0: tensor<2xf32) {
  func.return
}

// -----

// CHECK-NOT: Traceback
func.func @fine() {
  func.return
}

// -----

// CHECK: parse_errors.mlir:[[# @LINE + 1]]:38: error: unknown escape in string literal
func.func @escape() attributes {x = "\q"} {
  func.return
}

// -----

// CHECK: parse_errors.mlir:[[# @LINE + 1]]:46: error: expected '"' in string literal
func.func @unterminated() attributes {x = "ab
} {
  func.return
}

// -----

// CHECK: parse_errors.mlir:[[# @LINE + 5]]:1: error: redefinition of symbol named 'twice'
// CHECK: parse_errors.mlir:[[# @LINE + 1]]:1: note: see existing symbol definition here
func.func @twice() {
  func.return
}
func.func @twice() {
  func.return
}

// -----

// CHECK: parse_errors.mlir:[[# @LINE + 2]]:8: error: custom op 'stablehlo.case' has no custom assembly form
func.func @generic_only(%arg0: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.case(%arg0) ({
    stablehlo.return %arg0 : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

// CHECK: parse_errors.mlir:[[# @LINE + 3]]:39: error: unexpected decimal integer literal for a floating point value
// CHECK: parse_errors.mlir:[[# @LINE + 2]]:39: note: add a trailing dot to make the literal a float
func.func @decimal_float() {
  %0 = stablehlo.constant dense<[1.5, 2]> : tensor<2xf32>
  func.return
}
