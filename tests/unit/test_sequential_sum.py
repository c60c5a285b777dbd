"""Blocked sequential row sums (dialects/stablehlo/sequential_sum.py) equal the plain fold
`init + x0 + x1 + ...` bit for bit: f16/f32/f64/c64/c128, rows that split into 16-byte
units and rows that do not, a last block of one row, long rows cut into column chunks,
NaN payloads, -0.0, infinities, subnormals and overflow in data and init values; and a
layer norm's reduce over the last axis through the engine equals the general evaluator."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from bind_helpers import run_main

from shlo_cli.dialects.stablehlo import sequential_sum, specialize_reduce

SPECIALS = [-0.0, 0.0, np.inf, -np.inf, np.nan, 1e-40, -3e-45, 3e38, -3e38, 65504.0]


def _data(rng: np.random.Generator, shape: tuple[int, int], dtype: Any) -> np.ndarray:
    with np.errstate(all="ignore"):
        x = (rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 3e3], shape)).astype(dtype)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal(shape).astype(dtype)
        flat = x.reshape(-1)
        picks = rng.choice(flat.size, max(1, flat.size // 50), replace=False)
        flat[picks] = rng.choice(np.array(SPECIALS), picks.size).astype(dtype)
    if np.dtype(dtype) == np.float32:  # NaNs with payloads and signs
        bits = flat.view(np.uint32)
        where = rng.choice(flat.size, max(1, flat.size // 200), replace=False)
        bits[where] = rng.choice(np.array([0x7FC00001, 0xFFC00002, 0x7F800003], np.uint32),
                                 where.size)
    return x


def _fold(x: np.ndarray, init: Any) -> np.ndarray:
    """The reference order as the unblocked kernel has it: one reduction of the whole
    transposed copy's rows (NaN + NaN keeps the payload numpy's vector loop keeps there)."""
    with np.errstate(all="ignore"):
        return np.add.reduce(np.ascontiguousarray(x.T), axis=0, dtype=x.dtype, initial=init)


def _column_fold(x: np.ndarray, init: Any) -> np.ndarray:
    """The order itself, one column at a time (NaN payloads aside)."""
    out = np.full(x.shape[0], init, x.dtype)
    with np.errstate(all="ignore"):
        for j in range(x.shape[1]):
            out = np.add(out, x[:, j], dtype=x.dtype)
    return out


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64,
                                   np.complex128])
@pytest.mark.parametrize("shape", [(2, 1), (2, 3), (3, 8), (65, 7), (129, 64), (7, 1000),
                                   (300, 520), (2, 70000), (20, 4100), (197, 333),
                                   (1000, 66)])
@pytest.mark.parametrize("block", [512, 1 << 13, 1 << 16])
def test_blocked_row_sums_are_the_sequential_fold(dtype: Any, shape: tuple[int, int],
                                                  block: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sequential_sum, "BLOCK", block)  # many blocks and chunks
    rng = np.random.default_rng(shape[0] * 7 + shape[1])
    x = _data(rng, shape, dtype)
    for init in (0.0, -0.0, 1.5, np.nan):
        start = np.asarray(init).astype(dtype)[()]
        with np.errstate(all="ignore"):
            got = sequential_sum.blocked_row_sums(x, start)
        want = _fold(x, start)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
        plain = _column_fold(x, start)  # the same numbers (NaN payloads aside)
        assert np.array_equal(got, plain, equal_nan=True)


def test_nan_payload_init_is_kept() -> None:
    x = np.zeros((4, 16), np.float32)
    init = np.array([0x7FC00005], np.uint32).view(np.float32)[0]
    got = sequential_sum.blocked_row_sums(x, init)
    assert got.tobytes() == _fold(x, init).tobytes()


def _run(text: str, args: list, specialized: bool) -> tuple[np.ndarray, list[str]]:
    return run_main(text, args, specialize_reduce.bind_reduce, specialized)


@pytest.mark.parametrize(("elem", "dtype"), [("f32", np.float32), ("f64", np.float64),
                                             ("f16", np.float16)])
@pytest.mark.parametrize(("shape", "dims"), [((64, 8, 512), (2,)), ((16, 32, 32), (1, 2)),
                                             ((1024, 160), (0,)), ((70, 300), (1,))])
def test_large_sums_through_the_engine(elem: str, dtype: Any, shape: tuple[int, ...],
                                       dims: tuple[int, ...]) -> None:
    """Sums over trailing axes where blocking pays (blocked), over rows where it does not,
    and a column sum (the rows already in place: no copy), against the general evaluator."""
    out_shape = tuple(n for i, n in enumerate(shape) if i not in dims)

    def t(s: tuple[int, ...]) -> str:
        return "tensor<" + "".join(f"{d}x" for d in s) + elem + ">"

    text = (f"func.func @main(%x: {t(shape)}, %i: {t(())}) -> {t(out_shape)} {{\n"
            f"  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = "
            f"[{', '.join(map(str, dims))}] : ({t(shape)}, {t(())}) -> {t(out_shape)}\n"
            f"  func.return %0 : {t(out_shape)}\n}}\n")
    rng = np.random.default_rng(len(shape))
    x = _data(rng, (int(np.prod(shape[:1])), int(np.prod(shape[1:]))), dtype).reshape(shape)
    for init in (0.0, -0.0, 2.5):
        args = [x, np.asarray(init).astype(dtype)]
        got, kinds = _run(text, args, True)
        want, _ = _run(text, args, False)
        assert any("_sum_rows" in k for k in kinds)
        assert got.shape == want.shape == out_shape
        assert got.tobytes() == want.tobytes()


def test_blocked_pays_on_long_rows_of_whole_cache_lines() -> None:
    assert sequential_sum.blocked_pays(64, 512, 4) and sequential_sum.blocked_pays(1024, 128, 8)
    assert not sequential_sum.blocked_pays(4096, 128, 4)  # short rows...
    assert sequential_sum.blocked_pays(65536, 128, 4)  # ...in a large matrix
    assert not sequential_sum.blocked_pays(1 << 20, 16, 4)  # rows of one cache line
    assert not sequential_sum.blocked_pays(1000, 300, 4)  # rows of 16-byte units
    assert not sequential_sum.blocked_pays(8, 256, 4)  # a small matrix
    assert not sequential_sum.blocked_pays(1, 1 << 20, 4)  # one row: no vector across rows
