// upstream's interpreter lowers an entry function's quantized types before it checks the
// inputs and prints the results (Api.cpp: lowerQuantization, then validateEntrySignature):
// a quantized argument takes its storage type in --args, a quantized result prints as its
// storage type, directly and after --stablehlo-legalize-quant-to-math alike.
// RUN: stablehlo-translate --interpret --args="[dense<[4, 10]> : tensor<2xi8>]" %s | FileCheck %s
// RUN: stablehlo-translate --interpret --interpreter-print-dense --args="[dense<[4, 10]> : tensor<2xi8>]" %s | FileCheck %s --check-prefix=DENSE
// RUN: stablehlo-opt --stablehlo-legalize-quant-to-math %s | stablehlo-translate --interpret --args="[dense<[4, 10]> : tensor<2xi8>]" | FileCheck %s
// RUN: not stablehlo-translate --interpret --args="[dense<[4, 10]> : tensor<2xi16>]" %s 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: tensor<2xi8> {
// CHECK-NEXT: [10, 22]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<2xf32> {
// CHECK-NEXT: [6.000000e+00, 1.200000e+01]
// DENSE: dense<[10, 22]> : tensor<2xi8>
// DENSE-NEXT: dense<[6.000000e+00, 1.200000e+01]> : tensor<2xf32>
// BAD: error: invalid input argument type at index 0, input type was tensor<2xi16> but entry function expected tensor<2xi8>

func.func @main(%x: tensor<2x!quant.uniform<i8:f32, 0.5:-2>>) -> (tensor<2x!quant.uniform<i8:f32, 0.5:-2>>, tensor<2xf32>) {
  %0 = stablehlo.add %x, %x : tensor<2x!quant.uniform<i8:f32, 0.5:-2>>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<2x!quant.uniform<i8:f32, 0.5:-2>>) -> tensor<2xf32>
  return %0, %1 : tensor<2x!quant.uniform<i8:f32, 0.5:-2>>, tensor<2xf32>
}
