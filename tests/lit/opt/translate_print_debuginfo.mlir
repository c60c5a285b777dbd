// stablehlo-translate -deserialize -mlir-print-debuginfo prints the artifact's locations.
// RUN: stablehlo-translate --serialize --target=1.8.0 %s | stablehlo-translate -deserialize -mlir-print-debuginfo | FileCheck %s
// RUN: stablehlo-translate --serialize --target=1.8.0 %s | stablehlo-translate -deserialize | FileCheck %s --check-prefix=PLAIN

// CHECK: stablehlo.add {{.*}} loc(#[[LOC:.*]])
// CHECK: #[[LOC]] = loc("here.mlir":4:10)
// PLAIN-NOT: loc(
func.func @main(%arg0: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<i32> loc("here.mlir":4:10)
  return %0 : tensor<i32>
}
