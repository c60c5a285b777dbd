// Signed and unsigned integers become signless everywhere, memrefs included; the casts
// between a type and its signless twin become identities (removed by --canonicalize).
// RUN: stablehlo-opt %s --stablehlo-convert-to-signless | FileCheck %s

// CHECK-LABEL: func.func @main(%arg0: memref<4xi16>, %arg1: tensor<2xi32>) -> (tensor<2xi8>, memref<4xi16>)
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<[-1, 1]> : tensor<2xi8>
// CHECK-NEXT: builtin.unrealized_conversion_cast %arg0 : memref<4xi16> to memref<4xi16>
// CHECK-NEXT: memref.cast %{{.*}} : memref<4xi16> to memref<?xi16>
// CHECK-NEXT: bufferization.to_tensor %{{.*}} restrict : memref<?xi16> to tensor<?xi16>
func.func @main(%arg0: memref<4xui16>, %arg1: tensor<2xsi32>) -> (tensor<2xui8>, memref<4xui16>) {
  %c = stablehlo.constant dense<[255, 1]> : tensor<2xui8>
  %0 = builtin.unrealized_conversion_cast %arg0 : memref<4xui16> to memref<4xi16>
  %1 = memref.cast %0 : memref<4xi16> to memref<?xi16>
  %2 = bufferization.to_tensor %1 restrict : memref<?xi16> to tensor<?xi16>
  return %c, %arg0 : tensor<2xui8>, memref<4xui16>
}
