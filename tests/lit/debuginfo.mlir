// RUN: stablehlo-opt -mlir-print-debuginfo -mlir-print-local-scope %s | FileCheck %s --check-prefix=LOCAL
// RUN: stablehlo-opt -mlir-print-debuginfo %s | FileCheck %s --check-prefix=ALIAS
// RUN: stablehlo-opt -mlir-print-debuginfo %s | stablehlo-opt -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=LOCAL

// LOCAL: func.func @f(%arg0: tensor<2xf32> loc("arg")) -> tensor<2xf32> {
// LOCAL-NEXT: %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32> loc("add"("x.py":3:4))
// LOCAL-NEXT: %1 = stablehlo.add %0, %0 : tensor<2xf32> loc("x.py":3:4)
// LOCAL-NEXT: return %1 : tensor<2xf32> loc(callsite("f" at "y.py":1:2))
// LOCAL-NEXT: } loc(fused["a", "b"])

// ALIAS: %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32> loc([[ADD:#loc[0-9]*]])
// ALIAS: %1 = stablehlo.add %0, %0 : tensor<2xf32> loc([[POS:#loc[0-9]*]])
// ALIAS: } loc(#loc
// ALIAS-NEXT: } loc(#loc)
// ALIAS-NEXT: #loc = loc(
// ALIAS-DAG: [[POS]] = loc("x.py":3:4)
// ALIAS-DAG: [[ADD]] = loc("add"([[POS]]))
func.func @f(%arg0: tensor<2xf32> loc("arg")) -> tensor<2xf32> {
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("add"(#pos))
  %1 = "stablehlo.add"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(#pos)
  func.return %1 : tensor<2xf32> loc(callsite("f" at "y.py":1:2))
} loc(fused["a", "b"])
#pos = loc("x.py":3:4)
