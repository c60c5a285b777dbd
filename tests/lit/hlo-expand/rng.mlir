// RUN: hlo-expand --rng_expander %s | FileCheck %s
// RUN: hlo-expand --expand_all %s | FileCheck %s --check-prefix=ALL
// RUN: hlo-expand --expand_all %s | stablehlo-translate --interpret

// XLA's key for the k-th rng op is seed ^ ((k * 0x9E3779B97F4A7C15) >> 32) with seed 0;
// the counter counts the 32-bit words drawn by the rng ops before it.
// CHECK-LABEL: func.func @main
// CHECK-NOT: stablehlo.rng {{.*}}distribution
// NORMAL: Box-Muller on uniform pairs split along the first even dimension (3x4 -> 3x2x2).
// CHECK: %[[S0:.*]] = stablehlo.constant dense<0> : tensor<3xui64>
// CHECK: %{{.*}}, %[[B0:.*]] = stablehlo.rng_bit_generator %[[S0]], algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<3x2x2xui32>)
// CHECK: stablehlo.shift_right_logical %[[B0]], %{{.*}} : tensor<3x2x2xui32>
// CHECK: stablehlo.constant dense<1.1920929E-7> : tensor<3x2x2xf32>
// CHECK: stablehlo.constant dense<1.000000e-07> : tensor<3x2x1xf32>
// CHECK: stablehlo.log
// CHECK: stablehlo.sine
// CHECK: stablehlo.cosine
// CHECK: stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 2 : (tensor<3x2x1xf32>, tensor<3x2x1xf32>) -> tensor<3x2x2xf32>
// CHECK: stablehlo.reshape %{{.*}} : (tensor<3x2x2xf32>) -> tensor<3x4xf32>
// UNIFORM f16 is drawn as f32 (f64 bits would take 52 mantissa bits), then converted.
// CHECK: stablehlo.constant dense<[2654435769, 12, 0]> : tensor<3xui64>
// CHECK: stablehlo.rng_bit_generator %{{.*}}, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<5xui32>)
// CHECK: stablehlo.convert %{{.*}} : (tensor<5xf32>) -> tensor<5xf16>
// UNIFORM ints: a + d/2 + (d - d/2) with d = bits mod (b - a), unsigned.
// CHECK: stablehlo.constant dense<[1013904242, 17, 0]> : tensor<3xui64>
// CHECK: stablehlo.rng_bit_generator %{{.*}} -> (tensor<3xui64>, tensor<2x2xui64>)
// CHECK: %[[SPAN:.*]] = stablehlo.subtract %{{.*}}, %{{.*}} : tensor<ui64>
// CHECK: stablehlo.remainder
// CHECK: stablehlo.shift_right_logical
// CHECK: stablehlo.bitcast_convert %{{.*}} : (tensor<2x2xui64>) -> tensor<2x2xi64>
// ALL-NOT: stablehlo.rng
// ALL-NOT: custom_call
func.func @main() {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %s0 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %0 = stablehlo.rng %zero, %one, %s0, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
  %lo = stablehlo.constant dense<-2.0> : tensor<f16>
  %hi = stablehlo.constant dense<2.0> : tensor<f16>
  %s1 = stablehlo.constant dense<[5]> : tensor<1xi64>
  %1 = stablehlo.rng %lo, %hi, %s1, distribution = UNIFORM : (tensor<f16>, tensor<f16>, tensor<1xi64>) -> tensor<5xf16>
  %ilo = stablehlo.constant dense<-3> : tensor<i64>
  %ihi = stablehlo.constant dense<4> : tensor<i64>
  %s2 = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %2 = stablehlo.rng %ilo, %ihi, %s2, distribution = UNIFORM : (tensor<i64>, tensor<i64>, tensor<2xi64>) -> tensor<2x2xi64>
  // Values stay in [a, b) after the expansion.
  %lo_b = stablehlo.broadcast_in_dim %lo, dims = [] : (tensor<f16>) -> tensor<5xf16>
  %hi_b = stablehlo.broadcast_in_dim %hi, dims = [] : (tensor<f16>) -> tensor<5xf16>
  %clamped = stablehlo.clamp %lo_b, %1, %hi_b : tensor<5xf16>
  %in_range = stablehlo.compare EQ, %clamped, %1 : (tensor<5xf16>, tensor<5xf16>) -> tensor<5xi1>
  check.expect_eq_const %in_range, dense<true> : tensor<5xi1>
  %ilo_b = stablehlo.broadcast_in_dim %ilo, dims = [] : (tensor<i64>) -> tensor<2x2xi64>
  %ge = stablehlo.compare GE, %2, %ilo_b : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi1>
  check.expect_eq_const %ge, dense<true> : tensor<2x2xi1>
  %ihi_b = stablehlo.broadcast_in_dim %ihi, dims = [] : (tensor<i64>) -> tensor<2x2xi64>
  %lt = stablehlo.compare LT, %2, %ihi_b : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi1>
  check.expect_eq_const %lt, dense<true> : tensor<2x2xi1>
  func.return
}
