// The drop-in command line: XLA's spellings, stdin, -o, chunks, help.
// RUN: hlo-expand -batch_norm_inference_expander %s | FileCheck %s
// RUN: hlo-expand --batch_norm_inference_expander=true - < %s | FileCheck %s
// RUN: shlo hlo-expand --batch_norm_inference_expander=1 -verify_hlo %s | FileCheck %s
// RUN: hlo-expand --batch_norm_inference_expander -o=%t.1 %s && FileCheck %s < %t.1
// RUN: hlo-expand -output_file %t.2 --batch_norm_expander %s && FileCheck %s < %t.2
// RUN: hlo-expand --output_file=%t.3 --expand_all --split-input-file %s && FileCheck %s < %t.3
// RUN: hlo-expand --batch_norm_inference_expander=false %s | FileCheck %s --check-prefix=KEEP
// RUN: hlo-expand %s | FileCheck %s --check-prefix=KEEP
// RUN: hlo-expand --help | FileCheck %s --check-prefix=HELP

// CHECK-LABEL: func.func @inference
// CHECK-NOT: batch_norm_inference
// CHECK: stablehlo.rsqrt
// KEEP: "stablehlo.batch_norm_inference"
func.func @inference(%x: tensor<4x2xf32>, %s: tensor<2xf32>) -> tensor<4x2xf32> {
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  func.return %0 : tensor<4x2xf32>
}

// HELP: Usage: hlo-expand [OPTIONS] [INPUT]
// HELP: StableHLO
// HELP-DAG: --batch_norm_grad_expander {{.*}}Expands batch_norm_grad
// HELP-DAG: --batch_norm_inference_expander {{.*}}Expands batch_norm_inference
// HELP-DAG: --batch_norm_training_expander {{.*}}Expands batch_norm_training
// HELP-DAG: --rng_expander {{.*}}Expands rng
// HELP-DAG: --rng_bit_generator_philox_expander {{.*}}DEFAULT means PHILOX
// HELP-DAG: --rng_bit_generator_three_fry_expander {{.*}}DEFAULT means THREE_FRY
// HELP-DAG: --batch_norm_expander {{.*}}Expands batch_norm_grad, batch_norm_inference and batch_norm_training
// HELP-DAG: --rng_bit_generator_expander {{.*}}all prng algorithms
// HELP-DAG: --legalize_broadcast {{.*}}broadcast_in_dim
// HELP-DAG: --legalize_create_token {{.*}}after_all
// HELP-DAG: --legalize_cross_replica_sum {{.*}}all_reduce
// HELP-DAG: --legalize_dot {{.*}}dot_general
// HELP-DAG: --legalize_einsum {{.*}}dot_general
// HELP-DAG: --legalize_unary_einsum {{.*}}einsum
// HELP-DAG: --legalize_torch_index_select {{.*}}gather
// HELP-DAG: --expand_all {{.*}}Runs every expander
// HELP-DAG: --verify_hlo {{.*}}Verify
// HELP-DAG: --split-input-file {{.*}}chunk
// HELP-DAG: -o, --output_file FILE {{.*}}atomically
