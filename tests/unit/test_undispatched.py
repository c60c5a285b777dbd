"""dialects/undispatched.py: numpy's dot and concatenate without the `__array_function__`
dispatch give np.dot's and np.concatenate's bits on numpy arrays (NaN payloads, -0.0,
infinities, subnormals, empty arrays, strided and transposed views)."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.undispatched import undispatched

_DOT, _CAT = undispatched(np.dot), undispatched(np.concatenate)
_SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, 1e-40, -1e-42, 3.0e38], np.float64)
_NAN_BITS = np.array([0x7FC00000, 0xFFC00001, 0x7FC12345, 0x7F800001], np.uint32)


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    x = rng.standard_normal(shape)
    x = np.where(rng.random(shape) < 0.3, rng.choice(_SPECIAL, shape), x)
    with np.errstate(all="ignore"):
        out = x.astype(dtype)
    if out.size and np.dtype(dtype) == np.float32:
        flat = out.reshape(-1)
        for _ in range(2):
            flat[rng.integers(out.size)] = _NAN_BITS.view(np.float32)[rng.integers(4)]
    return out


def _bits(x: np.ndarray) -> bytes:
    return np.ascontiguousarray(x).tobytes()


def test_the_dispatch_is_skipped() -> None:
    assert _DOT is not np.dot and _CAT is not np.concatenate
    assert undispatched(np.add) is np.add  # (no dispatch: itself)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("ls,rs", [((1, 32), (32, 32)), ((32,), (32, 64)), ((3, 5), (5, 7)),
                                   ((0, 4), (4, 3)), ((2, 0), (0, 3)), ((), ()),
                                   ((4,), (4,))])
def test_dot_is_np_dot(dtype: type, ls: tuple[int, ...], rs: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(ls) * 10 + sum(ls) + sum(rs))
    for trial in range(10):
        a, b = _data(rng, ls, dtype), _data(rng, rs, dtype)
        if trial % 3 == 1 and b.ndim == 2:
            b = np.asfortranarray(b)
        elif trial % 3 == 2 and a.ndim and a.size:
            a = np.repeat(a, 2, axis=-1)[..., ::2]  # a strided view
        with np.errstate(all="ignore"):
            got, want = _DOT(a, b), np.dot(a, b)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        assert np.shape(got) == np.shape(want) and _bits(got) == _bits(want)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concatenate_is_np_concatenate(axis: int) -> None:
    rng = np.random.default_rng(axis + 5)
    for _ in range(10):
        parts = (_data(rng, (2, 3), np.float32), np.asfortranarray(_data(rng, (2, 3), np.float32)),
                 _data(rng, (2, 3), np.float32)[:, ::-1])
        got = _CAT(parts, axis=axis)
        want = np.concatenate(parts, axis=axis)
        assert got.shape == want.shape and got.flags.c_contiguous and _bits(got) == _bits(want)
    empty = (np.empty((0, 3), np.float32), np.empty((0, 3), np.float32))
    assert _CAT(empty).shape == (0, 3)
