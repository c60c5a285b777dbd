// stablehlo-translate takes mlir-translate's printer flags (a deserialized program in generic
// form) and reports bad command lines in LLVM's words, as stablehlo-opt does.
// RUN: stablehlo-translate --serialize --target=current %s | stablehlo-translate --deserialize --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: stablehlo-translate --serialize --target=current %s | stablehlo-translate --deserialize -mlir-print-op-generic=true -mlir-disable-threading | FileCheck %s --check-prefix=GENERIC
// RUN: stablehlo-translate --interpret --mlir-print-op-generic -mlir-print-local-scope %s | FileCheck %s --check-prefix=RESULT
// RUN: not stablehlo-translate --interpret --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not stablehlo-translate --interpret %s --target 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not stablehlo-translate --interpret --split-input-file=maybe %s 2>&1 | FileCheck %s --check-prefix=BADBOOL

// GENERIC: "func.func"() <{function_type = () -> tensor<2xf32>, sym_name = "main"}>
// GENERIC: "stablehlo.add"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// RESULT: [2.000000e+00, 4.000000e+00]
// UNKNOWN: stablehlo-translate: Unknown command line argument '--no-such-flag'.  Try: 'stablehlo-translate --help'
// UNKNOWN-NOT: Usage
// NOVALUE: stablehlo-translate: for the --target option: requires a value!
// BADBOOL: stablehlo-translate: for the --split-input-file option: 'maybe' is invalid value for boolean argument! Try 0 or 1

func.func @main() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.add %0, %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
