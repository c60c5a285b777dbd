// The `target` option: each expansion applies only below the version that introduced the
// feature; a bad target is a diagnostic.
// RUN: stablehlo-opt %s --stablehlo-compatibility-expander='target=1.3.0' | FileCheck %s --check-prefix=OLD
// RUN: stablehlo-opt %s --stablehlo-compatibility-expander='target=1.4.0' | FileCheck %s --check-prefix=NEW
// RUN: not stablehlo-opt %s --stablehlo-compatibility-expander='target=1.x' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not stablehlo-opt %s --stablehlo-compatibility-expander 2>&1 | FileCheck %s --check-prefix=NONE

// OLD: %[[S:.*]] = stablehlo.sine %arg0
// OLD-NEXT: %[[C:.*]] = stablehlo.cosine %arg0
// OLD-NEXT: stablehlo.divide %[[S]], %[[C]]
// NEW: stablehlo.tan %arg0
// BAD: error: Invalid target version argument '1.x'
// NONE: error: No target version specified.
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.tan %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
