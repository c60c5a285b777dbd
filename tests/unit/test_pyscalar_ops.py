"""pyscalar's conversions and integer ops in generated loops (convert between every held
kind, maximum, minimum, clamp, remainder, and/or/xor/not, bool comparisons): the
evaluator's results bit for bit and type for type, on the values at the edges (NaN, the
infinities, -0.0, floats just inside and outside an integer type, large integers to
floats, a remainder by zero or by -1 of the minimum, wrap-around)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from loop_helpers import BINARY, MAP, run_loops

TYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i32": np.int32,
         "i64": np.int64, "ui8": np.uint8, "ui32": np.uint32, "i1": np.bool_,
         "bf16": ml_dtypes.bfloat16, "f16": np.float16}

# One carried value of type {a}, one of type {b}; each step reads the next element of each
# input, so every iteration sees other values. `{op}` computes %y : {b} from %u : {a} and
# the carried %w : {b} (and the element %e : {b}); %z (i1) records a comparison.
LOOP = """
func.func @main(%us: tensor<6x{a}>, %es: tensor<6x{b}>, %w0: tensor<{b}>, %v0: tensor<{a}>) -> (tensor<{b}>, tensor<i1>, tensor<{a}>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %r:4 = stablehlo.while(%i = %c0, %w = %w0, %z = %f, %v = %v0) : tensor<i32>, tensor<{b}>, tensor<i1>, tensor<{a}>
    cond {{
      %c6 = stablehlo.constant dense<6> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %u0 = stablehlo.dynamic_slice %us, %i, sizes = [1] : (tensor<6x{a}>, tensor<i32>) -> tensor<1x{a}>
      %u1 = stablehlo.reshape %u0 : (tensor<1x{a}>) -> tensor<{a}>
      %e0 = stablehlo.dynamic_slice %es, %i, sizes = [1] : (tensor<6x{b}>, tensor<i32>) -> tensor<1x{b}>
      %e = stablehlo.reshape %e0 : (tensor<1x{b}>) -> tensor<{b}>
      %u = {mix}
      {op}
      %zz = stablehlo.compare NE, %z, %f, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %q = stablehlo.compare {direction}, %y, %w, {compare} : (tensor<{b}>, tensor<{b}>) -> tensor<i1>
      %z2 = stablehlo.xor %zz, %q : tensor<i1>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %y, %z2, %u : tensor<i32>, tensor<{b}>, tensor<i1>, tensor<{a}>
    }}
  return %r#1, %r#2, %r#3 : tensor<{b}>, tensor<i1>, tensor<{a}>
}}
"""


def _is_float(t: str) -> bool:
    return t.startswith(("f", "bf"))


def _compare_type(t: str) -> str:
    return "FLOAT" if _is_float(t) else "SIGNED" if t.startswith("i") and t != "i1" else "UNSIGNED"


def _mix(a: str) -> str:
    """%u from the carried %v and the element %u1 (so %u is a Python scalar)."""
    if _is_float(a):
        return f"stablehlo.add %v, %u1 : tensor<{a}>"
    if a == "i1":
        return "stablehlo.or %v, %u1 : tensor<i1>"
    return f"stablehlo.maximum %v, %u1 : tensor<{a}>"


def _values(t: str, rng: np.random.Generator) -> np.ndarray:
    dtype = np.dtype(TYPES[t])
    if t == "i1":
        return rng.integers(0, 2, 6).astype(bool)
    if _is_float(t):
        edges = [0.0, -0.0, np.nan, np.inf, -np.inf, 0.5, -0.5, 127.5, 128.0, -128.99,
                 -129.0, 255.9, 256.0, 2**31 - 0.5, 2.0**31, -2.0**31 - 1, 2.0**31 * 2,
                 16777217.0, 2.0**53 + 2, 1e300, 3.4e38, 1e-45, 2.0**63, -2.0**63, -1.0,
                 709.5, 5e-324]
        with np.errstate(over="ignore"):  # (f32: the large ones are infinities)
            return np.array([edges[int(k)] for k in rng.integers(len(edges), size=6)]
                            ).astype(dtype)
    info = np.iinfo(dtype)
    edges = [info.min, info.min + 1, -1, 0, 1, 2, 3, 7, 127, 128, 255, 256, 2**24 + 1,
             2**31 - 1, 2**53 + 1, info.max - 1, info.max]
    return np.array([int(np.clip(edges[int(k)], info.min, info.max))
                     for k in rng.integers(len(edges), size=6)], dtype)


def _run(text: str, args: list[Any], compiled: bool, monkeypatch: pytest.MonkeyPatch
         ) -> tuple[list[Any], str]:
    out, sources = run_loops(text, args, compiled, monkeypatch)
    return out, "".join(sources)


def _check(a: str, b: str, op: str, direction: str, seeds: int,
           monkeypatch: pytest.MonkeyPatch, exact_type: bool = True) -> str:
    """The compiled loop's results against the evaluator's; not `exact_type`: a 0-d array
    and a numpy scalar of one dtype count as one type (the i64 shift kernels' results and
    float sign's of NaN are 0-d arrays)."""
    text = LOOP.format(a=a, b=b, op=op, mix=_mix(a), direction=direction,
                       compare=_compare_type(b))
    source = ""
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        args = [_values(a, rng), _values(b, rng), _values(b, rng)[0][()],
                np.asarray(_values(a, rng)[0])]
        got, source = _run(text, args, True, monkeypatch)
        want, _ = _run(text, args, False, monkeypatch)
        for x, y in zip(got, want, strict=True):
            if exact_type:
                assert type(x) is type(y), (a, b, op, seed)
            assert np.asarray(x).dtype == np.asarray(y).dtype, (a, b, op, seed)
            assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), (a, b, op, seed, x, y)
    return source


@pytest.mark.parametrize("a", list(TYPES))
@pytest.mark.parametrize("b", list(TYPES))
def test_conversions(a: str, b: str, monkeypatch: pytest.MonkeyPatch) -> None:
    op = f"%y = stablehlo.convert %u : (tensor<{a}>) -> tensor<{b}>"
    # (the general conversions of bf16 and f16 return 0-d arrays, a line numpy scalars)
    _check(a, b, op, "LT", 6, monkeypatch, exact_type=not {a, b} & {"bf16", "f16"})


INTEGER_OPS = {
    "max": "%y = stablehlo.maximum %u, %e : tensor<{b}>",
    "min": "%y = stablehlo.minimum %e, %u : tensor<{b}>",
    "clamp": "%y = stablehlo.clamp %e, %u, %w : tensor<{b}>",
    "rem": "%y = stablehlo.remainder %u, %e : tensor<{b}>",
    "rem by -1": "%m1 = stablehlo.constant dense<-1> : tensor<{b}>\n      %y = stablehlo.remainder %u, %m1 : tensor<{b}>",
    "rem by 5": "%c5 = stablehlo.constant dense<5> : tensor<{b}>\n      %y = stablehlo.remainder %u, %c5 : tensor<{b}>",
    # the same remainder twice (by two constants of one value): computed once
    "rem by 5 twice": "%c5 = stablehlo.constant dense<5> : tensor<{b}>\n      %d5 = stablehlo.constant dense<5> : tensor<{b}>\n      %r1 = stablehlo.remainder %u, %c5 : tensor<{b}>\n      %r2 = stablehlo.remainder %u, %d5 : tensor<{b}>\n      %y = stablehlo.xor %r1, %r2 : tensor<{b}>",
    "and": "%y = stablehlo.and %u, %e : tensor<{b}>",
    "or": "%y = stablehlo.or %e, %u : tensor<{b}>",
    "xor": "%y = stablehlo.xor %u, %w : tensor<{b}>",
    "not": "%y = stablehlo.not %u : tensor<{b}>",
}


@pytest.mark.parametrize("b", ["i8", "i32", "i64", "ui8", "ui32", "i1"])
@pytest.mark.parametrize("name", list(INTEGER_OPS))
def test_integer_ops(b: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if name.startswith("rem") and b == "i1" or name == "rem by -1" and b.startswith("ui"):
        pytest.skip("no remainder of bools; -1 is no unsigned constant")
    source = _check(b, b, INTEGER_OPS[name].format(b=b), "GE", 8, monkeypatch)
    # the op is a Python line (not its kernel on numpy values)
    if name.startswith("rem"):
        assert " % " in source
    if name.startswith("rem by 5"):  # (a constant divisor: written in, no test of its sign)
        assert " % 5 if " in source and " > 0 else " not in source
        assert source.count(" % 5 if ") == source.count("for a0 in range") + 1  # (once)
    elif name == "not":
        assert ("not " if b == "i1" else "~" if b.startswith("i") else " ^ ") in source


# scalar_ops.py's integer lines: the divisor and shift amounts %e include 0, -1, the
# type's minimum and maximum and amounts at and past the width (their kernels' cases).
DIVISION_AND_BITS = {
    "div": ("%y = stablehlo.divide %u, %e : tensor<{b}>", " // "),
    "div by -1": ("%m1 = stablehlo.constant dense<-1> : tensor<{b}>\n      %y = stablehlo.divide %u, %m1 : tensor<{b}>", " // "),
    # constant divisors and shift amounts: written in, no test (but past the width)
    "div by 7": ("%c7 = stablehlo.constant dense<7> : tensor<{b}>\n      %y = stablehlo.divide %u, %c7 : tensor<{b}>", " // 7 if "),
    "shift_left by 3": ("%c3 = stablehlo.constant dense<3> : tensor<{b}>\n      %y = stablehlo.shift_left %u, %c3 : tensor<{b}>", " << 3) & "),
    "shift_right_logical by width - 1": ("%c = stablehlo.constant dense<{top}> : tensor<{b}>\n      %y = stablehlo.shift_right_logical %u, %c : tensor<{b}>", " >> {top}"),
    "shift_right_arithmetic by 1": ("%c1 = stablehlo.constant dense<1> : tensor<{b}>\n      %y = stablehlo.shift_right_arithmetic %u, %c1 : tensor<{b}>", " >> 1"),
    "shift_left by the width": ("%c = stablehlo.constant dense<{width}> : tensor<{b}>\n      %y = stablehlo.shift_left %e, %c : tensor<{b}>", " << "),
    "shift_left": ("%y = stablehlo.shift_left %u, %e : tensor<{b}>", " << "),
    "shift_right_logical": ("%y = stablehlo.shift_right_logical %u, %e : tensor<{b}>", " >> "),
    "shift_right_arithmetic": ("%y = stablehlo.shift_right_arithmetic %u, %e : tensor<{b}>", " >> "),
    "abs": ("%y = stablehlo.abs %u : tensor<{b}>", "-"),
    "abs of e": ("%y = stablehlo.abs %e : tensor<{b}>", "-"),
    "sign": ("%y = stablehlo.sign %u : tensor<{b}>", " > 0"),
}


@pytest.mark.parametrize("b", ["i8", "i32", "i64", "ui8", "ui32"])
@pytest.mark.parametrize("name", list(DIVISION_AND_BITS))
def test_division_and_bits(b: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if name == "div by -1" and b.startswith("ui"):
        pytest.skip("-1 is no unsigned constant")
    op, line = DIVISION_AND_BITS[name]
    width = np.dtype(TYPES[b]).itemsize * 8
    source = _check(b, b, op.format(b=b, top=width - 1, width=width), "GE", 30, monkeypatch,
                    exact_type=b != "i64")
    # the op is a Python line (not its kernel on numpy values)
    assert line.format(top=width - 1) in source
    if " by " in name and "-1" not in name:  # a constant: the kernel past the width only
        op_line = next(t for t in source.splitlines() if line.format(top=width - 1) in t)
        assert ("_K" in op_line) == name.endswith("the width"), op_line


# scalar_ops.py's float lines, on NaN, the infinities and both zeros (`-z` against `z = d - d`:
# +0 against -0; abs of a negated NaN: its sign bit).
FLOAT_OPS = {
    "maximum": ("%y = stablehlo.maximum %u, %e : tensor<{b}>", " > "),
    "minimum": ("%y = stablehlo.minimum %e, %u : tensor<{b}>", " < "),
    "maximum of -z, z": ("%d = stablehlo.add %u, %e : tensor<{b}>\n      %zd = stablehlo.subtract %d, %d : tensor<{b}>\n      %n = stablehlo.negate %zd : tensor<{b}>\n      %y = stablehlo.maximum %n, %zd : tensor<{b}>", " > "),
    "minimum of d, -d": ("%d = stablehlo.subtract %u, %e : tensor<{b}>\n      %n = stablehlo.negate %d : tensor<{b}>\n      %y = stablehlo.minimum %d, %n : tensor<{b}>", " < "),
    "minimum of u, 0": ("%z0 = stablehlo.constant dense<0.0> : tensor<{b}>\n      %y = stablehlo.minimum %u, %z0 : tensor<{b}>", " < "),
    "abs": ("%n = stablehlo.negate %u : tensor<{b}>\n      %y = stablehlo.abs %n : tensor<{b}>", "abs("),
    "sign": ("%y = stablehlo.sign %u : tensor<{b}>", " > 0.0"),
    # one product twice (by two constants of one value): computed once
    "product twice": ("%h = stablehlo.constant dense<0.5> : tensor<{b}>\n      %k = stablehlo.constant dense<0.5> : tensor<{b}>\n      %nz = stablehlo.constant dense<-0.0> : tensor<{b}>\n      %p1 = stablehlo.multiply %u, %h : tensor<{b}>\n      %p2 = stablehlo.multiply %u, %k : tensor<{b}>\n      %m = stablehlo.multiply %u, %nz : tensor<{b}>\n      %s = stablehlo.subtract %p1, %p2 : tensor<{b}>\n      %y = stablehlo.add %s, %m : tensor<{b}>", " - "),
}


@pytest.mark.parametrize("b", ["f32", "f64", "f16", "bf16"])
@pytest.mark.parametrize("name", list(FLOAT_OPS))
def test_float_ops(b: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    op, line = FLOAT_OPS[name]
    # (bf16's and f16's kernels may return 0-d arrays, where a line gives numpy scalars)
    source = _check(b, b, op.format(b=b), "LT", 30, monkeypatch,
                    exact_type=name != "sign" and b in ("f32", "f64"))
    assert line in source
    if name == "product twice":  # p1 - p2 reads one name
        assert re.search(r"= (\w+) - \1\b", source)
    if name not in ("maximum", "minimum"):  # (an element read's float may be unclean)
        # the carried %w stays a Python float: what the op passes on (a constant 0.0
        # included) is exact
        assert "a1 = float(a1)" in source


def test_identity_of_constant_folds(monkeypatch: pytest.MonkeyPatch) -> None:
    """jnp's `%` and `//` as jax exports them: the divisor, a constant passed through an
    identity convert, tested against 0 and selected; those steps fold (constants known
    through the identity), so the whole step runs on Python ints, no numpy value in it."""
    op = ("%two = stablehlo.constant dense<2> : tensor<i32>\n"
          "      %c1 = stablehlo.constant dense<1> : tensor<i32>\n"
          "      %zero = stablehlo.constant dense<0> : tensor<i32>\n"
          "      %k = stablehlo.convert %two : tensor<i32>\n"
          "      %iz = stablehlo.compare EQ, %k, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
          "      %s = stablehlo.select %iz, %c1, %k : tensor<i1>, tensor<i32>\n"
          "      %y = stablehlo.divide %u, %s : tensor<i32>")
    source = _check("i32", "i32", op, "GE", 6, monkeypatch)
    body = source[source.index("while True"):]
    assert " // " in body and "_v" not in body


@pytest.mark.parametrize("b", ["f32", "f64"])
@pytest.mark.parametrize("name", ["tanh", "sine", "cbrt", "cosine", "exponential",
                                  "exponential_minus_one", "log", "log_plus_one", "logistic"])
def test_transcendentals_at_the_edges(b: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """libm functions on NaN, the infinities, both zeros, arguments outside the domain and
    past exp's overflow: those that give the slow path's results on infinities (tanh, cbrt)
    skip the per-call argument test (a NaN result redoes the step), the others test the
    argument against their domain inline and call `math`'s function within it."""
    source = _check(b, b, f"%y = stablehlo.{name} %u : tensor<{b}>", "LT", 30, monkeypatch)
    tested = re.search(r"\(w\w+\((w\w+)\) if \S+ <= \1 <= \S+ else w\w+S\(\1\)\)",
                       source) is not None
    assert tested == (name not in ("tanh", "cbrt"))


EDGES = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, -1.0, -0.5, 5e-324, 1e-45, 88.7, 89.0,
         -103.0, 709.0, 709.5, 710.0, -709.5, -745.5, 3.4e38, -3.4e38]


@pytest.mark.parametrize("b", ["f32", "f64"])
@pytest.mark.parametrize("name", ["exponential", "log", "log_plus_one", "logistic"])
def test_transcendentals_on_many_values(b: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The written-out libm calls (and logistic's three roundings) on ordinary values of
    every magnitude, where a rounding step left out shows: the evaluator's bits."""
    rng = np.random.default_rng(7)
    xs = np.concatenate([rng.standard_normal(600) * 10.0 ** rng.integers(-8, 3, 600),
                         rng.uniform(-1.0, 1.0, 100), EDGES]).astype(TYPES[b])
    text = MAP.format(n=xs.size, t=b, name=name)
    with np.errstate(all="ignore"):
        got, source = _run(text, [xs], True, monkeypatch)
        want, _ = _run(text, [xs], False, monkeypatch)
    assert re.search(r"if \S+ <= (\w+) <= \S+ else w\w+S\(\1\)\)", source), source
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()


ROUNDINGS = ["floor", "ceil", "round_nearest_even", "round_nearest_afz"]


def _general(text: str, args: list[Any], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The results with neither generated loops nor the 0-d kernels (whose `rounding` and
    `finite_pow` the lines write out): the general evaluators'."""
    from shlo_cli.dialects.stablehlo.specialize_scalar import bind_scalar
    from shlo_cli.interpreter import engine

    saved = list(engine.BIND_HOOKS)
    engine.BIND_HOOKS[:] = [h for h in saved if h is not bind_scalar]  # (the registry's list)
    try:
        return _run(text, args, False, monkeypatch)[0]
    finally:
        engine.BIND_HOOKS[:] = saved


def _near_integers(t: str, rng: np.random.Generator) -> np.ndarray:
    """Halves and values just beside them at every magnitude (f32: up to 2^24, where the
    halves end; f64: up to 2^53), zeros' neighbours, the edges."""
    top = 24 if t == "f32" else 53
    whole = np.floor(rng.uniform(0, 1, 400) * 2.0 ** rng.integers(0, top, 400))
    dtype = TYPES[t]
    halves = (whole + 0.5).astype(dtype)
    fractions = rng.choice([0.25, 0.75, 0.4999999, 0.5000001, 0.0], 400)
    beside = np.concatenate([np.nextafter(halves, dtype(np.inf)), np.nextafter(halves, dtype(-np.inf))])
    values = np.concatenate([halves, (whole + fractions).astype(dtype), beside, EDGES])
    signs = rng.choice([-1.0, 1.0], values.size).astype(dtype)
    with np.errstate(all="ignore"):
        return (values * signs).astype(dtype)


@pytest.mark.parametrize("b", ["f32", "f64"])
@pytest.mark.parametrize("name", ROUNDINGS)
def test_roundings(b: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """floor, ceil and both round-to-integer ops as Python lines (the integer Python
    picks, given the operand's sign): ties, values beside them, zeros of both signs,
    magnitudes past the last fraction, NaN and the infinities, bit for bit."""
    # (exact_type off: the kernel's general path returns a 0-d array where a line does not)
    source = _check(b, b, f"%y = stablehlo.{name} %u : tensor<{b}>", "LT", 30, monkeypatch,
                    exact_type=False)
    assert "_copysign(float(" in source
    xs = _near_integers(b, np.random.default_rng(3))
    text = MAP.format(n=xs.size, t=b, name=name)
    got, source = _run(text, [xs], True, monkeypatch)
    want = _general(text, [xs], monkeypatch)
    assert "_copysign(float(" in source
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()


def _check_binary(name: str, b: str, xs: np.ndarray, ps: np.ndarray, marker: str,
                  monkeypatch: pytest.MonkeyPatch) -> None:
    """BINARY's loop of `name` over the pairs (xs, ps) in type `b`: the generated line
    (`marker` in its source) gives the general evaluators' bits."""
    with np.errstate(all="ignore"):
        xs, ps = xs.astype(TYPES[b]), ps.astype(TYPES[b])
    text = BINARY.format(n=xs.size, t=b, name=name)
    got, source = _run(text, [xs, ps], True, monkeypatch)
    want = _general(text, [xs, ps], monkeypatch)
    assert marker in source
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()


@pytest.mark.parametrize("b", ["f32", "f64"])
def test_power(b: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """x ** y as math.pow rounded once: negative bases to integer and fractional powers
    (the C library's NaN: redone), zero bases to negative powers, overflow and underflow,
    NaN and infinite operands (C99's values, the kernel's), bit for bit."""
    source = _check(b, b, f"%y = stablehlo.power %u, %e : tensor<{b}>", "LT", 30, monkeypatch,
                    exact_type=False)
    assert re.search(r"w\w+P\(", source)
    rng = np.random.default_rng(5)
    bases = np.concatenate([rng.standard_normal(500) * 10.0 ** rng.integers(-3, 3, 500), EDGES])
    powers = np.concatenate([np.round(rng.standard_normal(300) * 4),
                             rng.standard_normal(200) * 10.0 ** rng.integers(-2, 3, 200),
                             rng.choice([0.5, -0.5, 2.0, 3.0, -1.0, 0.0, 1e10], len(EDGES))])
    _check_binary("power", b, bases, powers, "P(", monkeypatch)


@pytest.mark.parametrize("b", ["f32", "f64"])
@pytest.mark.parametrize("name", ["sqrt", "rsqrt"])
def test_roots(b: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """sqrt and 1/sqrt of positive values as a double root rounded once; zeros, negative
    values (NaN), NaN and the infinities the kernel's."""
    source = _check(b, b, f"%y = stablehlo.{name} %u : tensor<{b}>", "LT", 30, monkeypatch,
                    exact_type=False)
    assert "_sqrt(" in source
    rng = np.random.default_rng(4)
    with np.errstate(all="ignore"):
        xs = np.concatenate([np.abs(rng.standard_normal(700)) * 10.0 ** rng.integers(-30, 30, 700),
                             EDGES]).astype(TYPES[b])
    text = MAP.replace("      %y = stablehlo.{name} %u : tensor<{t}>",  # (used unrounded: shows)
                       "      %yp = stablehlo.{name} %u : tensor<{t}>\n"
                       "      %y = stablehlo.subtract %yp, %u : tensor<{t}>").format(n=xs.size, t=b, name=name)
    got, source = _run(text, [xs], True, monkeypatch)
    want = _general(text, [xs], monkeypatch)
    assert "_sqrt(" in source
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()


@pytest.mark.parametrize("b", ["f32", "f64"])
def test_float_remainder(b: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """fmod of floats as math.fmod: signs of dividend and divisor, results of zero (their
    sign the dividend's), tiny and huge quotients; a zero divisor, infinities and NaN the
    kernel's."""
    source = _check(b, b, f"%y = stablehlo.remainder %u, %e : tensor<{b}>", "LT", 30, monkeypatch,
                    exact_type=False)
    assert "_fmod(" in source
    rng = np.random.default_rng(6)
    xs = np.concatenate([rng.standard_normal(600) * 10.0 ** rng.integers(-5, 8, 600), EDGES])
    ps = np.concatenate([rng.standard_normal(400) * 10.0 ** rng.integers(-5, 8, 400),
                         rng.choice([2.0, -2.0, 0.5, 6.283185307179586, 1e-30], 200 + len(EDGES))])
    xs[:50] = np.round(xs[:50]) * 2.0  # (exact multiples of 2.0: zero results)
    ps[:50] = 2.0
    _check_binary("remainder", b, xs, ps, "_fmod(", monkeypatch)


@pytest.mark.parametrize("b", ["f32", "f64"])
def test_float_clamp(b: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """clamp(low, %u, high): the value, the low or the high bound in strict order; equal
    values, signed zeros, NaN and a low bound above the high one the kernel's. (The bounds
    are computed in the step: a value read from numpy, which a clamp may pass on, would
    keep the op on its kernel.)"""
    op = (f"%l = stablehlo.subtract %e, %u : tensor<{b}>\n      %hh = stablehlo.add %e, %u : tensor<{b}>\n"
          f"      %y = stablehlo.clamp %l, %u, %hh : tensor<{b}>")
    source = _check(b, b, op, "LT", 40, monkeypatch, exact_type=False)
    assert re.search(r"= (\w+) if \w+ < \1 < \w+ else", source)
    rng = np.random.default_rng(8)
    xs = np.concatenate([rng.standard_normal(700) * 2, EDGES, [0.5, -0.5, 0.0, -0.0]])
    xs = xs.astype(TYPES[b])
    text = (MAP.replace("%xs: tensor<{n}x{t}>)", "%xs: tensor<{n}x{t}>, %lo: tensor<{t}>, %hi: tensor<{t}>)")
            .replace("      %y = stablehlo.{name} %u : tensor<{t}>",
                     "      %l = stablehlo.subtract %lo, %h : tensor<{t}>\n"
                     "      %hh = stablehlo.subtract %hi, %h : tensor<{t}>\n"
                     "      %y = stablehlo.clamp %l, %u, %hh : tensor<{t}>"))
    for low, high in ((-0.5, 0.5), (0.0, 1.0), (-0.0, 0.0), (1.0, -1.0), (np.nan, 1.0)):
        args = [xs, TYPES[b](low), TYPES[b](high)]
        got, source = _run(text.format(n=xs.size, t=b), args, True, monkeypatch)
        want = _general(text.format(n=xs.size, t=b), args, monkeypatch)
        assert re.search(r"= (\w+) if \w+ < \1 < \w+ else", source)
        assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes(), (low, high)


@pytest.mark.parametrize("b", ["f32", "f64"])
def test_atan2(b: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """atan2(y, x) of a nonzero finite y as the C library's, rounded once: every quadrant,
    tiny and huge ratios; zeros, infinities and NaN the kernel's."""
    source = _check(b, b, f"%y = stablehlo.atan2 %u, %e : tensor<{b}>", "LT", 30, monkeypatch,
                    exact_type=False)
    assert "_atan2(" in source
    rng = np.random.default_rng(9)
    ys = np.concatenate([rng.standard_normal(600) * 10.0 ** rng.integers(-6, 6, 600), EDGES])
    xs = np.concatenate([rng.standard_normal(600) * 10.0 ** rng.integers(-6, 6, 600), EDGES[::-1]])
    _check_binary("atan2", b, ys, xs, "_atan2(", monkeypatch)


@pytest.mark.parametrize("a", ["f32", "f64"])
def test_is_finite(a: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """is_finite as a range test: NaN, both infinities, the largest finite values."""
    source = _check(a, "i1", f"%y = stablehlo.is_finite %u : (tensor<{a}>) -> tensor<i1>", "LT",
                    30, monkeypatch, exact_type=False)
    assert re.search(r"= -1.7976931348623157e\+308 <= \w+ <= 1.7976931348623157e\+308$", source, re.M)
