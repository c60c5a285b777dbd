// RUN: stablehlo-opt --shape-legalize-to-stablehlo --split-input-file --verify-diagnostics %s | FileCheck %s

// CHECK-LABEL: func.func @broadcast_of_shapes
// CHECK-DAG: stablehlo.get_dimension_size %arg0, dim = 0
// CHECK-DAG: stablehlo.get_dimension_size %arg1, dim = 1
// CHECK: %[[PAD:.*]] = stablehlo.constant dense<1> : tensor<1xi32>
// CHECK: stablehlo.concatenate %[[PAD]], %{{.*}}, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
// CHECK: %[[MAX:.*]] = stablehlo.maximum
// CHECK: builtin.unrealized_conversion_cast %[[MAX]] : tensor<2xi32> to tensor<2xindex>
// CHECK-NOT: shape.
func.func @broadcast_of_shapes(%arg0: tensor<?xf32>, %arg1: tensor<?x?xf32>) -> tensor<2xindex> {
  %0 = shape.shape_of %arg0 : tensor<?xf32> -> tensor<1xindex>
  %1 = shape.shape_of %arg1 : tensor<?x?xf32> -> tensor<2xindex>
  %2 = shape.broadcast %0, %1 : tensor<1xindex>, tensor<2xindex> -> tensor<2xindex>
  return %2 : tensor<2xindex>
}

// -----

// CHECK-LABEL: func.func @num_elements_of_const_shape
// CHECK: stablehlo.constant dense<[2, 3]> : tensor<2xi32>
// CHECK: stablehlo.multiply
func.func @num_elements_of_const_shape() -> index {
  %0 = shape.const_shape [2, 3] : tensor<2xindex>
  %1 = shape.num_elements %0 : tensor<2xindex> -> index
  return %1 : index
}

// -----

func.func @not_static(%arg0: tensor<?xindex>) -> index {
  // expected-error@+1 {{failed to legalize operation 'shape.num_elements' that was explicitly marked illegal}}
  %0 = shape.num_elements %arg0 : tensor<?xindex> -> index
  return %0 : index
}
