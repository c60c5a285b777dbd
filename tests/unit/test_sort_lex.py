"""Lexicographic sort comparators (jnp.lexsort; `lt_1 or (eq_1 and ...)`) sorted through
numpy's lexsort give the merge sort's order bit for bit: JAX's comparator with its float
canonicalization and TOTALORDER, descending levels, swapped operands, three levels, 2-D
inputs along either axis, ties, NaN, +-0, extreme integers; comparators that are no chain
(or data the keys cannot order, FLOAT NaN) are left to the merge sort."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import sort
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

# JAX's jnp.lexsort((b, a)) comparator: an i32 key, then a canonicalized f32 key.
JAX = """
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.compare EQ, %c, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.select %2, %cst, %c : tensor<i1>, tensor<f32>
    %4 = stablehlo.compare NE, %c, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %5 = stablehlo.select %4, %cst_1, %3 : tensor<i1>, tensor<f32>
    %6 = stablehlo.compare EQ, %d, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %7 = stablehlo.select %6, %cst, %d : tensor<i1>, tensor<f32>
    %8 = stablehlo.compare NE, %d, %d, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %9 = stablehlo.select %8, %cst_1, %7 : tensor<i1>, tensor<f32>
    %10 = stablehlo.compare LT, %5, %9, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %11 = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %12 = stablehlo.compare EQ, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %13 = stablehlo.and %12, %10 : tensor<i1>
    %r = stablehlo.or %11, %13 : tensor<i1>"""
# key descending (GT), ties by the float ascending with FLOAT compares
DESC_FLOAT = """
    %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %b, %a, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %c, %d, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %tie = stablehlo.and %lt, %eq : tensor<i1>
    %r = stablehlo.or %tie, %gt : tensor<i1>"""
# float first (TOTALORDER, operands swapped: descending), then the int, then the third
# operand (the original position) descending
THREE = """
    %lt1 = stablehlo.compare LT, %d, %c, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq1 = stablehlo.compare EQ, %c, %d, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt2 = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %eq2 = stablehlo.compare EQ, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %lt3 = stablehlo.compare GT, %e, %f, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %t2 = stablehlo.and %eq2, %lt3 : tensor<i1>
    %o2 = stablehlo.or %lt2, %t2 : tensor<i1>
    %t1 = stablehlo.and %eq1, %o2 : tensor<i1>
    %r = stablehlo.or %lt1, %t1 : tensor<i1>"""
# the EQ compares other values than the LT: no lexicographic chain
NOT_CHAIN = """
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %e, %f, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %lt2 = stablehlo.compare LT, %c, %d, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt2 : tensor<i1>
    %r = stablehlo.or %lt, %tie : tensor<i1>"""
BODIES = {"jax": JAX, "desc_float": DESC_FLOAT, "three": THREE}


def _program(body: str, shape: tuple[int, ...], dim: int) -> str:
    s = "x".join(map(str, shape))
    ti, tf = f"tensor<{s}xi32>", f"tensor<{s}xf32>"
    return f"""
func.func @main(%k: {ti}, %v: {tf}, %p: {ti}) -> ({ti}, {tf}, {ti}) {{
  %0:3 = "stablehlo.sort"(%k, %v, %p) <{{dimension = {dim} : i64, is_stable = true}}> ({{
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>, %e: tensor<i32>, %f: tensor<i32>):{body}
    stablehlo.return %r : tensor<i1>
  }}) : ({ti}, {tf}, {ti}) -> ({ti}, {tf}, {ti})
  return %0#0, %0#1, %0#2 : {ti}, {tf}, {ti}
}}
"""


def _run(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    interpreter = Interpreter(parse_source(text))
    return [np.asarray(o) for o in interpreter.call(interpreter.lookup_function("main"), args)]


def _data(rng: np.random.Generator, shape: tuple[int, ...], nan: bool) -> list[np.ndarray]:
    info = np.iinfo(np.int32)
    keys = rng.choice(np.array([info.min, -1, 0, 1, 3, info.max], np.int32), shape)
    pool = [-0.0, 0.0, 1.0, -2.5, np.inf, -np.inf]
    values = rng.choice(np.array(pool, np.float32), shape)
    if nan:
        nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345], np.uint32)
        spots = rng.random(shape) < 0.2
        values[spots] = rng.choice(nans.view(np.float32), int(spots.sum()))
    return [keys, values, rng.integers(-3, 3, shape).astype(np.int32)]


def _same(text: str, args: list[np.ndarray], monkeypatch: Any, fast: bool) -> None:
    """The sort with the lexsort path (which must be taken when `fast`) and without it."""
    calls: list[int] = []
    general = sort.merge_sort_permutation

    def counted(*a: Any) -> Any:
        calls.append(1)
        return general(*a)

    monkeypatch.setattr(sort, "merge_sort_permutation", counted)
    got = _run(text, args)
    assert (not calls) == fast
    monkeypatch.setattr(sort, "_lex_permutation", lambda *a: None)
    want = _run(text, args)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and np.array_equal(g.view(np.uint32), w.view(np.uint32))


@pytest.mark.parametrize("body", list(BODIES))
@pytest.mark.parametrize(("shape", "dim"), [((64,), 0), ((5, 30), 1), ((30, 5), 0), ((1,), 0)])
@pytest.mark.parametrize("nan", [False, True])
def test_lexsort_is_the_merge_sort(body: str, shape: tuple, dim: int, nan: bool,
                                   monkeypatch: Any) -> None:
    if nan and body == "desc_float":
        pytest.skip("FLOAT compares are no order with NaN (the merge sort's result is undefined)")
    rng = np.random.default_rng(len(body) + sum(shape) + nan)
    args = _data(rng, shape, nan)
    # a signaling NaN on a TOTALORDER level (bits != widened order) takes the merge sort
    signaling = nan and body == "three" and bool(np.any(
        np.isnan(args[1]) & ((args[1].view(np.uint32) & 0x400000) == 0)))
    _same(_program(BODIES[body], shape, dim), args, monkeypatch, fast=not signaling)


def test_quiet_nans_on_a_totalorder_level(monkeypatch: Any) -> None:
    """Quiet NaNs of both signs and several payloads keep the lexsort path."""
    rng = np.random.default_rng(9)
    args = _data(rng, (80,), False)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFD00001], np.uint32)
    args[1][::3] = rng.choice(nans.view(np.float32), len(args[1][::3]))
    _same(_program(THREE, (80,), 0), args, monkeypatch, fast=True)


def test_other_comparators_use_the_merge_sort(monkeypatch: Any) -> None:
    args = _data(np.random.default_rng(3), (40,), False)
    _same(_program(NOT_CHAIN, (40,), 0), args, monkeypatch, fast=False)


def test_comparator_that_is_no_order_still_permutes() -> None:
    """FLOAT LT with NaN keys is no strict weak order (the spec leaves the order open): the
    merge sort still returns a permutation of every row, and NaN-free rows sorted."""
    from shlo_cli.interpreter.engine import Interpreter
    from shlo_cli.ir.parser import parse_source

    text = """
func.func @main(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}
"""
    rng = np.random.default_rng(0)
    interpreter = Interpreter(parse_source(text))
    main = interpreter.lookup_function("main")
    for _ in range(30):
        x = rng.standard_normal((4, 64)).astype(np.float32)
        x[:3][rng.random((3, 64)) < 0.3] = np.nan
        out = np.asarray(interpreter.call(main, [x])[0])
        for r in range(4):
            assert sorted(v.tobytes() for v in out[r]) == sorted(v.tobytes() for v in x[r])
        assert out[3].tobytes() == np.sort(x[3]).tobytes()


# jax.export defines the comparator's constants at the top of `main`: the region reads them.
KEY_ONLY = """
    %2 = stablehlo.compare EQ, %c, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.select %2, %cst, %c : tensor<i1>, tensor<f32>
    %4 = stablehlo.compare NE, %c, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %5 = stablehlo.select %4, %cst_1, %3 : tensor<i1>, tensor<f32>
    %6 = stablehlo.compare EQ, %d, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %7 = stablehlo.select %6, %cst, %d : tensor<i1>, tensor<f32>
    %8 = stablehlo.compare NE, %d, %d, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %9 = stablehlo.select %8, %cst_1, %7 : tensor<i1>, tensor<f32>
    %r = stablehlo.compare LT, %5, %9, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>"""
_CONSTANTS = """
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>"""


@pytest.mark.parametrize("body", ["key_only", "jax"])
@pytest.mark.parametrize("nan", [False, True])
def test_constants_read_from_outside_the_comparator(body: str, nan: bool,
                                                    monkeypatch: Any) -> None:
    """The comparator's 0.0 and NaN defined before the sort (as jax.export writes them) keep
    the key and lexsort paths, with the merge sort's results."""
    text = KEY_ONLY if body == "key_only" else "".join(
        line for line in JAX.splitlines(keepends=True) if "stablehlo.constant" not in line)
    sort_head = '  %0:3 = "stablehlo.sort"'
    program = _program(text, (5, 30), 1).replace(sort_head, _CONSTANTS.lstrip("\n") + "\n"
                                                  + sort_head)
    rng = np.random.default_rng(40 + nan)
    args = _data(rng, (5, 30), nan)
    if nan:  # quiet NaNs (a signalling one on a TOTALORDER level takes the merge sort)
        args[1][np.isnan(args[1])] = np.float32(np.nan)
    if body == "key_only":
        monkeypatch.setattr(sort, "_lex_permutation", lambda *a: None)
    _same(program, args, monkeypatch, fast=True)
