"""Float `remainder`'s whole-array exact path (float_remainder.py) gives C fmod's bits, as
numpy's fmod in f64 rounded back does, on every float type: near-integer quotients (where
the f64 quotient rounds up), quotients around the exact path's limit, NaN payloads,
infinities, zeros of both signs, subnormals, zero divisors, and views."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import float_remainder as module
from shlo_cli.dialects.stablehlo.elementwise import remainder
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

# dtype, its MLIR name, the unsigned type of its bits, significand bits
TYPES = [(np.float32, "f32", np.uint32, 24), (np.float16, "f16", np.uint16, 11),
         (ml_dtypes.bfloat16, "bf16", np.uint16, 8), (np.float64, "f64", np.uint64, 53),
         (ml_dtypes.float8_e4m3fn, "f8E4M3FN", np.uint8, 4)]
IDS = [t[1] for t in TYPES]
N = 4096


def reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.fmod(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)


def assert_same_bits(got: np.ndarray, x: np.ndarray, y: np.ndarray, unsigned: type) -> None:
    want = reference(x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    bad = np.flatnonzero(got.view(unsigned).ravel() != want.view(unsigned).ravel())
    assert not len(bad), [(x.ravel()[i], y.ravel()[i], got.ravel()[i], want.ravel()[i])
                          for i in bad[:5]]


def count_fmod_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the arrays float_remainder hands to numpy's fmod, from now on."""
    calls: list[int] = []

    def counted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        calls.append(a.size)
        return reference(a, b)
    monkeypatch.setattr(module, "fmod_via_f64", counted)
    return calls


def finite_pairs(dtype: type, unsigned: type, bits: int, seed: int) -> tuple[np.ndarray, ...]:
    """Finite nonzero divisors with dividends that are: k * y one unit in the last place
    either side and exact, for k near integers and powers of two up to past 2^(53 - bits);
    smaller than y; random. Signs of every combination."""
    rng = np.random.default_rng(seed)
    info = ml_dtypes.finfo(dtype)
    low, high = np.log2(float(info.smallest_subnormal)), np.log2(float(info.max))
    top = int(min(53 - bits + 2, high - low - 2))
    j = rng.integers(0, top + 1, N)  # log2 of the quotient
    k = np.where(rng.random(N) < 0.5, 2.0 ** j + rng.integers(-2, 3, N),
                 np.floor(rng.random(N) * 2.0 ** j))
    k = np.maximum(k, 0.0)
    e = np.floor(low + rng.random(N) * (high - j - 1 - low))
    y = (rng.uniform(1.0, 2.0, N) * 2.0 ** e).astype(dtype)
    y = np.where(y == 0, info.smallest_subnormal, y).astype(dtype)
    with np.errstate(over="ignore"):  # (lanes past the type's range are dropped below)
        x = (k * y.astype(np.float64)).astype(dtype)
    step = rng.integers(-1, 2, N).astype(unsigned)  # -1 wraps: one unit down
    x = (x.view(unsigned) + step).astype(unsigned).view(dtype)
    small = rng.random(N) < 0.1
    x = np.where(small, (rng.random(N) * y.astype(np.float64)).astype(dtype), x).astype(dtype)
    x = np.where(rng.random(N) < 0.5, -x, x).astype(dtype)
    y = np.where(rng.random(N) < 0.5, -y, y).astype(dtype)
    finite = np.isfinite(x.astype(np.float64))
    return x[finite], y[finite]


def specials(dtype: type, unsigned: type, count: int, seed: int) -> np.ndarray:
    """Random bit patterns (NaN payloads of both signs, infinities, subnormals) and ±0."""
    rng = np.random.default_rng(seed)
    width = np.dtype(unsigned).itemsize * 8
    raw = rng.integers(0, 1 << width, count, dtype=np.uint64).astype(unsigned)
    fixed = np.array([0.0, -0.0, np.inf, -np.inf, np.nan]).astype(dtype).view(unsigned)
    raw[:len(fixed)] = fixed[:count]
    return raw.view(dtype)


def mixed(dtype: type, unsigned: type, bits: int, fraction: float, seed: int
          ) -> tuple[np.ndarray, np.ndarray]:
    """Finite pairs with `fraction` of the lanes in either operand replaced by specials."""
    x, y = finite_pairs(dtype, unsigned, bits, seed)
    rng = np.random.default_rng(seed + 1)
    for operand in (x, y):
        where = np.flatnonzero(rng.random(len(x)) < fraction)
        operand[where] = specials(dtype, unsigned, len(where), seed + 2)
    return x, y


@pytest.mark.parametrize(("dtype", "name", "unsigned", "bits"), TYPES, ids=IDS)
@pytest.mark.parametrize("fraction", [0.0, 0.01, 0.5, 1.0])
def test_bits_equal_fmod(dtype: type, name: str, unsigned: type, bits: int,
                         fraction: float) -> None:
    for seed in range(3):
        x, y = mixed(dtype, unsigned, bits, fraction, 10 * seed)
        assert_same_bits(remainder(x, y), x, y, unsigned)


@pytest.mark.parametrize(("dtype", "name", "unsigned", "bits"), TYPES[:3], ids=IDS[:3])
def test_finite_lanes_take_the_exact_path(dtype: type, name: str, unsigned: type, bits: int,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Without specials no lane goes to fmod (so the tests above test the exact path);
    with a few, only those do (an infinite divisor alone among them too)."""
    x, y = finite_pairs(dtype, unsigned, bits, 7)
    inside = np.abs(x.astype(np.float64) / y.astype(np.float64)) < 2.0 ** (53 - bits)
    x, y = x[inside], y[inside]
    quotients = abs(x.astype(np.float64) / y.astype(np.float64))
    info = ml_dtypes.finfo(dtype)
    reach = min(2.0 ** (53 - bits), float(info.max) / float(info.smallest_subnormal))
    assert quotients.max() > reach / 64 and (quotients < 1).any()
    calls = count_fmod_calls(monkeypatch)
    assert_same_bits(remainder(x, y), x, y, unsigned)
    assert calls == []
    for operand, value in [(y, np.inf), (y, -np.inf), (y, 0.0), (x, np.inf), (x, np.nan)]:
        a, b = x.copy(), y.copy()
        (b if operand is y else a)[[3, 70]] = np.array(value).astype(dtype)
        assert_same_bits(remainder(a, b), a, b, unsigned)
        assert calls == [2]
        calls.clear()


@pytest.mark.parametrize(("dtype", "name", "unsigned", "bits"), TYPES, ids=IDS)
def test_shapes_and_views(dtype: type, name: str, unsigned: type, bits: int) -> None:
    x, y = mixed(dtype, unsigned, bits, 0.01, 99)
    n = (len(x) // 64) * 64
    x2, y2 = x[:n].reshape(64, -1), y[:n].reshape(64, -1)
    for a, b in [(x2.T, y2.T), (x2[:, ::3], y2[:, 1::3]), (x2[::-1], y2), (x2[:0], y2[:0]),
                 (x2[0, 0].reshape(()), y2[0, 0].reshape(())), (x2[:2, :5], y2[:2, :5])]:
        assert_same_bits(remainder(a, b), a, b, unsigned)


@pytest.mark.parametrize(("dtype", "name", "unsigned", "bits"), TYPES[:3], ids=IDS[:3])
def test_interpreted_remainder(dtype: type, name: str, unsigned: type, bits: int) -> None:
    x, y = mixed(dtype, unsigned, bits, 0.01, 5)
    t = f"tensor<{len(x)}x{name}>"
    text = (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %r = stablehlo.remainder %a, %b : {t}\n  func.return %r : {t}\n}}\n")
    parsed = parse_source(text)
    got = Interpreter(parsed).call(parsed.functions()[0], [x, y])[0]
    assert_same_bits(np.asarray(got), x, y, unsigned)


@pytest.mark.parametrize(("dtype", "name", "unsigned", "bits"), TYPES[:3], ids=IDS[:3])
def test_blocks(dtype: type, name: str, unsigned: type, bits: int,
                monkeypatch: pytest.MonkeyPatch) -> None:
    """Long arrays go block by block, each choosing its own path: a block of many
    specials (all by fmod), one of a few (those by fmod), one of none, a short last one."""
    monkeypatch.setattr(module, "_BLOCK", 1000)
    many = mixed(dtype, unsigned, bits, 0.0, 1)
    infinity = np.array(np.inf, dtype).view(unsigned)  # OR'ed: NaN payloads, infinities
    many[0][:1000:2] = (specials(dtype, unsigned, 500, 1).view(unsigned) | infinity).view(dtype)
    few = mixed(dtype, unsigned, bits, 0.01, 2)
    few[0][[5, 500, 1200]] = np.array([np.nan, np.inf, -np.inf]).astype(dtype)
    x, y = finite_pairs(dtype, unsigned, bits, 3)
    inside = np.abs(x.astype(np.float64) / y.astype(np.float64)) < 2.0 ** (53 - bits)
    x, y = (np.concatenate([many[i][:1000], few[i][:1000], (x, y)[i][inside][:1000],
                            few[i][1000:1500]]) for i in (0, 1))
    calls = count_fmod_calls(monkeypatch)
    assert_same_bits(remainder(x.reshape(5, 700), y.reshape(5, 700)), x.reshape(5, 700),
                     y.reshape(5, 700), unsigned)
    assert len(calls) == 3 and calls[0] == 1000 and max(calls[1:]) < 100
