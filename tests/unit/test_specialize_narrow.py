"""Narrow-float kernels (dialects/stablehlo/specialize_narrow.py) and narrow dots planned as
f32 dots (interpreter/narrow_products.py) give the plan's former results bit for bit.

Unary bf16 ops are compared on all 65536 bit patterns (NaN payloads of both signs,
signalling NaNs, subnormals, infinities, zeros), twice: once computed, once answered from
the tables the kernels build; binary ops on every pair of each 8-bit type's values and on
every bf16 value against the special ones plus random pairs."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_narrow
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

BF16 = np.dtype(ml_dtypes.bfloat16)
EIGHT_BIT = {"f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2,
             "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz, "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
             "f8E4M3B11FNUZ": ml_dtypes.float8_e4m3b11fnuz}
ALL_BF16 = np.arange(1 << 16, dtype=np.uint16).view(BF16)
SPECIAL_BF16 = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0xFFBF,
                         0x0001, 0x8001, 0x3F80, 0xBF80, 0x7F7F, 0x0080], np.uint16).view(BF16)


def _same(text: str, args: list[np.ndarray]) -> None:
    """The op's kernel is this module's, and its result is the former plan's, bit for bit."""
    fast, kernel = run_first_op(text, args, specialize_narrow.bind_narrow, True)
    plain, general = run_first_op(text, args, specialize_narrow.bind_narrow, False)
    assert kernel is not general
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()


def _unary(op: str, elem: str, n: int, result: str | None = None) -> str:
    t, r = f"tensor<{n}x{elem}>", f"tensor<{n}x{result or elem}>"
    sig = f"({t}) -> {r}" if result else t
    return (f"func.func @main(%a: {t}) -> {r} {{\n"
            f"  %0 = stablehlo.{op} %a : {sig}\n  func.return %0 : {r}\n}}\n")


def _binary(op: str, elem: str, n: int) -> str:
    t = f"tensor<{n}x{elem}>"
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.{op} %a, %b : {t}\n  func.return %0 : {t}\n}}\n")


@pytest.mark.parametrize("op", ["negate", "abs", "exponential", "log", "tanh", "logistic",
                                "sqrt", "rsqrt", "sine", "log_plus_one"])
def test_bf16_unary_ops_on_every_value(op: str) -> None:
    text = _unary(op, "bf16", ALL_BF16.size)
    interpreter = Interpreter(parse_source(text))
    main = interpreter.lookup_function("main")
    first = np.asarray(interpreter.call(main, [ALL_BF16])[0])
    tabled = np.asarray(interpreter.call(main, [ALL_BF16])[0])  # (from its table, if any)
    plain, _ = run_first_op(text, [ALL_BF16], specialize_narrow.bind_narrow, False)
    assert first.tobytes() == plain.tobytes() == tabled.tobytes()
    _same(_unary(op, "bf16", 7), [ALL_BF16[::9373][:7].copy()])


def _pairs(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    if dtype.itemsize == 1:
        values = np.arange(256, dtype=np.uint8).view(dtype)
        a, b = np.meshgrid(values, values)
        return a.ravel(), b.ravel()
    rng = np.random.default_rng(0)
    a = np.concatenate([np.repeat(ALL_BF16, SPECIAL_BF16.size),
                        rng.integers(0, 1 << 16, 100_000, dtype=np.uint16).view(BF16)])
    b = np.concatenate([np.tile(SPECIAL_BF16, ALL_BF16.size),
                        rng.integers(0, 1 << 16, 100_000, dtype=np.uint16).view(BF16)])
    return a, b


@pytest.mark.parametrize("elem", ["bf16", *EIGHT_BIT])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide"])
def test_arithmetic_on_value_pairs(op: str, elem: str) -> None:
    a, b = _pairs(BF16 if elem == "bf16" else np.dtype(EIGHT_BIT[elem]))
    _same(_binary(op, elem, a.size), [a, b])


@pytest.mark.parametrize("elem", ["bf16", *EIGHT_BIT])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide"])
def test_arithmetic_on_small_arrays(op: str, elem: str) -> None:
    """Arrays small enough for ml_dtypes' own loop (where `_native_order` takes it) give
    the f32 operation rounded once, NaN payloads and signs included, in either order."""
    dtype = BF16 if elem == "bf16" else np.dtype(EIGHT_BIT[elem])
    a, b = _pairs(dtype)
    n = 512
    _, kernel = run_first_op(_binary(op, elem, n), [a[:n], b[:n]],
                             specialize_narrow.bind_narrow, True)
    ufunc = getattr(np, op)
    f32 = np.dtype(np.float32)
    for x, y in ((a, b), (b, a)):
        for start in range(0, x.size - n + 1, n):
            left, right = x[start:start + n], y[start:start + n]
            with np.errstate(all="ignore"):
                want = ufunc(left.astype(f32), right.astype(f32)).astype(dtype)
            got = kernel(left, right)  # type: ignore[operator]
            assert got.dtype == dtype and got.tobytes() == want.tobytes(), start
    empty = kernel(a[:0], b[:0])  # type: ignore[operator]
    assert empty.dtype == dtype and empty.shape == (0,)


@pytest.mark.parametrize("op", ["negate", "abs"])
def test_bf16_sign_ops_on_small_arrays(op: str) -> None:
    """negate/abs flip or clear the sign bit of each value, NaN payloads kept."""
    _, kernel = run_first_op(_unary(op, "bf16", 64), [ALL_BF16[:64].copy()],
                             specialize_narrow.bind_narrow, True)
    mask, combine = (0x8000, np.bitwise_xor) if op == "negate" else (0x7FFF, np.bitwise_and)
    for start in range(0, ALL_BF16.size, 64):
        got = kernel(ALL_BF16[start:start + 64])  # type: ignore[operator]
        want = combine(ALL_BF16[start:start + 64].view(np.uint16), np.uint16(mask))
        assert got.dtype == BF16 and got.view(np.uint16).tolist() == want.tolist()


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_bf16_extrema_on_value_pairs(op: str) -> None:
    a, b = _pairs(BF16)
    _same(_binary(op, "bf16", a.size), [a, b])
    _same(_binary(op, "bf16", a.size), [b, a])


@pytest.mark.parametrize("elem", ["bf16", "f8E4M3FN", "f8E5M2FNUZ"])
@pytest.mark.parametrize("direction", ["EQ", "NE", "LT", "LE", "GT", "GE"])
def test_compare_on_value_pairs(direction: str, elem: str) -> None:
    a, b = _pairs(BF16 if elem == "bf16" else np.dtype(EIGHT_BIT[elem]))
    t = f"tensor<{a.size}x{elem}>"
    text = (f"func.func @main(%a: {t}, %b: {t}) -> tensor<{a.size}xi1> {{\n"
            f"  %0 = stablehlo.compare {direction}, %a, %b : ({t}, {t}) -> tensor<{a.size}xi1>\n"
            f"  func.return %0 : tensor<{a.size}xi1>\n}}\n")
    _same(text, [a, b])


@pytest.mark.parametrize("source,target", [("bf16", "f32"), ("bf16", "f64"), ("f16", "f32"),
                                           ("f16", "f64")])
def test_widening_conversions_of_every_value(source: str, target: str) -> None:
    values = np.arange(1 << 16, dtype=np.uint16).view(BF16 if source == "bf16" else np.float16)
    _same(_unary("convert", source, values.size, target), [values])


@pytest.mark.parametrize("target", ["bf16", "f16", "f8E4M3FN", "f8E5M2"])
def test_narrowing_conversions_from_f32(target: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(0, 1 << 32, 200_000, dtype=np.uint32).view(np.float32)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, 3.4e38, 1e-45, 65520.0, 448.0]
    x.view(np.uint32)[8:12] = [0x7FC00001, 0xFFC00000, 0x7F800001, 0x7FBFFFFF]  # NaNs, sNaNs
    _same(_unary("convert", "f32", x.size, target), [x])


def test_other_values_take_the_general_path() -> None:
    """0-d operands and operands of another dtype go to the general evaluator; arrays of
    the kernel's type do not."""
    calls: list[tuple[object, object]] = []

    def general(a: object, b: object) -> str:
        calls.append((a, b))
        return "general"

    kernel = specialize_narrow._arithmetic(np.add, BF16, general)
    scalar, vector = np.array(1.5, BF16), np.array([1.5, 2.0], BF16)
    assert kernel(scalar, scalar) == "general"
    assert kernel(vector.astype(np.float32), vector) == "general"
    assert len(calls) == 2
    out = kernel(vector, vector)
    assert len(calls) == 2 and out.dtype == BF16 and out.tolist() == [3.0, 4.0]


# ---- narrow dots ------------------------------------------------------------------------


def _dot_program(lhs: str, rhs: str, result: str, dims: str) -> str:
    return (f"func.func @main(%a: {lhs}, %b: {rhs}) -> {result} {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, {dims} : ({lhs}, {rhs}) -> {result}\n"
            f"  func.return %0 : {result}\n}}\n")


def _run_dots(text: str, args: list[np.ndarray], widen: bool) -> tuple[np.ndarray, list[str]]:
    saved, fuse = engine.widened_products, engine.fuse_chains
    if not widen:
        engine.widened_products = lambda ops: ops  # type: ignore[assignment]
    # (the conversions stay steps of their own, not table lookups: unary_tables.py)
    engine.fuse_chains = lambda steps, kept, make: list(steps)  # type: ignore[assignment]
    try:
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        out = np.asarray(interpreter.call(main, args)[0])
        names = [s.op.name for s in interpreter._plans[id(main.regions[0])].steps]
    finally:
        engine.widened_products, engine.fuse_chains = saved, fuse
    return out, names


def _dot_values(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator
                ) -> np.ndarray:
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    if flat.size > 6:
        flat[:6] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40]).astype(dtype)
    return x


@pytest.mark.parametrize("elem", ["bf16", "f16", "f8E4M3FN"])
@pytest.mark.parametrize("lhs,rhs,result,dims", [
    ("2x5", "5x3", "2x3", "contracting_dims = [1] x [0]"),            # sequential sums
    ("1x40", "40x24", "1x24", "contracting_dims = [1] x [0]"),        # BLAS, one row
    ("3x7x20", "3x20x4", "3x7x4",
     "batching_dims = [0] x [0], contracting_dims = [2] x [1]"),
    ("20x6", "9x20", "6x9", "contracting_dims = [0] x [1]"),          # transposed operands
])
def test_narrow_dots_match_the_general_path(elem: str, lhs: str, rhs: str, result: str,
                                            dims: str) -> None:
    dtype = np.dtype(EIGHT_BIT.get(elem, BF16 if elem == "bf16" else np.float16))
    rng = np.random.default_rng(2)
    args = [_dot_values(tuple(int(d) for d in s.split("x")), dtype, rng) for s in (lhs, rhs)]
    text = _dot_program(f"tensor<{lhs}x{elem}>", f"tensor<{rhs}x{elem}>",
                        f"tensor<{result}x{elem}>", dims)
    fast, names = _run_dots(text, args, True)
    plain, before = _run_dots(text, args, False)
    assert before == ["stablehlo.dot_general"]
    assert names == ["stablehlo.convert", "stablehlo.convert", "stablehlo.dot_general",
                     "stablehlo.convert"]
    assert fast.dtype == plain.dtype and fast.tobytes() == plain.tobytes()


def test_mixed_dot_with_an_f32_result_widens_its_narrow_operand() -> None:
    rng = np.random.default_rng(3)
    a = _dot_values((4, 16), BF16, rng)
    b = rng.standard_normal((16, 8)).astype(np.float32)
    text = _dot_program("tensor<4x16xbf16>", "tensor<16x8xf32>", "tensor<4x8xf32>",
                        "contracting_dims = [1] x [0]")
    fast, names = _run_dots(text, [a, b], True)
    plain, _ = _run_dots(text, [a, b], False)
    assert names == ["stablehlo.convert", "stablehlo.dot_general"]
    assert fast.tobytes() == plain.tobytes()


def test_dots_of_other_types_stay_as_written() -> None:
    """f32 dots, and a narrow result of operands of another type (rounded by numpy's
    astype there), are left alone."""
    for lhs, result in (("f32", "f32"), ("f32", "bf16"), ("f16", "bf16")):
        text = _dot_program(f"tensor<2x3x{lhs}>", f"tensor<3x2x{lhs}>",
                            f"tensor<2x2x{result}>", "contracting_dims = [1] x [0]")
        dtype = np.dtype(np.float32 if lhs == "f32" else np.float16)
        args = [np.ones((2, 3), dtype), np.ones((3, 2), dtype)]
        _, names = _run_dots(text, args, True)
        assert names == ["stablehlo.dot_general"]


def _conv_program(elem: str, result: str, groups: int, channels: int, features: int) -> str:
    lhs = f"tensor<1x6x6x{channels}x{elem}>"
    rhs = f"tensor<3x3x{channels // groups}x{features}x{elem}>"
    out = f"tensor<1x6x6x{features}x{result}>"
    return (f"func.func @main(%a: {lhs}, %b: {rhs}) -> {out} {{\n"
            f"  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]"
            f"->[b, 0, 1, f], window = {{pad = [[1, 1], [1, 1]]}} {{batch_group_count = 1 : i64,"
            f" feature_group_count = {groups} : i64}} : ({lhs}, {rhs}) -> {out}\n"
            f"  func.return %0 : {out}\n}}\n")


@pytest.mark.parametrize("elem", ["bf16", "f16"])
@pytest.mark.parametrize("groups,channels,features", [(1, 1, 4), (1, 8, 5), (8, 8, 8)])
def test_narrow_convolutions_are_f32_convolutions_rounded_once(
        elem: str, groups: int, channels: int, features: int) -> None:
    """Shallow (depth 9), deep (72) and depthwise: the plan's converts and f32 convolution
    give the general path's bits, which are the f32 convolution of the widened operands
    rounded once."""
    dtype = BF16 if elem == "bf16" else np.dtype(np.float16)
    rng = np.random.default_rng(4)
    args = [_dot_values((1, 6, 6, channels), dtype, rng),
            _dot_values((3, 3, channels // groups, features), dtype, rng)]
    fast, names = _run_dots(_conv_program(elem, elem, groups, channels, features), args, True)
    plain, before = _run_dots(_conv_program(elem, elem, groups, channels, features), args,
                              False)
    wide, _ = _run_dots(_conv_program("f32", "f32", groups, channels, features),
                        [a.astype(np.float32) for a in args], False)
    assert before == ["stablehlo.convolution"]
    assert names == ["stablehlo.convert", "stablehlo.convert", "stablehlo.convolution",
                     "stablehlo.convert"]
    assert fast.tobytes() == plain.tobytes() == wide.astype(dtype).tobytes()
