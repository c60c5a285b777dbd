// RUN: not stablehlo-translate --interpret -split-input-file %s 2>&1 | FileCheck %s

// CHECK: {{.*}}.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: custom call @lapack_sgetrf: operand #0 must have element type i32 or i64 or ui8, got tensor<f32>
func.func @legacy_getrf_scalar_type() {
  %a = stablehlo.constant dense<1.0> : tensor<3x3xf32>
  %f = stablehlo.constant dense<1.0> : tensor<f32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %r:3 = stablehlo.custom_call @lapack_sgetrf(%f, %n, %n, %a) {api_version = 2 : i32} : (tensor<f32>, tensor<i32>, tensor<i32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: custom call @lapack_spotrf: expects 4 operands, got 2
func.func @legacy_potrf_operands() {
  %a = stablehlo.constant dense<1.0> : tensor<3x3xf32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %r:2 = stablehlo.custom_call @lapack_spotrf(%n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: custom call @lapack_sgeev: compute_left must be 'V' or 'N', got 'X'
func.func @legacy_geev_job() {
  %a = stablehlo.constant dense<1.0> : tensor<3x3xf32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %j = stablehlo.constant dense<88> : tensor<ui8>
  %r:6 = stablehlo.custom_call @lapack_sgeev(%n, %n, %j, %j, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<ui8>, tensor<ui8>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: custom call @lapack_sgehrd: needs 1 <= ilo <= ihi <= 3
func.func @legacy_gehrd_range() {
  %a = stablehlo.constant dense<1.0> : tensor<3x3xf32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r:4 = stablehlo.custom_call @lapack_sgehrd(%n, %z, %n, %n, %n, %n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<2xf32>, tensor<i32>, tensor<8xf32>)
  return
}
