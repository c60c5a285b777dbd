"""Dots of at most SEQUENTIAL_DEPTH terms (dot_general.sequential_products, the plan-time
kernel specialize_dot._shallow_dot) are the reference's loop bit for bit: `acc = acc + l_k * r_k`
from +0, one contracting index at a time, rounded in the operands' type (narrow floats in
f32, rounded once); with -0.0 products (an all -0.0 sum is +0.0), NaN payloads, infinities,
overflow, subnormals, empty operands and transposed layouts. Where two NaNs meet, which payload
survives is numpy's vector loops' choice: the plan kernel makes the general path's numpy calls,
so its choice is the general path's."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from bind_helpers import run_first_op, run_main

from shlo_cli.dialects.stablehlo import dot_general, specialize, specialize_dot
from shlo_cli.dialects.stablehlo.dot_general import sequential_products

TYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
_NANS = np.array([0x7FC00000, 0xFFC00001, 0x7FC12345], np.uint32).view(np.float32)


def _loop(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The reference's order, written out."""
    acc = np.zeros((lhs.shape[0], lhs.shape[1], rhs.shape[2]), lhs.dtype)
    with np.errstate(all="ignore"):
        for k in range(lhs.shape[2]):
            acc = acc + lhs[:, :, k, None] * rhs[:, None, k, :]
    return acc


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    x = rng.standard_normal(shape)
    pool = np.array([0.0, -0.0, np.inf, -np.inf, 1e30, -1e30, 1e-40, 3.0], np.float64)
    x = np.where(rng.random(shape) < 0.3, rng.choice(pool, shape), x)
    with np.errstate(all="ignore"):
        out = x.astype(dtype)
    if out.size and rng.random() < 0.5 and np.dtype(dtype) == np.float32:
        out.reshape(-1)[rng.integers(out.size)] = _NANS[rng.integers(len(_NANS))]
    return out


def _choose_loop(looped: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `looped`, both the general path and the plan kernels as on a numpy build
    whose matmul loop fails ordered_dot's check."""
    if not looped:
        for module in (dot_general, specialize_dot):
            monkeypatch.setattr(module, "ordered_available", lambda dtype: False)


# the plan kernels' fast forms: matmul's loop, or the vectorized form on the operands
_FAST = ("_looped_dot.<locals>.kernel", "direct")


def _shallow(kind: str) -> bool:
    """A kernel name of the plan-time shallow dot (matmul's loop, or the vectorized form)."""
    return "_shallow_dot" in kind or "_looped_dot" in kind


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("b,m,k,n", [(1, 1, 8, 32), (2, 3, 5, 4), (1, 4, 1, 1), (1, 2, 0, 3),
                                     (3, 1, 7, 1), (1, 0, 3, 2), (1, 1, 8, 2), (2, 1, 8, 3),
                                     (1, 1, 1, 5), (1, 1, 0, 4), (0, 2, 3, 4), (1, 2, 3, 0)])
def test_sequential_products_is_the_loop(dtype: type, b: int, m: int, k: int, n: int) -> None:
    rng = np.random.default_rng(b * 1000 + m * 100 + k * 10 + n)
    for _ in range(20):
        lhs, rhs = _data(rng, (b, m, k), dtype), _data(rng, (b, k, n), dtype)
        with np.errstate(all="ignore"):
            got = sequential_products(lhs, rhs)
        assert got.dtype == np.dtype(dtype) and got.shape == (b, m, n)
        assert _bits(got) == _bits(_loop(lhs, rhs))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("b,m,k,n", [(1, 3, 8, 17), (2, 5, 8, 9), (1, 1, 8, 64), (1, 4, 8, 256)])
def test_sequential_products_is_the_loop_up_to_nan_payloads(dtype: type, b: int, m: int, k: int,
                                                            n: int) -> None:
    """Where two NaNs meet, which payload survives is the vector loops' choice (the loop
    multiplies one (m, n) broadcast at a time, the products are one (k, m, n) broadcast):
    every other bit is the loop's."""
    rng = np.random.default_rng(b * 1000 + m * 100 + k * 10 + n)
    for _ in range(20):
        lhs, rhs = _nans(rng, (b, m, k), dtype), _nans(rng, (b, k, n), dtype)
        with np.errstate(all="ignore"):
            got, want = sequential_products(lhs, rhs), _loop(lhs, rhs)
        _same_but_nan_payloads(got, want)


def _same_but_nan_payloads(got: np.ndarray, want: np.ndarray) -> None:
    """got is want bit for bit but for which NaN payload survives where two NaNs meet."""
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert _bits(got[~nan]) == _bits(want[~nan])


@pytest.mark.parametrize("n", [1, 2, 33])
def test_all_negative_zero_products_sum_to_positive_zero(n: int) -> None:
    lhs = np.array([[[-0.0, 0.0, -1.0]]], np.float32)
    rhs = np.repeat(np.array([[[1.0], [-1.0], [0.0]]], np.float32), n, axis=2)
    got = sequential_products(lhs, rhs)
    assert (got == 0).all() and not np.signbit(got).any()


def _program(lhs: tuple[int, ...], rhs: tuple[int, ...], contract: tuple[int, int],
             out: tuple[int, ...], elem: str) -> str:
    def t(shape: tuple[int, ...]) -> str:
        return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"
    return (f"func.func @main(%a: {t(lhs)}, %b: {t(rhs)}) -> {t(out)} {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [{contract[0]}] x "
            f"[{contract[1]}] : ({t(lhs)}, {t(rhs)}) -> {t(out)}\n"
            f"  return %0 : {t(out)}\n}}\n")


def _run(text: str, args: list, specialized: bool) -> tuple[np.ndarray, list[str]]:
    return run_main(text, args, specialize.bind_specialized, specialized)


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("lhs,rhs,contract,out", [
    ((1, 8), (8, 32), (1, 0), (1, 32)),     # an RNN step's input projection
    ((8, 3), (8, 5), (0, 0), (3, 5)),       # both operands transposed
    ((4, 2), (5, 2), (1, 1), (4, 5)),
    ((6, 1), (1, 6), (1, 0), (6, 6)),       # an outer product
    ((0, 4), (4, 3), (1, 0), (0, 3)),
])
def test_plan_kernel_is_the_general_path(elem: str, lhs: tuple, rhs: tuple, contract: tuple,
                                         out: tuple) -> None:
    text = _program(lhs, rhs, contract, out, elem)
    rng = np.random.default_rng(sum(lhs) + 7 * sum(rhs))
    for _ in range(10):
        args = [_data(rng, lhs, TYPES[elem]), _data(rng, rhs, TYPES[elem])]
        got, kinds = _run(text, args, True)
        want, general = _run(text, args, False)
        assert any(_shallow(k) for k in kinds)
        assert not any(_shallow(k) for k in general)
        assert got.shape == want.shape == out and got.dtype == want.dtype
        assert _bits(got) == _bits(want)


@pytest.mark.parametrize("elem", ["f16", "bf16"])
def test_narrow_floats_sum_in_f32_and_round_once(elem: str) -> None:
    text = _program((2, 6), (6, 3), (1, 0), (2, 3), elem)
    rng = np.random.default_rng(5)
    dtype = TYPES[elem]
    for _ in range(10):
        a, b = _data(rng, (2, 6), dtype), _data(rng, (6, 3), dtype)
        got, _ = _run(text, [a, b], True)
        want = _loop(a.astype(np.float32)[None], b.astype(np.float32)[None])[0].astype(dtype)
        assert _bits(got) == _bits(want)


def _nans(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """`_data` with a NaN of its own payload and sign in about a third of the elements (NaN
    times NaN and NaN plus NaN: which payload survives is the loops' choice)."""
    return with_nans(rng, _data(rng, shape, dtype), 0.3)


def with_nans(rng: np.random.Generator, x: np.ndarray, fraction: float) -> np.ndarray:
    """x (f32 or f64) with a quiet NaN of its own payload and sign in about `fraction`
    of its elements."""
    width = x.dtype.itemsize * 8
    bits = np.dtype(f"u{width // 8}")
    quiet = (0x7FC << (width - 12)) if width == 32 else (0x7FF8 << (width - 16))
    payload = rng.integers(0, 1 << 20, x.shape).astype(bits) | bits.type(quiet)
    payload |= rng.integers(0, 2, x.shape).astype(bits) << bits.type(width - 1)
    mask = rng.random(x.shape) < fraction
    x.view(bits)[mask] = payload[mask]
    return x


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("lhs,rhs,out", [
    ((1, 8), (8, 32), (1, 32)), ((1, 8), (8, 2), (1, 2)), ((3, 5), (5, 17), (3, 17)),
    ((1, 1), (1, 7), (1, 7)), ((1, 0), (0, 4), (1, 4)), ((0, 4), (4, 3), (0, 3)),
    ((2, 3), (3, 0), (2, 0)), ((4, 2), (2, 1), (4, 1)),
])
@pytest.mark.parametrize("looped", [True, False])
def test_direct_kernel_is_the_general_path(elem: str, lhs: tuple, rhs: tuple, out: tuple,
                                           looped: bool, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """The plan-time kernel on C-contiguous operands (the multiply and reduction without
    the operands' copies) and on other layouts (its fallback) gives the general path's
    bits, NaN payloads included where many NaNs meet; with matmul's loop (ordered_dot.py)
    and, as on a numpy build whose loop fuses, without."""
    _choose_loop(looped, monkeypatch)
    text = _program(lhs, rhs, (1, 0), out, elem)
    dtype = TYPES[elem]
    rng = np.random.default_rng(sum(lhs) * 31 + sum(rhs))
    first = [_nans(rng, lhs, dtype), _nans(rng, rhs, dtype)]
    _, kernel = run_first_op(text, first, specialize.bind_specialized, True)
    fast = rhs[1] >= 2 or rhs[1] == 1 and lhs[1] > 0  # (N = 1: _matvec's, K > 0)
    assert kernel.__qualname__.endswith(_FAST) == fast  # type: ignore[attr-defined]
    for trial in range(30):
        a, b = _nans(rng, lhs, dtype), _nans(rng, rhs, dtype)
        if trial % 3 == 1:  # Fortran-ordered operands (not C-contiguous unless a vector)
            a, b = np.asfortranarray(a), np.asfortranarray(b)
        elif trial % 3 == 2 and b.size:  # a strided view
            b = np.repeat(b, 2, axis=1)[:, ::2]
        want, _ = run_first_op(text, [a, b], specialize.bind_specialized, False)
        with np.errstate(all="ignore"):
            got = kernel(a, b)
        assert got.shape == want.shape == out and got.dtype == want.dtype
        assert got.flags.c_contiguous
        assert _bits(got) == _bits(want)


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("batch,m,k,n", [(3, 4, 8, 5), (2, 1, 3, 7), (1, 6, 2, 2), (4, 3, 0, 2)])
@pytest.mark.parametrize("looped", [True, False])
def test_batched_direct_kernel_is_the_general_path(elem: str, batch: int, m: int, k: int,
                                                   n: int, looped: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A batched shallow dot ((B, M, K) x (B, K, N): its products K first, then B, M, N)
    through the plan-time kernel's multiply and reduction gives the general path's bits."""
    _choose_loop(looped, monkeypatch)
    def t(shape: tuple[int, ...]) -> str:
        return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"
    lhs, rhs, out = (batch, m, k), (batch, k, n), (batch, m, n)
    text = (f"func.func @main(%a: {t(lhs)}, %b: {t(rhs)}) -> {t(out)} {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], "
            f"contracting_dims = [2] x [1] : ({t(lhs)}, {t(rhs)}) -> {t(out)}\n"
            f"  return %0 : {t(out)}\n}}\n")
    dtype = TYPES[elem]
    rng = np.random.default_rng(batch * 100 + m * 10 + k + n)
    _, kernel = run_first_op(text, [_data(rng, lhs, dtype), _data(rng, rhs, dtype)],
                             specialize.bind_specialized, True)
    assert kernel.__qualname__.endswith(_FAST)  # type: ignore[attr-defined]
    for _ in range(20):
        a, b = _data(rng, lhs, dtype), _data(rng, rhs, dtype)
        want, _ = run_first_op(text, [a, b], specialize.bind_specialized, False)
        with np.errstate(all="ignore"):
            got = kernel(a, b)
        assert got.shape == want.shape == out and _bits(got) == _bits(want)
        _same_but_nan_payloads(got, _loop(a, b))
