// --canonicalize (MLIR's greedy driver: constants uniqued and hoisted in its order, dead ops
// erased), its options, --cse and --mlir-pass-statistics.
// RUN: stablehlo-opt --canonicalize %s | FileCheck %s --check-prefix=CANON
// RUN: stablehlo-opt --pass-pipeline='builtin.module(func.func(canonicalize{top-down=false max-iterations=3 test-convergence}))' %s | FileCheck %s --check-prefix=CANON
// One iteration changes the IR, so convergence is not proven within it (as MLIR):
// RUN: not stablehlo-opt --canonicalize='max-iterations=1 test-convergence' %s 2>&1 | FileCheck %s --check-prefix=NOCONV
// RUN: stablehlo-opt --canonicalize='max-iterations=1' %s | FileCheck %s --check-prefix=CANON
// RUN: not stablehlo-opt --canonicalize='max-iterations=x' %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: stablehlo-opt --cse --mlir-pass-statistics %s 2>%t.stats | FileCheck %s --check-prefix=CSE
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// CANON-LABEL: func.func @main
// CANON-NEXT: %[[TWO:.*]] = stablehlo.constant dense<2.000000e+00>
// CANON-NEXT: %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00>
// CANON-NEXT: %[[A:.*]] = stablehlo.add %arg0, %[[ONE]]
// CANON-NEXT: %[[B:.*]] = stablehlo.add %[[A]], %[[TWO]]
// CANON-NEXT: %[[C:.*]] = stablehlo.add %[[B]], %[[ONE]]
// CANON-NEXT: %[[D:.*]] = stablehlo.add %[[B]], %[[ONE]]
// CANON-NEXT: %[[E:.*]] = stablehlo.multiply %[[C]], %[[D]]
// CANON-NEXT: return %[[E]]

// NOCONV: did not converge within 1 iterations
// BADOPT: 'x' value invalid for integer argument

// CSE-LABEL: func.func @main
// CSE-NEXT: %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00>
// CSE-NEXT: %[[A:.*]] = stablehlo.add %arg0, %[[ONE]] :
// CSE-NEXT: %[[TWO:.*]] = stablehlo.constant dense<2.000000e+00>
// CSE-NEXT: %[[B:.*]] = stablehlo.add %[[A]], %[[TWO]] :
// CSE-NEXT: %[[C:.*]] = stablehlo.add %[[B]], %[[ONE]] :
// CSE-NEXT: %[[E:.*]] = stablehlo.multiply %[[C]], %[[C]]
// CSE-NEXT: return %[[E]]

// STATS: Pass statistics report
// STATS: cse
// STATS-NEXT: (S) 3 num-cse'd - Number of operations CSE'd
// STATS-NEXT: (S) 1 num-dce'd - Number of operations DCE'd

func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<2xf32>
  %1 = stablehlo.add %arg0, %0 : tensor<2xf32>
  %2 = stablehlo.constant dense<2.0> : tensor<2xf32>
  %3 = stablehlo.add %1, %2 : tensor<2xf32>
  %4 = stablehlo.constant dense<1.0> : tensor<2xf32>
  %5 = stablehlo.add %3, %4 : tensor<2xf32>
  %6 = stablehlo.add %3, %4 : tensor<2xf32>
  %7 = stablehlo.multiply %5, %6 : tensor<2xf32>
  %8 = stablehlo.multiply %5, %6 : tensor<2xf32>
  %dead = stablehlo.multiply %8, %8 : tensor<2xf32>
  return %7 : tensor<2xf32>
}
