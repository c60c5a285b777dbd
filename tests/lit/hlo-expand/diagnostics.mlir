// Flags: unknown, XLA's but not implemented, malformed values.
// RUN: not hlo-expand --no_such_expander %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown flag '--no_such_expander' (see hlo-expand --help)
// RUN: not hlo-expand -spmd_expander %s 2>&1 | FileCheck %s --check-prefix=SPMD
// SPMD: error: flag '--spmd_expander' of XLA's hlo-expand is not supported: SPMD partitioning
// RUN: not hlo-expand --input_format=hlo %s 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: flag '--input_format' of XLA's hlo-expand is not supported: the input is always StableHLO
// RUN: not hlo-expand --expand_all=maybe %s 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: error: flag '--expand_all=maybe': expected true or false, got 'maybe'
// RUN: not hlo-expand %s -o 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: flag '-o' expects a file name

// Malformed input and shapes an expander needs static: located diagnostics, exit 1,
// and no -o file left behind.
// RUN: rm -f %t.out
// RUN: not hlo-expand --expand_all --split-input-file %s -o %t.out 2>&1 | FileCheck %s
// RUN: not ls %t.out

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:29: error: use of undeclared SSA value name
func.func @malformed(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %nope : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 3]]:8: error: 'stablehlo.rng' op cannot be expanded by --rng_expander: the result type tensor<?xf32> has a dynamic shape (its shape operand is not a constant)
// CHECK-NEXT: %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM
func.func @rng_dynamic(%a: tensor<f32>, %b: tensor<f32>, %shape: tensor<1xi64>) -> tensor<?xf32> {
  %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

// (upstream's verifier refuses the dynamic output before any expander sees it)
// CHECK: diagnostics.mlir:[[# @LINE + 2]]:12: error: 'stablehlo.rng_bit_generator' op result #1 must be statically shaped tensor of 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float values, but got 'tensor<?x2xui32>'
func.func @rbg_dynamic(%s: tensor<2xui64>) -> tensor<?x2xui32> {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<?x2xui32>)
  func.return %1 : tensor<?x2xui32>
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:8: error: 'stablehlo.torch_index_select' op cannot be expanded by --legalize_torch_index_select: the operand tensor<5x?xf32> has a dynamic size in a dimension gather slices whole
func.func @select_dynamic(%x: tensor<5x?xf32>, %i: tensor<2xi32>) -> tensor<2x?xf32> {
  %0 = "stablehlo.torch_index_select"(%x, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<5x?xf32>, tensor<2xi32>) -> tensor<2x?xf32>
  func.return %0 : tensor<2x?xf32>
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:8: error: 'stablehlo.einsum' op cannot be expanded by --legalize_einsum: equation 'ii,i->i': label 'i' repeats in the lhs term (diagonals are not supported)
func.func @einsum_diagonal(%x: tensor<3x3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.einsum %x, %y, config = "ii,i->i" : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 3]]:8: error: 'stablehlo.rng' op cannot be expanded by --rng_expander: a NORMAL distribution needs a float result, got i32
func.func @rng_normal_int(%a: tensor<i32>, %b: tensor<i32>) -> tensor<4xi32> {
  %shape = stablehlo.constant dense<4> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:8: error: 'chlo.broadcast_add' op has no StableHLO legalization here, and hlo-expand's output holds no CHLO
func.func @chlo_left_over(%x: tensor<?x3xf32>, %y: tensor<?xf32>) -> tensor<?x3xf32> {
  %0 = chlo.broadcast_add %x, %y {broadcast_dimensions = array<i64: 0>} : (tensor<?x3xf32>, tensor<?xf32>) -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
