// RUN: not stablehlo-translate --interpret -split-input-file %s 2>&1 | FileCheck %s

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: Expected value >= 3 for dimension variable 'b', got 2.
func.func @shape_assertion_fails() {
  %p = stablehlo.constant dense<false> : tensor<i1>
  %v = stablehlo.constant dense<2> : tensor<i32>
  stablehlo.custom_call @shape_assertion(%p, %v) {api_version = 2 : i32, error_message = "Expected value >= 3 for dimension variable 'b', got {0}.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @shape_assertion: requires a string attribute 'error_message'
func.func @shape_assertion_no_message() {
  %p = stablehlo.constant dense<true> : tensor<i1>
  stablehlo.custom_call @shape_assertion(%p) {api_version = 2 : i32, has_side_effect = true} : (tensor<i1>) -> ()
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @shape_assertion: operand #0 must have element type i1, got tensor<i32>
func.func @shape_assertion_predicate() {
  %p = stablehlo.constant dense<1> : tensor<i32>
  stablehlo.custom_call @shape_assertion(%p) {error_message = "m", has_side_effect = true} : (tensor<i32>) -> ()
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: custom call @stablehlo.dynamic_top_k: k = 5 exceeds the last dimension of (3,)
func.func @dynamic_top_k_k() {
  %x = stablehlo.constant dense<[1.0, 7.0, 3.0]> : tensor<3xf32>
  %k = stablehlo.constant dense<5> : tensor<i32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) {api_version = 2 : i32} : (tensor<3xf32>, tensor<i32>) -> (tensor<?xf32>, tensor<?xi32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: custom call @stablehlo.dynamic_top_k: operand #1 must have element type i8 or i16 or i32 or i64 or ui8 or ui16 or ui32 or ui64, got tensor<f32>
func.func @dynamic_top_k_k_type() {
  %x = stablehlo.constant dense<[1.0, 7.0, 3.0]> : tensor<3xf32>
  %k = stablehlo.constant dense<1.0> : tensor<f32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) {api_version = 2 : i32} : (tensor<3xf32>, tensor<f32>) -> (tensor<?xf32>, tensor<?xi32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @ApproxTopK: expects N inputs followed by N initial values
func.func @approx_top_k_pairs() {
  %x = stablehlo.constant dense<[1.0, 7.0, 3.0]> : tensor<3xf32>
  %r = stablehlo.custom_call @ApproxTopK(%x) {mhlo.backend_config = {top_k = 1 : i64, reduction_dim = 0 : i64}} : (tensor<3xf32>) -> tensor<1xf32>
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: custom call @ApproxTopK: backend_config requires 'top_k'
func.func @approx_top_k_missing_k() {
  %x = stablehlo.constant dense<[1.0, 7.0, 3.0]> : tensor<3xf32>
  %i = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.custom_call @ApproxTopK(%x, %i) {mhlo.backend_config = {reduction_dim = 0 : i64}} : (tensor<3xf32>, tensor<f32>) -> tensor<1xf32>
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: custom call @ApproxTopK: requires one comparator in 'called_computations'
func.func @approx_top_k_comparator() {
  %x = stablehlo.constant dense<[1.0, 7.0, 3.0]> : tensor<3xf32>
  %i = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.custom_call @ApproxTopK(%x, %i) {mhlo.backend_config = {top_k = 1 : i64, reduction_dim = 0 : i64}} : (tensor<3xf32>, tensor<f32>) -> tensor<1xf32>
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: custom call @stablehlo.dynamic_approx_top_k: k must be >= 0, got -1
func.func @dynamic_approx_top_k_k() {
  %x = stablehlo.constant dense<[1.0, 7.0, 3.0]> : tensor<3xf32>
  %i = stablehlo.constant dense<0.0> : tensor<f32>
  %k = stablehlo.constant dense<-1> : tensor<i32>
  %r = stablehlo.custom_call @stablehlo.dynamic_approx_top_k(%x, %i, %k) {mhlo.backend_config = {reduction_dim = 0 : i64}} : (tensor<3xf32>, tensor<f32>, tensor<i32>) -> tensor<?xf32>
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: custom call @stablehlo.dynamic_rng_bit_generator: output_shape has 3 dimensions, result is tensor<?x?xui32>
func.func @dynamic_rng_shape() {
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %d = stablehlo.constant dense<[2, 3, 4]> : tensor<3xi32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %d) {api_version = 2 : i32, rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<3xi32>) -> (tensor<2xui64>, tensor<?x?xui32>)
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @SPMDFullToShardShape: result #0 (tensor<1x4xf32>) differs from operand #0 (tensor<2x4xf32>): this needs more than one device
func.func @sharding_needs_devices() {
  %a = stablehlo.constant dense<1.0> : tensor<2x4xf32>
  %r = stablehlo.custom_call @SPMDFullToShardShape(%a) {mhlo.sharding = "{manual}"} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

// CHECK: {{.*}}.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: custom call @annotate_device_placement: expects as many results as operands, got 1 operands and 2 results
func.func @placement_arity() {
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  %r:2 = stablehlo.custom_call @annotate_device_placement(%a) {has_side_effect = true} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}
