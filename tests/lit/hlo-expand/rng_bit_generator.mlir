// RUN: hlo-expand --rng_bit_generator_philox_expander %s | FileCheck %s --check-prefixes=CHECK,PHILOX
// RUN: hlo-expand --rng_bit_generator_three_fry_expander %s | FileCheck %s --check-prefixes=CHECK,THREEFRY
// The expansion is bit-exact with the interpreter's rng_bit_generator (which is XLA's).
// RUN: stablehlo-translate --interpret %s > %t.direct
// RUN: hlo-expand --rng_bit_generator_expander %s | stablehlo-translate --interpret > %t.expanded
// RUN: diff %t.direct %t.expanded

// CHECK-LABEL: func.func @main
// CHECK-NOT: rng_bit_generator
// Philox-4x32's multipliers (0xD2511F53, 0xCD9E8D57) and key increments:
// CHECK-DAG: stablehlo.constant dense<3528531795> : tensor<3xui64>
// CHECK-DAG: stablehlo.constant dense<3449720151> : tensor<3xui64>
// CHECK-DAG: stablehlo.constant dense<2654435769> : tensor<ui32>
// Threefry-2x32's parity constant 0x1BD11BDA and a rotation by 13:
// CHECK-DAG: stablehlo.constant dense<466688986> : tensor<ui32>
// CHECK-DAG: stablehlo.constant dense<13> : tensor<{{[0-9]+}}xui32>
// The 8-bit output keeps the low bits of 32-bit words; f32 bits are bitcast.
// CHECK-DAG: stablehlo.convert %{{.*}} : (tensor<3x3xui32>) -> tensor<3x3xui8>
// CHECK-DAG: stablehlo.bitcast_convert %{{.*}} : (tensor<5xui32>) -> tensor<5xf32>
// A ui32 state is read as ui64 words (and written back):
// CHECK-DAG: stablehlo.bitcast_convert %{{.*}} : (tensor<2x2xui32>) -> tensor<2xui64>
// CHECK-DAG: stablehlo.bitcast_convert %{{.*}} : (tensor<2xui64>) -> tensor<2x2xui32>
func.func @main() -> (tensor<3xui64>, tensor<2x3xui64>, tensor<2xui64>, tensor<3x3xui8>, tensor<4xui32>, tensor<5xf32>, tensor<3xui64>, tensor<ui32>) {
  %s3 = stablehlo.constant dense<[42, 18446744073709551615, 7]> : tensor<3xui64>
  %s2 = stablehlo.constant dense<[5, 9]> : tensor<2xui64>
  %s4 = stablehlo.constant dense<[1, 4, 0, 1]> : tensor<4xui32>
  %0, %1 = stablehlo.rng_bit_generator %s3, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2x3xui64>)
  %2, %3 = stablehlo.rng_bit_generator %s2, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x3xui8>)
  %4, %5 = stablehlo.rng_bit_generator %s4, algorithm = THREE_FRY : (tensor<4xui32>) -> (tensor<4xui32>, tensor<5xf32>)
  // DEFAULT is PHILOX for --rng_bit_generator_philox_expander, THREE_FRY otherwise:
  // PHILOX: stablehlo.constant dense<3528531795> : tensor<1xui64>
  // THREEFRY-NOT: stablehlo.constant dense<3528531795> : tensor<1xui64>
  %6, %7 = stablehlo.rng_bit_generator %s3, algorithm = DEFAULT : (tensor<3xui64>) -> (tensor<3xui64>, tensor<ui32>)
  func.return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xui64>, tensor<2x3xui64>, tensor<2xui64>, tensor<3x3xui8>, tensor<4xui32>, tensor<5xf32>, tensor<3xui64>, tensor<ui32>
}
