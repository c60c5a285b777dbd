// Unknown options and passes read like LLVM's command-line parser; a pass takes one or two
// dashes, with or without `=options`.
// RUN: not stablehlo-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not stablehlo-opt %s -no-such-pass=x=1 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: stablehlo-opt %s -stablehlo-compatibility-expander=target=1.0.0 | FileCheck %s
// RUN: stablehlo-opt %s --stablehlo-compatibility-expander='target=1.0.0' | FileCheck %s
// RUN: stablehlo-opt %s -o %t -stablehlo-compatibility-expander="target=1.0.0" && FileCheck %s < %t

// LONG: stablehlo-opt: Unknown command line argument '--no-such-pass'.  Try: 'stablehlo-opt --help'
// LONG-NOT: Usage
// SHORT: stablehlo-opt: Unknown command line argument '-no-such-pass=x=1'.

// CHECK-LABEL: func.func @main
// CHECK-NEXT: stablehlo.sine
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.tan %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
