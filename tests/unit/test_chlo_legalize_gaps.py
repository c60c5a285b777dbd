"""chlo-legalize-to-stablehlo on complex atan/atanh and on dynamically shaped tensors, and the
complex ops of stablehlo-complex-math-expander: no CHLO op (or expanded op) is left, and
interpreting the rewritten program agrees with interpreting the original within a few ULP."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes

COMPLEX = {np.float32: "complex<f32>", np.float64: "complex<f64>"}


def ulp_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place, per element (complex: the worse part); two NaNs
    are 0 apart."""
    a, b = np.asarray(a), np.asarray(b)
    if np.iscomplexobj(a):
        return np.maximum(ulp_difference(a.real, b.real), ulp_difference(a.imag, b.imag))
    int_type = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]

    def ordered(v: np.ndarray) -> np.ndarray:
        bits = np.ascontiguousarray(v).view(int_type).astype(np.int64)
        return np.where(bits < 0, np.int64(np.iinfo(int_type).min) - bits, bits)

    distance = np.abs(ordered(a) - ordered(b))
    return np.where(np.isnan(a) & np.isnan(b), 0, distance)


def complex_grid(part: type, values: list[float]) -> np.ndarray:
    """Every x + iy with x, y from `values` (assigned part by part, so infinities stay
    exact)."""
    v = np.array(values, part)
    re, im = np.meshgrid(v, v)
    z = np.empty(re.size, np.complex64 if part == np.float32 else np.complex128)
    z.real, z.imag = re.ravel(), im.ravel()
    return z


def edge_values(part: type) -> list[float]:
    """Zeros, the smallest normal, moderate values, the largest finite value, infinities."""
    info = np.finfo(part)
    return [-np.inf, -float(info.max), -1e10, -1.5, -0.75, -0.5, -1e-3, -float(info.tiny),
            0.0, float(info.tiny), 1e-30, 1e-3, 0.5, 0.75, 1.5, 2.0, 1e10, float(info.max),
            np.inf]


def run_unary(op: str, t: str, passes: list[str], x: np.ndarray,
              signature: str | None = None) -> tuple[str, np.ndarray, np.ndarray]:
    """The printed rewritten module, the original's result and the rewritten one's."""
    signature = signature or f"{t} -> {t}"
    text = (f"func.func @main(%a: {t}) -> {t} {{\n  %0 = {op} %a : {signature}\n"
            f"  return %0 : {t}\n}}\n")
    module = parse_source(text)
    direct = Interpreter(module).call(module.functions()[0], [x])[0]
    run_passes(module, passes)
    printed = print_module(module)
    rewritten = parse_source(printed)
    return printed, direct, Interpreter(rewritten).call(rewritten.functions()[0], [x])[0]


# ---- gap 1: complex atan / atanh -------------------------------------------------------------


@pytest.mark.parametrize("part", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["chlo.atan", "chlo.atanh"])
def test_complex_atan_atanh_are_legalized_and_agree(op: str, part: type) -> None:
    values = edge_values(part)
    z = complex_grid(part, values)
    # Upstream's algorithm takes sign(-0) = +1 on the branch cuts and lets (1 - |x|)^2 + y^2
    # underflow to 0 at |x| = 1 with tiny y; the grid avoids exactly those points.
    t = f"tensor<{z.size}x{COMPLEX[part]}>"
    printed, direct, lowered = run_unary(op, t, ["chlo-legalize-to-stablehlo"], z)
    assert "chlo." not in printed
    assert "stablehlo.log_plus_one" in printed and "stablehlo.atan2" in printed
    ulps = ulp_difference(lowered, direct)
    assert ulps.max() <= 4, (z[ulps.argmax()], direct[ulps.argmax()], lowered[ulps.argmax()])


def test_complex_atan_inside_pre_serialization_pipeline() -> None:
    t = "tensor<3xcomplex<f32>>"
    z = np.array([0.5 + 0.25j, -2 + 1e-3j, 1e20 - 3j], np.complex64)
    printed, direct, lowered = run_unary("chlo.atan", t, ["chlo-pre-serialization-pipeline"], z)
    assert "chlo." not in printed
    assert ulp_difference(lowered, direct).max() <= 4


# ---- gap 3: stablehlo-complex-math-expander --------------------------------------------------


def _no_complex_op(printed: str, op: str) -> bool:
    return not any(op + " " in line and "complex" in line for line in printed.splitlines())


@pytest.mark.parametrize("part", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["stablehlo.sqrt", "stablehlo.log", "stablehlo.exponential"])
def test_complex_math_expander_rewrites_and_agrees(op: str, part: type) -> None:
    values = [v for v in edge_values(part) if abs(v) != 1e10 or op != "stablehlo.exponential"]
    z = complex_grid(part, values)
    t = f"tensor<{z.size}x{COMPLEX[part]}>"
    printed, direct, expanded = run_unary(op, t, ["stablehlo-complex-math-expander"], z,
                                          signature=t)
    assert _no_complex_op(printed, op), printed
    assert "stablehlo.real" in printed and "stablehlo.imag" in printed
    finite = np.isfinite(direct.real) & np.isfinite(direct.imag)
    ulps = ulp_difference(expanded, direct)
    if op == "stablehlo.exponential":  # e^x (cos y + i sin y) with sin/cos of huge y
        ulps = np.where(np.abs(z.imag) > 1e3, 0, ulps)
    worst = int(ulps.argmax())
    assert ulps.max() <= 4, (z[worst], direct[worst], expanded[worst])
    assert finite.sum() > z.size // 2


@pytest.mark.parametrize("part", [np.float32, np.float64])
def test_complex_log_plus_one_expansion_agrees_on_random_inputs(part: type) -> None:
    """The expanded log1p(z) (upstream's op order) computes what the op computes, on random
    z of many magnitudes and near the cases' edges (|z| ~ sqrt(max), z ~ -1, x ~ -y^2/2)."""
    rng = np.random.default_rng(12)
    ctype = np.complex64 if part == np.float32 else np.complex128
    scale = 10.0 ** rng.uniform(-6, 6, (2, 200))
    z = (rng.uniform(-1, 1, 200) * scale[0] + 1j * rng.uniform(-1, 1, 200) * scale[1])
    big = math.sqrt(float(np.finfo(part).max)) * 0.02
    y = rng.uniform(-0.5, 0.5, 40)
    z = np.concatenate([z, -1 + rng.uniform(-0.1, 0.1, 40) + 1j * rng.uniform(-0.1, 0.1, 40),
                        -y * y / 2 + 1j * y, big * (1 + 1j) * rng.uniform(0.1, 10, 40)])
    z = z.astype(ctype)
    t = f"tensor<{z.size}x{COMPLEX[part]}>"
    printed, direct, expanded = run_unary("stablehlo.log_plus_one", t,
                                          ["stablehlo-complex-math-expander"], z, signature=t)
    assert _no_complex_op(printed, "stablehlo.log_plus_one"), printed
    assert np.all(np.isfinite(expanded.real) & np.isfinite(expanded.imag))
    # The real part against 1/2 log((x + 1)^2 + y^2) with the argument exact (the
    # interpreter's own complex log1p is less accurate near -1); the imaginary part is atan2.
    getcontext().prec = 80
    exact = []
    for v in z:
        square = (Fraction(float(v.real)) + 1) ** 2 + Fraction(float(v.imag)) ** 2
        exact.append(float((Decimal(square.numerator) / Decimal(square.denominator)).ln() / 2))
    real_ulps = ulp_difference(expanded.real, np.array(exact, part))
    worst = int(real_ulps.argmax())
    assert real_ulps.max() <= 4, (z[worst], exact[worst], expanded[worst])
    assert ulp_difference(expanded.imag, direct.imag).max() <= 4


@pytest.mark.parametrize("part", [np.float32, np.float64])
def test_complex_log_near_unit_circle_uses_dekker_products(part: type) -> None:
    """log|z| for |z| ~ 1 is correctly rounded or nearly so: the reference is
    1/2 log1p(x^2 + y^2 - 1) with the argument computed exactly."""
    angles = np.linspace(0.1, 3.0, 29)
    ctype = np.complex64 if part == np.float32 else np.complex128
    z = (np.exp(1j * angles) * (1 + 1e-6 * np.arange(29))).astype(ctype)
    t = f"tensor<{z.size}x{COMPLEX[part]}>"
    printed, _, expanded = run_unary("stablehlo.log", t, ["stablehlo-complex-math-expander"],
                                     z, signature=t)
    assert _no_complex_op(printed, "stablehlo.log")
    exact = [math.log1p(float(Fraction(float(v.real)) ** 2 + Fraction(float(v.imag)) ** 2 - 1))
             / 2 for v in z]
    assert ulp_difference(expanded.real, np.array(exact, part)).max() <= 2


@pytest.mark.parametrize("part", [np.float32, np.float64])
def test_complex_log_plus_one_avoids_cancellation(part: type) -> None:
    """Re log1p(z) = 1/2 log|1 + z|^2 against |1 + z|^2 computed exactly, on
    points where 2x ~ -y^2 (cancellation), near -1 and in between; Im = atan2(y, 1 + x)."""
    ys = np.array([1e-3, 0.01, 0.3, 0.9, 1.5, 20.0], part)
    xs = np.concatenate([-ys * ys / 2 * (1 + 1e-3), -ys * ys / 2, [-0.999, -1.05, 0.25, 3.0]])
    xs = xs.astype(part)
    z = np.array([complex(x, y) for x in xs for y in ys],
                 np.complex64 if part == np.float32 else np.complex128)
    t = f"tensor<{z.size}x{COMPLEX[part]}>"
    printed, _, expanded = run_unary("stablehlo.log_plus_one", t,
                                     ["stablehlo-complex-math-expander"], z, signature=t)
    assert _no_complex_op(printed, "stablehlo.log_plus_one")
    exact_real = []
    for v in z:
        x, y = Fraction(float(v.real)), Fraction(float(v.imag))
        square_minus_one = 2 * x + x * x + y * y  # |1 + z|^2 - 1, exact
        exact_real.append((math.log1p(float(square_minus_one)) if abs(square_minus_one) < 0.5
                           else math.log(float(1 + square_minus_one))) / 2)
    exact_imag = np.arctan2(z.imag.astype(np.float64), 1 + z.real.astype(np.float64))
    assert ulp_difference(expanded.real, np.array(exact_real, part)).max() <= 3
    assert ulp_difference(expanded.imag, exact_imag.astype(part)).max() <= 3


def test_complex_sqrt_rescales_tiny_and_huge_parts() -> None:
    info = np.finfo(np.float32)
    z = np.array([complex(info.max, info.max), complex(-info.max, 1.0),
                  complex(1e-45, 1e-45), complex(info.max, 1e-30)], np.complex64)
    t = "tensor<4xcomplex<f32>>"
    _, _, expanded = run_unary("stablehlo.sqrt", t, ["stablehlo-complex-math-expander"], z,
                               signature=t)
    want = np.sqrt(z.astype(np.complex128)).astype(np.complex64)
    assert np.isfinite(expanded).all()
    assert ulp_difference(expanded, want).max() <= 4


# ---- gap 2: dynamically shaped tensors -------------------------------------------------------


def _interpret(text: str, args: list[np.ndarray], passes: list[str]) -> tuple[str, list]:
    module = parse_source(text)
    run_passes(module, passes)
    printed = print_module(module)
    reparsed = parse_source(printed)
    return printed, Interpreter(reparsed).call(reparsed.functions()[0], args)


def check_dynamic(template: str, args: list[np.ndarray], sizes: dict[str, int],
                  passes: tuple[str, ...] = ("chlo-legalize-to-stablehlo",),
                  max_ulp: int = 0, direct_dynamic: bool = True) -> str:
    """`template` with `{n}`-style dimensions written `?` is rewritten without CHLO ops left,
    and runs on `args` to exactly the results of the same rewrite with the sizes written
    out; those agree with interpreting the program directly (dynamic or static, the same)
    within `max_ulp`."""
    dynamic_text = template.format(**{k: "?" for k in sizes})
    static_text = template.format(**{k: str(v) for k, v in sizes.items()})
    assert "?" in dynamic_text
    printed, dynamic = _interpret(dynamic_text, args, list(passes))
    assert "chlo." not in printed, printed
    _, static = _interpret(static_text, args, list(passes))
    _, direct = _interpret(static_text, args, [])
    if direct_dynamic:  # the interpreter's chlo.scan / ragged_dot need static shapes
        _, direct_dynamic_results = _interpret(dynamic_text, args, [])
        for want, also in zip(direct, direct_dynamic_results, strict=True):
            np.testing.assert_array_equal(np.asarray(also), np.asarray(want))
    for got, same, want in zip(dynamic, static, direct, strict=True):
        got, same, want = (np.ascontiguousarray(v) for v in (got, same, want))
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(np.uint8), same.view(np.uint8))
        if got.dtype.kind in "fc":
            assert ulp_difference(got, want).max() <= max_ulp
        else:
            np.testing.assert_array_equal(got, want)
    return printed


_UNARY_BOUNDS = {"acos": 1, "acosh": 1, "asin": 1, "asinh": 1, "atan": 0, "atanh": 0,
                 "bessel_i1e": 2, "conj": 0, "cosh": 5, "sinh": 5, "digamma": 40, "erf": 3,
                 "erf_inv": 1, "erfc": 4, "lgamma": 80, "square": 0, "tan": 0}


@pytest.mark.parametrize("element", ["f32", "f16"])
@pytest.mark.parametrize("name", sorted(_UNARY_BOUNDS))
def test_dynamic_real_unary_ops_are_legalized(name: str, element: str) -> None:
    x = np.array([[-2.5, -1, -0.3, 0], [0.2, 0.9, 1.5, 30]],
                 np.float16 if element == "f16" else np.float32)
    t = f"tensor<{{n}}x{{m}}x{element}>"
    template = (f"func.func @main(%a: {t}) -> {t} {{{{\n  %0 = chlo.{name} %a : {t} -> {t}\n"
                f"  return %0 : {t}\n}}}}\n")
    printed = check_dynamic(template, [x], {"n": 2, "m": 4},
                            max_ulp=_UNARY_BOUNDS[name] if element == "f32" else 1)
    if name not in ("conj", "square", "tan", "atan"):
        assert "stablehlo.dynamic_broadcast_in_dim" in printed  # constants shaped at run time
        assert "shape.shape_of" in printed  # as upstream's chlo.constant_like lowering


@pytest.mark.parametrize("name", ["acos", "acosh", "asin", "asinh", "atan", "atanh", "conj",
                                  "cosh", "sinh", "square", "tan"])
def test_dynamic_complex_unary_ops_are_legalized(name: str) -> None:
    z = np.array([[0.5 + 0.25j, -2 + 1e-3j], [3 - 4j, -0.1 - 0.2j]], np.complex64)
    t = "tensor<{n}x2xcomplex<f32>>"
    template = (f"func.func @main(%a: {t}) -> {t} {{{{\n  %0 = chlo.{name} %a : {t} -> {t}\n"
                f"  return %0 : {t}\n}}}}\n")
    check_dynamic(template, [z], {"n": 2}, max_ulp=4)


@pytest.mark.parametrize("name", ["is_inf", "is_pos_inf", "is_neg_inf"])
def test_dynamic_infinity_predicates(name: str) -> None:
    template = (f"func.func @main(%a: tensor<{{n}}xf32>) -> tensor<{{n}}xi1> {{{{\n"
                f"  %0 = chlo.{name} %a : tensor<{{n}}xf32> -> tensor<{{n}}xi1>\n"
                f"  return %0 : tensor<{{n}}xi1>\n}}}}\n")
    check_dynamic(template, [np.array([np.inf, -np.inf, 1, np.nan], np.float32)], {"n": 4})


_BROADCAST_SHAPES = [("tensor<{n}x{m}xf32>", "tensor<{m}xf32>"),
                     ("tensor<{n}x3xf32>", "tensor<1x{m}xf32>"),
                     ("tensor<f32>", "tensor<{n}x{m}xf32>"),
                     ("tensor<{n}x1xf32>", "tensor<{m}xf32>"),
                     ("tensor<{n}x{k}xf32>", "tensor<{m}xf32>")]  # k = 1 at run time


def _broadcast_args(lt: str, rt: str) -> list[np.ndarray]:
    a = np.array([[1.5, -2, 3.25], [0.5, 7, -0.75]], np.float32)
    b = np.array([0.5, 2, -3], np.float32)
    shapes = {"tensor<{n}x{m}xf32>": a, "tensor<{n}x3xf32>": a, "tensor<{m}xf32>": b,
              "tensor<1x{m}xf32>": b.reshape(1, 3), "tensor<f32>": np.array(2, np.float32),
              "tensor<{n}x1xf32>": a[:, :1].copy(), "tensor<{n}x{k}xf32>": a[:, :1].copy()}
    return [shapes[lt], shapes[rt]]


@pytest.mark.parametrize("shapes", _BROADCAST_SHAPES)
@pytest.mark.parametrize("name", ["add", "atan2", "complex", "divide", "maximum", "minimum",
                                  "multiply", "next_after", "polygamma", "power", "remainder",
                                  "subtract", "zeta"])
def test_dynamic_broadcasting_binary_ops(name: str, shapes: tuple[str, str]) -> None:
    lt, rt = shapes
    element = "complex<f32>" if name == "complex" else "f32"
    res = f"tensor<{{n}}x{{m}}x{element}>"
    template = (f"func.func @main(%a: {lt}, %b: {rt}) -> {res} {{{{\n"
                f"  %0 = chlo.broadcast_{name} %a, %b : ({lt}, {rt}) -> {res}\n"
                f"  return %0 : {res}\n}}}}\n")
    args = _broadcast_args(lt, rt)
    if name == "polygamma":
        args = [np.floor(np.abs(args[0])), args[1]]
    printed = check_dynamic(template, args, {"n": 2, "m": 3, "k": 1},
                            max_ulp=40 if name in ("polygamma", "zeta") else 0)
    assert "stablehlo.dynamic_broadcast_in_dim" in printed


@pytest.mark.parametrize("name", ["and", "or", "xor", "shift_left", "shift_right_arithmetic",
                                  "shift_right_logical"])
def test_dynamic_broadcasting_integer_ops(name: str) -> None:
    lt, rt = "tensor<{n}x{m}xi32>", "tensor<{m}xi32>"
    template = (f"func.func @main(%a: {lt}, %b: {rt}) -> {lt} {{{{\n"
                f"  %0 = chlo.broadcast_{name} %a, %b : ({lt}, {rt}) -> {lt}\n"
                f"  return %0 : {lt}\n}}}}\n")
    a = np.array([[-7, 12, 5], [100, -1, 3]], np.int32)
    check_dynamic(template, [a, np.array([1, 3, 30], np.int32)], {"n": 2, "m": 3})


def test_dynamic_broadcast_compare_and_select() -> None:
    template = """func.func @main(%a: tensor<{n}x{m}xf32>, %b: tensor<{m}xf32>, %c: tensor<f32>)
    -> (tensor<{n}x{m}xi1>, tensor<{n}x{m}xf32>, tensor<{n}x{m}xf32>) {{
  %0 = chlo.broadcast_compare %a, %b {{comparison_direction = #chlo<comparison_direction LT>}}
    : (tensor<{n}x{m}xf32>, tensor<{m}xf32>) -> tensor<{n}x{m}xi1>
  %1 = chlo.broadcast_select %0, %b, %c
    : (tensor<{n}x{m}xi1>, tensor<{m}xf32>, tensor<f32>) -> tensor<{n}x{m}xf32>
  %p = stablehlo.constant dense<false> : tensor<i1>
  %2 = chlo.broadcast_select %p, %a, %b
    : (tensor<i1>, tensor<{n}x{m}xf32>, tensor<{m}xf32>) -> tensor<{n}x{m}xf32>
  return %0, %1, %2 : tensor<{n}x{m}xi1>, tensor<{n}x{m}xf32>, tensor<{n}x{m}xf32>
}}
"""
    a, b = _broadcast_args("tensor<{n}x{m}xf32>", "tensor<{m}xf32>")
    check_dynamic(template, [a, b, np.array(-1, np.float32)], {"n": 2, "m": 3})


def test_dynamic_constant_like_mulhi_and_top_k() -> None:
    template = """func.func @main(%a: tensor<{n}x{m}xf32>, %i: tensor<{m}xi32>)
    -> (tensor<{n}x{m}xf32>, tensor<{m}xi32>, tensor<{n}x2xf32>, tensor<{n}x2xi32>) {{
  %0 = "chlo.constant_like"(%a) {{value = 3.5 : f32}} : (tensor<{n}x{m}xf32>) -> tensor<{n}x{m}xf32>
  %1 = chlo.mulhi %i, %i : tensor<{m}xi32>, tensor<{m}xi32> -> tensor<{m}xi32>
  %v, %k = chlo.top_k(%a, k = 2) : tensor<{n}x{m}xf32> -> (tensor<{n}x2xf32>, tensor<{n}x2xi32>)
  return %0, %1, %v, %k : tensor<{n}x{m}xf32>, tensor<{m}xi32>, tensor<{n}x2xf32>,
    tensor<{n}x2xi32>
}}
"""
    a = np.array([[1.5, -2, 3.25, 0], [0.5, 7, -0.75, 7]], np.float32)
    i = np.array([-7, 2**30, 5, 2**31 - 1], np.int32)
    printed = check_dynamic(template, [a, i], {"n": 2, "m": 4})
    assert "stablehlo.dynamic_iota" in printed and "stablehlo.real_dynamic_slice" in printed


@pytest.mark.parametrize("op", ["sqrt", "log", "log_plus_one", "exponential"])
def test_dynamic_complex_math_expander(op: str) -> None:
    t = "tensor<{n}xcomplex<f32>>"
    template = (f"func.func @main(%a: {t}) -> {t} {{{{\n  %0 = stablehlo.{op} %a : {t}\n"
                f"  return %0 : {t}\n}}}}\n")
    z = np.array([1 + 2j, -3 - 0.5j, 1e-3 + 1e-4j], np.complex64)
    printed = check_dynamic(template, [z], {"n": 3},
                            passes=("stablehlo-complex-math-expander",), max_ulp=2)
    assert _no_complex_op(printed, f"stablehlo.{op}")


@pytest.mark.parametrize("reverse", [True, False])
def test_dynamic_scan_slices_at_run_time(reverse: bool) -> None:
    attributes = " attributes {{is_reverse = true}}" if reverse else ""
    template = ("func.func @main(%a: tensor<{n}x{m}xf32>, %c: tensor<{n}xf32>)"
                " -> (tensor<{n}x{m}xf32>, tensor<{n}xf32>) {{\n"
                f"  %0:2 = chlo.scan(%a) inits(%c) dimension=1{attributes} {{{{\n"
                "  ^bb0(%x: tensor<{n}xf32>, %s: tensor<{n}xf32>):\n"
                "    %1 = stablehlo.multiply %x, %s : tensor<{n}xf32>\n"
                "    %2 = stablehlo.add %1, %x : tensor<{n}xf32>\n"
                "    stablehlo.return %2, %1 : tensor<{n}xf32>, tensor<{n}xf32>\n"
                "  }} : (tensor<{n}x{m}xf32>, tensor<{n}xf32>) -> (tensor<{n}x{m}xf32>, "
                "tensor<{n}xf32>)\n"
                "  return %0#0, %0#1 : tensor<{n}x{m}xf32>, tensor<{n}xf32>\n}}\n")
    a = np.array([[1.0, 2.0, 3.0, 0.5], [4.0, 5.0, 6.0, -1.0]], np.float32)
    c = np.array([1.0, 2.0], np.float32)
    printed = check_dynamic(template, [a, c], {"n": 2, "m": 4}, direct_dynamic=False)
    assert "stablehlo.while" in printed and "stablehlo.real_dynamic_slice" in printed


def _ragged_dot(dn: str, lhs: str, rhs: str, result: str) -> str:
    return (f"func.func @main(%l: {lhs}, %r: {rhs}, %g: tensor<2xi64>) -> {result} {{{{\n"
            f"  %0 = \"chlo.ragged_dot\"(%l, %r, %g) {{{{ragged_dot_dimension_numbers ="
            f" #chlo.ragged_dot<{dn}>}}}} : ({lhs}, {rhs}, tensor<2xi64>) -> {result}\n"
            f"  return %0 : {result}\n}}}}\n")


@pytest.mark.parametrize("mode", [1, 2, 3])
def test_dynamic_ragged_dot_masks_at_run_time(mode: int) -> None:
    rng = np.random.default_rng(mode)  # small integers: every sum is exact
    groups = np.array([1, 2], np.int64)
    lhs = rng.integers(-4, 5, (3, 4)).astype(np.float32)
    if mode == 1:
        template = _ragged_dot("lhs_contracting_dimensions = [1], rhs_contracting_dimensions = "
                               "[1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]",
                               "tensor<{m}x{k}xf32>", "tensor<2x{k}x{n}xf32>",
                               "tensor<{m}x{n}xf32>")
        rhs = rng.integers(-4, 5, (2, 4, 5)).astype(np.float32)
    elif mode == 2:
        template = _ragged_dot("lhs_contracting_dimensions = [1], rhs_contracting_dimensions = "
                               "[0], lhs_ragged_dimensions = [1]",
                               "tensor<{m}x{k}xf32>", "tensor<{k}x{n}xf32>",
                               "tensor<2x{m}x{n}xf32>")
        rhs = rng.integers(-4, 5, (4, 5)).astype(np.float32)
    else:
        lhs = rng.integers(-4, 5, (2, 3, 4)).astype(np.float32)
        template = _ragged_dot("lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
                               "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = "
                               "[1], lhs_ragged_dimensions = [0]",
                               "tensor<2x{m}x{k}xf32>", "tensor<2x{k}x{n}xf32>",
                               "tensor<2x{m}x{n}xf32>")
        rhs = rng.integers(-4, 5, (2, 4, 5)).astype(np.float32)
    printed = check_dynamic(template, [lhs, rhs, groups], {"m": 3, "k": 4, "n": 5},
                            direct_dynamic=False)
    assert "stablehlo.dot_general" in printed


def test_dynamic_constant_like_of_booleans_and_integers() -> None:
    template = """func.func @main(%a: tensor<{n}x2xf32>) -> (tensor<{n}x2xi1>, tensor<{n}x2xi32>) {{
  %0 = "chlo.constant_like"(%a) {{value = true}} : (tensor<{n}x2xf32>) -> tensor<{n}x2xi1>
  %1 = "chlo.constant_like"(%a) {{value = -3 : i32}} : (tensor<{n}x2xf32>) -> tensor<{n}x2xi32>
  return %0, %1 : tensor<{n}x2xi1>, tensor<{n}x2xi32>
}}
"""
    check_dynamic(template, [np.ones((3, 2), np.float32)], {"n": 3})
