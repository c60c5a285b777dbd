// RUN: shlo interpret %s --input="3xf32=1 2 3" --trace 2>&1 >/dev/null | FileCheck %s --check-prefix=TRACE
// RUN: stablehlo-translate --interpret %s --input="3xf32=1 2 3" --profile 2>&1 >/dev/null | FileCheck %s --check-prefix=PROFILE
// RUN: shlo interpret %s --input="3xf32=1 2 3" --dump-intermediates %t.npz --save-results %t.res.npz
// RUN: shlo interpret %s --random-inputs --seed 1 --save-results %t.a.npz
// RUN: shlo interpret %s --random-inputs --seed 1 --save-results %t.b.npz
// RUN: shlo interpret %s --random-inputs --seed 2 --save-results %t.c.npz
// RUN: shlo compare %t.a.npz %t.b.npz | FileCheck %s --check-prefix=SAME
// RUN: not shlo compare %t.a.npz %t.c.npz | FileCheck %s --check-prefix=DIFF

// TRACE: [1] {{.*}}observe.mlir:[[# @LINE + 18]]:8 stablehlo.multiply -> 3 float32 min=1 max=9 mean=4.66667 nan=0 inf=0 values=[1.0 4.0 9.0]
// TRACE-NEXT: [2] {{.*}}observe.mlir:[[# @LINE + 18]]:8 stablehlo.log -> 3 float32
// TRACE-SAME: nan=0 inf=0 values=[0.0 1.3862944 2.1972246]
// TRACE-NEXT: [3] {{.*}}observe.mlir:[[# @LINE + 17]]:8 stablehlo.compare -> 3 bool min=True max=True mean=1 values=[True True True]

// PROFILE: op{{ +}}calls{{ +}}seconds{{ +}}%
// PROFILE-DAG: stablehlo.multiply{{ +}}1{{ +}}
// PROFILE-DAG: stablehlo.log{{ +}}1{{ +}}
// PROFILE: location{{ +}}calls
// PROFILE: observe.mlir:[[# @LINE + 10]]:8 (stablehlo.log){{ +}}1
// PROFILE: total {{.*}} s in 3 op executions

// SAME: all 1 arrays match

// DIFF: result0: MISMATCH
// DIFF-NEXT: first difference at [0]:

func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<3xf32>
  %1 = stablehlo.log %0 : tensor<3xf32>
  %2 = stablehlo.compare LT, %1, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %1 : tensor<3xf32>
}
