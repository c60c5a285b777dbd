// Unknown options and passes read like LLVM's command-line parser; a pass takes one or two
// dashes, with or without `=options`.
// RUN: not stablehlo-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not stablehlo-opt %s -no-such-pass=x=1 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: stablehlo-opt %s -stablehlo-compatibility-expander=target=1.0.0 | FileCheck %s
// RUN: stablehlo-opt %s --stablehlo-compatibility-expander='target=1.0.0' | FileCheck %s
// RUN: stablehlo-opt %s -o %t -stablehlo-compatibility-expander="target=1.0.0" && FileCheck %s < %t
// RUN: stablehlo-opt %s --split-input-file=true --stablehlo-compatibility-expander=target=1.0.0 | FileCheck %s
// RUN: not stablehlo-opt %s -o 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not stablehlo-opt %s --emit-bytecode-version=abc 2>&1 | FileCheck %s --check-prefix=BADINT
// RUN: not stablehlo-opt %s --split-input-file=maybe 2>&1 | FileCheck %s --check-prefix=BADBOOL

// LONG: stablehlo-opt: Unknown command line argument '--no-such-pass'.  Try: 'stablehlo-opt --help'
// LONG-NOT: Usage
// SHORT: stablehlo-opt: Unknown command line argument '-no-such-pass=x=1'.
// NOVALUE: stablehlo-opt: for the -o option: requires a value!
// BADINT: stablehlo-opt: for the --emit-bytecode-version option: 'abc' value invalid for integer argument!
// BADBOOL: stablehlo-opt: for the --split-input-file option: 'maybe' is invalid value for boolean argument! Try 0 or 1

// CHECK-LABEL: func.func @main
// CHECK-NEXT: stablehlo.sine
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.tan %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
