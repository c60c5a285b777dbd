// RUN: stablehlo-opt --stablehlo-legalize-qdq-to-quantized-op --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @fuse_binary
// CHECK-NEXT: %[[S:.*]] = stablehlo.subtract %arg0, %arg1 : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>
// CHECK-NEXT: return %[[S]]
func.func @fuse_binary(%a: tensor<4x!quant.uniform<i8:f32, 0.5:2>>, %b: tensor<4x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:2>> {
  %0 = stablehlo.uniform_dequantize %a : (tensor<4x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<4xf32>
  %1 = stablehlo.uniform_dequantize %b : (tensor<4x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<4xf32>
  %2 = stablehlo.subtract %0, %1 : tensor<4xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  return %3 : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
}

// -----

// A float result still used keeps its float op beside the quantized one.
// CHECK-LABEL: func.func @float_result_still_used
// CHECK-NEXT: %[[D:.*]] = stablehlo.uniform_dequantize %arg0
// CHECK-NEXT: %[[F:.*]] = stablehlo.exponential %[[D]] : tensor<4xf32>
// CHECK-NEXT: %[[Q:.*]] = stablehlo.exponential %arg0 : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>
// CHECK-NEXT: return %[[Q]], %[[F]]
func.func @float_result_still_used(%a: tensor<4x!quant.uniform<i8:f32, 0.5:2>>) -> (tensor<4x!quant.uniform<i8:f32, 0.5:2>>, tensor<4xf32>) {
  %0 = stablehlo.uniform_dequantize %a : (tensor<4x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<4xf32>
  %1 = stablehlo.exponential %0 : tensor<4xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  return %2, %1 : tensor<4x!quant.uniform<i8:f32, 0.5:2>>, tensor<4xf32>
}
