// RUN: not stablehlo-translate --interpret -split-input-file %s 2>&1 | FileCheck %s

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgesdd_ffi: backend_config 'mode' must be one of 'A', 'S', 'N', got 'O'
func.func @gesdd_mode() {
  %a = stablehlo.constant dense<1.0> : tensor<3x2xf32>
  %r:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 79 : ui8}, api_version = 4 : i32} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<3x3xf32>, tensor<2x2xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_zgesvd_ffi: result #1 must have element type f64, got tensor<2xcomplex<f64>>
func.func @gesvd_s_real() {
  %a = stablehlo.constant dense<(1.0, 0.0)> : tensor<3x2xcomplex<f64>>
  %r:5 = stablehlo.custom_call @lapack_zgesvd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}, api_version = 4 : i32} : (tensor<3x2xcomplex<f64>>) -> (tensor<3x2xcomplex<f64>>, tensor<2xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<2x2xcomplex<f64>>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_strsm_ffi: backend_config 'trans_x' must be one of 'N', 'T', 'C', got 'X'
func.func @trsm_trans() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r = stablehlo.custom_call @lapack_strsm_ffi(%a, %a) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 88 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_strsm_ffi: backend_config requires 'diag'
func.func @trsm_missing_diag() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r = stablehlo.custom_call @lapack_strsm_ffi(%a, %a) {mhlo.backend_config = {side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_strsm_ffi: backend_config 'side' must be a character code, got "left"
func.func @trsm_char() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r = stablehlo.custom_call @lapack_strsm_ffi(%a, %a) {mhlo.backend_config = {diag = "N", side = "left", trans_x = 78 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: custom call @lapack_sgtsv_ffi: expects 4 operands, got 3
func.func @gtsv_operands() {
  %t = stablehlo.constant dense<0.0> : tensor<3xf32>
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:5 = stablehlo.custom_call @lapack_sgtsv_ffi(%t, %t, %a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<i32>)
  return
}
