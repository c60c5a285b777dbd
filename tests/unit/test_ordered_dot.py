"""Shallow dots through numpy's own matmul loop (dialects/stablehlo/ordered_dot.py): the
reference's order and roundings bit for bit (each output `acc = acc + l_k * r_k` from +0;
where two NaNs meet, the left one's payload: the sum's, then the lhs's), on every layout;
the build check rejects a loop that fuses or reorders; the plan-time kernel, on operands
as they come and on a loop's prepared weights (codegen's `steady` operands), gives the
general path's bits, NaN payloads included."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re

import numpy as np
import pytest
from bind_helpers import run_first_op
from loop_helpers import recurrence, run_loops
from test_shallow_dot import with_nans

from shlo_cli.dialects.stablehlo import ordered_dot, specialize

_SPECIAL = [0.0, -0.0, np.inf, -np.inf, 1e30, -1e30, 1e-40, -1e-42, 3.0]


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Magnitudes 2^-40..2^40 (sums that round), specials and NaNs of their own payloads
    and signs (so NaNs meet NaNs)."""
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-40, 40, shape))
    x = np.where(rng.random(shape) < 0.2, rng.choice(_SPECIAL, shape), x)
    with np.errstate(all="ignore"):
        return with_nans(rng, x.astype(dtype), 0.15)


def _first_nan(a: np.generic, b: np.generic, op: str) -> np.generic:
    """a op b, the left NaN's payload kept where either is NaN (quiet already)."""
    if np.isnan(a):
        return a
    if np.isnan(b):
        return b
    return a * b if op == "*" else a + b


def _reference(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The reference's loop, one scalar at a time."""
    b, m, k = lhs.shape
    n = rhs.shape[2]
    out = np.zeros((b, m, n), lhs.dtype)
    with np.errstate(all="ignore"):
        for i, j, p in np.ndindex(b, m, n):
            acc = lhs.dtype.type(0)
            for t in range(k):
                acc = _first_nan(acc, _first_nan(lhs[i, j, t], rhs[i, t, p], "*"), "+")
            out[i, j, p] = acc
    return out


def _layouts(x: np.ndarray) -> list[np.ndarray]:
    """x as it is, Fortran-ordered, a strided view, and a view with its last axis reversed
    twice over (a positive stride again)."""
    spread = np.repeat(x, 2, axis=-1)[..., ::2]
    backwards = np.ascontiguousarray(x[..., ::-1])[..., ::-1]
    return [x, np.asfortranarray(x), spread, backwards]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("b,m,k,n", [(1, 1, 8, 2), (1, 3, 8, 17), (2, 2, 5, 4), (1, 1, 1, 3),
                                     (1, 2, 0, 3), (1, 0, 3, 2), (0, 2, 3, 4), (3, 1, 7, 9)])
def test_loop_is_the_reference(dtype: type, b: int, m: int, k: int, n: int) -> None:
    assert ordered_dot.available(np.dtype(dtype))
    rng = np.random.default_rng(b * 1000 + m * 100 + k * 10 + n)
    for trial in range(12):
        lhs, rhs = _data(rng, (b, m, k), dtype), _data(rng, (b, k, n), dtype)
        want = _reference(lhs, rhs)
        for left in _layouts(lhs):
            right = _layouts(rhs)[trial % 4]
            with np.errstate(all="ignore"):
                got = ordered_dot.looped_products(left, right)
            assert got.shape == (b, m, n) and got.dtype == np.dtype(dtype)
            assert got.flags.c_contiguous and got.tobytes() == want.tobytes()


def test_all_negative_zero_products_sum_to_positive_zero() -> None:
    lhs = np.array([[[-0.0, 0.0, -1.0]]], np.float32)
    rhs = np.repeat(np.array([[[1.0], [-1.0], [0.0]]], np.float32), 3, axis=2)
    got = ordered_dot.looped_products(lhs, rhs)
    assert (got == 0).all() and not np.signbit(got).any()


def test_unblasable_keeps_values_at_a_stride_of_two() -> None:
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    spread = ordered_dot.unblasable(w)
    assert np.array_equal(spread, w) and spread.strides == (32, 8)


def rejects_fused_and_blas(check_name: str, loop_name: str,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """ordered_dot's build check `check_name` passes f32 and f64 as they are, never f16,
    and fails when its loop `loop_name` rounds each product and sum once (wider sums,
    as an FMA would) or is BLAS's (matmul on the operands as they come)."""
    check = getattr(ordered_dot, check_name).__wrapped__
    assert check(np.dtype(np.float32)) and check(np.dtype(np.float64))
    assert not check(np.dtype(np.float16))
    for dtype in (np.float32, np.float64):
        monkeypatch.setattr(ordered_dot, loop_name, lambda lhs, rhs: np.matmul(
            lhs.astype(np.longdouble), rhs.astype(np.longdouble)).astype(lhs.dtype))
        assert not check(np.dtype(dtype))
        monkeypatch.setattr(ordered_dot, loop_name, np.matmul)
        assert not check(np.dtype(dtype))


def test_check_rejects_loops_that_fuse_or_reorder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build check fails for a loop that rounds each product and sum once (an FMA or
    wider sums) and for BLAS's order; f16 is never taken (numpy's loop widens)."""
    rejects_fused_and_blas("available", "looped_products", monkeypatch)


def _program(lhs: tuple[int, ...], rhs: tuple[int, ...], out: tuple[int, ...], elem: str,
             contract: str = "[1] x [0]") -> str:
    def t(shape: tuple[int, ...]) -> str:
        return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"
    return (f"func.func @main(%a: {t(lhs)}, %b: {t(rhs)}) -> {t(out)} {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = {contract} : "
            f"({t(lhs)}, {t(rhs)}) -> {t(out)}\n  return %0 : {t(out)}\n}}\n")


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("lhs,rhs,out,contract", [
    ((1, 8), (8, 32), (1, 32), "[1] x [0]"), ((4, 3), (3, 5), (4, 5), "[1] x [0]"),
    ((8,), (8, 6), (6,), "[0] x [0]"), ((3, 8), (7, 8), (3, 7), "[1] x [1]"),
    ((1, 0), (0, 4), (1, 4), "[1] x [0]"),
])
def test_plan_kernel_is_the_general_path(elem: str, lhs: tuple, rhs: tuple, out: tuple,
                                         contract: str) -> None:
    """The plan-time kernel on operands of any layout and on the right operand its
    `prepare` gives (once per loop execution in a generated loop) makes the general
    path's matmul: the same bits, NaN payloads included."""
    text = _program(lhs, rhs, out, elem, contract)
    dtype = np.float32 if elem == "f32" else np.float64
    rng = np.random.default_rng(sum(lhs) * 31 + sum(rhs))
    first = [_data(rng, lhs, dtype), _data(rng, rhs, dtype)]
    _, kernel = run_first_op(text, first, specialize.bind_specialized, True)
    assert kernel.__qualname__ == "_looped_dot.<locals>.kernel"  # type: ignore[attr-defined]
    at, prepare = kernel.prepare  # type: ignore[attr-defined]
    assert at == 1
    for _ in range(12):
        a, b = _data(rng, lhs, dtype), _data(rng, rhs, dtype)
        want, _ = run_first_op(text, [a, b], specialize.bind_specialized, False)
        for x, w in [(a, b), (a, prepare(b)), *zip(_layouts(a), _layouts(b), strict=True)]:
            with np.errstate(all="ignore"):
                got = kernel(x, w)
            assert got.shape == want.shape == out and got.dtype == want.dtype
            assert got.flags.c_contiguous and got.tobytes() == want.tobytes()
    wrong = np.zeros(rhs, np.float16)
    assert prepare(wrong) is wrong  # (another type: the kernel's fallback takes it)


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("k,n", [(8, 32), (3, 5), (1, 2)])
def test_emitted_line_is_the_kernels(elem: str, k: int, n: int) -> None:
    """A row times a matrix as a generated line (the kernel's `emit`): matmul where the
    right operand is prepared, the kernel's call for any other; the kernel's bits, shape
    and layout either way, the left operand in any layout."""
    text = _program((1, k), (k, n), (1, n), elem)
    dtype = np.float32 if elem == "f32" else np.float64
    rng = np.random.default_rng(k * 7 + n)
    _, kernel = run_first_op(text, [_data(rng, (1, k), dtype), _data(rng, (k, n), dtype)],
                             specialize.bind_specialized, True)
    _, prepare = kernel.prepare  # type: ignore[attr-defined]
    calls: list[int] = []

    def recorded(*args: np.ndarray) -> np.ndarray:
        calls.append(len(args))
        return kernel(*args)  # type: ignore[no-any-return]
    ns: dict[str, object] = {"K": recorded}
    exec(f"def f(l, r):\n    return {kernel.emit('K', ['l', 'r'], ns)}\n", ns)  # type: ignore[attr-defined]  # noqa: S102
    for _ in range(6):
        a, b = _data(rng, (1, k), dtype), _data(rng, (k, n), dtype)
        for w in [prepare(b), *_layouts(b)]:
            called = 0 if w.strides == prepare(b).strides else 1  # (a view may be laid out so)
            for x in _layouts(a):
                calls.clear()
                with np.errstate(all="ignore"):
                    got, want = ns["f"](x, w), kernel(x, w)  # type: ignore[operator]
                assert got.shape == want.shape == (1, n) and got.flags.c_contiguous
                assert got.tobytes() == want.tobytes() and len(calls) == called


def test_no_line_for_other_products() -> None:
    """Products other than a row times a matrix as they come keep the kernel's call."""
    for lhs, rhs, out, contract in [((4, 3), (3, 5), (4, 5), "[1] x [0]"),
                                    ((3, 8), (7, 8), (3, 7), "[1] x [1]"),
                                    ((8,), (8, 6), (6,), "[0] x [0]")]:
        rng = np.random.default_rng(1)
        _, kernel = run_first_op(_program(lhs, rhs, out, "f32", contract),
                                 [_data(rng, lhs, np.float32), _data(rng, rhs, np.float32)],
                                 specialize.bind_specialized, True)
        assert not hasattr(kernel, "emit")


def _rnn(t: int, h: int, e: str) -> str:
    """h_{i+1} = tanh(x_i + h_i U + b) over the t rows of xs, U and b carried unchanged."""
    v, m = f"tensor<1x{h}x{e}>", f"tensor<{h}x{h}x{e}>"
    return recurrence(t, h, e, {"u": m, "b": v}, f"""
    %q = stablehlo.dot_general %hh, %u_, contracting_dims = [1] x [0] : ({v}, {m}) -> {v}
    %a = stablehlo.add %x, %q : {v}
    %a2 = stablehlo.add %a, %b_ : {v}
    %hn = stablehlo.tanh %a2 : {v}""")


@pytest.mark.parametrize("e,dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("h", [2, 5, 8])
def test_loop_prepares_its_weights_once(e: str, dtype: type, h: int,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A generated loop prepares the recurrent weights of a shallow dot before its first
    step and gives the general evaluator's bits (NaN, -0.0, infinities in the input)."""
    rng = np.random.default_rng(h)
    xs = rng.standard_normal((30, 1, 1, h)).astype(dtype)
    xs[-1, 0, 0, :2], xs[-2, 0, 0, -2:] = [np.nan, -0.0], [np.inf, -np.inf]  # (the last
    # steps: a NaN in h reaches every element of the next step's product)
    u = (rng.standard_normal((h, h)) / h).astype(dtype)
    u.reshape(-1)[0] = -0.0
    args = [xs.reshape(30, 1, h), np.zeros((1, h), dtype), u,
            rng.standard_normal((1, h)).astype(dtype)]
    got, sources = run_loops(_rnn(30, h, e), args, True, monkeypatch)
    want, _ = run_loops(_rnn(30, h, e), args, False, monkeypatch)
    assert got[0].tobytes() == want[0].tobytes()
    assert any("Q" in line and "(a2)" in line for line in sources[0].splitlines())
    # (the step's product is the emitted matmul of the prepared weights)
    assert re.search(r"= \w+K\d+M\(\w+, (\w+q\d+)\) if \1\.strides == ", sources[0])


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("lhs,rhs,out,contract,direct", [
    ((3, 3), (3,), (3,), "[1] x [0]", True), ((5, 8), (8, 1), (5, 1), "[1] x [0]", True),
    ((1, 4), (4,), (1,), "[1] x [0]", True), ((3, 3), (3,), (3,), "[0] x [0]", False),
])
def test_matvec_kernel_is_the_general_path(elem: str, lhs: tuple, rhs: tuple, out: tuple,
                                           contract: str, direct: bool) -> None:
    """A shallow dot with one result per row (`W @ h`): the plan-time kernel's products
    and running sums give the general path's bits, NaN payloads, -0.0 and infinities
    included, quiet or not; a transposed operand takes the general layout."""
    text = _program(lhs, rhs, out, elem, contract)
    dtype = np.float32 if elem == "f32" else np.float64
    rng = np.random.default_rng(sum(lhs) * 7 + len(rhs))
    _, kernel = run_first_op(text, [_data(rng, lhs, dtype), _data(rng, rhs, dtype)],
                             specialize.bind_specialized, True)
    unquieted = getattr(kernel, "unquieted", kernel)
    assert unquieted.__qualname__.startswith("_matvec.<locals>.") == direct
    for _ in range(20):
        a, b = _data(rng, lhs, dtype), _data(rng, rhs, dtype)
        want, _ = run_first_op(text, [a, b], specialize.bind_specialized, False)
        with np.errstate(all="ignore"):
            got = [kernel(a, b), getattr(kernel, "unquieted", kernel)(a, b),
                   kernel(a, b[::-1].copy()[::-1])]  # (a reversed view: the copies)
        for g in got:
            assert g.shape == want.shape == out and g.dtype == want.dtype
            assert g.tobytes() == want.tobytes()
