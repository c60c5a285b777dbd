// RUN: stablehlo-opt --stablehlo-legalize-quantized-op-to-qdq --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @split_binary
// CHECK-NEXT: %[[A:.*]] = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>) -> tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = stablehlo.uniform_dequantize %arg1 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>) -> tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %[[Q:.*]] = stablehlo.uniform_quantize %[[M]] : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>
// Data movement keeps its quantized types:
// CHECK-NEXT: %[[R:.*]] = stablehlo.reverse %[[Q]], dims = [0] : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>
// CHECK-NEXT: return %[[R]]
func.func @split_binary(%a: tensor<4x!quant.uniform<i8:f32, 0.5:2>>, %b: tensor<4x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:2>> {
  %0 = stablehlo.multiply %a, %b : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  return %1 : tensor<4x!quant.uniform<i8:f32, 0.5:2>>
}

// -----

// Float ops are left alone.
// CHECK-LABEL: func.func @float_only
// CHECK-NEXT: stablehlo.add %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT: return
func.func @float_only(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
