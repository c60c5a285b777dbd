// Blobs, dimensions and sizes programs get wrong: each is a located diagnostic, never an
// internal error.
// RUN: not stablehlo-opt -split-input-file %s 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not stablehlo-translate --interpret -split-input-file %s 2>&1 | FileCheck %s --check-prefix=EVAL

// PARSE: resource_and_size_errors.mlir:[[# @LINE + 1]]:28: error: invalid dimension
func.func @dim() -> tensor<99999999999999999999999xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<99999999999999999999999xf32>
  func.return %0 : tensor<99999999999999999999999xf32>
}

// -----

func.func @not_hex() -> tensor<2xi32> {
  %0 = stablehlo.constant dense_resource<blob1> : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
{-#
  dialect_resources: {
    builtin: {
      // PARSE: resource_and_size_errors.mlir:[[# @LINE + 1]]:14: error: expected hex string blob for key 'blob1'
      blob1: "0xZZ"
    }
  }
#-}

// -----

func.func @no_alignment() -> tensor<2xi32> {
  %0 = stablehlo.constant dense_resource<blob1> : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
{-#
  dialect_resources: {
    builtin: {
      // PARSE: error: expected hex string blob for key 'blob1' to encode alignment in first 4 bytes{{$}}
      blob1: "0x0400"
    }
  }
#-}

// -----

func.func @bad_alignment() -> tensor<2xi32> {
  %0 = stablehlo.constant dense_resource<blob1> : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
{-#
  dialect_resources: {
    builtin: {
      // PARSE: error: expected hex string blob for key 'blob1' to encode alignment in first 4 bytes, but got non-power-of-2 value: 3
      blob1: "0x030000000700000008000000"
    }
  }
#-}

// -----

func.func @missing_blob() -> tensor<2xi32> {
  // EVAL: resource_and_size_errors.mlir:[[# @LINE + 1]]:8: error: dense_resource 'nope' has no data in this file
  %0 = stablehlo.constant dense_resource<nope> : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

func.func @short_blob() -> tensor<2xi32> {
  // EVAL: resource_and_size_errors.mlir:[[# @LINE + 1]]:8: error: dense_resource 'blob1' holds 4 bytes of data but tensor<2xi32> needs 8
  %0 = stablehlo.constant dense_resource<blob1> : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x0400000007000000"
    }
  }
#-}

// -----

func.func @huge_splat() -> tensor<99999999999x99999999999xf32> {
  // EVAL: resource_and_size_errors.mlir:[[# @LINE + 1]]:8: error: 'stablehlo.constant' needs {{.*}} over the memory limit
  %0 = stablehlo.constant dense<1.0> : tensor<99999999999x99999999999xf32>
  func.return %0 : tensor<99999999999x99999999999xf32>
}

// PARSE-NOT: internal error
// EVAL-NOT: internal error
