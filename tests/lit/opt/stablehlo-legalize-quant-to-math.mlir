// RUN: stablehlo-opt --stablehlo-legalize-quant-to-math --split-input-file --verify-diagnostics %s | FileCheck %s

// CHECK-LABEL: func.func @quantize(%arg0: tensor<4xf32>) -> tensor<4xi8>
// CHECK-DAG: %[[S:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[LO:.*]] = stablehlo.constant dense<-1.280000e+02> : tensor<f32>
// CHECK-DAG: %[[HI:.*]] = stablehlo.constant dense<1.270000e+02> : tensor<f32>
// CHECK: %[[D:.*]] = chlo.broadcast_divide %arg0, %[[S]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[A:.*]] = chlo.broadcast_add %[[D]], %[[Z]]
// CHECK: %[[C:.*]] = stablehlo.clamp %[[LO]], %[[A]], %[[HI]]
// CHECK: %[[R:.*]] = stablehlo.round_nearest_even %[[C]] : tensor<4xf32>
// CHECK: %[[Q:.*]] = stablehlo.convert %[[R]] : (tensor<4xf32>) -> tensor<4xi8>
// CHECK: return %[[Q]] : tensor<4xi8>
func.func @quantize(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:2>> {
  %0 = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
}

// -----

// Same parameters everywhere: no requantization, just lhs + rhs - zp, clamped.
// CHECK-LABEL: func.func @add_same_type
// CHECK: %[[L:.*]] = stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xi32>
// CHECK: %[[R:.*]] = stablehlo.convert %arg1 : (tensor<4xi8>) -> tensor<4xi32>
// CHECK: %[[ZP:.*]] = stablehlo.constant dense<2> : tensor<i32>
// CHECK: %[[S:.*]] = chlo.broadcast_add %[[L]], %[[R]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK: %[[T:.*]] = chlo.broadcast_subtract %[[S]], %[[ZP]] : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK: stablehlo.clamp
// CHECK: stablehlo.convert {{.*}} : (tensor<4xi32>) -> tensor<4xi8>
func.func @add_same_type(%a: tensor<4x!quant.uniform<i8:f32, 0.5:2>>, %b: tensor<4x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:2>> {
  %0 = stablehlo.add %a, %b : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
}

// -----

// Ops with a float meaning go through dequantize -> op -> quantize.
// CHECK-LABEL: func.func @float_fallback
// CHECK: chlo.broadcast_multiply {{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: stablehlo.exponential {{.*}} : tensor<4xf32>
// CHECK: chlo.broadcast_divide
// CHECK: stablehlo.convert {{.*}} : (tensor<4xf32>) -> tensor<4xi8>
func.func @float_fallback(%a: tensor<4x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:2>> {
  %0 = stablehlo.exponential %a : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
}

// -----

func.func @no_rule(%a: tensor<4x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:2>> {
  // expected-error@+1 {{failed to legalize operation 'stablehlo.reverse' that was explicitly marked illegal}}
  %0 = stablehlo.reverse %a, dims = [0] : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
}
