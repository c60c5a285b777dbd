"""Bitwise ops and shifts on numpy's integer types (dialects/stablehlo/specialize_bits.py)
give the general evaluators' results bit for bit: every native width, signed and unsigned,
shift amounts negative, zero, inside, at and past the width, i1 for the logical ops."""

from __future__ import annotations

import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_bits

TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
         "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}


def _program(op: str, elem: str, shape: tuple[int, ...], unary: bool = False) -> str:
    t = "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"
    args, operands = (f"%a: {t}", "%a") if unary else (f"%a: {t}, %b: {t}", "%a, %b")
    return (f"func.func @main({args}) -> {t} {{\n  %0 = stablehlo.{op} {operands} : {t}\n"
            f"  func.return %0 : {t}\n}}\n")


def _check(text: str, args: list[np.ndarray]) -> None:
    fast, kernel = run_first_op(text, args, specialize_bits.bind_bits, True)
    plain, general = run_first_op(text, args, specialize_bits.bind_bits, False)
    assert kernel is not general
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()


@pytest.mark.parametrize("elem", list(TYPES))
@pytest.mark.parametrize("op", ["shift_left", "shift_right_logical", "shift_right_arithmetic"])
def test_shifts_match_general_evaluator(op: str, elem: str) -> None:
    dtype = np.dtype(TYPES[elem])
    width = dtype.itemsize * 8
    rng = np.random.default_rng(width)
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, (7, 40), dtype=dtype, endpoint=True)
    values[0, :4] = [info.min, info.max, 0, 1]
    low = -3 if info.min < 0 else 0
    amounts = rng.integers(low, width + 4, (7, 40)).astype(dtype)
    amounts[1, :3] = [0, width - 1, width]
    if info.min < 0:
        amounts[1, 3] = info.min
    else:
        amounts[1, 3] = info.max  # read as huge: past the width
    _check(_program(op, elem, (7, 40)), [values, amounts])
    _check(_program(op, elem, ()), [values[0, 0:1].reshape(()), amounts[1, 2:3].reshape(())])


@pytest.mark.parametrize("elem", [*TYPES, "i1"])
@pytest.mark.parametrize("op", ["and", "or", "xor", "not"])
def test_bitwise_match_general_evaluator(op: str, elem: str) -> None:
    rng = np.random.default_rng(3)
    if elem == "i1":
        args = [rng.random((5, 9)) < 0.5 for _ in range(2)]
    else:
        info = np.iinfo(TYPES[elem])
        args = [rng.integers(info.min, info.max, (5, 9), dtype=TYPES[elem], endpoint=True)
                for _ in range(2)]
    _check(_program(op, elem, (5, 9), unary=op == "not"), args[:1] if op == "not" else args)


@pytest.mark.parametrize("elem", ["ui8", "ui16", "ui32", "ui64", "i32"])
@pytest.mark.parametrize("op", ["shift_left", "shift_right_logical", "shift_right_arithmetic"])
def test_shift_by_one_broadcast_amount(op: str, elem: str) -> None:
    """Threefry's rotations: a 128x128 block shifted by one amount broadcast to it (a
    zero-stride view), every amount from 0 past the width; unsigned logical shifts call
    numpy's loop on the operands as they are, without the views the other kernels take."""
    dtype = np.dtype(TYPES[elem])
    width = dtype.itemsize * 8
    info = np.iinfo(dtype)
    values = np.random.default_rng(width).integers(info.min, info.max, (128, 128), dtype=dtype,
                                                   endpoint=True)
    t, s = f"tensor<128x128x{elem}>", f"tensor<{elem}>"
    text = (f"func.func @main(%a: {t}, %n: {s}) -> {t} {{\n"
            f"  %0 = stablehlo.broadcast_in_dim %n, dims = [] : ({s}) -> {t}\n"
            f"  %1 = stablehlo.{op} %a, %0 : {t}\n  func.return %1 : {t}\n}}\n")
    for amount in [*range(width + 3), info.max]:
        n = np.array(amount).astype(dtype)
        hooks = (specialize_bits.bind_bits,)
        fast = run_first_op(text, [values, n], hooks, True)[0]
        plain = run_first_op(text, [values, n], hooks, False)[0]
        assert fast.dtype == plain.dtype == dtype and fast.tobytes() == plain.tobytes()
    kernel = specialize_bits._shift(np.left_shift, dtype, np.dtype(f"u{dtype.itemsize}"),
                                    lambda a, b: None)
    assert (kernel.__name__ == "unsigned") == (dtype.kind == "u")
