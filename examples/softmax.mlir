// Row-wise softmax of a 2x4 batch of logits, computed the numerically stable way:
//   softmax(x)[i, j] = exp(x[i, j] - max_j x[i, j]) / sum_j exp(x[i, j] - max_j x[i, j])
// Run it with `make run` (or `shlo interpret examples/softmax.mlir`); the check verifies the
// result against values computed independently with numpy.
func.func @main() -> tensor<2x4xf32> {
  %logits = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 1.0, 10.0]]> : tensor<2x4xf32>
  %neg_inf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>

  // Subtract each row's maximum so exp never overflows.
  %row_max = stablehlo.reduce(%logits init: %neg_inf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
  %max_b = stablehlo.broadcast_in_dim %row_max, dims = [0] : (tensor<2xf32>) -> tensor<2x4xf32>
  %shifted = stablehlo.subtract %logits, %max_b : tensor<2x4xf32>
  %exp = stablehlo.exponential %shifted : tensor<2x4xf32>

  // Normalise by each row's sum.
  %row_sum = stablehlo.reduce(%exp init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
  %sum_b = stablehlo.broadcast_in_dim %row_sum, dims = [0] : (tensor<2xf32>) -> tensor<2x4xf32>
  %softmax = stablehlo.divide %exp, %sum_b : tensor<2x4xf32>
  interpreter.print %row_sum : tensor<2xf32>

  check.expect_almost_eq_const %softmax, dense<[[3.2058604e-02, 8.7144323e-02, 2.3688281e-01, 6.4391428e-01], [1.6698605e-05, 4.5391505e-05, 1.2338691e-04, 9.9981457e-01]]> : tensor<2x4xf32>, tolerance = 1.0e-6
  return %softmax : tensor<2x4xf32>
}
