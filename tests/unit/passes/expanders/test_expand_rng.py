"""The rng expander (XLA's RngExpander with a constant seed and counter): its values are
XLA's distribution formulas applied to XLA's Philox bits, computed here independently with
numpy on the interpreter's bit generator; UNIFORM stays in [a, b) and NORMAL has the
requested moments. (The interpreter's direct `rng` is numpy's generator, so values cannot
be compared with it: rng's numbers are implementation-defined.)"""
# ruff: noqa: E501  (MLIR test programs keep their long lines)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.stablehlo.rng import philox_bits
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes.expanders import load_all
from shlo_cli.passes.expanders.rng import key_for

NUMPY = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
         "i64": np.int64, "ui64": np.uint64, "i32": np.int32, "ui32": np.uint32,
         "i16": np.int16, "ui8": np.uint8}


def _t(shape: tuple[int, ...], element: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def _program(ops: list[tuple[str, tuple[int, ...], str]]) -> str:
    """One rng op per (distribution, shape, element), a and b as arguments."""
    args, body, results = [], [], []
    for i, (dist, shape, element) in enumerate(ops):
        args += [f"%a{i}: tensor<{element}>", f"%b{i}: tensor<{element}>"]
        dims = ", ".join(map(str, shape))
        shape_type = f"tensor<{len(shape)}xi64>"
        body.append(f"  %s{i} = stablehlo.constant dense<[{dims}]> : {shape_type}")
        body.append(f"  %r{i} = stablehlo.rng %a{i}, %b{i}, %s{i}, distribution = {dist} : "
                    f"(tensor<{element}>, tensor<{element}>, {shape_type}) -> "
                    f"{_t(shape, element)}")
        results.append((f"%r{i}", _t(shape, element)))
    return (f"func.func @main({', '.join(args)}) -> ({', '.join(t for _, t in results)}) {{\n"
            + "\n".join(body) + f"\n  return {', '.join(v for v, _ in results)} : "
            + f"{', '.join(t for _, t in results)}\n}}")


def _expanded(text: str, args: list[np.ndarray], flags: tuple[str, ...] = ("rng_expander",)
              ) -> tuple[str, list[np.ndarray]]:
    module = parse_source(text)
    for flag in flags:
        load_all()[flag].run(module)
    verify_module(module)
    printed = print_module(module)
    interpreter = Interpreter(parse_source(printed))
    return printed, interpreter.call(interpreter.lookup_function("main"), args)


# ---- XLA's formulas in numpy ---------------------------------------------------------------


def _bits(key: int, counter: int, shape: tuple[int, ...], width: int) -> np.ndarray:
    values, _ = philox_bits(key, (counter, 0), shape, width)
    return values.astype(np.uint64 if width == 64 else np.uint32)


def _unit(bits: np.ndarray, dtype: type) -> np.ndarray:
    mantissa, word = (52, 64) if dtype == np.float64 else (23, 32)
    shifted = (bits >> bits.dtype.type(word - mantissa)).astype(dtype)
    return shifted * dtype(2.0 ** -mantissa)


def _compute(element: str) -> type:
    dtype = np.dtype(NUMPY[element])
    if dtype.kind == "f" or dtype == np.dtype(ml_dtypes.bfloat16):
        return np.float64 if dtype.itemsize == 8 else np.float32
    if dtype.itemsize >= 4:
        return dtype.type
    return np.uint32 if dtype.kind == "u" else np.int32


def reference(dist: str, shape: tuple[int, ...], element: str, a: np.ndarray, b: np.ndarray,
              key: int, counter: int) -> np.ndarray:
    compute = _compute(element)
    a, b = np.asarray(a).astype(compute), np.asarray(b).astype(compute)
    width = np.dtype(compute).itemsize * 8
    with np.errstate(all="ignore"):
        if dist == "UNIFORM" and np.dtype(compute).kind == "f":
            out = _unit(_bits(key, counter, shape, width), compute) * (b - a) + a
        elif dist == "UNIFORM":
            unsigned = np.dtype(f"u{width // 8}")
            bits = _bits(key, counter, shape, width).astype(unsigned)
            span = b.view(unsigned) - a.view(unsigned)
            dist_ = bits % span
            half = dist_ >> unsigned.type(1)
            out = a + half.view(compute) + (dist_ - half).view(compute)
        else:
            split = next((i for i, d in enumerate(shape) if d % 2 == 0), None)
            if not shape:
                half_shape, pair, axis = (1,), (2,), 0
            else:
                if split is None:
                    split = max(range(len(shape)), key=lambda i: (shape[i], -i))
                half_shape = (*shape[:split], -(-shape[split] // 2), 1, *shape[split + 1:])
                pair = (*shape[:split], -(-shape[split] // 2), 2, *shape[split + 1:])
                axis = split + 1
            u = _unit(_bits(key, counter, pair, width), compute)
            x0, x1 = np.take(u, [0], axis=axis), np.take(u, [1], axis=axis)
            u1 = np.maximum(x0, compute(np.float32(1e-7)))
            v1 = compute(2 * np.pi) * x1
            u2 = np.sqrt(compute(-2.0) * np.log(u1))
            z = np.concatenate([np.sin(v1) * u2, np.cos(v1) * u2], axis=axis)
            if not shape:
                normal = z.reshape(-1)[0]
            else:
                merged = list(shape)
                merged[split] = 2 * half_shape[split]
                normal = z.reshape(merged)[tuple(slice(0, d) for d in shape)]
            out = a + b * normal
    return np.asarray(out).astype(NUMPY[element])


# ---- tests ---------------------------------------------------------------------------------

UNIFORM_CASES = [("f32", (3, 5), -1.0, 2.0), ("f64", (7,), 0.5, 0.75), ("f16", (2, 2, 3), -4, 4),
                 ("bf16", (), 1.0, 9.0), ("i32", (4, 3), -7, 100), ("ui32", (9,), 3, 2**31),
                 ("i64", (2, 5), -(2**40), 2**41), ("ui64", (3,), 0, 2**63 + 5),
                 ("i16", (6,), -300, 300), ("ui8", (5, 2), 10, 200)]


@pytest.mark.parametrize("element,shape,low,high", UNIFORM_CASES)
def test_uniform_is_xlas_formula_on_philox_bits(element: str, shape: tuple[int, ...],
                                               low: float, high: float) -> None:
    # Two ops: the second has key_for(1) and the counter the first advanced.
    ops = [("UNIFORM", (4,), "f32"), ("UNIFORM", shape, element)]
    a, b = np.array(low, NUMPY[element]), np.array(high, NUMPY[element])
    args = [np.float32(0), np.float32(1), a, b]
    printed, (first, got) = _expanded(_program(ops), args)
    assert "stablehlo.rng " not in printed and "custom_call" not in printed
    want = reference("UNIFORM", shape, element, a, b, key_for(1), counter=4)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    np.testing.assert_array_equal(first, reference("UNIFORM", (4,), "f32", args[0], args[1],
                                                   key_for(0), 0))
    wide = got.astype(np.float64) if got.dtype.kind == "f" else got.astype(object)
    assert np.all(wide >= (float(low) if got.dtype.kind == "f" else int(low)))
    assert np.all(wide <= (float(high) if got.dtype.kind == "f" else int(high) - 1))


@pytest.mark.parametrize("element,shape", [("f32", (3, 4)), ("f32", (5, 3)), ("f64", (7,)),
                                           ("f32", ()), ("f16", (2, 3)), ("bf16", (3, 1, 5))])
def test_normal_is_box_muller_on_philox_bits(element: str, shape: tuple[int, ...]) -> None:
    """Standard normal values (a = 0, b = 1; the shift and scale show in the moments test):
    numpy's float32 sin/cos/log may differ from the interpreter's by an ulp or two, so f32
    compares within 4 ulps, f16/bf16 (drawn in f32, then rounded) within one of theirs."""
    a, b = np.array(0.0, NUMPY[element]), np.array(1.0, NUMPY[element])
    _, (got,) = _expanded(_program([("NORMAL", shape, element)]), [a, b])
    want = reference("NORMAL", shape, element, a, b, key_for(0), 0)
    assert got.dtype == want.dtype and got.shape == want.shape
    ulps = {"f64": 4, "f32": 4, "f16": 1, "bf16": 1}[element]
    spacing = np.abs(np.spacing(want.astype(np.float32) if element != "f64" else want))
    if element in ("f16", "bf16"):
        spacing = np.abs(want.astype(np.float64)) * float(ml_dtypes.finfo(NUMPY[element]).eps)
    assert np.all(np.abs(got.astype(np.float64) - want.astype(np.float64))
                  <= ulps * spacing.astype(np.float64))


def test_moments_and_range() -> None:
    """Enough samples for the distributions to show: N(3, 0.5^2) and U[-2, 6)."""
    ops = [("NORMAL", (64, 64), "f32"), ("UNIFORM", (64, 64), "f32")]
    args = [np.float32(3.0), np.float32(0.5), np.float32(-2.0), np.float32(6.0)]
    _, (normal, uniform) = _expanded(_program(ops), args, ("rng_expander",
                                                           "rng_bit_generator_philox_expander"))
    assert abs(normal.mean() - 3.0) < 0.02 and abs(normal.std() - 0.5) < 0.02
    assert uniform.min() >= -2.0 and uniform.max() < 6.0
    assert abs(uniform.mean() - 2.0) < 0.1 and abs(uniform.var() - 64 / 12) < 0.3


def test_deterministic_and_distinct_per_op() -> None:
    ops = [("UNIFORM", (8,), "f32"), ("UNIFORM", (8,), "f32")]
    args = [np.float32(0), np.float32(1)] * 2
    text = _program(ops)
    _, first = _expanded(text, args)
    _, again = _expanded(text, args)
    assert [x.tobytes() for x in first] == [x.tobytes() for x in again]
    assert first[0].tobytes() != first[1].tobytes()


def test_dynamic_result_is_refused() -> None:
    text = """func.func @main(%a: tensor<f32>, %b: tensor<f32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  %0 = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}"""
    module = parse_source(text)
    with pytest.raises(Exception, match="cannot be expanded by --rng_expander"):
        load_all()["rng_expander"].run(module)
