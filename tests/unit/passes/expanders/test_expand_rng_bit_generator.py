"""The rng_bit_generator expanders (XLA's Philox4x32 / Threefry2x32 as StableHLO integer
ops) are bit-exact with the interpreter's rng_bit_generator, on random shapes, output
element types, state layouts and algorithms."""
# ruff: noqa: E501  (MLIR test programs keep their long lines)

from __future__ import annotations

import itertools

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes.expanders import load_all

STATES = {"2xui64": np.uint64, "3xui64": np.uint64, "5xui64": np.uint64, "4xui32": np.uint32,
          "2xi64": np.int64, "6xui32": np.uint32}
OUTPUTS = ["ui8", "i8", "ui16", "f16", "bf16", "ui32", "i32", "f32", "ui64", "i64", "f64"]
SHAPES = [(), (1,), (5,), (8,), (3, 3), (2, 3, 1), (7, 5), (0, 3), (4, 1, 6)]


def _t(shape: tuple[int, ...], element: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def _program(algorithm: str, state: str, shape: tuple[int, ...], element: str) -> str:
    out = _t(shape, element)
    return f"""func.func @main(%s: tensor<{state}>) -> (tensor<{state}>, {out}) {{
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = {algorithm} : (tensor<{state}>) -> (tensor<{state}>, {out})
  return %0, %1 : tensor<{state}>, {out}
}}"""


def _run(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), args)


def _state(layout: str, rng: np.random.Generator) -> np.ndarray:
    count = int(layout.split("x")[0])
    dtype = np.dtype(STATES[layout])
    raw = rng.integers(0, 256, size=count * dtype.itemsize, dtype=np.uint8)
    state = raw.view(dtype).copy()
    if rng.random() < 0.5:  # a counter about to carry into its high word
        state.view(np.uint64)[1] = np.uint64(2**64 - 2)
    return state


CASES = list(itertools.product(["PHILOX", "THREE_FRY", "DEFAULT"], STATES))


@pytest.mark.parametrize("algorithm,layout", CASES)
def test_expansion_is_bit_exact(algorithm: str, layout: str) -> None:
    rng = np.random.default_rng(abs(hash((algorithm, layout))) % 2**32)
    flags = (["rng_bit_generator_philox_expander"] if algorithm != "THREE_FRY"
             else ["rng_bit_generator_three_fry_expander", "rng_bit_generator_philox_expander"])
    for shape, element in zip(SHAPES, rng.permutation(OUTPUTS), strict=False):
        text = _program(algorithm, layout, shape, str(element))
        state = _state(layout, rng)
        direct = _run(text, [state])
        module = parse_source(text)
        # Either expander expands an explicit THREE_FRY or PHILOX op with its own algorithm.
        load_all()[flags[int(rng.integers(0, len(flags)))]].run(module)
        verify_module(module)
        printed = print_module(module)
        assert "rng_bit_generator" not in printed
        expanded = _run(printed, [state])
        for got, want in zip(expanded, direct, strict=True):
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == want.tobytes(), (algorithm, layout, shape, element)


def test_default_follows_the_flag() -> None:
    """DEFAULT is PHILOX for the philox expander and THREE_FRY for the three_fry one."""
    text = _program("DEFAULT", "2xui64", (4,), "ui32")
    state = np.array([3, 11], np.uint64)
    outputs = {}
    for flag in ("rng_bit_generator_philox_expander", "rng_bit_generator_three_fry_expander"):
        module = parse_source(text)
        load_all()[flag].run(module)
        outputs[flag] = _run(print_module(module), [state])[1]
    for algorithm, flag in (("PHILOX", "rng_bit_generator_philox_expander"),
                            ("THREE_FRY", "rng_bit_generator_three_fry_expander")):
        direct = _run(_program(algorithm, "2xui64", (4,), "ui32"), [state])[1]
        assert outputs[flag].tobytes() == direct.tobytes()
    assert outputs["rng_bit_generator_philox_expander"].tobytes() != \
        outputs["rng_bit_generator_three_fry_expander"].tobytes()
