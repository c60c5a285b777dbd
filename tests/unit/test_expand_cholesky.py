"""cholesky_expander: the expanded program (XLA's blocked left-looking Cholesky) agrees with
the direct cholesky evaluator on positive-definite input for both triangles, batch shapes
and sizes around XLA's block size of 128, and fills failed matrices with NaN as XLA does."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from expand_helpers import expand, relative_error, run_both, type_text

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.passes.expanders import load_all
from shlo_cli.passes.expanders.cholesky import expand_cholesky

DTYPES = {"f32": (np.float32, 1e-4), "f64": (np.float64, 1e-10),
          "complex<f32>": (np.complex64, 1e-4), "complex<f64>": (np.complex128, 1e-10),
          "bf16": (ml_dtypes.bfloat16, 5e-2), "f16": (np.float16, 5e-3)}


def program(shape: tuple[int, ...], element: str, lower: bool) -> str:
    t = type_text(shape, element)
    return f"""func.func @main(%a: {t}) -> {t} {{
  %0 = stablehlo.cholesky %a, lower = {str(lower).lower()} : {t}
  return %0 : {t}
}}
"""


def positive_definite(rng: np.random.Generator, shape: tuple[int, ...],
                      dtype: type) -> np.ndarray:
    """x x^H + n I: Hermitian positive definite, comfortably conditioned."""
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    a = x @ np.conj(np.swapaxes(x, -1, -2)) / shape[-1] + np.eye(shape[-1])
    return a.astype(dtype)


def check(a: np.ndarray, element: str, lower: bool) -> tuple[np.ndarray, str]:
    _, tolerance = DTYPES[element]
    expected, actual, printed = run_both(program(a.shape, element, lower), expand_cholesky, a)
    assert "cholesky" not in printed and "triangular_solve" not in printed
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    error = relative_error(actual, expected)
    assert error < tolerance, (a.shape, element, lower, error)
    return actual, printed


@pytest.mark.parametrize("element", list(DTYPES))
@pytest.mark.parametrize("lower", [True, False])
def test_small_batched(element: str, lower: bool) -> None:
    rng = np.random.default_rng(5)
    dtype, _ = DTYPES[element]
    for shape in [(1, 1), (3, 3), (2, 5, 5), (9, 4, 4), (2, 1, 3, 3)]:
        check(positive_definite(rng, shape, dtype), element, lower)


def test_randomized_shapes() -> None:
    rng = np.random.default_rng(11)
    for _ in range(16):
        batch = [(), (2,), (3, 2), (10,)][rng.integers(4)]
        n = int(rng.integers(1, 33))
        element = ["f32", "f64", "complex<f32>", "complex<f64>"][rng.integers(4)]
        lower = bool(rng.integers(2))
        check(positive_definite(rng, (*batch, n, n), DTYPES[element][0]), element, lower)


@pytest.mark.parametrize("shape,element,lower", [
    ((128, 128), "f64", True),           # one block: only the unblocked loop
    ((130, 130), "f64", True),           # a 128 block, its panel solve, then a 2x2 block
    ((130, 130), "f64", False),
    ((2, 129, 129), "f32", True),        # the last block is a single sqrt
    ((2, 129, 129), "complex<f64>", False),
    ((257, 257), "f64", True),           # three blocks
])
def test_blocked_path(shape: tuple[int, ...], element: str, lower: bool) -> None:
    rng = np.random.default_rng(sum(shape))
    _, printed = check(positive_definite(rng, shape, DTYPES[element][0]), element, lower)
    loops = printed.count("stablehlo.while")
    assert loops >= 1


def test_only_the_chosen_triangle_is_read() -> None:
    rng = np.random.default_rng(2)
    a = positive_definite(rng, (3, 6, 6), np.float64)
    for lower in (True, False):
        noisy = a + (np.triu(np.full((6, 6), 7.0), 1) if lower else np.tril(np.full((6, 6), 7.0),
                                                                              -1))
        text = program(a.shape, "f64", lower)
        [clean] = shlo_cli.interpret(expand(text, expand_cholesky), a)
        [dirty] = shlo_cli.interpret(expand(text, expand_cholesky), noisy)
        np.testing.assert_array_equal(clean, dirty)
        other = np.triu(clean, 1) if lower else np.tril(clean, -1)
        assert not other.any()  # the other triangle of the result is zero
        factor = clean if lower else np.conj(np.swapaxes(clean, -1, -2))
        np.testing.assert_allclose(factor @ np.conj(np.swapaxes(factor, -1, -2)), a,
                                   rtol=1e-12, atol=1e-12)


def test_not_positive_definite_fills_that_matrix_with_nan() -> None:
    """A negative pivot makes its square root NaN: XLA marks that batch matrix and returns
    it all-NaN; the other matrices are untouched. The direct evaluator agrees here."""
    rng = np.random.default_rng(4)
    for shape, bad, lowers in [((3, 4, 4), (1, 2, 2), (True, False)),
                               ((2, 130, 130), (0, 129, 129), (True,))]:
        a = positive_definite(rng, shape, np.float64)
        a[bad] = -100.0
        for lower in lowers:
            actual, _ = check(a, "f64", lower)
            failed = np.isnan(actual).all(axis=(-2, -1))
            assert failed[bad[0]] and failed.sum() == 1


def test_nan_input_fills_with_nan() -> None:
    a = positive_definite(np.random.default_rng(8), (2, 3, 3), np.complex64)
    a[0, 2, 1] = np.nan
    actual, _ = check(a, "complex<f32>", True)
    assert np.isnan(actual[0]).all() and not np.isnan(actual[1]).any()


def test_zero_pivot_follows_xla_not_the_direct_evaluator() -> None:
    """A zero pivot has sqrt 0, not NaN, so XLA does not mark the matrix: the column below
    is divided by zero (0/0 = NaN here) and the rest of the factor stays. The direct
    evaluator instead returns all-NaN for any pivot that is not positive."""
    a = np.array([[1.0, 1.0], [1.0, 1.0]])
    text = program(a.shape, "f64", True)
    [xla_like] = shlo_cli.interpret(expand(text, expand_cholesky), a)
    np.testing.assert_array_equal(xla_like, [[1.0, 0.0], [1.0, np.nan]])
    [direct] = shlo_cli.interpret(text, a)
    assert np.isnan(direct).all()


def test_empty_matrices() -> None:
    for shape in [(0, 0), (0, 3, 3)]:
        printed = expand(program(shape, "f32", True), expand_cholesky)
        assert "cholesky" not in printed and "while" not in printed


def test_dynamic_shapes_are_refused_at_the_op() -> None:
    text = program((2, 3, 3), "f32", True).replace("2x3x3", "?x3x3")
    module = parse_source(text, "dyn.mlir")
    with pytest.raises(Diagnostic) as caught:
        expand_cholesky(module)
    message = caught.value.message
    assert message.startswith("'stablehlo.cholesky' op cannot be expanded by cholesky_expander")
    assert "tensor<?x3x3xf32>" in message
    assert (caught.value.line, caught.value.col) == (2, 8)


def test_registered_under_xla_flag() -> None:
    expander = load_all()["cholesky_expander"]
    assert expander.run is expand_cholesky
