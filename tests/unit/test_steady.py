"""A loop body's products whose only use is an add of a steady value (interpreter/steady.py):
left unnormalized when that value holds no -0.0 (one test per execution of the loop), and
the general evaluator's bits either way: all -0.0 products meet a -0.0 bias in some runs
and not in others, NaN and infinities in the inputs."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from loop_helpers import recurrence, run_loops

from shlo_cli.dialects.stablehlo import specialize_dot
from shlo_cli.dialects.undispatched import undispatched
from shlo_cli.interpreter.steady import holds_negative_zero


def _gru_like(t: int, h: int) -> str:
    """h_{i+1} = tanh(x_i * (h_i U + b)), U and b carried unchanged (a Keras GRU's
    recurrent bias)."""
    v, m = f"tensor<1x{h}xf32>", f"tensor<{h}x{h}xf32>"
    return recurrence(t, h, "f32", {"u": m, "b": v}, f"""
    %q = stablehlo.dot_general %hh, %u_, contracting_dims = [1] x [0] : ({v}, {m}) -> {v}
    %qb = stablehlo.add %q, %b_ : {v}
    %a = stablehlo.multiply %x, %qb : {v}
    %hn = stablehlo.tanh %a : {v}""")


@pytest.mark.parametrize("bias_zero", [-0.0, 0.0, None])
@pytest.mark.parametrize("h,t", [(12, 1), (32, 1), (12, 6)])
def test_recurrent_bias_keeps_zero_signs(bias_zero: float | None, h: int, t: int,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """h0 = 0 and a column of U all negative: that column's products are all -0.0, their
    sum +0.0 (the dot's), and + b's -0.0 there is +0.0; unnormalized it would be -0.0
    (with a BLAS whose sums start at the first product, which the test stands in for),
    and x * (-0.0) carries the sign on (tanh keeps it)."""
    monkeypatch.setattr(specialize_dot, "undispatched", _first_product_blas)
    rng = np.random.default_rng(h)
    xs = rng.standard_normal((t, 1, 1, h)).astype(np.float32)
    xs.reshape(-1)[[1, t * h - 2]] = [np.nan, np.inf]
    u = (rng.standard_normal((h, h)) / h).astype(np.float32)
    u[:, 0] = -np.abs(u[:, 0]) - 0.5
    b = rng.standard_normal((1, h)).astype(np.float32)
    if bias_zero is not None:
        b[0, 0] = bias_zero
    args = [xs.reshape(t, 1, h), np.zeros((1, h), np.float32), u, b]
    got, sources = run_loops(_gru_like(t, h), args, True, monkeypatch)
    want, _ = run_loops(_gru_like(t, h), args, False, monkeypatch)
    assert got[0].tobytes() == want[0].tobytes()
    assert "_SIGNED(" in sources[0]
    if t == 1 and bias_zero == -0.0:  # (the case the normalization decides)
        assert np.signbit(got[0][0, 0]) == np.signbit(xs[0, 0, 0, 0])


def _first_product_blas(fn: Any) -> Any:
    """np.dot as a BLAS whose sums start at the first product (an all -0.0 sum -0.0)."""
    if fn is not np.dot:
        return undispatched(fn)

    def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.dot(a, b)
        with np.errstate(all="ignore"):
            products = a[..., :, None] * b
        out[np.all((products == 0) & np.signbit(products), axis=-2)] = -0.0
        return out
    return dot


def test_holds_negative_zero() -> None:
    assert holds_negative_zero(np.array([1.0, -0.0], np.float32))
    assert not holds_negative_zero(np.array([[1.0, 0.0, np.nan, -np.inf]], np.float32))
    assert not holds_negative_zero(np.zeros((0, 3), np.float64))
    assert holds_negative_zero(np.float64(-0.0))
    assert not holds_negative_zero(np.array([0, 1], np.int32))


def _gates(t: int, h: int, gates: int, e: str) -> str:
    """A flax-style cell: `gates` products h_i @ U_g of one row by carried weights, each
    plus x_i, multiplied together into h_{i+1} = tanh(prod_g (x_i + h_i U_g))."""
    v, m = f"tensor<1x{h}x{e}>", f"tensor<{h}x{h}x{e}>"
    lines = [f"""
    %q{g} = stablehlo.dot_general %hh, %u{g}_, contracting_dims = [1] x [0] : ({v}, {m}) -> {v}
    %s{g} = stablehlo.add %x, %q{g} : {v}""" for g in range(gates)]
    product = "%s0"
    for g in range(1, gates):
        lines.append(f"\n    %p{g} = stablehlo.multiply {product}, %s{g} : {v}")
        product = f"%p{g}"
    lines.append(f"\n    %hn = stablehlo.tanh {product} : {v}")
    return recurrence(t, h, e, {f"u{g}": m for g in range(gates)}, "".join(lines))


@pytest.mark.parametrize("e,dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("h,gates", [(4, 2), (8, 4), (16, 3), (32, 4)])
@pytest.mark.parametrize("layout", ["c", "fortran"])
def test_products_of_one_row_by_stacked_weights(e: str, dtype: type, h: int, gates: int,
                                                layout: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Shallow (h <= 8: matmul's own loop) and BLAS products of the state by each gate's
    weights as one matmul of the stacked weights: the general evaluator's bits (NaN,
    -inf and -0.0 in the inputs, -0.0 in the weights); weights laid out otherwise (Fortran
    order) take each product's own kernel, the same bits."""
    rng = np.random.default_rng(h * gates)
    t = 7
    xs = rng.standard_normal((t, 1, 1, h)).astype(dtype)
    xs[-1, 0, 0, :3] = [np.nan, -np.inf, -0.0]  # (the last step: earlier, a NaN would
    us = [(rng.standard_normal((h, h)) / h).astype(dtype) for _ in range(gates)]
    us[0][0, 1], us[-1][1, 0] = -0.0, -0.0  # reach every product of the next step)
    if layout == "fortran":
        us = [np.asfortranarray(u) for u in us]
    args = [xs.reshape(t, 1, h), rng.standard_normal((1, h)).astype(dtype), *us]
    text = _gates(t, h, gates, e)
    got, sources = run_loops(text, args, True, monkeypatch)
    want, _ = run_loops(text, args, False, monkeypatch)
    assert got[0].tobytes() == want[0].tobytes()
    assert f"{gates - 1}] if " in sources[0]  # (the last gate's row of the product)
