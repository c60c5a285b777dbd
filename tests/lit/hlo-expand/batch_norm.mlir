// RUN: hlo-expand --batch_norm_inference_expander %s | FileCheck %s --check-prefixes=CHECK,INFER
// RUN: hlo-expand --batch_norm_training_expander %s | FileCheck %s --check-prefixes=CHECK,TRAIN
// RUN: hlo-expand --batch_norm_grad_expander %s | FileCheck %s --check-prefixes=CHECK,GRAD
// RUN: hlo-expand --batch_norm_expander %s | FileCheck %s --check-prefix=ALL
// RUN: hlo-expand --batch_norm_expander %s | stablehlo-translate --interpret
// RUN: stablehlo-translate --interpret %s

// CHECK-LABEL: func.func @main
// ALL-NOT: batch_norm
func.func @main() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 5.0], [-1.0, 0.0]]> : tensor<3x2xf32>
  %scale = stablehlo.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %offset = stablehlo.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = stablehlo.constant dense<[4.0, 1.0]> : tensor<2xf32>
  // XLA folds inference into one scale and one shift per feature:
  // INFER: %[[EPS:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  // INFER: %[[EPSB:.*]] = stablehlo.broadcast_in_dim %[[EPS]], dims = [] : (tensor<f32>) -> tensor<2xf32>
  // INFER: %[[VE:.*]] = stablehlo.add %[[VAR:.*]], %[[EPSB]] : tensor<2xf32>
  // INFER: %[[RS:.*]] = stablehlo.rsqrt %[[VE]] : tensor<2xf32>
  // INFER: %[[S:.*]] = stablehlo.multiply %[[SCALE:.*]], %[[RS]] : tensor<2xf32>
  // INFER: %[[MS:.*]] = stablehlo.multiply %[[MEAN:.*]], %[[S]] : tensor<2xf32>
  // INFER: %[[SHIFT:.*]] = stablehlo.subtract %[[OFFSET:.*]], %[[MS]] : tensor<2xf32>
  // INFER: %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [1] : (tensor<2xf32>) -> tensor<3x2xf32>
  // INFER: %[[XS:.*]] = stablehlo.multiply %[[X:.*]], %[[SB]] : tensor<3x2xf32>
  // INFER: %[[SHB:.*]] = stablehlo.broadcast_in_dim %[[SHIFT]], dims = [1] : (tensor<2xf32>) -> tensor<3x2xf32>
  // INFER: stablehlo.add %[[XS]], %[[SHB]] : tensor<3x2xf32>
  // INFER-NOT: batch_norm_inference
  %0 = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  // (x - mean) / sqrt(var) * scale + offset
  check.expect_almost_eq_const %0, dense<[[1.0, -1.0], [3.0, 0.5], [-1.0, -2.0]]> : tensor<3x2xf32>

  // Training: sums over every dimension but the feature one, E[x^2] - E[x]^2.
  // TRAIN-DAG: %[[N:.*]] = stablehlo.constant dense<3.000000e+00> : tensor<f32>
  // TRAIN-DAG: %[[SUM:.*]] = stablehlo.reduce(%[[X2:.*]] init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<3x2xf32>, tensor<f32>) -> tensor<2xf32>
  // TRAIN-DAG: %[[SQ:.*]] = stablehlo.multiply %[[X2]], %[[X2]] : tensor<3x2xf32>
  // TRAIN: %[[SQSUM:.*]] = stablehlo.reduce(%[[SQ]] init: %{{.*}}) applies stablehlo.add across dimensions = [0]
  // TRAIN: %[[MEAN2:.*]] = stablehlo.divide %[[SUM]], %[[NB:.*]] : tensor<2xf32>
  // TRAIN: %[[SQMEAN:.*]] = stablehlo.divide %[[SQSUM]], %[[NB]] : tensor<2xf32>
  // TRAIN: %[[MM:.*]] = stablehlo.multiply %[[MEAN2]], %[[MEAN2]] : tensor<2xf32>
  // TRAIN: %[[VAR2:.*]] = stablehlo.subtract %[[SQMEAN]], %[[MM]] : tensor<2xf32>
  // TRAIN: stablehlo.rsqrt
  // TRAIN-NOT: batch_norm_training
  %1:3 = "stablehlo.batch_norm_training"(%x, %scale, %offset) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_almost_eq_const %1#1, dense<[1.0, 2.33333325]> : tensor<2xf32>
  check.expect_almost_eq_const %1#2, dense<[2.66666675, 4.22222233]> : tensor<2xf32>

  // Grad: sum(dy), sum(dy * (x - mean)) and the activation gradient over N elements.
  // GRAD: stablehlo.constant dense<3.000000e+00> : tensor<f32>
  // GRAD: stablehlo.rsqrt %{{.*}} : tensor<3x2xf32>
  // GRAD: stablehlo.rsqrt %{{.*}} : tensor<2xf32>
  // GRAD: %[[CENTERED:.*]] = stablehlo.subtract
  // GRAD: %[[PROD:.*]] = stablehlo.multiply %[[DY:.*]], %[[CENTERED]] : tensor<3x2xf32>
  // GRAD: stablehlo.reduce(%[[PROD]] init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<3x2xf32>, tensor<f32>) -> tensor<2xf32>
  // GRAD: stablehlo.reduce(%[[DY]] init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<3x2xf32>, tensor<f32>) -> tensor<2xf32>
  // GRAD-NOT: batch_norm_grad
  %dy = stablehlo.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %2:3 = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %dy) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>)
  // grad_offset = sum(dy); grad_scale = sum(dy * (x - mean)) / sqrt(var)
  check.expect_almost_eq_const %2#2, dense<[2.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %2#1, dense<[-1.0, 1.0]> : tensor<2xf32>
  func.return
}
