// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo --mlir-print-op-generic %s | FileCheck %s
// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version='target=1.4.0' %s | FileCheck %s --check-prefix=OLD
// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version=target=1.4.0 %s | stablehlo-opt --vhlo-to-version=target=current --vhlo-legalize-to-stablehlo > %t.0
// RUN: stablehlo-opt %s > %t.1
// RUN: diff %t.0 %t.1
// RUN: not stablehlo-opt --vhlo-to-version='target=0.1.0' %s 2>&1 | FileCheck %s --check-prefix=LOW
// RUN: not stablehlo-opt --vhlo-to-version='nope=1' %s 2>&1 | FileCheck %s --check-prefix=OPTION

// CHECK: "vhlo.func_v1"() <{arg_attrs = #vhlo.array_v1<[]>, function_type = #vhlo.type_v1<!vhlo.func_v1<(!vhlo.tensor_v1<16x8x!vhlo.f32_v1>) -> !vhlo.tensor_v1<16x16x!vhlo.f32_v1>>>, res_attrs = #vhlo.array_v1<[]>, sym_name = #vhlo.string_v1<"all_gather">, sym_visibility = #vhlo.string_v1<"">}>
// CHECK: "vhlo.all_gather_v2"(%arg0) <{all_gather_dim = #vhlo.integer_v1<1 : i64>, channel_id = #vhlo.integer_v1<0 : i64>, replica_groups = #vhlo.tensor_v1<dense<{{\[\[}}0], [1]]> : tensor<2x1xi64>>, use_global_device_ids = #vhlo.bool_v1<false>}>
// CHECK: "vhlo.return_v1"
// OLD: vhlo.func_v1 @all_gather(%arg0: !vhlo.tensor_v1<16x8x!vhlo.f32_v1>) -> (!vhlo.tensor_v1<16x16x!vhlo.f32_v1>) {
// OLD: "vhlo.all_gather_v1"
// OLD: } {arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"">}
// LOW: error: target version 0.1.0 is less than minimum supported 0.9.0
// OPTION: error: <Pass-Options-Parser>: no such option nope
func.func @all_gather(%arg0: tensor<16x8xf32>) -> tensor<16x16xf32> {
  %0 = "stablehlo.all_gather"(%arg0) {
    all_gather_dim = 1 : i64,
    replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>
  } : (tensor<16x8xf32>) -> tensor<16x16xf32>
  func.return %0 : tensor<16x16xf32>
}
