"""Chains of elementwise steps on one bf16/f16 value as one table lookup
(interpreter/unary_tables.py): the same results as the steps one by one, bit for bit, on
every bit pattern of the type (NaN payloads, -0.0, subnormals) and on small arrays before
and after the table is made; values read elsewhere end a chain."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.interpreter import engine, unary_tables
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

CHAINS = """
func.func @main(%x: tensor<SHAPExT>) -> (tensor<SHAPExT>, tensor<SHAPExf32>, tensor<SHAPExT>, tensor<SHAPExT>) {
  %one0 = stablehlo.constant dense<1.0> : tensor<T>
  %one = stablehlo.broadcast_in_dim %one0, dims = [] : (tensor<T>) -> tensor<SHAPExT>
  %n = stablehlo.negate %x : tensor<SHAPExT>
  %e = stablehlo.exponential %n : tensor<SHAPExT>
  %s = stablehlo.add %one, %e : tensor<SHAPExT>
  %sig = stablehlo.divide %one, %s : tensor<SHAPExT>
  %w = stablehlo.convert %x : (tensor<SHAPExT>) -> tensor<SHAPExf32>
  %t = stablehlo.tanh %w : tensor<SHAPExf32>
  %c3 = stablehlo.constant dense<-3.5> : tensor<SHAPExf32>
  %m = stablehlo.multiply %t, %c3 : tensor<SHAPExf32>
  %z = stablehlo.constant dense<0.0> : tensor<SHAPExT>
  %r = stablehlo.maximum %x, %z : tensor<SHAPExT>
  %q = stablehlo.subtract %r, %one : tensor<SHAPExT>
  %l = stablehlo.log %q : tensor<SHAPExT>
  %h = stablehlo.constant dense<0.5> : tensor<SHAPExT>
  %d = stablehlo.subtract %h, %x : tensor<SHAPExT>
  %d2 = stablehlo.sqrt %d : tensor<SHAPExT>
  return %sig, %m, %l, %d2 : tensor<SHAPExT>, tensor<SHAPExf32>, tensor<SHAPExT>, tensor<SHAPExT>
}
"""

TYPES = {"bf16": np.dtype(ml_dtypes.bfloat16), "f16": np.dtype(np.float16)}


def _program(element: str, shape: tuple[int, ...]) -> str:
    return CHAINS.replace("SHAPEx", "".join(f"{d}x" for d in shape)).replace("T>", f"{element}>")


def _interpreter(program: str, fused: bool, monkeypatch: pytest.MonkeyPatch) -> Interpreter:
    with monkeypatch.context() as m:
        if not fused:
            m.setattr(engine, "fuse_chains", lambda steps, kept, make: list(steps))
        interpreter = Interpreter(parse_source(program))
        interpreter.lookup_function("main")
        return interpreter


def _call(interpreter: Interpreter, args: list[np.ndarray]) -> list[Any]:
    with np.errstate(all="ignore"):
        out = interpreter.call(interpreter.lookup_function("main"), list(args))
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _same(got: list[Any], want: list[Any]) -> None:
    for x, y in zip(got, want, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


def _fused_steps(interpreter: Interpreter) -> int:
    return sum(step.op.name == unary_tables.TABLE_CHAIN
               for plan in interpreter._plans.values() for step in plan.steps)


@pytest.mark.parametrize("element", sorted(TYPES))
def test_every_bit_pattern_matches_the_steps(element: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """One call of 65536 elements makes each table (checked against that call), the next
    reads it: both equal the unfused steps on every bit pattern."""
    dtype = TYPES[element]
    program = _program(element, (1 << 16,))
    x = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    fused = _interpreter(program, True, monkeypatch)
    want = _call(_interpreter(program, False, monkeypatch), [x])
    _same(_call(fused, [x]), want)
    _same(_call(fused, [x]), want)
    assert _fused_steps(fused) == 4
    reversed_x = x[::-1].copy()
    _same(_call(fused, [reversed_x]),
          _call(_interpreter(program, False, monkeypatch), [reversed_x]))


@pytest.mark.parametrize("element", sorted(TYPES))
@pytest.mark.parametrize("shape", [(1, 32), (3,), (0,), (2, 0, 4)])
def test_small_arrays_before_and_after_the_table(element: str, shape: tuple[int, ...],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Small arrays take the steps until TABLE_CALLS calls, then the table: the same bits
    each time (random values with NaNs of both signs and payloads, signed zeros,
    subnormals and infinities)."""
    dtype = TYPES[element]
    program = _program(element, shape)
    fused = _interpreter(program, True, monkeypatch)
    plain = _interpreter(program, False, monkeypatch)
    rng = np.random.default_rng(len(shape) + len(element))
    special = np.array([0x7FC1, 0xFFC3, 0x7F81, 0x8000, 0x0000, 0x0001, 0x8003, 0x7C00,
                        0xFC00, 0x7F80, 0xFF80, 0x3C00], np.uint16)
    for call in range(unary_tables.TABLE_CALLS + 3):
        bits = rng.integers(0, 1 << 16, size=shape, dtype=np.uint16)
        if bits.size:
            flat = bits.reshape(-1)
            flat[:min(flat.size, special.size)] = rng.permutation(special)[:flat.size]
        x = bits.view(dtype)
        if call % 37 == 0 or call >= unary_tables.TABLE_CALLS - 1:
            _same(_call(fused, [x]), _call(plain, [x]))
        else:
            _call(fused, [x])
    # (an empty splat is no splat: the chains from the constants' steps on stay apart)
    assert _fused_steps(fused) == (4 if 0 not in shape else 2)


READ_TWICE = """
func.func @main(%x: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %n = stablehlo.negate %x : tensor<4xbf16>
  %e = stablehlo.exponential %n : tensor<4xbf16>
  %t = stablehlo.tanh %e : tensor<4xbf16>
  %a = stablehlo.abs %t : tensor<4xbf16>
  %y = stablehlo.add %x, %x : tensor<4xbf16>
  %s = stablehlo.sine %y : tensor<4xf32>
  return %e, %a : tensor<4xbf16>, tensor<4xbf16>
}
""".replace("%s = stablehlo.sine %y : tensor<4xf32>\n", "")


def test_a_value_read_elsewhere_ends_the_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    """%e is returned: negate-exp is one chain, tanh-abs another; add reads %x twice and
    is no chain step (no splat operand)."""
    fused = _interpreter(READ_TWICE, True, monkeypatch)
    plain = _interpreter(READ_TWICE, False, monkeypatch)
    x = np.array([0.5, -0.0, np.nan, -3.0], TYPES["bf16"])
    _same(_call(fused, [x]), _call(plain, [x]))
    plan = next(p for p in fused._plans.values() if p.steps)
    names = [step.op.name for step in plan.steps]
    assert names.count(unary_tables.TABLE_CHAIN) == 2
    assert "stablehlo.exponential" not in names and "stablehlo.add" in names


def test_a_table_that_disagrees_is_not_used() -> None:
    """A chain whose result on the table's array differs from its result on the call
    that made it (here: it depends on the array's size) stays as it is."""
    dtype = TYPES["f16"]

    def odd(x: np.ndarray) -> np.ndarray:
        return x + dtype.type(x.size > 100)

    kernel = unary_tables.tabulated_chain(odd, dtype)
    x = np.array([1.0, 2.0], dtype)
    for _ in range(unary_tables.TABLE_CALLS + 5):
        assert kernel(x).tobytes() == x.tobytes()


CONVERTS = """
func.func @main(%x: tensor<7xT>) -> (tensor<7xf32>, tensor<7xf64>, tensor<7xU>, tensor<7xT>) {
  %a = stablehlo.convert %x : (tensor<7xT>) -> tensor<7xf32>
  %b = stablehlo.convert %x : (tensor<7xT>) -> tensor<7xf64>
  %c = stablehlo.convert %x : (tensor<7xT>) -> tensor<7xU>
  %d = stablehlo.logistic %x : tensor<7xT>
  return %a, %b, %c, %d : tensor<7xf32>, tensor<7xf64>, tensor<7xU>, tensor<7xT>
}
"""


@pytest.mark.parametrize("element", sorted(TYPES))
def test_a_lone_logistic_is_a_table(element: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone logistic of bf16/f16 is tabulated, a lone conversion (to f32, f64 and the
    other 16-bit type) is not: every bit pattern, seven at a time, after the table is
    made."""
    other = "f16" if element == "bf16" else "bf16"
    program = CONVERTS.replace("xT>", f"x{element}>").replace("xU>", f"x{other}>")
    fused = _interpreter(program, True, monkeypatch)
    plain = _interpreter(program, False, monkeypatch)
    patterns = np.arange(1 << 16, dtype=np.uint16).view(TYPES[element])
    for call in range(unary_tables.TABLE_CALLS):
        _call(fused, [patterns[7 * call:7 * call + 7]])
    assert _fused_steps(fused) == 1
    for start in range(0, (1 << 16) - 7, 7 * 53):
        x = patterns[start:start + 7]
        _same(_call(fused, [x]), _call(plain, [x]))
    every = np.concatenate([patterns, patterns[:(-(1 << 16)) % 7]])
    fused_all = [np.concatenate(parts) for parts in zip(
        *[_call(fused, [every[k:k + 7]]) for k in range(0, every.size, 7)], strict=True)]
    plain_all = [np.concatenate(parts) for parts in zip(
        *[_call(plain, [every[k:k + 7]]) for k in range(0, every.size, 7)], strict=True)]
    _same(fused_all, plain_all)
