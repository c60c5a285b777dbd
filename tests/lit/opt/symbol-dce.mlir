// -symbol-dce (MLIR's SymbolDCE, registered in upstream's stablehlo-opt): private symbols that
// nothing live refers to are erased (also a dead cycle and in nested modules); public ones, and
// what they or a composite's decomposition refer to, stay.
// RUN: stablehlo-opt %s -symbol-dce | FileCheck %s
// RUN: stablehlo-opt %s --pass-pipeline='builtin.module(symbol-dce)' | FileCheck %s
// RUN: stablehlo-opt %s -symbol-dce | stablehlo-translate --interpret --args="[dense<2.0> : tensor<f32>]" | FileCheck %s --check-prefix=RESULT

// CHECK-LABEL: func.func @main
// CHECK: func.func private @used(
// CHECK: func.func private @used_by_used(
// CHECK: func.func private @decomp(
// CHECK-NOT: @dead
// CHECK: func.func @public_unused(
// CHECK: func.func private @kept_by_public(
// CHECK: module @inner
// CHECK: func.func @inner_public(
// CHECK: func.func private @inner_kept(
// CHECK-NOT: @inner_dead
// CHECK-NOT: @dead
// RESULT: 4.000000e+00
module {
  func.func @main(%a: tensor<f32>) -> tensor<f32> {
    %0 = func.call @used(%a) : (tensor<f32>) -> tensor<f32>
    %1 = stablehlo.composite "my.op" %0 {decomposition = @decomp} : (tensor<f32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @used(%a: tensor<f32>) -> tensor<f32> {
    %0 = func.call @used_by_used(%a) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @used_by_used(%a: tensor<f32>) -> tensor<f32> {
    return %a : tensor<f32>
  }
  func.func private @decomp(%a: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.add %a, %a : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @dead(%a: tensor<f32>) -> tensor<f32> {
    %0 = func.call @dead2(%a) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @dead2(%a: tensor<f32>) -> tensor<f32> {
    %0 = func.call @dead(%a) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @public_unused(%a: tensor<f32>) -> tensor<f32> {
    %0 = func.call @kept_by_public(%a) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @kept_by_public(%a: tensor<f32>) -> tensor<f32> {
    return %a : tensor<f32>
  }
  module @inner {
    func.func @inner_public(%a: tensor<f32>) -> tensor<f32> {
      %0 = func.call @inner_kept(%a) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
    func.func private @inner_kept(%a: tensor<f32>) -> tensor<f32> {
      return %a : tensor<f32>
    }
    func.func private @inner_dead(%a: tensor<f32>) -> tensor<f32> {
      return %a : tensor<f32>
    }
  }
}
