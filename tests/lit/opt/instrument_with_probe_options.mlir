// `useDebugInfo` takes probe ids from named locations; without it they are `probe<N>`.
// RUN: stablehlo-opt %s --interpreter-instrument-with-probe | FileCheck %s
// RUN: stablehlo-opt %s -interpreter-instrument-with-probe=useDebugInfo=true | FileCheck %s --check-prefix=NAMED
// RUN: stablehlo-opt %s --interpreter-instrument-with-probe='useDebugInfo=false' | FileCheck %s

// CHECK: interpreter.probe %0, probe_id = "probe1" : tensor<2xf32>
// NAMED: interpreter.probe %0, probe_id = "twice.1" : tensor<2xf32>
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32> loc("twice")
  return %0 : tensor<2xf32>
}
