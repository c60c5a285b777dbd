// cross-replica-sum computes the same sums as the all_reduce it becomes.
// RUN: stablehlo-translate --interpret %s
// RUN: hlo-expand --legalize_cross_replica_sum %s | stablehlo-translate --interpret
// RUN: hlo-expand --legalize_cross_replica_sum %s | FileCheck %s

// CHECK-NOT: cross-replica-sum
// CHECK: "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}>
module @cross_replica {
  func.func @sum(%operand: tensor<4xi64>) -> tensor<4xi64> {
    %0 = "stablehlo.cross-replica-sum"(%operand) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xi64>) -> tensor<4xi64>
    func.return %0 : tensor<4xi64>
  }
  func.func @main() {
    %inputs0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %inputs1 = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
    %results:2 = "interpreter.run_parallel"(%inputs0, %inputs1) {
      programs = [[@sum], [@sum]]
    } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %results#0, dense<[6, 8, 10, 12]> : tensor<4xi64>
    check.expect_eq_const %results#1, dense<[6, 8, 10, 12]> : tensor<4xi64>
    func.return
  }
}
