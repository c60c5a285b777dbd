"""Branchless select (dialects/stablehlo/specialize_select.py) picks the general evaluator's
bits: every native int and float type, bfloat16 and f8E5M2, NaNs with payloads and signed
zeros, a broadcast operand, random and uniform predicates, empty and 0-d tensors."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_select

TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "ui8": np.uint8,
         "ui64": np.uint64, "f16": np.float16, "f32": np.float32, "f64": np.float64,
         "bf16": ml_dtypes.bfloat16, "f8E5M2": ml_dtypes.float8_e5m2}


def _program(elem: str, shape: str) -> str:
    t, p = f"tensor<{shape}{elem}>", f"tensor<{shape}i1>"
    return (f"func.func @main(%p: {p}, %a: {t}, %b: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.select %p, %a, %b : {p}, {t}\n  func.return %0 : {t}\n}}\n")


def _bits(elem: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Any bit patterns of the type (NaNs with payloads, -0.0, extremes)."""
    dtype = np.dtype(TYPES[elem])
    unsigned = np.dtype(f"u{dtype.itemsize}")
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, np.iinfo(unsigned).max, shape, dtype=unsigned, endpoint=True)
    return raw.view(dtype)


def _check(text: str, args: list[np.ndarray]) -> None:
    fast, kernel = run_first_op(text, args, specialize_select.bind_select, True)
    plain, general = run_first_op(text, args, specialize_select.bind_select, False)
    assert kernel is not general
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()


@pytest.mark.parametrize("elem", list(TYPES))
def test_select_matches_general_evaluator(elem: str) -> None:
    rng = np.random.default_rng(4)
    a, b = _bits(elem, (70, 31), 1), _bits(elem, (70, 31), 2)
    for pred in (rng.random((70, 31)) < 0.5, np.ones((70, 31), bool), np.zeros((70, 31), bool)):
        _check(_program(elem, "70x31x"), [pred, a, b])
    _check(_program(elem, "0x"), [np.zeros(0, bool), a.reshape(-1)[:0], b.reshape(-1)[:0]])
    p = np.array(True)
    _check(_program(elem, ""), [p, a.reshape(-1)[:1].reshape(()), b.reshape(-1)[:1].reshape(())])


def test_select_with_broadcast_operand() -> None:
    """relu-like where(p, x, broadcast 0) and -0.0/NaN bits in the broadcast value."""
    rng = np.random.default_rng(6)
    x = _bits("f32", (3000,), 3)
    text = ("func.func @main(%p: tensor<3000xi1>, %a: tensor<3000xf32>, %z: tensor<f32>)"
            " -> tensor<3000xf32> {\n"
            "  %0 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<3000xf32>\n"
            "  %1 = stablehlo.select %p, %a, %0 : tensor<3000xi1>, tensor<3000xf32>\n"
            "  func.return %1 : tensor<3000xf32>\n}\n")
    for z in (-0.0, np.nan, 1.0):
        args = [rng.random(3000) < 0.5, x, np.array(z, np.float32)]
        fast, _ = run_first_op(text, args, specialize_select.bind_select, True)
        plain, _ = run_first_op(text, args, specialize_select.bind_select, False)
        assert fast.tobytes() == plain.tobytes()


@pytest.mark.parametrize("elem", ["i8", "i64", "f16", "f32", "f64", "bf16"])
def test_select_with_0d_operands(elem: str) -> None:
    """A blocked chain passes a broadcast scalar as a 0-d array: either operand or both may
    be 0-d (NaN payloads, -0.0 among them); the bits are np.where's."""
    rng = np.random.default_rng(8)
    n = 3000
    x, y = _bits(elem, (n,), 5), _bits(elem, (n,), 6)
    kernel = specialize_select._select(np.dtype(TYPES[elem]), np.where)
    for pred in (rng.random(n) < 0.5, np.ones(n, bool), np.zeros(n, bool)):
        for k in range(4):
            s, t = x[k:k + 1].reshape(()), y[k:k + 1].reshape(())
            for a, b in ((x, t), (s, y), (s, t), (x[::-1], t)):
                fast = kernel(pred, a, b)
                plain = np.where(pred, a, b)
                assert fast.dtype == plain.dtype and fast.shape == plain.shape
                assert fast.tobytes() == plain.tobytes()


@pytest.mark.parametrize("elem", ["i8", "i64", "f16", "f32", "f64", "bf16"])
@pytest.mark.parametrize("shape", [(1, 32), (5,), (2, 3, 4), (1, 1)])
def test_small_selects_copy_the_picked_bits(elem: str, shape: tuple[int, ...]) -> None:
    """Below _SMALL elements (a masked RNN's state select): the general evaluator's bits,
    with either operand 0-d or a strided view."""
    rng = np.random.default_rng(sum(shape))
    n = int(np.prod(shape))
    x, y = _bits(elem, shape, 7), _bits(elem, shape, 8)
    kernel = specialize_select._select(np.dtype(TYPES[elem]), np.where)
    wide = _bits(elem, (n * 2,), 9)
    strided = wide[::2].reshape(shape)
    for pred in (rng.random(shape) < 0.5, np.ones(shape, bool), np.zeros(shape, bool)):
        s = y.reshape(-1)[:1].reshape(())
        for a, b in ((x, y), (s, y), (x, s), (x, strided)):
            got = kernel(pred, a, b)
            want = np.where(pred, a, b)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("elem", ["i8", "f32", "f64", "bf16"])
def test_uniform_predicates_pick_a_whole_operand(elem: str) -> None:
    """Past _SMALL, a predicate holding nowhere or everywhere, and the same with one
    element flipped at the start, the middle or the end (where any/all decide late): the
    general evaluator's bits, operands contiguous, strided or 0-d."""
    n = 5000
    x, y = _bits(elem, (n,), 11), _bits(elem, (2 * n,), 12)[::2]
    kernel = specialize_select._select(np.dtype(TYPES[elem]), np.where)
    s = x[:1].reshape(())
    for base in (np.zeros(n, bool), np.ones(n, bool)):
        for flip in (None, 0, n // 2, n - 1):
            pred = base.copy()
            if flip is not None:
                pred[flip] = not pred[flip]
            for a, b in ((x, y), (y, x), (s, y), (x, s)):
                got = kernel(pred, a, b)
                want = np.where(pred, a, b)
                assert got.shape == want.shape and got.dtype == want.dtype
                assert got.tobytes() == want.tobytes(), (elem, flip)


def _broadcast(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(x, shape)


@pytest.mark.parametrize("elem", ["i8", "i64", "f16", "f32", "f64", "bf16"])
def test_broadcast_predicates_pick_at_their_own_size(elem: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A predicate broadcast over leading axes (an attention's causal mask over heads, a
    padding mask over heads and queries): its mask is made at its collapsed size, as is
    a broadcast operand's fill (from _BROADCAST_FROM elements, lowered here to reach
    these small arrays). Operands full, strided, transposed, 0-d or broadcast along the
    predicate's axes or others; the bits are np.where's (NaN payloads, -0.0)."""
    monkeypatch.setattr(specialize_select, "_BROADCAST_FROM", 0)
    picks = []
    original = specialize_select._broadcast_pick
    monkeypatch.setattr(specialize_select, "_broadcast_pick",
                        lambda *args: picks.append(1) or original(*args))
    rng = np.random.default_rng(21)
    shape = (3, 4, 16, 16)
    kernel = specialize_select._select(np.dtype(TYPES[elem]), np.where)
    causal = np.tril(np.ones((16, 16), bool))
    padding = rng.random((3, 1, 1, 16)) < 0.6
    noisy = rng.random((1, 4, 16, 16)) < 0.5
    full, other = _bits(elem, shape, 22), _bits(elem, shape, 23)
    strided = _bits(elem, (3, 4, 16, 32), 24)[..., ::2]
    transposed = _bits(elem, (16, 16, 4, 3), 25).T
    scalar = _bits(elem, (1,), 26).reshape(())
    fill = _broadcast(scalar, shape)
    rows = _broadcast(_bits(elem, (16,), 27), shape)
    heads = _broadcast(_bits(elem, (1, 4, 1, 1), 28), shape)
    operands = [full, other, strided, transposed, scalar, fill, rows, heads]
    for base in (causal, padding, noisy, ~causal):
        pred = _broadcast(base, shape)
        for a in operands:
            for b in operands:
                got = kernel(pred, a, b)
                want = np.where(pred, a, b)
                assert got.shape == want.shape and got.dtype == want.dtype
                assert got.tobytes() == want.tobytes()
    assert len(picks) == 3 * len(operands) ** 2  # (the noisy mask is not collapsed enough)


def test_collapsed_keeps_the_values() -> None:
    """Cutting the broadcast axes of a view keeps every distinct element."""
    base = np.arange(12).reshape(3, 1, 4)
    view = np.broadcast_to(base, (3, 5, 4))
    cut = specialize_select.collapsed(view)
    assert cut.shape == (3, 1, 4) and (np.broadcast_to(cut, view.shape) == view).all()
    assert specialize_select.collapsed(base) is not None
    assert specialize_select.collapsed(np.broadcast_to(np.int8(7), (4, 6))).shape == (1, 1)
