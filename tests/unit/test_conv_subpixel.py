"""Convolutions with lhs dilation evaluated per output phase (conv_subpixel) against the
im2col of the dilated input they replace and a straightforward evaluation of the spec:
integer-valued floats (exact in any summation order) and integers bit for bit, random reals
within rounding; negative padding, padding wider than the kernel, outputs smaller than the
input, strides and window dilation with the base dilation, reversal, feature and batch
groups, 1-, 2- and 3-d windows, NCHW layouts, empty batches and kernels holding inf/NaN."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import itertools
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import conv_subpixel, convolution
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

ELEMS = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
         "i32": np.int32, "i64": np.int64, "i8": np.int8, "ui16": np.uint16,
         "c64": np.complex64}
MLIR_NAMES = {"c64": "complex<f32>"}


@dataclass(frozen=True)
class Case:
    """A convolution in (N, spatial.., C) x (K.., I, F) terms."""

    x: tuple[int, ...]
    k: tuple[int, ...]
    lhs_dil: tuple[int, ...]
    strides: tuple[int, ...] = ()
    pads: tuple[tuple[int, int], ...] = ()
    rhs_dil: tuple[int, ...] = ()
    reverse: tuple[bool, ...] = ()
    groups: int = 1
    batch_groups: int = 1
    nchw: bool = False

    @property
    def s(self) -> int:
        return len(self.x) - 2

    def get(self, name: str) -> tuple:
        value = getattr(self, name)
        defaults = {"strides": 1, "rhs_dil": 1, "pads": (0, 0), "reverse": False}
        return value or (defaults[name],) * self.s

    def counts(self) -> tuple[int, ...]:
        out = []
        for n, kk, ld, st, rd, (lo, hi) in zip(self.x[1:-1], self.k, self.lhs_dil,
                                               self.get("strides"), self.get("rhs_dil"),
                                               self.get("pads"), strict=False):
            padded = (n - 1) * ld + 1 + lo + hi
            extent = (kk - 1) * rd + 1
            out.append(0 if padded < extent else (padded - extent) // st + 1)
        return tuple(out)


CASES = {
    "transpose_s2_k4": Case((2, 5, 6, 3), (4, 4, 3, 2), (2, 2), pads=((2, 2), (2, 2))),
    "transpose_s3_k5_valid": Case((1, 4, 5, 4), (5, 5, 4, 3), (3, 3), pads=((4, 4), (4, 4))),
    "strided_and_dilated": Case((1, 7, 5, 4), (3, 3, 4, 3), (3, 3), strides=(2, 2),
                                pads=((1, 0), (2, 1))),
    "stride_multiple_of_dilation": Case((1, 6, 6, 2), (3, 3, 2, 2), (2, 2), strides=(4, 2)),
    "negative_padding": Case((2, 6, 7, 3), (3, 2, 3, 2), (2, 2), pads=((-2, -1), (-3, 1))),
    "output_smaller_than_input": Case((1, 9, 8, 2), (2, 3, 2, 2), (2, 3), strides=(3, 4),
                                      pads=((-5, -4), (-6, -2))),
    "padding_wider_than_kernel": Case((1, 3, 4, 2), (2, 2, 2, 3), (2, 2), pads=((5, 6), (4, 7))),
    "rhs_dilation": Case((1, 6, 5, 3), (3, 2, 3, 2), (2, 2), rhs_dil=(2, 3), pads=((3, 2), (1, 4))),
    "rhs_dilation_shares_factors": Case((1, 5, 5, 2), (3, 3, 2, 2), (4, 6), rhs_dil=(2, 4),
                                        strides=(3, 2), pads=((6, 5), (7, 3))),
    "dilation_wider_than_kernel": Case((2, 4, 4, 3), (2, 2, 3, 2), (5, 4), pads=((1, 2), (0, 3))),
    "one_dimension_dilated": Case((1, 5, 6, 3), (3, 3, 3, 2), (1, 3), pads=((1, 1), (2, 2))),
    "reversal": Case((1, 5, 4, 2), (3, 4, 2, 3), (2, 3), reverse=(True, False),
                     pads=((2, 1), (3, 3)), strides=(1, 2)),
    "feature_groups": Case((2, 4, 5, 4), (3, 3, 2, 6), (2, 2), groups=2, pads=((2, 2), (1, 2))),
    "batch_groups": Case((4, 4, 4, 3), (2, 3, 3, 4), (2, 2), batch_groups=2, pads=((1, 1), (2, 2))),
    "one_d": Case((3, 9, 4), (4, 4, 5), (2,), pads=((2, 3),)),
    "three_d": Case((1, 3, 4, 3, 2), (2, 3, 2, 2, 2), (2, 2, 3), pads=((1, 1), (2, 1), (1, 2))),
    "nchw": Case((2, 5, 4, 3), (3, 3, 3, 4), (2, 2), strides=(2, 1), pads=((1, 2), (2, 1)),
                 nchw=True),
    "empty_batch": Case((0, 4, 4, 3), (3, 3, 3, 2), (2, 2), pads=((1, 1), (1, 1))),
}


def _tensor(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + MLIR_NAMES.get(elem, elem) + ">"


def _layouts(case: Case) -> tuple[str, list[int], list[int]]:
    """Dimension numbers and the axis orders taking canonical operands to them."""
    sp = ", ".join(str(i) for i in range(case.s))
    if case.nchw:
        return (f"[b, f, {sp}]x[o, i, {sp}]->[b, f, {sp}]",
                [0, case.s + 1, *range(1, case.s + 1)], [case.s + 1, case.s, *range(case.s)])
    return (f"[b, {sp}, f]x[{sp}, i, o]->[b, {sp}, f]", list(range(case.s + 2)),
            list(range(case.s + 2)))


def _program(case: Case, elem: str) -> tuple[str, list[int], list[int]]:
    dims, x_perm, k_perm = _layouts(case)
    counts = case.counts()
    out = (case.x[0] // case.batch_groups, *counts, case.k[-1])
    xs = tuple(case.x[a] for a in x_perm)
    ks = tuple(case.k[a] for a in k_perm)
    os_ = tuple(out[a] for a in x_perm)

    def ints(values: tuple) -> str:
        return "[" + ", ".join(str(v).lower() for v in values) + "]"

    pads = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in case.get("pads")) + "]"
    window = (f"stride = {ints(case.get('strides'))}, pad = {pads}, lhs_dilate = "
              f"{ints(case.lhs_dil)}, rhs_dilate = {ints(case.get('rhs_dil'))}, reverse = "
              f"{ints(case.get('reverse'))}")
    text = f"""
func.func @main(%x: {_tensor(xs, elem)}, %k: {_tensor(ks, elem)}) -> {_tensor(os_, elem)} {{
  %0 = stablehlo.convolution(%x, %k) dim_numbers = {dims}, window = {{{window}}} {{batch_group_count = {case.batch_groups} : i64, feature_group_count = {case.groups} : i64}} : ({_tensor(xs, elem)}, {_tensor(ks, elem)}) -> {_tensor(os_, elem)}
  return %0 : {_tensor(os_, elem)}
}}
"""
    return text, x_perm, k_perm


def _run(case: Case, elem: str, x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The op on canonical operands, result back in (N', O.., F)."""
    text, x_perm, k_perm = _program(case, elem)
    interpreter = Interpreter(parse_source(text))
    [got] = interpreter.call(interpreter.lookup_function("main"),
                             [np.transpose(x, x_perm), np.transpose(k, k_perm)])
    return np.transpose(got, np.argsort(x_perm))


def _old_path(case: Case, elem: str, x: np.ndarray, k: np.ndarray,
              monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    with monkeypatch.context() as m:
        m.setattr(convolution, "subpixel_applies", lambda *a: False)
        return _run(case, elem, x, k)


def _reference(case: Case, x: np.ndarray, k: np.ndarray, acc: type) -> np.ndarray:
    """The spec, one output element at a time: the dilated, padded input built explicitly."""
    s = case.s
    x, k = x.astype(acc), k.astype(acc)
    shape = [(n - 1) * d + 1 if n else 0 for n, d in zip(x.shape[1:-1], case.lhs_dil, strict=True)]
    big = np.zeros((x.shape[0], *shape, x.shape[-1]), acc)
    big[(slice(None), *[slice(None, None, d) for d in case.lhs_dil])] = x
    for axis, (lo, hi) in enumerate(case.get("pads"), start=1):
        widths = [(0, 0)] * big.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        big = np.pad(big, widths)
        index = [slice(None)] * big.ndim
        index[axis] = slice(max(-lo, 0), big.shape[axis] - max(-hi, 0))
        big = big[tuple(index)]
    for axis, flip in enumerate(case.get("reverse")):
        if flip:
            k = np.flip(k, axis)
    counts, features, width = case.counts(), k.shape[-1], k.shape[s]
    per = x.shape[0] // case.batch_groups
    out = np.zeros((per, *counts, features), acc)
    for b, *o in itertools.product(range(per), *[range(c) for c in counts]):
        for f in range(features):
            g = f // (features // case.groups)
            bg = f // (features // case.batch_groups)
            window = big[(bg * per + b, *[slice(p * st, p * st + (kk - 1) * d + 1, d)
                                          for p, st, kk, d in zip(o, case.get("strides"), k.shape,
                                                                  case.get("rhs_dil"), strict=False)],
                          slice(g * width, (g + 1) * width))]
            with np.errstate(invalid="ignore"):  # 0 * inf
                out[(b, *o, f)] = np.sum(window * k[..., f])
    return out


def _integers(rng: np.random.Generator, shape: tuple[int, ...], elem: str, high: int) -> np.ndarray:
    low = 0 if elem.startswith("ui") else -high
    return rng.integers(low, high + 1, shape).astype(ELEMS[elem])


def _spy(monkeypatch: pytest.MonkeyPatch, scatter: bool) -> list[str]:
    """Records which decomposition ran; scatter=False turns the scatter GEMM off."""
    calls: list[str] = []
    phases, gemm = convolution.subpixel, convolution.scatter_gemm

    def by_gemm(*args: object) -> object:
        out = gemm(*args) if scatter else None  # type: ignore[arg-type]
        if out is not None:
            calls.append("scatter")
        return out

    def by_phase(*args: object) -> object:
        calls.append("phases")
        return phases(*args)  # type: ignore[arg-type]
    monkeypatch.setattr(convolution, "scatter_gemm", by_gemm)
    monkeypatch.setattr(convolution, "subpixel", by_phase)
    return calls


def _scatter_expected(case: Case, elem: str) -> bool:
    """Where the scatter GEMM applies: the im2col path's BLAS types and depths, stride 1, no
    groups."""
    depth = int(np.prod(case.k[:-1]))
    return (elem in ("f32", "f64", "f16", "bf16") and depth > 8 and case.groups == 1
            and case.batch_groups == 1 and set(case.get("strides")) == {1})


@pytest.mark.parametrize("scatter", [True, False], ids=["default", "phases"])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("elem", list(ELEMS))
def test_integer_values_match_old_path_and_reference(name: str, elem: str, scatter: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Small integers: every sum is exact in every type, so all three agree bit for bit
    (i8 sums wrap: compared modulo 256 through the reference's int64)."""
    case = CASES[name]
    rng = np.random.default_rng(len(name) * 31 + len(elem))
    x = _integers(rng, case.x, elem, 2)
    k = _integers(rng, case.k, elem, 2)
    calls = _spy(monkeypatch, scatter)
    got = _run(case, elem, x, k)
    assert calls == ["scatter" if scatter and _scatter_expected(case, elem) else "phases"]
    old = _old_path(case, elem, x, k, monkeypatch)
    want = _reference(case, x, k, np.complex128 if elem == "c64" else np.int64).astype(ELEMS[elem])
    assert got.dtype == want.dtype == old.dtype
    assert got.shape == want.shape
    assert np.array_equal(got, old)
    assert np.array_equal(got, want)
    if got.dtype.kind not in "iuc":
        assert not np.signbit(got.astype(np.float64)[got == 0]).any()


def test_integer_sums_are_exact_beyond_float_precision(monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES["strided_and_dilated"]
    rng = np.random.default_rng(5)
    x = rng.integers(-(2 ** 20), 2 ** 20, case.x).astype(np.int64)
    k = rng.integers(-(2 ** 20), 2 ** 20, case.k).astype(np.int64)
    got = _run(case, "i64", x, k)
    assert np.array_equal(got, _reference(case, x, k, np.int64))
    assert np.array_equal(got, _old_path(case, "i64", x, k, monkeypatch))


@pytest.mark.parametrize("scatter", [True, False], ids=["default", "phases"])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("elem", ["f32", "f64"])
def test_random_reals_within_rounding(name: str, elem: str, scatter: bool,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[name]
    _spy(monkeypatch, scatter)
    rng = np.random.default_rng(len(name))
    x = rng.standard_normal(case.x).astype(ELEMS[elem])
    k = rng.standard_normal(case.k).astype(ELEMS[elem])
    got = _run(case, elem, x, k).astype(np.float64)
    want = _reference(case, x, k, np.float64)
    scale = _reference(case, np.abs(x), np.abs(k), np.float64) + 1
    tol = 1e-5 if elem == "f32" else 1e-13
    assert np.all(np.abs(got - want) <= tol * scale)
    old = _old_path(case, elem, x, k, monkeypatch).astype(np.float64)
    assert np.all(np.abs(got - old) <= 2 * tol * scale)


def test_nan_and_inf_inputs_keep_their_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Input specials are real elements: every product with them is kept."""
    case = CASES["transpose_s2_k4"]
    rng = np.random.default_rng(3)
    x = rng.integers(-2, 3, case.x).astype(np.float32)
    x[0, 1, 2, 0], x[1, 3, 4, 2] = np.nan, np.inf
    k = rng.integers(1, 3, case.k).astype(np.float32)  # positive: the inf stays one sign
    got = _run(case, "f32", x, k)
    old = _old_path(case, "f32", x, k, monkeypatch)
    assert np.isnan(got).any() and np.isinf(got).any()
    assert np.array_equal(got, old, equal_nan=True)


@pytest.mark.parametrize("special", [np.inf, np.nan])
def test_non_finite_kernel_takes_the_general_path(special: float,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """0 * inf is NaN: the inserted zeros matter, so they are multiplied as before."""
    case = CASES["transpose_s2_k4"]
    rng = np.random.default_rng(4)
    x = rng.integers(-2, 3, case.x).astype(np.float32)
    k = rng.integers(-2, 3, case.k).astype(np.float32)
    k[1, 2, 0, 1] = special
    monkeypatch.setattr(convolution, "subpixel", lambda *a: pytest.fail("decomposed"))
    got = _run(case, "f32", x, k)
    want = _reference(case, x, k, np.float64)
    assert np.isnan(got).sum() == np.isnan(want).sum() > 0
    assert np.array_equal(got, want.astype(np.float32), equal_nan=True)


def test_bool_convolution(monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES["rhs_dilation"]
    rng = np.random.default_rng(9)
    x = rng.integers(0, 2, case.x).astype(bool)
    k = rng.integers(0, 2, case.k).astype(bool)
    got = _run(case, "i1", x, k)
    assert got.dtype == np.bool_
    assert np.array_equal(got, _reference(case, x, k, np.int64) != 0)
    assert np.array_equal(got, _old_path(case, "i1", x, k, monkeypatch))


@pytest.mark.parametrize("size,window,stride,lhs,rhs,lo,hi", [
    (size, window, stride, lhs, rhs, lo, hi)
    for size, window in [(1, 1), (3, 2), (4, 5)]
    for stride in (1, 2, 3)
    for lhs in (2, 3, 4)
    for rhs in (1, 2)
    for lo, hi in [(0, 0), (4, -2), (-3, 5), (7, 6)]])
def test_axis_phases_cover_each_real_product_once(size: int, window: int, stride: int, lhs: int,
                                                  rhs: int, lo: int, hi: int) -> None:
    """Along one dimension, the phases' ordinary convolutions pair exactly the (output, tap,
    input element) triples the dilated input pairs, each once."""
    padded = (size - 1) * lhs + 1 + lo + hi
    extent = (window - 1) * rhs + 1
    count = 0 if padded < extent else (padded - extent) // stride + 1
    want = set()
    for o, t in itertools.product(range(count), range(window)):
        j = o * stride + t * rhs - lo
        if j % lhs == 0 and 0 <= j // lhs < size:
            want.add((o, t, j // lhs))
    got: list[tuple[int, int, int]] = []
    for p in conv_subpixel.axis_phases(size, window, count, stride, lhs, rhs, (lo, hi)):
        taps = range(window)[p.taps]
        assert (p.count - 1) * p.stride + (len(taps) - 1) * p.dilation + 1 == (
            size + p.padding[0] + p.padding[1])  # exactly p.count windows fit
        for q, i in itertools.product(range(p.count), range(len(taps))):
            m = q * p.stride + i * p.dilation - p.padding[0]
            if 0 <= m < size:
                got.append((p.first + q * p.step, taps[i], m))
    assert len(got) == len(set(got))
    assert set(got) == want


def test_huge_dilation_needs_no_dilated_temporary() -> None:
    """2e9-fold dilation (the general path's dilated input would be 8 GB): one phase, one tap."""
    text = """func.func @main(%a: tensor<1x2x1xf32>, %k: tensor<1x1x1xf32>) -> tensor<1x2x1xf32> {
  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f],
       window = {stride = [2000000000], lhs_dilate = [2000000000]}
       {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
       : (tensor<1x2x1xf32>, tensor<1x1x1xf32>) -> tensor<1x2x1xf32>
  return %0 : tensor<1x2x1xf32>
}"""
    interpreter = Interpreter(parse_source(text))
    [got] = interpreter.call(interpreter.lookup_function("main"),
                             [np.array([[[3.0], [5.0]]], np.float32), np.full((1, 1, 1), 2, np.float32)])
    assert np.array_equal(got, np.array([[[6.0], [10.0]]], np.float32))


def test_scatter_gemm_over_budget_takes_the_phases(monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES["transpose_s2_k4"]
    rng = np.random.default_rng(8)
    x = rng.integers(-2, 3, case.x).astype(np.float32)
    k = rng.integers(-2, 3, case.k).astype(np.float32)
    monkeypatch.setattr(conv_subpixel, "IM2COL_BUDGET", 64)
    calls = _spy(monkeypatch, True)
    got = _run(case, "f32", x, k)
    assert calls == ["phases"]
    assert np.array_equal(got, _reference(case, x, k, np.int64).astype(np.float32))
