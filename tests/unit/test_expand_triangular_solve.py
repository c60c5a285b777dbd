"""triangular_solve_expander: the expanded program (XLA's blocked inversion or direct
substitution) agrees with the direct triangular_solve evaluator for every flag combination,
batch shape and size, including sizes above XLA's block size of 128."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from expand_helpers import expand, relative_error, run_both, type_text

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.passes.expanders import load_all
from shlo_cli.passes.expanders.triangular_solve import expand_triangular_solve

DTYPES = {"f32": (np.float32, 1e-4), "f64": (np.float64, 1e-10),
          "complex<f32>": (np.complex64, 1e-4), "complex<f64>": (np.complex128, 1e-10),
          "f16": (np.float16, 2e-2), "bf16": (ml_dtypes.bfloat16, 1e-1)}
MODES = ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT")
FLAGS = list(itertools.product([True, False], [True, False], MODES, [True, False]))


def program(a_shape: tuple[int, ...], b_shape: tuple[int, ...], element: str, left: bool,
            lower: bool, mode: str, unit: bool) -> str:
    a, b = type_text(a_shape, element), type_text(b_shape, element)
    return f"""func.func @main(%a: {a}, %b: {b}) -> {b} {{
  %0 = "stablehlo.triangular_solve"(%a, %b) {{left_side = {str(left).lower()}, lower = {str(lower).lower()}, unit_diagonal = {str(unit).lower()}, transpose_a = #stablehlo<transpose {mode}>}} : ({a}, {b}) -> {b}
  return %0 : {b}
}}
"""  # noqa: E501


def operands(rng: np.random.Generator, batch: tuple[int, ...], n: int, k: int, left: bool,
             dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """A well-conditioned `a` (small off-diagonal entries, diagonal near +-2) and a random
    `b`; both triangles of `a` are filled, so reading the wrong one shows."""
    a_shape = (*batch, n, n)
    b_shape = (*batch, n, k) if left else (*batch, k, n)
    a = rng.standard_normal(a_shape) / np.sqrt(n)
    a = a + np.eye(n) * rng.choice([-2.0, 2.0], size=(*batch, n, 1))
    b = rng.standard_normal(b_shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(a_shape) / np.sqrt(n)
        b = b + 1j * rng.standard_normal(b_shape)
    return a.astype(dtype), b.astype(dtype)


def check(rng: np.random.Generator, batch: tuple[int, ...], n: int, k: int, element: str,
          flags: tuple[bool, bool, str, bool]) -> str:
    left, lower, mode, unit = flags
    dtype, tolerance = DTYPES[element]
    a, b = operands(rng, batch, n, k, left, dtype)
    text = program(a.shape, b.shape, element, *flags)
    expected, actual, printed = run_both(text, expand_triangular_solve, a, b)
    assert "triangular_solve" not in printed
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    error = relative_error(actual, expected)
    assert error < tolerance, (batch, n, k, element, flags, error)
    return printed


@pytest.mark.parametrize("element", ["f32", "f64", "complex<f32>", "complex<f64>"])
@pytest.mark.parametrize("batch,n,k,path", [((2,), 5, 3, "blocked"), ((9,), 4, 2, "direct"),
                                            ((), 6, 1, "blocked"), ((3, 4), 7, 2, "direct")])
def test_every_flag_combination(element: str, batch: tuple[int, ...], n: int, k: int,
                                path: str) -> None:
    rng = np.random.default_rng(1)
    for flags in FLAGS:
        printed = check(rng, batch, n, k, element, flags)
        # XLA solves directly when there are more than 8 matrices smaller than 32.
        assert ("stablehlo.while" in printed) == (path == "blocked")


@pytest.mark.parametrize("element", ["f16", "bf16"])
def test_half_precision(element: str) -> None:
    rng = np.random.default_rng(6)
    for flags in FLAGS:
        check(rng, (2,), 5, 2, element, flags)
        check(rng, (9,), 3, 2, element, flags)


def test_randomized_shapes() -> None:
    rng = np.random.default_rng(7)
    for _ in range(24):
        batch = [(), (3,), (2, 2), (10,), (1, 9)][rng.integers(5)]
        n = int(rng.integers(1, 41))
        k = int(rng.integers(1, 6))
        element = ["f32", "f64", "complex<f64>"][rng.integers(3)]
        flags = FLAGS[rng.integers(len(FLAGS))]
        check(rng, batch, n, k, element, flags)


@pytest.mark.parametrize("n", [128, 130])
def test_sizes_around_the_block_size(n: int) -> None:
    """128 is one block; 130 is a full block plus a 2x2 identity-padded one, solved in
    two block steps (forward or backward by the flags)."""
    rng = np.random.default_rng(n)
    for flags in FLAGS:
        check(rng, (), n, 2, "f64", flags)


def test_three_blocks_batched_f32() -> None:
    rng = np.random.default_rng(3)
    for flags in [(True, True, "NO_TRANSPOSE", False), (False, False, "ADJOINT", False),
                  (True, False, "TRANSPOSE", True)]:
        check(rng, (2,), 300, 2, "f32", flags)


def test_one_by_one() -> None:
    a = np.array([[[2 + 1j]], [[-4 - 2j]]], np.complex128)
    b = np.array([[[1 + 1j, 2j, 3]], [[4, 5, 6j]]], np.complex128)
    for unit in (True, False):
        text = program(a.shape, b.shape, "complex<f64>", True, True, "ADJOINT", unit)
        expected, actual, printed = run_both(text, expand_triangular_solve, a, b)
        assert "stablehlo.while" not in printed and "dot_general" not in printed
        np.testing.assert_allclose(actual, b if unit else b / np.conj(a), rtol=1e-15)
        np.testing.assert_allclose(actual, expected, rtol=1e-15)


def test_empty_b_is_returned() -> None:
    text = program((3, 3), (3, 0), "f32", True, True, "NO_TRANSPOSE", False)
    printed = expand(text, expand_triangular_solve)
    assert "triangular_solve" not in printed and "dot_general" not in printed


def test_products_use_highest_precision() -> None:
    text = program((2, 5, 5), (2, 5, 3), "f32", True, False, "TRANSPOSE", False)
    printed = expand(text, expand_triangular_solve)
    dots = [line for line in printed.splitlines() if "dot_general" in line]
    assert dots and all("precision = [HIGHEST, HIGHEST]" in line for line in dots)


def test_nested_ops_are_expanded() -> None:
    text = """func.func @main(%a: tensor<3x3xf64>, %b: tensor<3x1xf64>) -> tensor<3x1xf64> {
  %c = stablehlo.constant dense<true> : tensor<i1>
  %0 = "stablehlo.if"(%c) ({
    %1 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf64>, tensor<3x1xf64>) -> tensor<3x1xf64>
    stablehlo.return %1 : tensor<3x1xf64>
  }, {
    stablehlo.return %b : tensor<3x1xf64>
  }) : (tensor<i1>) -> tensor<3x1xf64>
  return %0 : tensor<3x1xf64>
}
"""  # noqa: E501
    a = np.array([[2.0, 9, 9], [1, 4, 9], [3, 5, 8]])
    b = np.array([[2.0], [9], [29]])
    expected, actual, printed = run_both(text, expand_triangular_solve, a, b)
    assert "triangular_solve" not in printed
    np.testing.assert_allclose(actual, [[1.0], [2.0], [2.0]], rtol=1e-14)
    np.testing.assert_allclose(actual, expected, rtol=1e-14)


def test_dynamic_shapes_are_refused_at_the_op() -> None:
    text = program((4, 4), (4, 1), "f32", True, True, "NO_TRANSPOSE", False)
    text = text.replace("tensor<4x1xf32>", "tensor<?x1xf32>")
    module = parse_source(text, "dyn.mlir")
    with pytest.raises(Diagnostic) as caught:
        expand_triangular_solve(module)
    message = caught.value.message
    assert message.startswith("'stablehlo.triangular_solve' op cannot be expanded by "
                              "triangular_solve_expander")
    assert "tensor<?x1xf32>" in message
    assert (caught.value.line, caught.value.col) == (2, 8)


def test_registered_under_xla_flag() -> None:
    expander = load_all()["triangular_solve_expander"]
    assert expander.run is expand_triangular_solve


def dynamic_batch_program(batch: tuple[int, ...], dynamic: tuple[bool, ...], n: int, k: int,
                          element: str, flags: tuple[bool, bool, str, bool]) -> str:
    """The program for these shapes with the marked batch dimensions written as `?`."""
    left = flags[0]
    a_shape, b_shape = (*batch, n, n), (*batch, n, k) if left else (*batch, k, n)
    text = program(a_shape, b_shape, element, *flags)
    for shape in (a_shape, b_shape):
        written = tuple("?" if i < len(batch) and dynamic[i] else str(d)
                        for i, d in enumerate(shape))
        text = text.replace(type_text(shape, element),
                            "tensor<" + "".join(f"{d}x" for d in written) + element + ">")
    return text


@pytest.mark.parametrize("batch,dynamic", [((3,), (True,)), ((2, 3), (True, False)),
                                           ((2, 2), (True, True)), ((1,), (True,))])
def test_dynamic_batch_dimensions_loop_over_the_matrices(
        batch: tuple[int, ...], dynamic: tuple[bool, ...]) -> None:
    rng = np.random.default_rng(11)
    for flags in FLAGS:
        for element in ("f32", "complex<f64>"):
            dtype, tolerance = DTYPES[element]
            a, b = operands(rng, batch, 4, 2, flags[0], dtype)
            text = dynamic_batch_program(batch, dynamic, 4, 2, element, flags)
            expected, actual, printed = run_both(text, expand_triangular_solve, a, b)
            assert "triangular_solve" not in printed
            assert "stablehlo.get_dimension_size" in printed
            assert ("stablehlo.dynamic_reshape" in printed) == (len(batch) > 1)
            assert actual.shape == expected.shape == b.shape
            assert relative_error(actual, expected) < tolerance, (batch, flags, element)


def test_dynamic_batch_of_no_matrices() -> None:
    text = dynamic_batch_program((0,), (True,), 3, 1, "f32", (True, True, "NO_TRANSPOSE",
                                                            False))
    a, b = np.zeros((0, 3, 3), np.float32), np.zeros((0, 3, 1), np.float32)
    expected, actual, _ = run_both(text, expand_triangular_solve, a, b)
    assert actual.shape == expected.shape == (0, 3, 1)


def test_dynamic_matrix_dimensions_are_refused() -> None:
    text = dynamic_batch_program((2,), (True,), 4, 1, "f32", (True, True, "NO_TRANSPOSE",
                                                            False))
    text = text.replace("tensor<?x4x4xf32>", "tensor<?x?x4xf32>")
    module = parse_source(text, "dyn.mlir")
    with pytest.raises(Diagnostic) as caught:
        expand_triangular_solve(module)
    assert caught.value.message == (
        "'stablehlo.triangular_solve' op cannot be expanded by triangular_solve_expander: "
        "the matrix dimensions of 'tensor<?x?x4xf32>' are dynamic (only batch dimensions "
        "may be)")


UPSTREAM_DYNAMIC = ("/work/shared/conformance/testdata/dynamic/vmap_triangular_solve_complex_"
                    "transformations_a_complex64_4_4_b_complex64_4_1_dynamic.mlir")


def test_upstream_dynamic_batch_program_expands_and_agrees() -> None:
    import os

    if not os.path.exists(UPSTREAM_DYNAMIC):
        pytest.skip("upstream conformance files not available")
    with open(UPSTREAM_DYNAMIC) as f:
        text = f.read()
    rng = np.random.default_rng(5)
    a, b = operands(rng, (3,), 4, 1, True, np.complex64)
    size = np.array(3, np.int64)  # the dimension variable argument
    printed = expand(text, expand_triangular_solve)
    assert "triangular_solve" not in printed
    [expected] = shlo_cli.interpret(text, size, a, b)
    [actual] = shlo_cli.interpret(printed, size, a, b)
    assert relative_error(actual, expected) < 1e-4
