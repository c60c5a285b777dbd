"""rng_bit_generator against known-answer vectors and XLA's outputs; rng determinism."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np

from shlo_cli.dialects.stablehlo.rng import philox4x32, threefry2x32
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


def _u32(v: int) -> np.ndarray:
    return np.array([v], np.uint32)


def test_threefry_known_answers() -> None:
    """Random123's Threefry-2x32-20 known-answer test vectors."""
    out = threefry2x32(_u32(0), _u32(0), 0, 0)
    assert [int(v[0]) for v in out] == [0x6B200159, 0x99BA4EFE]
    out = threefry2x32(_u32(0x243F6A88), _u32(0x85A308D3), 0x13198A2E, 0x03707344)
    assert [int(v[0]) for v in out] == [0xC4923A9C, 0x483DF7A0]


def test_philox_known_answers() -> None:
    """Random123's Philox-4x32-10 known-answer test vectors."""
    zero = _u32(0)
    assert [int(v[0]) for v in philox4x32([zero] * 4, 0, 0)] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    ones = _u32(0xFFFFFFFF)
    assert [int(v[0]) for v in philox4x32([ones] * 4, 0xFFFFFFFF, 0xFFFFFFFF)] == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]


PROGRAM = """func.func @main(%s: tensor<2xui64>, %s3: tensor<3xui64>) -> (tensor<2xui64>, tensor<3x2xui32>, tensor<3xui64>, tensor<5xui64>, tensor<3xui8>) {
  %output_state, %output = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x2xui32>)
  %o2:2 = stablehlo.rng_bit_generator %s3, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<5xui64>)
  %o3:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui8>)
  return %output_state, %output, %o2#0, %o2#1, %o3#1 : tensor<2xui64>, tensor<3x2xui32>, tensor<3xui64>, tensor<5xui64>, tensor<3xui8>
}"""


def test_rng_bit_generator_matches_xla_cpu() -> None:
    """Expected values printed by XLA's CPU backend (jaxlib) for the same program."""
    state, bits, state3, bits64, bytes_ = _run(PROGRAM, np.array([1, 2], np.uint64),
                                               np.array([1, 2, 3], np.uint64))
    assert state.tolist() == [1, 5]
    assert bits.tolist() == [[43444564, 2150618427], [3979645651, 3745730563], [1672743891, 4240503393]]
    assert state3.tolist() == [1, 5, 3]
    assert bits64.tolist() == [5869932932755744586, 13107052260063114245, 8234580641674714347, 2641225993340350124, 1962472297844690804]
    assert bytes_.tolist() == [73, 232, 215]


def test_rng_is_deterministic_and_in_range() -> None:
    text = """func.func @main(%a: tensor<i32>, %b: tensor<i32>) -> (tensor<100xi32>, tensor<100xf32>) {
  %shape = stablehlo.constant dense<[100]> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<100xi32>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %1 = stablehlo.rng %lo, %hi, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<100xf32>
  return %0, %1 : tensor<100xi32>, tensor<100xf32>
}"""
    args = (np.array(3, np.int32), np.array(9, np.int32))
    first = _run(text, *args)
    second = _run(text, *args)
    assert (first[0] >= 3).all() and (first[0] < 9).all()
    assert first[1].dtype == np.float32
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
