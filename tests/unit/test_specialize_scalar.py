"""0-d kernels (dialects/stablehlo/specialize_scalar.py) give the general evaluators' results
bit for bit on random scalars with NaN, -0.0, infinities, overflow and domain edges; they are
actually chosen; and non-scalar ops are left alone."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import itertools
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects import libm
from shlo_cli.dialects.stablehlo import specialize, specialize_scalar
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

ELEMS = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32,
         "i8": np.int8, "ui16": np.uint16, "i64": np.int64}
FLOATS = ("f32", "f64", "f16")
HOOKS = (specialize.bind_specialized, specialize_scalar.bind_scalar)


def _values(elem: str, count: int = 24) -> list:
    dtype = np.dtype(ELEMS[elem])
    rng = np.random.default_rng(count + len(elem))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = [info.min, info.max, 0, 1, info.max - 1]
        return [dtype.type(v) for v in edges + list(rng.integers(info.min, info.max, count, endpoint=True))]
    edges = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-30, -1e-30, 22.0, -709.5, 709.5,
             710.0, -1.0, 1.0, 0.5, np.finfo(dtype).max, np.finfo(dtype).tiny]
    rnd = list(rng.standard_normal(count) * rng.choice([1e-5, 1.0, 30.0, 1e4], count))
    with np.errstate(all="ignore"):
        return [dtype.type(v) for v in edges + rnd]


def _run(text: str, args: list, fast: bool) -> tuple[list, list]:
    saved = list(engine.BIND_HOOKS)
    if not fast:
        engine.BIND_HOOKS[:] = [h for h in saved if h not in HOOKS]
    try:
        interpreter = Interpreter(parse_source(text))
        with np.errstate(all="ignore"):
            out = interpreter.call(interpreter.lookup_function("main"), args)
        plan = next(iter(interpreter._plans.values()))
        kernels = [step.fn for step in plan.steps]
    finally:
        engine.BIND_HOOKS[:] = saved
    return out, kernels


def _same(a: object, b: object) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _program(body: str, elem: str, arity: int, result: str | None = None) -> str:
    t = f"tensor<{elem}>"
    params = ", ".join(f"%{n}: {t}" for n in "abc"[:arity])
    return (f"func.func @main({params}) -> {result or t} {{\n  {body.format(T=t)}\n"
            f"  func.return %0 : {result or t}\n}}\n")


@pytest.mark.parametrize("op,elem", [(op, e) for op in ("add", "subtract", "multiply")
                                     for e in ELEMS] + [("divide", e) for e in FLOATS])
def test_binary_arith(op: str, elem: str) -> None:
    text = _program(f"%0 = stablehlo.{op} %a, %b : {{T}}", elem, 2)
    values = _values(elem, 8)
    for a, b in itertools.product(values, values):
        for pair in ((a, b), (np.array(a), b), (np.array(a), np.array(b))):  # scalars or 0-d
            fast, kernels = _run(text, list(pair), True)
            slow, _ = _run(text, list(pair), False)
            assert _same(fast[0], slow[0]), (op, elem, a, b)
    table = specialize_scalar._FLOAT_KERNELS if elem in FLOATS else specialize_scalar._ARITH
    assert kernels[0] is table[f"stablehlo.{op}"]


@pytest.mark.parametrize("elem", list(ELEMS))
@pytest.mark.parametrize("direction", ["EQ", "NE", "GE", "GT", "LE", "LT"])
def test_compare(elem: str, direction: str) -> None:
    kind = "FLOAT" if elem.startswith("f") else ("UNSIGNED" if elem.startswith("u") else "SIGNED")
    text = _program(f"%0 = stablehlo.compare {direction}, %a, %b, {kind} : ({{T}}, {{T}}) -> tensor<i1>",
                    elem, 2, "tensor<i1>")
    values = _values(elem, 6)
    for a, b in itertools.product(values, values):
        fast, kernels = _run(text, [a, b], True)
        slow, _ = _run(text, [a, b], False)
        assert _same(fast[0], slow[0]), (direction, elem, a, b)
    assert kernels[0] is specialize_scalar._COMPARE[direction]


@pytest.mark.parametrize("elem", FLOATS)
@pytest.mark.parametrize("op", sorted(name.split(".")[1] for name in specialize_scalar._LIBM)
                         + ["negate", "sqrt", "rsqrt", "logistic", "sign", "floor", "ceil",
                            "round_nearest_even", "round_nearest_afz"])
def test_unary_float(op: str, elem: str) -> None:
    text = _program(f"%0 = stablehlo.{op} %a : {{T}}", elem, 1)
    for a in _values(elem, 40):
        fast, kernels = _run(text, [a], True)
        slow, _ = _run(text, [np.array(a)], False)
        assert _same(fast[0], slow[0]), (op, elem, a, fast[0], slow[0])
    assert kernels[0] not in HOOKS and "specialize_scalar" in kernels[0].__module__ or \
        kernels[0] is specialize_scalar.operator.neg


@pytest.mark.parametrize("elem", FLOATS)
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_extremum(op: str, elem: str) -> None:
    text = _program(f"%0 = stablehlo.{op} %a, %b : {{T}}", elem, 2)
    values = _values(elem, 3)
    values = values[:8] + values[-3:]  # NaNs, zeros, infinities, tiny values, random ones
    for a, b in itertools.product(values, values):
        fast, kernels = _run(text, [a, b], True)
        slow, _ = _run(text, [a, b], False)
        assert _same(fast[0], slow[0]), (op, elem, a, b)
    assert "specialize_scalar" in kernels[0].__module__
    whole = np.array(values, ELEMS[elem])
    slow, _ = _run(text.replace(f"tensor<{elem}>", f"tensor<{whole.size}x{elem}>"),
                   [whole, whole[::-1].copy()], False)
    assert _same(kernels[0](whole, whole[::-1].copy()), slow[0])


def _check_pairs(text: str, values: list, kernel: str) -> Any:
    """A binary 0-d program on every pair of `values` (as 0-d arrays): the general
    evaluator's bits, from the kernel whose qualified name starts with `kernel` (returned)."""
    for a, b in itertools.product(values, values):
        fast, kernels = _run(text, [np.array(a), np.array(b)], True)
        slow, _ = _run(text, [np.array(a), np.array(b)], False)
        assert _same(fast[0], slow[0]), (a, b, fast[0], slow[0])
    assert kernels[0].__qualname__.startswith(kernel)
    return kernels[0]


@pytest.mark.parametrize("elem", FLOATS)
def test_power(elem: str) -> None:
    """Adam's `b1 ** t` and every edge: negative bases to odd, even and fractional powers
    (NaN), zero to negative powers (infinities), overflow and underflow, NaN and infinite
    operands (the general path's C99 values), subnormal results."""
    text = _program("%0 = stablehlo.power %a, %b : {T}", elem, 2)
    values = _values(elem, 4)
    values += [ELEMS[elem](v) for v in (-2.0, 3.0, 2.0, -3.0, 0.9, 0.999, 100.0, -0.5, 1e-3)]
    kernel = _check_pairs(text, values, "_power.")
    whole = np.array(values, ELEMS[elem])  # a region run on whole arrays: the general path
    slow, _ = _run(text.replace(f"tensor<{elem}>", f"tensor<{whole.size}x{elem}>"),
                   [whole, whole[::-1].copy()], False)
    with np.errstate(all="ignore"):
        assert _same(kernel(whole, whole[::-1].copy()), slow[0])


@pytest.mark.parametrize("elem", FLOATS)
def test_float_remainder(elem: str) -> None:
    """fmod of 0-d floats: zero divisors, infinities, NaN, signed zero results."""
    text = _program("%0 = stablehlo.remainder %a, %b : {T}", elem, 2)
    values = _values(elem, 6) + [ELEMS[elem](v) for v in (4.0, -4.0, 2.0, -2.0, 0.75)]
    _check_pairs(text, values, "_remainder.")


@pytest.mark.parametrize("elem", FLOATS)
def test_atan2(elem: str) -> None:
    """atan2 of 0-d floats: every quadrant, zeros of both signs in either operand, the
    infinities and NaN, tiny and huge ratios."""
    text = _program("%0 = stablehlo.atan2 %a, %b : {T}", elem, 2)
    values = _values(elem, 6) + [ELEMS[elem](v) for v in (-2.0, 3.0, -1e-3)]
    _check_pairs(text, values, "_atan2.")


@pytest.mark.parametrize("elem", FLOATS)
def test_is_finite(elem: str) -> None:
    text = _program("%0 = stablehlo.is_finite %a : ({T}) -> tensor<i1>", elem, 1, "tensor<i1>")
    for a in _values(elem, 10):
        fast, kernels = _run(text, [a], True)
        slow, _ = _run(text, [np.array(a)], False)
        assert bool(fast[0]) == bool(slow[0]) and np.asarray(fast[0]).dtype == np.bool_, a
    assert kernels[0].__qualname__.startswith("_is_finite.")


@pytest.mark.parametrize("elem", FLOATS)
def test_float_clamp(elem: str) -> None:
    """clamp of 0-d floats: the value or a bound in strict order; equal values (signed
    zeros), NaN anywhere and a low bound above the high one."""
    text = _program("%0 = stablehlo.clamp %a, %b, %c : {T}", elem, 3).replace(
        "%b: tensor", "%b: tensor", 1)
    values = _values(elem, 3)
    values = values[:8] + values[-3:] + [ELEMS[elem](v) for v in (0.25, -0.25)]
    for lo, x, hi in itertools.product(values, values, values):
        fast, kernels = _run(text, [lo, x, hi], True)
        slow, _ = _run(text, [lo, x, hi], False)
        assert _same(fast[0], slow[0]), (elem, lo, x, hi, fast[0], slow[0])
    assert kernels[0].__qualname__.startswith("_clamp.")


@pytest.mark.parametrize("source", FLOATS)
@pytest.mark.parametrize("target", ["i8", "ui16", "i32", "i64"])
def test_float_to_int_convert(source: str, target: str) -> None:
    """Truncation toward zero, saturation at both ends (and just inside), NaN -> 0."""
    text = (f"func.func @main(%a: tensor<{source}>) -> tensor<{target}> {{\n"
            f"  %0 = stablehlo.convert %a : (tensor<{source}>) -> tensor<{target}>\n"
            f"  func.return %0 : tensor<{target}>\n}}\n")
    info = np.iinfo(ELEMS[target])
    bounds = [info.min, info.max, info.min - 1, info.max + 1, -0.5, 0.5, -1.5, 2.99, -2.99]
    with np.errstate(all="ignore"):
        values = _values(source, 20) + [ELEMS[source](v) for v in bounds]
    for a in values:
        fast, kernels = _run(text, [a], True)
        slow, _ = _run(text, [np.array(a)], False)
        assert _same(fast[0], slow[0]), (source, target, a, fast[0], slow[0])
    assert "specialize_scalar" in kernels[0].__module__


NARROW = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
          "f8E5M2": ml_dtypes.float8_e5m2}


@pytest.mark.parametrize("narrow", list(NARROW))
@pytest.mark.parametrize("wide", ["f32", "f64"])
def test_narrow_float_converts(narrow: str, wide: str) -> None:
    """f32 -> bf16/f16/f8 (ties to even, overflow, saturation, subnormals, NaN) and every
    narrow value -> f32/f64: the general path's bits."""
    rng = np.random.default_rng(len(narrow))
    dtype = np.dtype(NARROW[narrow])
    every = np.arange(256, dtype=np.uint8) if dtype.itemsize == 1 else \
        rng.integers(0, 1 << 16, 400).astype(np.uint16)
    pairs = [(narrow, wide, list(every.view(dtype)))]
    if wide == "f32":
        with np.errstate(all="ignore"):
            f32 = [np.float32(v) for v in _values("f32", 40)]
            f32 += [np.float32(v) for v in rng.standard_normal(200) * 10.0 ** rng.integers(-40, 38, 200)]
            f32 += [np.float32(float(v)) * np.float32(1 + 2 ** -8) for v in every.view(dtype)[:64]]  # near ties
        pairs.append(("f32", narrow, f32))
    for source, target, values in pairs:
        text = (f"func.func @main(%a: tensor<{source}>) -> tensor<{target}> {{\n"
                f"  %0 = stablehlo.convert %a : (tensor<{source}>) -> tensor<{target}>\n"
                f"  func.return %0 : tensor<{target}>\n}}\n")
        for a in values:
            fast, kernels = _run(text, [np.array(a)], True)
            slow, _ = _run(text, [np.array(a)], False)
            assert _same(fast[0], slow[0]), (source, target, a, fast[0], slow[0])
        assert kernels[0].__qualname__.startswith("_narrow_float_convert."), (source, target)


@pytest.mark.parametrize("elem", ["i8", "i32", "i64", "ui16"])
@pytest.mark.parametrize("op", ["negate", "abs", "sign"])
def test_integer_unary(op: str, elem: str) -> None:
    """-INT_MIN and |INT_MIN| wrap to INT_MIN as the general evaluator's."""
    text = _program(f"%0 = stablehlo.{op} %a : {{T}}", elem, 1)
    for a in _values(elem, 12):
        fast, kernels = _run(text, [a], True)
        slow, _ = _run(text, [np.array(a)], False)
        assert _same(fast[0], slow[0]), (op, elem, a, fast[0], slow[0])
    assert kernels[0] is specialize_scalar._INT_UNARY[f"stablehlo.{op}"]


def test_libm_scalar_matches_arrays() -> None:
    """libm's per-element scalar path against its array path, at domain edges."""
    edges = [np.nan, -0.0, 0.0, np.inf, -np.inf, 709.0, 709.5, 710.0, -745.5, -1.0, -0.999,
             1.0, 1e-300, 5e-324, -5e-324, 1e308, 2.5, -2.5, 100.0]
    for name in ("exp", "expm1", "log", "log1p", "sin", "cos", "tan", "tanh", "sinh", "cosh",
                 "cbrt", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"):
        fn = getattr(libm, name)
        with np.errstate(all="ignore"):
            want = fn(np.array(edges, np.float64))
        got = np.array([fn.scalar(v) for v in edges], np.float64)
        assert got.tobytes() == np.asarray(want).tobytes(), name


@pytest.mark.parametrize("elem", ["f32", "i32", "f16"])
@pytest.mark.parametrize("shape", [(1,), (1, 1), ()])
def test_reshape_to_scalar(elem: str, shape: tuple[int, ...]) -> None:
    src = "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"
    text = (f"func.func @main(%a: {src}) -> tensor<{elem}> {{\n"
            f"  %0 = stablehlo.reshape %a : ({src}) -> tensor<{elem}>\n"
            f"  func.return %0 : tensor<{elem}>\n}}\n")
    for v in _values(elem, 4):
        x = np.full(shape, v, ELEMS[elem])
        fast, kernels = _run(text, [x], True)
        slow, _ = _run(text, [x], False)
        assert _same(fast[0], slow[0])
    assert kernels[0].__qualname__.startswith("_element")


def test_non_scalar_ops_are_left_alone() -> None:
    text = ("func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n  func.return %0 : tensor<2xf32>\n}\n")
    _, kernels = _run(text, [np.ones(2, np.float32), np.ones(2, np.float32)], True)
    assert kernels[0] is np.add
    empty = ("func.func @main(%a: tensor<0xf32>) -> tensor<0xf32> {\n"
             "  %0 = stablehlo.tanh %a : tensor<0xf32>\n  func.return %0 : tensor<0xf32>\n}\n")
    out, kernels = _run(empty, [np.zeros(0, np.float32)], True)
    assert np.asarray(out[0]).shape == (0,) and "specialize_scalar" not in kernels[0].__module__


@pytest.mark.parametrize("elem", FLOATS)
def test_kernels_take_whole_arrays(elem: str) -> None:
    """Regions of 0-d types are sometimes run on whole arrays at once (vectorized reducer
    bodies): the 0-d kernels then give the general evaluators' results too."""
    rng = np.random.default_rng(3)
    dtype = ELEMS[elem]
    a = np.array(_values(elem, 20), dtype)
    b = rng.permutation(a)
    for op in ("add", "subtract", "multiply", "divide"):
        text = _program(f"%0 = stablehlo.{op} %a, %b : {{T}}", elem, 2)
        _, kernels = _run(text, [a[0], b[0]], True)
        slow, _ = _run(text.replace(f"tensor<{elem}>", f"tensor<{a.size}x{elem}>"), [a, b], False)
        with np.errstate(all="ignore"):
            assert _same(kernels[0](a, b), slow[0]), op
    for op in ("tanh", "exponential"):
        text = _program(f"%0 = stablehlo.{op} %a : {{T}}", elem, 1)
        _, kernels = _run(text, [a[0]], True)
        slow, _ = _run(text.replace(f"tensor<{elem}>", f"tensor<{a.size}x{elem}>"), [a], False)
        assert _same(kernels[0](a), slow[0]), op


def test_no_warnings_escape() -> None:
    """inf - inf, overflow and 0 * inf in 0-d kernels, also when a vectorized region body
    hands them whole arrays, give their IEEE results silently under numpy's default error
    state, as a library caller has it (in a fresh process: pytest replaces the filters
    installed at import)."""
    import subprocess
    import sys

    script = (
        "import warnings, numpy as np\n"
        "from shlo_cli.dialects.stablehlo import specialize_scalar as s\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    for name in ('stablehlo.subtract', 'stablehlo.multiply', 'stablehlo.add'):\n"
        "        for a, b in ((np.inf, np.inf), (3e38, -3e38), (0.0, np.inf)):\n"
        "            s._FLOAT_KERNELS[name](np.float32(a), np.float32(b))\n"
        "            s._FLOAT_KERNELS[name](np.array([a], np.float32), np.array([b], np.float32))\n"
        "print(len(caught))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "0", done.stdout + done.stderr


@pytest.mark.parametrize("elem", FLOATS)
def test_transcendental_results_are_fresh_scalars(elem: str) -> None:
    """The 0-d kernels round through a cell of their own: each result is a new numpy scalar
    of the element type, equal to the scalar type's own rounding, never changed by the
    kernel's next call."""
    text = _program("%0 = stablehlo.tanh %a : {T}", elem, 1)
    _, kernels = _run(text, [ELEMS[elem](0.5)], True)
    kernel = kernels[0]
    values = _values(elem, 40)
    results = [kernel(v) for v in values]
    for v, got in zip(values, results, strict=True):
        want = ELEMS[elem](libm.tanh.scalar(float(v)))
        assert type(got) is ELEMS[elem] and _same(got, want), (v, got, want)
