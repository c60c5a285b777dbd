// Symbol names that are not identifiers print quoted, the module's name included, so the
// printed module reads back.
// RUN: stablehlo-opt %s | FileCheck %s
// RUN: stablehlo-opt %s | stablehlo-opt | FileCheck %s

// CHECK: module @"my mod" {
module @"my mod" {
  // CHECK: func.func private @"quoted fn"(
  func.func private @"quoted fn"(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    func.return %arg0 : tensor<2xf32>
  }
  // CHECK: call @"quoted fn"(
  func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = func.call @"quoted fn"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    func.return %0 : tensor<2xf32>
  }
}
