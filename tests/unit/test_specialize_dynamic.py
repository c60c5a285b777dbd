# ruff: noqa: E501  (MLIR test programs keep their lines whole)
"""Elementwise ops on dynamically shaped tensors (jax exports with symbolic shapes) take the
kernels their element types get when static (specialize.dynamic_elementwise), bit for bit
the general evaluators' results; binary ones whose run-time operand shapes differ are left
to the general evaluator."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import specialize, specialize_bits
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

HOOKS = (specialize.bind_specialized, specialize_bits.bind_bits)
CASES = [  # (op text, element type, unary)
    ("stablehlo.add %a, %b", "f32", False),
    ("stablehlo.multiply %a, %b", "i32", False),
    ("stablehlo.maximum %a, %b", "f32", False),
    ("stablehlo.divide %a, %b", "f32", False),
    ("stablehlo.exponential %a", "f32", True),
    ("stablehlo.negate %a", "f16", True),
    ("stablehlo.xor %a, %b", "ui32", False),
    ("stablehlo.shift_left %a, %b", "ui32", False),
    ("stablehlo.shift_right_logical %a, %b", "i32", False),
]


def _program(op: str, elem: str, unary: bool) -> str:
    t = f"tensor<?x3x{elem}>"
    args = f"%a: {t}" if unary else f"%a: {t}, %b: {t}"
    return (f"func.func @main({args}) -> {t} {{\n  %0 = {op} : {t}\n"
            f"  func.return %0 : {t}\n}}\n")


def _values(elem: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dtype = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "ui32": np.uint32}[elem]
    if elem.startswith("f"):
        values = (rng.standard_normal(shape) * 4).astype(dtype)
        if values.size >= 4:
            values.reshape(-1)[:4] = [np.nan, np.inf, -0.0, 0.0]
        return values
    return rng.integers(0, 40, shape).astype(dtype)


def _run(text: str, args: list[np.ndarray], specialized: bool) -> Any:
    out = _run_all(text, args, specialized)
    return out if isinstance(out, type) else out[0]


@pytest.mark.parametrize(("op", "elem", "unary"), CASES)
def test_dynamic_elementwise_binds_and_matches_general(op: str, elem: str, unary: bool) -> None:
    text = _program(op, elem, unary)
    func = parse_source(text).functions()[0]
    [first] = [o for o in func.regions[0].blocks[0].operations if o.name != "func.return"]
    bits = "shift" in op or "xor" in op
    hook = specialize_bits.bind_bits if bits else specialize.bind_specialized
    kwargs = {k: v.value if hasattr(v, "value") else v for k, v in first.properties.items()}
    assert hook(first, first.opdef, kwargs) is not None
    args = [_values(elem, (5, 3), 1)] + ([] if unary else [_values(elem, (5, 3), 2)])
    fast, plain = _run(text, args, True), _run(text, args, False)
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()


@pytest.mark.parametrize(("op", "elem"), [(op, elem) for op, elem, unary in CASES if not unary])
def test_dynamic_binary_of_different_run_time_shapes_is_the_general_evaluators(
        op: str, elem: str) -> None:
    text = _program(op, elem, False)
    args = [_values(elem, (4, 3), 1), _values(elem, (1, 3), 2)]
    fast, plain = _run(text, args, True), _run(text, args, False)
    if isinstance(plain, np.ndarray):
        assert isinstance(fast, np.ndarray) and fast.tobytes() == plain.tobytes()
    else:
        assert fast is plain


SLICES = """
func.func @main(%x: tensor<?x4xf32>, %u: tensor<2x?xf32>, %i: tensor<i32>, %j: tensor<i64>) -> (tensor<2x3xf32>, tensor<?x4xf32>) {
  %0 = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 3] : (tensor<?x4xf32>, tensor<i32>, tensor<i64>) -> tensor<2x3xf32>
  %1 = stablehlo.dynamic_update_slice %x, %u, %j, %i : (tensor<?x4xf32>, tensor<2x?xf32>, tensor<i64>, tensor<i32>) -> tensor<?x4xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<?x4xf32>
}
"""


def test_dynamic_slices_bind_per_run_time_shape_and_match_general() -> None:
    """dynamic_slice / dynamic_update_slice of a dynamically shaped operand (a scan over a
    symbolic length) use the static kernel of each run-time shape: starts clamped alike,
    windows larger than the operand left to the general evaluator."""
    func = parse_source(SLICES).functions()[0]
    ds, dus = func.regions[0].blocks[0].operations[:2]
    assert specialize.bind_specialized(ds, ds.opdef, {"slice_sizes": [2, 3]}) is not None
    assert specialize.bind_specialized(dus, dus.opdef, {}) is not None
    rng = np.random.default_rng(0)
    for rows in (1, 2, 3, 6, 9):
        x = rng.standard_normal((rows, 4)).astype(np.float32)
        for cols in (1, 3, 5):
            u = rng.standard_normal((2, cols)).astype(np.float32)
            for i, j in ((0, 0), (-3, 2), (1, 7), (5, -1)):
                args: list[np.ndarray] = [x, u, np.array(i, np.int32), np.array(j, np.int64)]
                fast, plain = _run_all(SLICES, args, True), _run_all(SLICES, args, False)
                if isinstance(plain, type):
                    assert fast is plain
                    continue
                assert [a.tobytes() for a in fast] == [b.tobytes() for b in plain]
                assert [a.shape for a in fast] == [b.shape for b in plain]


def _run_all(text: str, args: list[np.ndarray], specialized: bool) -> Any:
    saved = list(engine.BIND_HOOKS)
    if not specialized:
        engine.BIND_HOOKS[:] = [h for h in saved if h not in HOOKS]
    try:
        interpreter = Interpreter(parse_source(text))
        try:
            return [np.asarray(v) for v in
                    interpreter.call(interpreter.lookup_function("main"), args)]
        except Diagnostic as e:
            return type(e)
    finally:
        engine.BIND_HOOKS[:] = saved
