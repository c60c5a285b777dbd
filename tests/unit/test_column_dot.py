"""Shallow dots with one result per row (N = 1: `W @ h`, `x @ w`) through numpy's own loop
(ordered_dot.looped_column, the matvec kernel of specialize_dot): the reference's order
and roundings bit for bit against a scalar loop (`acc = acc + l_k * r_k` from +0; where
two NaNs meet, the left one's payload), on any layout, on a loop's prepared left operand
and in the generated line; the build check rejects a loop that fuses or reorders."""

# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re

import numpy as np
import pytest
from bind_helpers import run_first_op
from loop_helpers import run_loops
from test_ordered_dot import _data, _layouts, _program, _reference, rejects_fused_and_blas

from shlo_cli.dialects.stablehlo import ordered_dot, specialize


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("b,m,k", [(1, 1, 8), (1, 3, 3), (2, 5, 7), (1, 100, 8), (1, 4, 1),
                                   (3, 1, 2), (1, 0, 3), (0, 2, 3)])
def test_looped_column_is_the_reference(dtype: type, b: int, m: int, k: int) -> None:
    assert ordered_dot.column_available(np.dtype(dtype))
    rng = np.random.default_rng(b * 1000 + m * 10 + k)
    for trial in range(8):
        lhs, rhs = _data(rng, (b, m, k), dtype), _data(rng, (b, k, 1), dtype)
        want = _reference(lhs, rhs)
        for left in [*_layouts(lhs), ordered_dot.backwards(lhs)]:
            right = _layouts(rhs)[trial % 4]
            with np.errstate(all="ignore"):
                got = ordered_dot.looped_column(left, right)
                prepared = np.matmul(ordered_dot.backwards(left), right)
            assert got.shape == want.shape and got.dtype == np.dtype(dtype)
            assert got.tobytes() == want.tobytes() == prepared.tobytes()


def test_backwards_keeps_values_at_a_negative_stride() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = ordered_dot.backwards(x)
    assert np.array_equal(b, x) and b.strides == (16, -4)


def test_column_check_rejects_loops_that_fuse_or_reorder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The check fails for sums rounded once (wider, as an FMA would) and for BLAS's
    order (matmul on the operands as they are); f16 is never taken."""
    rejects_fused_and_blas("column_available", "looped_column", monkeypatch)


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("lhs,rhs,out,emitted", [
    ((3, 3), (3,), (3,), True), ((100, 8), (8,), (100,), True), ((1, 4), (4,), (1,), True),
    ((5, 8), (8, 1), (5, 1), True), ((2, 3, 4), (4,), (2, 3), False),
])
def test_matvec_kernel_prepared_and_emitted(elem: str, lhs: tuple, rhs: tuple, out: tuple,
                                            emitted: bool) -> None:
    """The matvec kernel on operands as they come, on its `prepare`d left operand and as
    its generated line (`emit`, where matmul's shapes are the op's) gives the reference's
    bits, NaN payloads included; the line calls the kernel for an unprepared operand."""
    contract = f"[{len(lhs) - 1}] x [0]"
    text = _program(lhs, rhs, out, elem, contract)
    dtype = np.float32 if elem == "f32" else np.float64
    rng = np.random.default_rng(sum(lhs) * 3 + sum(rhs))
    _, kernel = run_first_op(text, [_data(rng, lhs, dtype), _data(rng, rhs, dtype)],
                             specialize.bind_specialized, True)
    at, prepare = kernel.prepare  # type: ignore[attr-defined]
    assert at == 0 and hasattr(kernel, "emit") == emitted
    calls: list[int] = []

    def recorded(*args: np.ndarray) -> np.ndarray:
        calls.append(len(args))
        return kernel(*args)  # type: ignore[no-any-return]
    ns: dict[str, object] = {"K": recorded}
    if emitted:
        exec(f"def f(l, r):\n    return {kernel.emit('K', ['l', 'r'], ns)}\n", ns)  # type: ignore[attr-defined]  # noqa: S102
    m, k = int(np.prod(lhs[:-1])), lhs[-1]
    for _ in range(10):
        a, b = _data(rng, lhs, dtype), _data(rng, rhs, dtype)
        want = _reference(a.reshape(1, m, k), b.reshape(1, k, 1)).reshape(out)
        with np.errstate(all="ignore"):
            got = [kernel(x, b) for x in [a, prepare(a), *_layouts(a)]]
            got += [kernel(prepare(a), w) for w in _layouts(b)]
            if emitted:
                calls.clear()
                got += [ns["f"](prepare(a), b), ns["f"](a, b)]  # type: ignore[operator]
                assert calls == [2]  # (the unprepared operand only)
        for g in got:
            assert g.shape == out and g.dtype == np.dtype(dtype)
            assert g.tobytes() == want.tobytes()
    wrong = np.zeros(lhs, np.float16)
    assert prepare(wrong) is wrong  # (another type: the kernel's fallback takes it)


def _linear(t: int, h: int, e: str) -> str:
    """h_{i+1} = W @ h_i + xs[i] over t steps, W steady."""
    v, m = f"tensor<{h}x{e}>", f"tensor<{h}x{h}x{e}>"
    return f"""func.func @main(%xs: tensor<{t}x{h}x{e}>, %h0: {v}, %w: {m}) -> {v} {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %ct = stablehlo.constant dense<{t}> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %hh = %h0, %w_ = %w) : tensor<i32>, {v}, {m}
    cond {{
      %lt = stablehlo.compare LT, %i, %ct, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %q = stablehlo.dot_general %w_, %hh, contracting_dims = [1] x [0] : ({m}, {v}) -> {v}
      %x2 = stablehlo.dynamic_slice %xs, %i, %c0, sizes = [1, {h}] : (tensor<{t}x{h}x{e}>, tensor<i32>, tensor<i32>) -> tensor<1x{h}x{e}>
      %x = stablehlo.reshape %x2 : (tensor<1x{h}x{e}>) -> {v}
      %hn = stablehlo.add %q, %x : {v}
      %i1 = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %i1, %hn, %w_ : tensor<i32>, {v}, {m}
    }}
  return %r#1 : {v}
}}
"""


@pytest.mark.parametrize("e,dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("h", [1, 3, 8])
def test_loop_prepares_matvec_weights_once(e: str, dtype: type, h: int,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A generated loop prepares the steady left operand of a matvec before its first
    step, its step is the emitted matmul, and its result is the reference's recurrence
    bit for bit (NaN, -0.0, infinities and subnormals in the input)."""
    rng = np.random.default_rng(h)
    t = 40
    xs = rng.standard_normal((t, h)).astype(dtype)
    xs[-1, :1], xs[-2, -1:], xs[-3, :1] = np.nan, -np.inf, 1e-40
    xs[5] = -0.0
    w = (rng.standard_normal((h, h)) / (h + 1)).astype(dtype)
    w.reshape(-1)[0] = -0.0
    h0 = np.zeros(h, dtype)
    got, sources = run_loops(_linear(t, h, e), [xs, h0, w], True, monkeypatch)
    want = h0
    with np.errstate(all="ignore"):
        for i in range(t):
            want = _reference(w.reshape(1, h, h), want.reshape(1, h, 1)).reshape(h) + xs[i]
    assert got[0].tobytes() == want.tobytes()
    assert re.search(r"= \w+K\d+M\((\w+q\d+), \w+\) if \1\.strides == ", sources[0])
