// A bad option inside a textual pipeline is a command-line error before the input is read,
// as for a pass flag's options (it was an "internal error" raised while running the passes).
// RUN: not stablehlo-opt %s --pass-pipeline='builtin.module(func.func(stablehlo-aggressive-simplification{bogus=1}))' 2>&1 | FileCheck %s --check-prefix=NOSUCH
// RUN: not stablehlo-opt %s --stablehlo-aggressive-simplification=bogus=1 2>&1 | FileCheck %s --check-prefix=NOSUCH
// RUN: not stablehlo-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=x})' 2>&1 | FileCheck %s --check-prefix=BADINT
// RUN: rm -f %t && not stablehlo-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=x})' -o %t 2>&1
// RUN: not test -e %t

// NOSUCH: error: <Pass-Options-Parser>: no such option bogus
// NOSUCH-NOT: internal error
// BADINT: error: <Pass-Options-Parser>: 'x' value invalid for integer argument!
// BADINT-NOT: internal error

func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  return %arg0 : tensor<2xf32>
}
