// With --canonicalize the identity casts the conversion leaves fold away, and so does a
// to_buffer of a to_tensor of the same memref type.
// RUN: stablehlo-opt %s --stablehlo-convert-to-signless --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @main(%arg0: memref<2xi32>) -> memref<2xi32>
// CHECK-NEXT: return %arg0 : memref<2xi32>
func.func @main(%arg0: memref<2xui32>) -> memref<2xui32> {
  %0 = builtin.unrealized_conversion_cast %arg0 : memref<2xui32> to memref<2xi32>
  %1 = bufferization.to_tensor %0 : memref<2xi32> to tensor<2xi32>
  %2 = bufferization.to_buffer %1 : tensor<2xi32> to memref<2xi32>
  %3 = builtin.unrealized_conversion_cast %2 : memref<2xi32> to memref<2xui32>
  return %3 : memref<2xui32>
}
