// REQUIRES: jax-artifacts
// RUN: shlo inspect %artifacts/mlp_poly_batch.jax | FileCheck %s
// RUN: shlo inspect %artifacts/rnn.jax --no-module | FileCheck %s --check-prefix=RNN
// RUN: shlo inspect %artifacts/linalg_cholesky_f32.jax | FileCheck %s --check-prefix=SDY
// RUN: not shlo inspect %s 2>&1 | FileCheck %s --check-prefix=NOTJAX
// RUN: head -c 100 %artifacts/mlp.jax > %t.jax
// RUN: not shlo inspect %t.jax 2>&1 | FileCheck %s --check-prefix=TRUNC

// CHECK:      function: mlp
// CHECK-NEXT: serialization version: 3
// CHECK-NEXT: calling convention version: 10
// CHECK-NEXT: stablehlo producer: 1.15.0
// CHECK-NEXT: jax version: not recorded
// CHECK-NEXT: platforms: cpu
// CHECK-NEXT: nr_devices: 1
// CHECK-NEXT: shape symbols: b
// CHECK-NEXT: ordered effects: none
// CHECK-NEXT: unordered effects: none
// CHECK-NEXT: arguments (5):
// CHECK-NEXT:   #0: tensor<?x784xf32> (float32[b, 784])
// CHECK-NEXT:   #1: tensor<784x256xf32> (float32[784, 256])
// CHECK:      results (1):
// CHECK-NEXT:   #0: tensor<?x10xf32> (float32[b, 10])
// CHECK:      module @jit_mlp attributes {jax.uses_shape_polymorphism = true
// CHECK:        func.func public @main(%arg0: tensor<?x784xf32>,
// CHECK:        stablehlo.custom_call @shape_assertion

// RNN:      function: rnn
// RNN:      arguments (4):
// RNN-NEXT:   #0: tensor<20x4x16xf32> (float32[20, 4, 16])
// RNN:      results (2):
// RNN-NEXT:   #0: tensor<4x32xf32> (float32[4, 32])
// RNN-NEXT:   #1: tensor<20x4xf32> (float32[20, 4])
// RNN-NOT:  module

// SDY:      arguments (1):
// SDY-NEXT:   #0 'a': tensor<6x6xf32> (float32[6, 6])
// SDY:      note: dropped attributes we cannot decode (sharding annotations, unused on one device): sdy.sharding_rule x1
// SDY:      stablehlo.custom_call @lapack_spotrf_ffi
// SDY-NOT:  sdy.sharding_rule

// NOTJAX: error: cannot inspect '{{.*}}jax_export.mlir': expected a jax.export artifact (.jax)
// TRUNC: error: {{.*}}.jax: not a valid jax.export artifact: {{.*}}
