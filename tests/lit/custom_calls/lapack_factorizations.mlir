// RUN: not stablehlo-translate --interpret -split-input-file %s 2>&1 | FileCheck %s

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_spotrf_ffi: backend_config 'uplo' must be one of 'L', 'U', got 'X'
func.func @potrf_uplo() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 88 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_spotrf_ffi: backend_config requires 'uplo'
func.func @potrf_missing_uplo() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_spotrf_ffi: operand #0 must be a batch of square matrices, got tensor<3x2xf32>
func.func @potrf_square() {
  %a = stablehlo.constant dense<1.0> : tensor<3x2xf32>
  %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_dpotrf_ffi: operand #0 must have element type f64, got tensor<3x3xf32>
func.func @potrf_dtype() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgetrf_ffi: expects 3 results, got 2
func.func @getrf_results() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:2 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgetrf_ffi: result #1 must have element type i32, got tensor<3xi64>
func.func @getrf_pivot_type() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi64>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgetrf_ffi: operand #0 has layout [1, 0], expected [0, 1] (jax's layout for this position)
func.func @getrf_layout() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sgeqrf_ffi: operand #0 must have rank >= 2, got tensor<3xf32>
func.func @geqrf_rank() {
  %t = stablehlo.constant dense<0.0> : tensor<3xf32>
  %r:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%t) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @lapack_sorgqr_ffi: expects 2 operands, got 1
func.func @orgqr_operands() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r = stablehlo.custom_call @lapack_sorgqr_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: custom call @lapack_sormqr_ffi: backend_config 'left' must be a bool, got 2 : i32
func.func @ormqr_bool() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %t = stablehlo.constant dense<0.0> : tensor<3xf32>
  %r = stablehlo.custom_call @lapack_sormqr_ffi(%a, %t, %a) {mhlo.backend_config = {left = 2 : i32, transpose = false}, api_version = 4 : i32} : (tensor<3x3xf32>, tensor<3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: custom call @lapack_sgeqp3_ffi: only all-zero initial jpvt (free columns) is supported
func.func @geqp3_jpvt() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %j = stablehlo.constant dense<[1, 0, 0]> : tensor<3xi32>
  %r:3 = stablehlo.custom_call @lapack_sgeqp3_ffi(%a, %j) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3x3xf32>, tensor<3xi32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<3xf32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: Unsupported custom call target: @lapack_qpotrf_ffi
func.func @unknown() {
  %a = stablehlo.constant dense<[[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]> : tensor<3x3xf32>
  %r:2 = stablehlo.custom_call @lapack_qpotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return
}
