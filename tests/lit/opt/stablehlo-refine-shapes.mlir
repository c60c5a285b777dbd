// RUN: stablehlo-opt --stablehlo-refine-shapes --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: stablehlo-opt --stablehlo-refine-shapes --split-input-file --verify-diagnostics %s | stablehlo-opt --split-input-file | FileCheck %s

// Integer shape computations are evaluated, then feed dynamic ops.
// CHECK-LABEL: func.func @shape_computation(%arg0: tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.constant dense<6> : tensor<1xi32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.dynamic_reshape %arg0, %[[S]] : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<6xf32>
// CHECK-NEXT: return %[[R]] : tensor<6xf32>
func.func @shape_computation(%arg0: tensor<2x3xf32>) -> tensor<?xf32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<2x3xf32>) -> tensor<i32>
  %1 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
  %2 = stablehlo.multiply %0, %1 : tensor<i32>
  %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
  %4 = stablehlo.dynamic_reshape %arg0, %3 : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<?xf32>
  return %4 : tensor<?xf32>
}

// -----

// Float computations are not folded; shapes still flow through elementwise ops.
// CHECK-LABEL: func.func @elementwise(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK: stablehlo.add {{.*}} : tensor<4xf32>
// CHECK: stablehlo.concatenate {{.*}} -> tensor<8xf32>
// CHECK: stablehlo.slice {{.*}} -> tensor<4xf32>
func.func @elementwise(%arg0: tensor<4xf32>) -> tensor<?xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<4xf32>
  %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<?xf32>
  %1 = stablehlo.add %0, %c : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
  %2 = stablehlo.concatenate %1, %1, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %3 = "stablehlo.slice"(%2) {start_indices = array<i64: 2>, limit_indices = array<i64: 6>, strides = array<i64: 1>} : (tensor<?xf32>) -> tensor<?xf32>
  return %3 : tensor<?xf32>
}

// -----

// A dimension argument becomes a constant in the callee and leaves the call.
// CHECK-LABEL: func.func @main(%arg0: tensor<5xf32>) -> tensor<5xf32>
// CHECK: call @callee(%{{.*}}) : (tensor<5xf32>) -> tensor<5xf32>
// CHECK-LABEL: func.func @callee(%arg0: tensor<5xf32>) -> tensor<5xf32>
module {
  func.func @main(%arg0: tensor<5xf32>) -> tensor<?xf32> {
    %n = stablehlo.constant dense<5> : tensor<i64>
    %a = stablehlo.convert %arg0 : (tensor<5xf32>) -> tensor<?xf32>
    %0 = func.call @callee(%n, %a) : (tensor<i64>, tensor<?xf32>) -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }
  func.func @callee(%n: tensor<i64>, %arg0: tensor<?xf32>) -> tensor<?xf32> {
    %0 = stablehlo.abs %arg0 : tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}

// -----

// Division by zero is left for run time.
// CHECK-LABEL: func.func @no_fold_division_by_zero
// CHECK: stablehlo.divide
func.func @no_fold_division_by_zero() -> tensor<i32> {
  %0 = stablehlo.constant dense<7> : tensor<i32>
  %1 = stablehlo.constant dense<0> : tensor<i32>
  %2 = stablehlo.divide %0, %1 : tensor<i32>
  return %2 : tensor<i32>
}

// -----

// expected-error@+1 {{'func.func' op must have exactly one block}}
func.func @two_blocks(%arg0: tensor<f32>) -> tensor<f32> {
  cf.br ^bb1(%arg0 : tensor<f32>)
^bb1(%arg1: tensor<f32>):
  return %arg1 : tensor<f32>
}
