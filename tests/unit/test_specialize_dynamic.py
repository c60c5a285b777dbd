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
    saved = list(engine.BIND_HOOKS)
    if not specialized:
        engine.BIND_HOOKS[:] = [h for h in saved if h not in HOOKS]
    try:
        interpreter = Interpreter(parse_source(text))
        try:
            return np.asarray(interpreter.call(interpreter.lookup_function("main"), args)[0])
        except Diagnostic as e:
            return type(e)
    finally:
        engine.BIND_HOOKS[:] = saved


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
