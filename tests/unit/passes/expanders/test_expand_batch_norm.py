"""The batch norm expanders (XLA's BatchNormExpander) against the interpreter's direct
evaluation of the unexpanded ops, on random shapes, feature indices and float types."""
# ruff: noqa: E501  (MLIR test programs keep their long lines)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes.expanders import load_all

DTYPES = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
# Values are of magnitude ~0.1-10. f32: expect_almost_eq's 0.001; f16 and bf16: about five
# and three units in the last place (both evaluations round every step to 11 or 8 bits, in
# different orders: XLA's E[x^2] - E[x]^2 against the spec's E[(x - E[x])^2]). Over 30
# seeds the largest error is under half of these.
ATOL = {"f64": 1e-9, "f32": 1e-3, "f16": 0.025, "bf16": 0.15}
RTOL = {"f64": 1e-9, "f32": 1e-4, "f16": 5e-3, "bf16": 2.5e-2}


def _t(shape: tuple[int, ...], element: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def _program(op: str, shape: tuple[int, ...], index: int, element: str, eps: float) -> str:
    big, small = _t(shape, element), _t((shape[index],), element)
    operands = {"inference": [big, small, small, small, small],
                "training": [big, small, small],
                "grad": [big, small, small, small, big]}[op]
    results = [big] if op == "inference" else [big, small, small]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operands))
    names = ", ".join(f"%a{i}" for i in range(len(operands)))
    values = ", ".join(f"%0#{i}" for i in range(len(results))) if len(results) > 1 else "%0"
    head = "%0:3" if len(results) > 1 else "%0"
    return f"""func.func @main({args}) -> ({", ".join(results)}) {{
  {head} = "stablehlo.batch_norm_{op}"({names}) {{epsilon = {eps:e} : f32, feature_index = {index} : i64}} : ({", ".join(operands)}) -> ({", ".join(results)})
  return {values} : {", ".join(results)}
}}"""


def _run(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), args)


def _inputs(op: str, shape: tuple[int, ...], index: int, dtype: type,
            rng: np.random.Generator) -> list[np.ndarray]:
    x = rng.standard_normal(shape) * 2.0 + 0.5
    features = shape[index]
    scale, offset = rng.standard_normal(features), rng.standard_normal(features)
    axes = tuple(d for d in range(len(shape)) if d != index)
    mean, variance = x.mean(axis=axes), x.var(axis=axes) + 0.25
    arrays = {"inference": [x, scale, offset, mean, variance],
              "training": [x, scale, offset],
              "grad": [x, scale, mean, variance, rng.standard_normal(shape)]}[op]
    return [np.asarray(a).astype(dtype) for a in arrays]


CASES = [(op, element, seed) for op in ("inference", "training", "grad")
         for element in DTYPES for seed in range(4)]


@pytest.mark.parametrize("op,element,seed", CASES)
def test_expansion_matches_direct_evaluation(op: str, element: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 5))
    shape = tuple(int(d) for d in rng.integers(1, 6, size=rank))
    index = int(rng.integers(0, rank))
    eps = float(rng.choice([0.0, 1e-5, 1e-3]))
    text = _program(op, shape, index, element, eps)
    args = _inputs(op, shape, index, DTYPES[element], rng)
    direct = _run(text, args)
    module = parse_source(text)
    load_all()[f"batch_norm_{op}_expander"].run(module)
    verify_module(module)
    printed = print_module(module)
    assert "batch_norm" not in printed
    assert "stablehlo.reduce" in printed or op == "inference"
    expanded = _run(printed, args)
    for got, want in zip(expanded, direct, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=RTOL[element], atol=ATOL[element])


def test_training_uses_xlas_single_pass_variance() -> None:
    """XLA's E[x^2] - E[x]^2 cancels for large means where the spec's two-pass form does
    not: the expansion follows XLA (in f32 the variance of 1e4 + {0, 1} comes out 0, not
    0.25)."""
    text = _program("training", (2, 1), 1, "f32", 0.0)
    args = [np.array([[1e4], [1e4 + 1]], np.float32), np.ones(1, np.float32),
            np.zeros(1, np.float32)]
    direct = _run(text, args)
    module = parse_source(text)
    load_all()["batch_norm_training_expander"].run(module)
    expanded = _run(print_module(module), args)
    assert direct[2][0] == np.float32(0.25)
    assert expanded[2][0] == np.float32(0.0)


def test_dynamic_shapes_expand_and_agree() -> None:
    """A `?`-shaped operand expands with get_dimension_size and dynamic broadcasts."""
    text = _program("training", (2, 3, 4), 1, "f32", 1e-3).replace(
        "tensor<2x3x4xf32>", "tensor<?x3x?xf32>")
    rng = np.random.default_rng(7)
    args = _inputs("training", (2, 3, 4), 1, np.float32, rng)
    direct = _run(text, args)
    module = parse_source(text)
    load_all()["batch_norm_training_expander"].run(module)
    verify_module(module)
    printed = print_module(module)
    assert "stablehlo.get_dimension_size" in printed
    assert "stablehlo.dynamic_broadcast_in_dim" in printed
    for got, want in zip(_run(printed, args), direct, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
