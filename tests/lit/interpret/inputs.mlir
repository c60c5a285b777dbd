// RUN: shlo interpret %s --input="2x3xf32=1 2 3 4 5 6" --input=i32=7 | FileCheck %s
// RUN: stablehlo-translate --interpret %s --input="2x3xf32=[1 2 3][4 5 6]" --input=i32=7 | FileCheck %s
// RUN: shlo interpret %s --input="2x3xf32=1 2 3 4 5 6" --input=i32=7 --save-results %t.npz
// RUN: not shlo interpret %s --inputs %t.npz 2>&1 | FileCheck %s --check-prefix=NAMES
// RUN: shlo interpret %s --input="2x3xf32=1 2 3 4 5 6" --input=i32=7 --expected-output=@%t.npz | FileCheck %s --check-prefix=SAME
// RUN: not shlo interpret %s --input="2x3xf32=1 2 3 4 5 7" --input=i32=7 --expected-output=@%t.npz | FileCheck %s --check-prefix=DIFF
// RUN: not shlo interpret %s --input="3x2xf32=1" --input=i32=7 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not stablehlo-translate --interpret %s --input="2x3xf32=1" --input=i64=4000000000 2>&1 | FileCheck %s --check-prefix=RANGE

// CHECK:      tensor<2x3xf32> {
// CHECK-NEXT:   [
// CHECK-NEXT:     [2.000000e+00, 4.000000e+00, 6.000000e+00],
// CHECK-NEXT:     [8.000000e+00, 1.000000e+01, 1.200000e+01]
// CHECK-NEXT:   ]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<i32> {7}

// The saved results are keyed result0, result1: as inputs they are missing arg0 / 'x'.
// NAMES: inputs.mlir:[[# @LINE + 13]]:1: error: argument #0 'x' of type tensor<2x3xf32> is missing from '{{.*}}.npz' (expected key 'arg0' or 'x'; keys present: result0, result1)

// SAME: result0: ok (max abs 0, max rel 0, max ulp 0; 0/6 differ)
// SAME-NEXT: result1: ok

// DIFF: result0: MISMATCH ({{.*}}; 1/6 differ)
// DIFF-NEXT: first difference at [1, 2]: got 14.0, expected 12.0 (abs 2, rel 0.167, {{.*}} ulp)
// DIFF-NEXT: result1: ok

// SHAPE: inputs.mlir:[[# @LINE + 4]]:1: error: argument #0 'x': expected tensor<2x3xf32>, got an array of shape (3, 2) and dtype float32

// RANGE: error: argument #1 'n': value 4000000000 does not fit in int32 (expected tensor<i32>, got dtype int64)

func.func @main(%x: tensor<2x3xf32>, %n: tensor<i32>) -> (tensor<2x3xf32>, tensor<i32>) {
  %0 = stablehlo.add %x, %x : tensor<2x3xf32>
  return %0, %n : tensor<2x3xf32>, tensor<i32>
}
