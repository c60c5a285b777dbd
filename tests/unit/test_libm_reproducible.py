"""Transcendental results are the C library's and do not depend on numpy's SIMD dispatch:
the same program gives the same bytes whether numpy was imported before or after shlo_cli
and whether NPY_DISABLE_CPU_FEATURES hides the AVX-512 loops or not."""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from shlo_cli.dialects import libm

PROGRAM = """
func.func @main(%x: tensor<4096xf64>, %p: tensor<4096xf64>, %f: tensor<4096xf32>,
                %c: tensor<512xcomplex<f64>>) -> (tensor<4096xf64>, tensor<4096xf64>,
    tensor<4096xf64>, tensor<4096xf64>, tensor<4096xf64>, tensor<4096xf64>, tensor<4096xf64>,
    tensor<4096xf64>, tensor<4096xf64>, tensor<4096xf32>, tensor<4096xf32>,
    tensor<512xcomplex<f64>>, tensor<512xcomplex<f64>>, tensor<4096xf64>, tensor<4096xf64>) {
  %0 = stablehlo.exponential %x : tensor<4096xf64>
  %1 = stablehlo.log %p : tensor<4096xf64>
  %2 = stablehlo.tanh %x : tensor<4096xf64>
  %3 = stablehlo.exponential_minus_one %x : tensor<4096xf64>
  %4 = stablehlo.log_plus_one %p : tensor<4096xf64>
  %5 = stablehlo.power %p, %x : tensor<4096xf64>
  %6 = stablehlo.atan2 %x, %p : tensor<4096xf64>
  %7 = stablehlo.cbrt %x : tensor<4096xf64>
  %8 = stablehlo.tan %x : tensor<4096xf64>
  %9 = stablehlo.exponential %f : tensor<4096xf32>
  %10 = stablehlo.logistic %f : tensor<4096xf32>
  %11 = stablehlo.exponential %c : tensor<512xcomplex<f64>>
  %12 = stablehlo.log_plus_one %c : tensor<512xcomplex<f64>>
  %13 = chlo.sinh %x : tensor<4096xf64> -> tensor<4096xf64>
  %14 = chlo.lgamma %p : tensor<4096xf64> -> tensor<4096xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14
    : tensor<4096xf64>, tensor<4096xf64>, tensor<4096xf64>, tensor<4096xf64>,
      tensor<4096xf64>, tensor<4096xf64>, tensor<4096xf64>, tensor<4096xf64>,
      tensor<4096xf64>, tensor<4096xf32>, tensor<4096xf32>, tensor<512xcomplex<f64>>,
      tensor<512xcomplex<f64>>, tensor<4096xf64>, tensor<4096xf64>
}
"""

SCRIPT = """
import sys
if sys.argv[1] == "numpy-first":
    import numpy as np
    import shlo_cli
else:
    import shlo_cli
    import numpy as np
import hashlib
rng = np.random.default_rng(7)
x = rng.uniform(-30, 30, 4096)
x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 710.0, -745.5, 1e-310]
p = np.ldexp(rng.uniform(1, 2, 4096), rng.integers(-30, 30, 4096))  # exact, no libm
c = rng.uniform(-5, 5, 512) + 1j * rng.uniform(-5, 5, 512)
digest = hashlib.sha256()
for r in shlo_cli.interpret(sys.stdin.read(), x, p, x.astype(np.float32), c):
    digest.update(np.ascontiguousarray(r).tobytes())
print(digest.hexdigest())
"""


def _digest(order: str, disable: str | None) -> str:
    env = dict(os.environ)
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if disable is not None:
        env["NPY_DISABLE_CPU_FEATURES"] = disable
    done = subprocess.run([sys.executable, "-c", SCRIPT, order], input=PROGRAM, text=True,
                          capture_output=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_same_bytes_whatever_the_import_order_and_cpu_features() -> None:
    digests = {(order, disable): _digest(order, disable)
               for order in ("numpy-first", "shlo-first")
               for disable in (None, "X86_V4 AVX512_ICL AVX512_SPR")}
    assert len(set(digests.values())) == 1, digests


def _c_library() -> ctypes.CDLL:
    name = ctypes.util.find_library("m")
    if name is None:
        pytest.skip("no C math library to compare with")
    return ctypes.CDLL(name)


@pytest.mark.parametrize(("ours", "c_name", "low", "high"), [
    ("exp", "exp", -750, 720), ("expm1", "expm1", -50, 720), ("log", "log", -1, 1e300),
    ("log1p", "log1p", -2, 1e10), ("tanh", "tanh", -30, 30), ("tan", "tan", -1e6, 1e6),
    ("cbrt", "cbrt", -1e9, 1e9), ("sinh", "sinh", -720, 720), ("arccosh", "acosh", 0, 1e9),
    ("arctanh", "atanh", -1.5, 1.5)])
def test_unary_matches_the_c_library_bit_for_bit(ours: str, c_name: str, low: float,
                                                 high: float) -> None:
    fn = getattr(_c_library(), c_name)
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
    x = np.random.default_rng(3).uniform(low, high, 5000)
    x[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324]
    got = getattr(libm, ours)(x)
    expected = np.array([fn(v) for v in x.tolist()])
    assert got.dtype == np.float64
    assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize(("ours", "c_name"), [("power", "pow"), ("arctan2", "atan2")])
def test_binary_matches_the_c_library_on_special_values(ours: str, c_name: str) -> None:
    fn = getattr(_c_library(), c_name)
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double] * 2
    values = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 1e300,
                       -1e300, 5e-324, 1024.5])
    a, b = np.repeat(values, values.size), np.tile(values, values.size)
    got = getattr(libm, ours)(a, b)
    expected = np.array([fn(u, v) for u, v in zip(a.tolist(), b.tolist(), strict=True)])
    assert got.tobytes() == expected.tobytes()


def test_shapes_scalars_and_narrow_floats() -> None:
    assert libm.exp(1.0) == math.exp(1.0) and np.ndim(libm.exp(1.0)) == 0
    grid = libm.power(np.full((2, 3), 2.0), np.arange(3.0))
    assert grid.shape == (2, 3) and grid[1].tolist() == [1.0, 2.0, 4.0]
    single = libm.log(np.array([2.0, 3.0], np.float32))
    assert single.dtype == np.float32
    assert single.tolist() == [np.float32(math.log(2.0)), np.float32(math.log(3.0))]
    z = np.array([1 + 1j])
    assert libm.exp(z).tolist() == np.exp(z).tolist()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, "bfloat16"])
@pytest.mark.parametrize(("name", "low", "high"), [
    ("exp", -110, 90), ("log", -1, 1e6), ("tanh", -20, 20), ("sin", -1e4, 1e4),
    ("expm1", -20, 90), ("arctanh", -1.1, 1.1), ("power", -50, 50), ("arctan2", -10, 10)])
def test_narrow_results_equal_the_c_library_rounded_once(dtype: object, name: str, low: float,
                                                         high: float) -> None:
    """`rounded` takes numpy's double result only where the C library's must round to the
    same narrow value; it must agree with rounding the C library's result itself."""
    import ml_dtypes

    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float

    narrow = np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    rng = np.random.default_rng(11)
    with np.errstate(over="ignore"):
        xs = [rng.uniform(low, high, 20000).astype(narrow) for _ in range(2 if name in (
            "power", "arctan2") else 1)]
    xs[0][:5] = np.array([0.0, -0.0, np.inf, np.nan, 1e-7]).astype(narrow)
    fn = getattr(libm, name)
    fast = libm.rounded(fn, lambda r: round_float(r, narrow), *xs)
    exact = round_float(fn(*[x.astype(np.float64) for x in xs]), narrow)
    assert fast.dtype == narrow
    assert fast.tobytes() == exact.tobytes()


def test_narrow_results_do_not_trust_numpy_near_a_rounding_boundary() -> None:
    """Arguments whose exp lies next to a midpoint between two float32 values: a double
    result off by a relative 2^-41 (as a CPU-specific numpy loop may be) would round the
    other way on about half of them; `rounded` must still give the C library's rounding."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float

    below = np.random.default_rng(5).uniform(1, 50, 4000).astype(np.float32)
    above = np.nextafter(below, np.float32(np.inf))
    x = libm.log((below.astype(np.float64) + above.astype(np.float64)) / 2)

    def off_exp(v: np.ndarray) -> np.ndarray:
        return libm.exp(v)

    off_exp.ufunc = lambda v: np.exp(v) * (1 + 2.0 ** -41)  # type: ignore[attr-defined]
    single = np.dtype(np.float32)
    naive = round_float(off_exp.ufunc(x), single)  # type: ignore[attr-defined]
    exact = round_float(libm.exp(x), single)
    assert (naive != exact).sum() > 100  # the inputs do sit on boundaries
    assert libm.rounded(off_exp, lambda r: round_float(r, single), x).tobytes() == \
        exact.tobytes()


@pytest.mark.parametrize(("ours", "c_name", "arity"), [
    ("log", "log", 1), ("log1p", "log1p", 1), ("arctanh", "atanh", 1),
    ("arccosh", "acosh", 1), ("power", "pow", 2)])
def test_many_arguments_outside_the_domain(ours: str, c_name: str, arity: int) -> None:
    """Masked-out elements (`where(x > 0, log(x), 0)`) are mostly outside the domain: they
    take the C library's one NaN, checked on a few, and every byte is still the C library's."""
    fn = getattr(_c_library(), c_name)
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double] * arity
    rng = np.random.default_rng(5)
    x = rng.standard_normal(20_000) * 3
    x[::50] = [np.nan, np.inf, -np.inf, 0.0, -0.0] * 80
    args = [x, np.full(x.size, 0.7)][:arity]
    got = getattr(libm, ours)(*args)
    expected = np.array([fn(*v) for v in zip(*[a.tolist() for a in args], strict=True)])
    assert got.tobytes() == expected.tobytes()


def test_invalid_operations_need_one_nan(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the C function's NaNs for invalid arguments differ, each argument is computed."""
    x = -np.arange(1.0, 200.0)
    calls = []

    def fake(v: float) -> float:
        calls.append(v)
        return float(np.array(0x7FF8000000000000 + int(-v), np.uint64).view(np.float64))

    out = np.empty(x.size)
    assert libm._invalid_operations(fake, [x], np.log, out) is None
    assert len(calls) == libm._SAMPLES
    calls.clear()
    same = libm._invalid_operations(lambda v: calls.append(v) or math.nan, [x], np.log, out)
    assert same is not None and same.all() and np.isnan(out).all()
    assert len(calls) == libm._SAMPLES


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_power_of_masked_out_bases(dtype: type) -> None:
    """`where(x >= 0, x ** y, 0)` evaluates pow at negative and zero bases: its guess skips
    them (NaN, recomputed by the C library) and the finder of NaN results is a comparison;
    bases of every sign and kind against integer, half-integer, huge and special exponents
    still give the C library's result rounded once."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float

    rng = np.random.default_rng(12)
    n = 30000
    x = rng.standard_normal(n) * rng.choice([1e-6, 1.0, 30.0], n)
    x[rng.random(n) < 0.2] = 0.0
    y = rng.choice([-3.0, -2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 2.0 ** 60, np.inf, -np.inf,
                    np.nan], n)
    y[: n // 2] = rng.uniform(-4, 4, n // 2)
    x[:12] = [0.0, -0.0, -1.0, -1.0, np.inf, -np.inf, np.nan, -2.0, -2.0, 5e-324, -0.0, 1.0]
    y[:12] = [-1.0, -1.0, np.inf, np.nan, -0.5, 0.5, 0.0, 3.0, 0.5, 0.5, -3.0, np.nan]
    narrow = np.dtype(dtype)
    with np.errstate(all="ignore"):
        xs = [x.astype(narrow), y.astype(narrow)]
    fast = libm.rounded(libm.power, lambda r: round_float(r, narrow), *xs)
    exact = round_float(libm.power(*[v.astype(np.float64) for v in xs]), narrow)
    assert fast.tobytes() == exact.tobytes()
    wide = [v.astype(np.float64) for v in xs]
    finite = np.isfinite(wide[0]) & np.isfinite(wide[1])
    with np.errstate(all="ignore"):
        want = np.isnan(np.power(*wide)) & finite
    assert np.array_equal(np.isnan(libm._pow_nan(*wide)) & finite, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_power_of_0d_operands(dtype: type) -> None:
    """0-d bases and exponents (a scalar `x ** y`, fuzzing found it): numpy's power of 0-d
    arrays is a scalar, which the guess must still be able to mark NaN in; every sign of
    base gives the C library's result rounded once, as for arrays."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float

    narrow = np.dtype(dtype)
    for x, y in [(-1.0, -1.0), (0.0, 65504.0), (-2.0, 0.5), (-2.0, 3.0), (-0.0, -3.0),
                 (np.nan, 0.0), (2.0, 0.5)]:
        xs = [np.array(x, narrow), np.array(y, narrow)]
        fast = libm.rounded(libm.power, lambda r: round_float(r, narrow), *xs)
        exact = round_float(libm.power(*[v.astype(np.float64) for v in xs]), narrow)
        assert fast.shape == () and fast.tobytes() == np.asarray(exact).tobytes()
