"""A loop step's row x matrix product written inline (specialize_dot.dot_line, through
codegen._inline): np.dot where the operands have the strides the kernel's own np.dot case
tests, the kernel otherwise; normalized from +0 exactly where the kernel normalizes. The
general evaluator's bits in every case: NaN, infinities, subnormals, an all -0.0 product
(which a BLAS whose sums start at the first product leaves -0.0: the test stands in for
one), a first state laid out as a view."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from loop_helpers import recurrence, run_loops
from test_steady import _first_product_blas

from shlo_cli.dialects.stablehlo import specialize_dot


def _rnn(t: int, h: int, use: str) -> str:
    """h_{i+1} = tanh(h_i U) * x_i ("tanh": the product normalized) or tanh(h_i U * x_i)
    ("multiply")."""
    v, m = f"tensor<1x{h}xf32>", f"tensor<{h}x{h}xf32>"
    product = f"""
    %q = stablehlo.dot_general %hh, %u_, contracting_dims = [1] x [0] : ({v}, {m}) -> {v}"""
    if use == "tanh":
        return recurrence(t, h, "f32", {"u": m}, product + f"""
    %a = stablehlo.tanh %q : {v}
    %hn = stablehlo.multiply %a, %x : {v}""")
    return recurrence(t, h, "f32", {"u": m}, product + f"""
    %a = stablehlo.multiply %q, %x : {v}
    %hn = stablehlo.tanh %a : {v}""")


@pytest.mark.parametrize("use", ["tanh", "multiply"])
@pytest.mark.parametrize("layout", ["contiguous", "view"])
@pytest.mark.parametrize("h,t", [(12, 1), (32, 5)])
def test_inline_product_is_the_kernels(use: str, layout: str, h: int, t: int,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(specialize_dot, "undispatched", _first_product_blas)
    rng = np.random.default_rng(h + t)
    xs = rng.standard_normal((t, 1, 1, h)).astype(np.float32)
    xs.reshape(-1)[[1, t * h - 2, t * h - 1]] = [np.nan, np.inf, 1e-40]
    u = (rng.standard_normal((h, h)) / h).astype(np.float32)
    u[:, 0] = -np.abs(u[:, 0]) - 0.5  # (h0's zeros: that column's products all -0.0)
    u[1, 2] = np.float32(1e-41)
    h0 = np.zeros((1, h), np.float32)
    h0[0, 3] = -0.0
    if layout == "view":  # (the kernel's other layouts: the first step calls it)
        wide = np.zeros((1, 2 * h), np.float32)
        wide[:, ::2] = h0
        h0 = wide[:, ::2]
    args = [xs.reshape(t, 1, h), h0, u]
    got, sources = run_loops(_rnn(t, h, use), args, True, monkeypatch)
    want, _ = run_loops(_rnn(t, h, use), args, False, monkeypatch)
    assert got[0].tobytes() == want[0].tobytes()
    assert ".strides == " in sources[0]  # (the product is inline)
    if t == 1 and use == "tanh":  # (the case the normalization decides)
        assert not np.signbit(got[0][0, 0])


def _emitted(normalize: str | None, lhs: np.ndarray, rhs: np.ndarray) -> tuple[Any, list[str]]:
    """The emitted expression's value on `lhs`, `rhs` (the kernel a recorder) and the
    calls it made."""
    calls: list[str] = []

    def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        calls.append("dot")
        return np.full((a.shape[0], b.shape[1]), -0.0, np.float32)

    def kernel(*args: Any) -> str:
        calls.append(f"kernel{len(args)}")
        return "kernel"
    emit = specialize_dot.dot_line(dot, np.array(0, np.float32), (16, 4), (12, 4))
    ns: dict[str, Any] = {"K": kernel, "l": lhs, "r": rhs, "n": normalize == "n"}
    args = ["l", "r"] + ([normalize] if normalize is not None else [])
    code = emit("K", args, ns)
    exec(f"def f():\n    return {code}\n", ns)  # noqa: S102 - the emitted line itself
    return ns["f"](), calls


@pytest.mark.parametrize("normalize,signed", [(None, False), ("False", True), ("n", False)])
def test_emitted_product_normalizes_as_the_kernel(normalize: str | None, signed: bool) -> None:
    """+0 added where the call asks (no argument, or a true one), not where it passes
    False; another layout of either operand calls the kernel with the call's arguments."""
    lhs, rhs = np.ones((1, 4), np.float32), np.ones((4, 3), np.float32)
    out, calls = _emitted(normalize, lhs, rhs)
    assert calls == ["dot"]
    assert np.signbit(out).all() == signed and np.signbit(out).any() == signed
    for left, right in ((np.ones((1, 8), np.float32)[:, ::2], rhs),
                        (lhs, np.ones((3, 4), np.float32).T)):
        out, calls = _emitted(normalize, left, right)
        assert out == "kernel" and calls == [f"kernel{2 if normalize is None else 3}"]
