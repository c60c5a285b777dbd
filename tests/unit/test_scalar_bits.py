"""0-d reduce_precision (its bits rounded as a Python int) and 0-d same-width
bitcast_convert (a view) give the general evaluators' bits: every native float type, formats
that round the mantissa, narrow the exponent, both, or keep no mantissa; random bit patterns
(NaNs of both signs and payloads, infinities, zeros, subnormals, values at the reduced
range's edges), numpy scalars and 0-d arrays."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo.conversions import bitcast_convert, reduce_precision
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source, parse_type_text

NAMES = {np.float16: "f16", np.float32: "f32", np.float64: "f64", np.int16: "i16",
         np.uint16: "ui16", np.int32: "i32", np.uint32: "ui32", np.int64: "i64",
         np.uint64: "ui64", np.int8: "i8", np.uint8: "ui8"}


def _patterns(dtype: type, n: int, seed: int) -> np.ndarray:
    """Random bit patterns, each exponent's edges (powers of two and their neighbours) and
    the special values, as `dtype`."""
    rng = np.random.default_rng(seed)
    width = np.dtype(dtype).itemsize
    words = rng.integers(0, np.iinfo(f"u{width}").max, n, dtype=f"u{width}", endpoint=True)
    values = words.view(dtype)
    if np.dtype(dtype).kind == "f":
        with np.errstate(over="ignore"):  # (f16: the large ones are infinities)
            powers = np.ldexp(np.ones(120), np.arange(-60, 60)).astype(dtype)
            specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 65504.0, 65520.0,
                                 3.4e38, 1e-40, 6e-8, 1.5, 2.5]).astype(dtype)
        edges = np.concatenate([powers, np.nextafter(powers, dtype(np.inf)),
                                np.nextafter(powers, dtype(0)), -powers, specials])
        values = np.concatenate([values, edges])
    return values


def _zero_d(text: str) -> tuple[Interpreter, object]:
    interpreter = Interpreter(parse_source(text))
    return interpreter, interpreter.lookup_function("main")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(("exponent", "mantissa"), [(5, 10), (8, 7), (4, 3), (2, 1), (8, 23),
                                                    (5, 0), (11, 30), (3, 52), (1, 2)])
def test_reduce_precision_of_one_value(dtype: type, exponent: int, mantissa: int) -> None:
    t = f"tensor<{NAMES[dtype]}>"
    interpreter, main = _zero_d(
        f"func.func @main(%a: {t}) -> {t} {{\n  %0 = stablehlo.reduce_precision %a, "
        f"format = e{exponent}m{mantissa} : {t}\n  func.return %0 : {t}\n}}\n")
    x = _patterns(dtype, 1500, exponent * 100 + mantissa)
    with np.errstate(all="ignore"):
        want = reduce_precision(x, exponent_bits=exponent, mantissa_bits=mantissa)
        got = [interpreter.call(main, [v])[0] for v in x[:800]]  # numpy scalars
        got += [interpreter.call(main, [np.array(v)])[0] for v in x[800:]]  # 0-d arrays
    assert all(np.asarray(g).dtype == np.dtype(dtype) for g in got)
    assert np.array(got, dtype).tobytes() == want.tobytes()


@pytest.mark.parametrize(("source", "target"), [
    (np.float32, np.int32), (np.float32, np.uint32), (np.int32, np.float32),
    (np.uint32, np.float32), (np.float64, np.int64), (np.uint64, np.float64),
    (np.float16, np.int16), (np.uint16, np.float16), (np.int8, np.uint8)])
def test_bitcast_of_one_value(source: type, target: type) -> None:
    a, b = f"tensor<{NAMES[source]}>", f"tensor<{NAMES[target]}>"
    interpreter, main = _zero_d(
        f"func.func @main(%a: {a}) -> {b} {{\n  %0 = stablehlo.bitcast_convert %a : "
        f"({a}) -> {b}\n  func.return %0 : {b}\n}}\n")
    x = _patterns(source, 600, 3)
    want = bitcast_convert(x, result_type=parse_type_text(f"tensor<{x.size}x{NAMES[target]}>"))
    got = [interpreter.call(main, [v])[0] for v in x[:300]]
    got += [interpreter.call(main, [np.array(v)])[0] for v in x[300:]]
    kernel = next(iter(interpreter._plans.values())).steps[0].fn
    assert kernel.__qualname__.startswith("_bitcast")
    assert all(np.asarray(g).dtype == np.dtype(target) for g in got)
    assert np.array(got, target).tobytes() == want.tobytes()
