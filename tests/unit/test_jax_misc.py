# ruff: noqa: E501  (MLIR test programs keep their lines whole)
"""jax's non-LAPACK custom calls and the target registry's checks."""

from __future__ import annotations

import numpy as np
import pytest
from jax_call_helpers import call_module, run_call

import shlo_cli
from shlo_cli.custom_calls import Operand, register_target, unregister_target
from shlo_cli.ir.diagnostics import Diagnostic

SHAPE_ASSERTION = """
func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %c = stablehlo.constant dense<0> : tensor<index>
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %ok = stablehlo.compare GE, %d, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %d, %c3) {api_version = 2 : i32, error_message = "Expected b >= {1}, got b = {0}.", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
  return %arg0 : tensor<?xf32>
}
"""


def test_shape_assertion_passes_and_fails_with_jax_message() -> None:
    [out] = shlo_cli.interpret(SHAPE_ASSERTION, np.arange(4, dtype=np.float32))
    assert out.shape == (4,)
    with pytest.raises(Diagnostic, match=r"Expected b >= 3, got b = 2\."):
        shlo_cli.interpret(SHAPE_ASSERTION, np.arange(2, dtype=np.float32))


def test_dynamic_top_k() -> None:
    x = np.array([[3.0, 1.0, 2.0, 3.0], [0.0, 5.0, 4.0, -1.0]], np.float32)
    values, indices = run_call("stablehlo.dynamic_top_k", [x, np.array(2, np.int32)],
                               [((2, 2), np.float32), ((2, 2), np.int32)])
    np.testing.assert_array_equal(values, [[3.0, 3.0], [5.0, 4.0]])
    np.testing.assert_array_equal(indices, [[0, 3], [1, 2]])  # ties in index order


COMPARATOR = """
func.func private @gt(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}
"""


def test_approx_top_k_sorts_with_its_comparator() -> None:
    text = COMPARATOR + """
func.func @main(%x: tensor<7xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %iota = stablehlo.iota dim = 0 : tensor<7xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %iota, %init, %zero) {called_computations = [@gt], mhlo.backend_config = {aggregate_to_topk = true, recall_target = 0.949999988 : f32, reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64, top_k = 3 : i64}} : (tensor<7xf32>, tensor<7xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
}
"""
    x = np.array([1, 7, 3, 6, 0, 5, 2], np.float32)
    values, indices = shlo_cli.interpret(text, x)
    np.testing.assert_array_equal(values, [7, 6, 5])
    np.testing.assert_array_equal(indices, [1, 3, 5])


def test_approx_top_k_comparator_is_analysed_not_called(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-compare comparator function sorts like a sort region (numpy's argsort), not
    by a merge sort calling the function per step (an 8x50 approx_max_k took 1.9 ms)."""
    from shlo_cli.dialects.stablehlo import sort

    def refuse(*args: object) -> None:
        raise AssertionError("merge sort used")

    monkeypatch.setattr(sort, "merge_sort_permutation", refuse)
    text = COMPARATOR + """
func.func @main(%x: tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>) {
  %iota = stablehlo.iota dim = 1 : tensor<2x6xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %iota, %init, %zero) {called_computations = [@gt], mhlo.backend_config = {aggregate_to_topk = true, recall_target = 0.949999988 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64, top_k = 2 : i64}} : (tensor<2x6xf32>, tensor<2x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x2xi32>
}
"""
    x = np.array([[1, 7, 3, 7, 0, 5], [-0.0, 2, -np.inf, 9, 9, 1]], np.float32)
    values, indices = shlo_cli.interpret(text, x)
    np.testing.assert_array_equal(values, [[7, 7], [9, 9]])
    np.testing.assert_array_equal(indices, [[1, 3], [3, 4]])  # ties in index order


APPROX_TOP_4 = """
func.func @main(%x: tensor<7xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %iota = stablehlo.iota dim = 0 : tensor<7xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %iota, %init, %zero) {called_computations = [@cmp], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64, top_k = 4 : i64}} : (tensor<7xf32>, tensor<7xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
}
"""


def test_approx_top_k_of_f32_by_gt_is_xla_cpus_total_order_top_k() -> None:
    """XLA CPU runs a sort of f32 by `compare GT` of the first pair, sliced from 0, as its
    TopK runtime: IEEE totalOrder (+NaN first, +0 before -0, -NaN last), ties by index."""
    text = COMPARATOR.replace("@gt", "@cmp") + APPROX_TOP_4
    x = np.array([-0.0, 1, np.nan, 0.0, -np.nan, np.inf, -np.inf], np.float32)
    values, indices = shlo_cli.interpret(text, x)
    np.testing.assert_array_equal(indices, [2, 5, 1, 3])
    np.testing.assert_array_equal(values, x[[2, 5, 1, 3]])
    assert not np.signbit(values[3])
    x = np.array([-0.0, 1, 0.0, 2, -0.0, 0.0, 2], np.float32)
    _, indices = shlo_cli.interpret(text, x)
    np.testing.assert_array_equal(indices, [3, 6, 1, 2])


def test_approx_top_k_by_another_comparator_is_its_sort() -> None:
    """`compare LT` of the swapped pair orders the same numbers but is no TopK pattern for
    XLA: the stable sort by the comparator, -0 and +0 equal (in index order)."""
    flipped = COMPARATOR.replace("@gt", "@cmp").replace("GT, %a, %b", "LT, %b, %a")
    x = np.array([-0.0, 1, 0.0, 2, -0.0, 0.0, 2], np.float32)
    _, indices = shlo_cli.interpret(flipped + APPROX_TOP_4, x)
    np.testing.assert_array_equal(indices, [3, 6, 1, 0])


def test_dynamic_rng_bit_generator_matches_static_op() -> None:
    state = np.array([1, 2], np.uint64)
    shape = np.array([2, 3], np.int32)
    new_state, bits = run_call("stablehlo.dynamic_rng_bit_generator", [state, shape],
                               [((2,), np.uint64), ((2, 3), np.uint32)],
                               extra="rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>")
    static = """
func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>) {
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<2x3xui32>
}
"""
    want_state, want_bits = shlo_cli.interpret(static, state)
    np.testing.assert_array_equal(bits, want_bits)
    np.testing.assert_array_equal(new_state, want_state)


@pytest.mark.parametrize("target", ["Sharding", "SPMDFullToShardShape",
                                    "SPMDShardToFullShape", "annotate_device_placement"])
def test_single_device_annotations_are_identity(target: str) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    [out] = run_call(target, [x], [((2, 3), np.float32)])
    np.testing.assert_array_equal(out, x)
    with pytest.raises(Diagnostic, match=f"custom call @{target}: result #0 .* needs more"):
        run_call(target, [x], [((1, 3), np.float32)])


# ---- registry ------------------------------------------------------------------------------


def test_register_target_declares_types_and_config() -> None:
    def scale(call):  # type: ignore[no-untyped-def]
        return [call.operands[0] * call.config["factor"]]

    from shlo_cli.custom_calls import Config

    register_target("test.scale", scale, operands=[Operand("f32")], results=[Operand("f32")],
                    config={"factor": Config("int")})
    try:
        x = np.array([1.0, 2.0], np.float32)
        [out] = run_call("test.scale", [x], [((2,), np.float32)], {"factor": 3})
        np.testing.assert_array_equal(out, [3.0, 6.0])
        with pytest.raises(Diagnostic, match="custom call @test.scale: backend_config "
                                             "requires 'factor'"):
            run_call("test.scale", [x], [((2,), np.float32)])
        with pytest.raises(Diagnostic, match="custom call @test.scale: operand #0 must have "
                                             "element type f32, got tensor<2xf64>"):
            run_call("test.scale", [x.astype(np.float64)], [((2,), np.float32)], {"factor": 3})
    finally:
        unregister_target("test.scale")
    with pytest.raises(Diagnostic, match="Unsupported custom call target: @test.scale"):
        run_call("test.scale", [np.zeros(2, np.float32)], [((2,), np.float32)])


HOST_CALLBACK = """
func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", mhlo.backend_config = {index = 0 : ui64}} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""


def test_a_host_callback_says_what_it_is_and_runs_once_registered() -> None:
    """jax.debug.print / pure_callback in `lower().as_text()`: the function is not in the
    module; the diagnostic says so, and a registered evaluator runs in its place."""
    x = np.array([0.0, 1.0, 2.0], np.float32)
    with pytest.raises(Diagnostic, match=r"@xla_ffi_python_cpu_callback \(a jax host "
                                         r"callback: jax.debug.print, jax.pure_callback"):
        shlo_cli.interpret(HOST_CALLBACK, x)
    shlo_cli.register_custom_call("xla_ffi_python_cpu_callback", np.sin)
    try:
        [out] = shlo_cli.interpret(HOST_CALLBACK, x)
        np.testing.assert_array_equal(out, np.sin(x))
    finally:
        unregister_target("xla_ffi_python_cpu_callback")


def test_lapack_call_diagnostics() -> None:
    a = np.eye(3, dtype=np.float32)
    with pytest.raises(Diagnostic, match=r"@lapack_spotrf_ffi: backend_config 'uplo' must be "
                                         r"one of 'L', 'U', got 'X'"):
        run_call("lapack_spotrf_ffi", [a], [((3, 3), np.float32), ((), np.int32)],
                 {"uplo": "X"})
    with pytest.raises(Diagnostic, match=r"@lapack_spotrf_ffi: operand #0 must be a batch of "
                                         r"square matrices"):
        run_call("lapack_spotrf_ffi", [np.ones((3, 2), np.float32)],
                 [((3, 2), np.float32), ((), np.int32)], {"uplo": "L"})
    with pytest.raises(Diagnostic, match=r"@lapack_dpotrf_ffi: operand #0 must have element "
                                         r"type f64, got tensor<3x3xf32>"):
        run_call("lapack_dpotrf_ffi", [a], [((3, 3), np.float32), ((), np.int32)],
                 {"uplo": "L"})
    with pytest.raises(Diagnostic, match=r"operand #0 has layout \[1, 0\], expected "
                                         r"\[0, 1\] \(jax's layout for this position\)"):
        run_call("lapack_spotrf_ffi", [a], [((3, 3), np.float32), ((), np.int32)],
                 {"uplo": "L"}, extra="operand_layouts = [dense<[1, 0]> : tensor<2xindex>], "
                 "result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]")


def test_module_text_is_printable_round_trip() -> None:
    text = call_module("lapack_sgetrf_ffi", [np.eye(2, dtype=np.float32)],
                       [((2, 2), np.float32), ((2,), np.int32), ((), np.int32)])
    assert "@lapack_sgetrf_ffi" in text


def test_dynamic_approx_top_k_takes_k_at_run_time() -> None:
    text = COMPARATOR + """
func.func @main(%x: tensor<6xf32>, %k: tensor<i32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %iota = stablehlo.iota dim = 0 : tensor<6xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %shape = stablehlo.reshape %k : (tensor<i32>) -> tensor<1xi32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_approx_top_k(%x, %iota, %init, %zero, %k, %shape, %shape) {called_computations = [@gt], indices_of_shape_operands = dense<[5, 6]> : tensor<2xi64>, mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64}} : (tensor<6xf32>, tensor<6xi32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<?xf32>, tensor<?xi32>)
  return %0#0, %0#1 : tensor<?xf32>, tensor<?xi32>
}
"""
    x = np.array([4, 9, 1, 9, 0, 5], np.float32)
    values, indices = shlo_cli.interpret(text, x, np.array(3, np.int32))
    np.testing.assert_array_equal(values, [9, 9, 5])
    np.testing.assert_array_equal(indices, [1, 3, 5])


# jax's lowering of a reduce_window whose window depends on a symbolic dimension (a cumulative
# op along a `b` axis): the window operands are values, the reducer a function.
REDUCERS = """
func.func private @add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @decay(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %h = stablehlo.constant dense<0.5> : tensor<f32>
  %0 = stablehlo.multiply %a, %h : tensor<f32>
  %1 = stablehlo.add %0, %b : tensor<f32>
  return %1 : tensor<f32>
}
"""


def _dynamic_window(reducer: str, padding: str = "[[4, 0], [0, 0]]",
                    window: str = "[5, 1]") -> str:
    return REDUCERS + f"""
func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {{
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %w = stablehlo.constant dense<{window}> : tensor<2xi32>
  %one = stablehlo.constant dense<1> : tensor<2xi32>
  %pad = stablehlo.constant dense<{padding}> : tensor<2x2xi32>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %init, %w, %one, %one, %one, %pad) {{api_version = 2 : i32, called_computations = [@{reducer}]}} : (tensor<?x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}}
"""


def _static_window(body: str) -> str:
    return f"""
func.func @main(%x: tensor<5x3xf32>) -> tensor<5x3xf32> {{
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %init) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
{body}
  }}) {{window_dimensions = array<i64: 5, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>}} : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}}
"""


@pytest.mark.parametrize(("reducer", "body"), [
    ("add", "    %0 = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %0 : tensor<f32>"),
    ("decay", "    %h = stablehlo.constant dense<0.5> : tensor<f32>\n"
              "    %0 = stablehlo.multiply %a, %h : tensor<f32>\n"
              "    %1 = stablehlo.add %0, %b : tensor<f32>\n    stablehlo.return %1 : tensor<f32>"),
])
def test_dynamic_reduce_window_matches_static_op(reducer: str, body: str) -> None:
    """A cumulative sum (the window algorithms' path) and a body no algorithm knows (the
    reducer function called on whole arrays): the static op's values, bit for bit."""
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    [got] = shlo_cli.interpret(_dynamic_window(reducer), x)
    [want] = shlo_cli.interpret(_static_window(body), x)
    assert got.shape == (5, 3)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    if reducer == "add":
        np.testing.assert_allclose(got, np.cumsum(x, axis=0), rtol=1e-5)


@pytest.mark.parametrize(("padding", "window", "message"), [
    ("[4, 0, 0, 0]", "[5, 1]", r"padding must have shape \[2, 2\], got \[4\]"),
    ("[[4, 0], [0, 0]]", "[-1, 1]", r"window_dimensions must be >= 0, got \[-1, 1\]"),
])
def test_dynamic_reduce_window_bad_operands(padding: str, window: str, message: str) -> None:
    text = _dynamic_window("add", padding, window)
    if padding.count("[") == 1:
        text = text.replace("tensor<2x2xi32>", "tensor<4xi32>")
    x = np.zeros((5, 3), np.float32)
    with pytest.raises(Diagnostic, match=message):
        shlo_cli.interpret(text, x)
