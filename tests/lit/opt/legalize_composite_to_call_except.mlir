// `except` keeps the composites it names.
// RUN: stablehlo-opt %s --stablehlo-legalize-composite-to-call | FileCheck %s
// RUN: stablehlo-opt %s -stablehlo-legalize-composite-to-call=except=foo.bar | FileCheck %s --check-prefix=EXCEPT

// CHECK: call @id(%arg0)
// CHECK-NOT: composite
// EXCEPT: stablehlo.composite "foo.bar" %arg0
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.composite "foo.bar" %arg0 {decomposition = @id} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @id(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  return %arg0 : tensor<2xf32>
}
