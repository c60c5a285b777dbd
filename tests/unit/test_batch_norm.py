"""batch_norm_inference/training/grad against direct numpy formulas of the spec."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

T = "tensor<2x3x4xf64>"
F = "tensor<3xf64>"


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    out = interpreter.call(interpreter.lookup_function("main"), list(args))
    return out


def _data() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4))
    scale, offset = rng.standard_normal(3), rng.standard_normal(3)
    return x, scale, offset


def test_batch_norm_inference() -> None:
    x, scale, offset = _data()
    mean, var = np.array([0.1, -0.2, 0.3]), np.array([1.5, 0.5, 2.0])
    text = f"""func.func @main(%x: {T}, %s: {F}, %o: {F}, %m: {F}, %v: {F}) -> {T} {{
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {{epsilon = 1.0e-3 : f32, feature_index = 1 : i64}} : ({T}, {F}, {F}, {F}, {F}) -> {T}
  return %0 : {T}
}}"""
    (result,) = _run(text, x, scale, offset, mean, var)
    eps = float(np.float32(1e-3))
    b = (slice(None), None)
    expected = (x - mean[b]) / np.sqrt(var[b] + eps) * scale[b] + offset[b]
    np.testing.assert_allclose(result, expected, rtol=1e-12)


def test_batch_norm_training_and_grad() -> None:
    x, scale, offset = _data()
    text = f"""func.func @main(%x: {T}, %s: {F}, %o: {F}, %g: {T}) -> ({T}, {F}, {F}, {T}, {F}, {F}) {{
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {{epsilon = 0.0 : f32, feature_index = 1 : i64}} : ({T}, {F}, {F}) -> ({T}, {F}, {F})
  %1:3 = "stablehlo.batch_norm_grad"(%x, %s, %0#1, %0#2, %g) {{epsilon = 0.0 : f32, feature_index = 1 : i64}} : ({T}, {F}, {F}, {F}, {T}) -> ({T}, {F}, {F})
  return %0#0, %0#1, %0#2, %1#0, %1#1, %1#2 : {T}, {F}, {F}, {T}, {F}, {F}
}}"""
    grad = np.random.default_rng(5).standard_normal(x.shape)
    out, mean, var, gx, gs, go = _run(text, x, scale, offset, grad)
    axes = (0, 2)
    np.testing.assert_allclose(mean, x.mean(axis=axes))
    np.testing.assert_allclose(var, x.var(axis=axes))
    b = (slice(None), None)
    xhat = (x - mean[b]) / np.sqrt(var[b])
    np.testing.assert_allclose(out, xhat * scale[b] + offset[b], rtol=1e-12, atol=1e-12)
    n = x.size // 3
    expected_gx = scale[b] / np.sqrt(var[b]) / n * (
        n * grad - grad.sum(axis=axes)[b] - xhat * (grad * xhat).sum(axis=axes)[b])
    np.testing.assert_allclose(gx, expected_gx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gs, (grad * xhat).sum(axis=axes), rtol=1e-12)
    np.testing.assert_allclose(go, grad.sum(axis=axes), rtol=1e-12)


def test_missing_epsilon_or_feature_index_is_refused_by_the_verifier() -> None:
    """Both attributes are required (upstream's ODS); without one the evaluator used to
    broadcast along dimension 0 and fail with an internal error."""
    import pytest

    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    for n, op, operands, types, result in (
            (1, "batch_norm_inference", "%x, %s, %s, %s, %s", "tensor<4x3xf32>" + ", tensor<3xf32>" * 4,
             "tensor<4x3xf32>"),
            (3, "batch_norm_training", "%x, %s, %s", "tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>",
             "(tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)")):
        for attrs, missing in (("epsilon = 1.0e-3 : f32", "feature_index"),
                               ("feature_index = 1 : i64", "epsilon")):
            text = (f"func.func @main(%x: tensor<4x3xf32>, %s: tensor<3xf32>) {{\n"
                    f'  %0:{n} = "stablehlo.{op}"({operands}) {{{attrs}}} : ({types}) -> {result}\n'
                    f"  return\n}}")
            with pytest.raises(Diagnostic, match=f"op requires attribute '{missing}'"):
                verify_module(parse_source(text))


def test_attribute_kinds_are_checked() -> None:
    """feature_index must be an i64 integer, epsilon an f32 float (ODS): `0 : bf16` used to
    pass the verifier and broadcast along the wrong dimension in the evaluator."""
    import pytest

    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    def program(attrs: str) -> str:
        return ("func.func @main(%x: tensor<4x3xf32>, %s: tensor<3xf32>) -> tensor<4x3xf32> {\n"
                f'  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {{{attrs}}} : '
                "(tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) "
                "-> tensor<4x3xf32>\n  return %0 : tensor<4x3xf32>\n}")

    verify_module(parse_source(program("epsilon = 1.0e-3 : f32, feature_index = 1 : i64")))
    for attrs, message in (
            ("epsilon = 1.0e-3 : f32, feature_index = 1.0 : bf16", "'feature_index' failed"),
            ("epsilon = 1.0e-3 : f32, feature_index = 1 : i32", "'feature_index' failed"),
            ("epsilon = 1.0e-3 : f64, feature_index = 1 : i64", "'epsilon' failed"),
            ("epsilon = 1 : i64, feature_index = 1 : i64", "'epsilon' failed")):
        with pytest.raises(Diagnostic, match=message):
            verify_module(parse_source(program(attrs)))
