// RUN: not stablehlo-translate --interpret -split-input-file %s 2>&1 | FileCheck %s

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_ssyevd_ffi: backend_config 'mode' must be one of 'V', 'N', got 'A'
func.func @syevd_mode() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_cheevd_ffi: result #1 must have element type f32, got tensor<3xcomplex<f32>>
func.func @heevd_real_eigenvalues() {
  %a = stablehlo.constant dense<(1.0, 0.0)> : tensor<3x3xcomplex<f32>>
  %r:3 = stablehlo.custom_call @lapack_cheevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgeev_ffi: result #2 must have element type complex<f32>, got tensor<3x3xf32>
func.func @geev_vectors_complex() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:5 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgeev_ffi: operand #0 must be a batch of square matrices, got tensor<3x2xf32>
func.func @geev_square() {
  %a = stablehlo.constant dense<1.0> : tensor<3x2xf32>
  %r:5 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}, api_version = 4 : i32} : (tensor<3x2xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgees_ffi: backend_config 'sort' must be one of 'N', got 'S'
func.func @gees_sort() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:6 = stablehlo.custom_call @lapack_sgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 83 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgehrd_ffi: needs 1 <= low <= high <= 3, got low = 1, high = 5
func.func @gehrd_range() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:3 = stablehlo.custom_call @lapack_sgehrd_ffi(%a) {mhlo.backend_config = {high = 5 : i32, low = 1 : i32}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<2xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgehrd_ffi: backend_config 'low' must be an integer, got 1.000000e+00 : f32
func.func @gehrd_int() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:3 = stablehlo.custom_call @lapack_sgehrd_ffi(%a) {mhlo.backend_config = {high = 3 : i32, low = 1.0 : f32}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<2xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_ssytrd_ffi: expects 5 results, got 4
func.func @sytrd_results() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:4 = stablehlo.custom_call @lapack_ssytrd_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<i32>)
  return
}
