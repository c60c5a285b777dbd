"""bf16 and f16 0-d values of a generated loop held as Python floats (pyscalar.py's narrow
kinds): a bf16 RNN state converted to f32 and back each step, an f16 counter's arithmetic.

Every bf16 and f16 value is a double exactly, so the Python float of a held value is the
value itself; what these lines do is round a computed double to the type as the 0-d
kernels do, through a 0-d array of the type (its item assignment casts a Python float,
its `item()` reads a Python float back: ~50 ns where the kernel call costs ~1 us):
- f16: numpy's assignment rounds the double once to nearest (numpy's double -> half),
  which is what the 0-d kernels give: the transcendental and conversion kernels round the
  double (or the exact f32) once the same way, and f16 arithmetic, computed in f32 and
  rounded again, gives the correctly rounded result of + - * / (24 >= 2*11 + 2), which a
  double result (exact, or for / within 53 bits) rounded once is too. A value at or past
  the overflow threshold becomes the infinity of its sign by a multiplication (numpy's
  cast would give the same infinity, with a warning).
- bf16: ml_dtypes' assignment rounds the double to f32, then to bf16 (each to nearest),
  which is the arithmetic kernels' double rounding (specialize_scalar_narrow) and, for an
  f32 (or f16) value, the conversion's one rounding. Results the kernels round once from
  the double (transcendentals; conversions of f64 and integers: round_float's round to
  odd, then to nearest) take `_BF16_ODD`, the transcendental kernel's own rounding cells.
- back to numpy: `bfloat16(x)` of a NaN drops its payload, so `to_bfloat16` moves a NaN's
  bits through f32, as ml_dtypes' float(x) brought them; numpy's float16(x) keeps them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..dialects.stablehlo.specialize_scalar_narrow import RoundingCells

NARROW = ("bfloat16", "float16")
F16_OVERFLOW = 65520.0  # (2 - 2^-11) * 2^15: from here f16's nearest is the infinity


def to_numpy(dtype: np.dtype) -> Callable[[float], Any]:
    """The held value's numpy scalar of a narrow `dtype` (its bits, NaN payloads included)."""
    if dtype.name != "bfloat16":
        return dtype.type  # type: ignore[no-any-return]
    make, f32, u32, u16 = dtype.type, np.dtype(np.float32), np.dtype(np.uint32), np.dtype(np.uint16)

    def to_bfloat16(v: float) -> Any:
        if v == v:
            return make(v)  # (exact: v is a bf16 value)
        return (np.array(v, f32).view(u32) >> 16).astype(u16).view(dtype)[()]
    return to_bfloat16


def add_cells(ns: dict[str, Any]) -> None:
    """The globals the lines below read: the 0-d cells and bf16's rounding once."""
    if "_Cfloat16" not in ns:
        bf16 = np.dtype("bfloat16")
        ns["_Cfloat16"] = np.empty((), np.float16)
        ns["_Cbfloat16"] = np.empty((), bf16)
        ns["_INF"] = float("inf")
        ns["_BF16_ODD"] = RoundingCells(bf16).odd


def store(name: str, value: str) -> str:
    """The statement assigning the double `value` (a name, for f16) to `name`'s cell, which
    rounds it (bf16: to f32, then to bf16)."""
    if name == "float16":
        return (f"_Cfloat16[()] = {value} if {-F16_OVERFLOW!r} < {value} < "
                f"{F16_OVERFLOW!r} else {value} * _INF")
    return f"_C{name}[()] = {value}"


def rounded(name: str, value: str, target: str, once: bool) -> str:
    """The line setting `target` to the double `value` rounded to the narrow type `name`:
    bf16 once (`once`: round_float's rounding) or through f32 (the arithmetic kernels')."""
    if name == "bfloat16":
        if once:
            return f"{target} = _BF16_ODD({value}).item()"
        return f"{store(name, value)}; {target} = _C{name}.item()"
    return f"{target} = {value}; {store(name, target)}; {target} = _C{name}.item()"


def converted(source: Any, result: Any, a: str, target: str, fallback: str) -> str:
    """convert's line from the float or integer `a` (of Kind `source`) to a narrow `result`
    (NaN: the kernel, `fallback`): the double of `a` rounded as round_float rounds it."""
    if not source.is_float:  # (the integer's double, as convert_array widens it)
        return rounded(result.narrow, f"float({a})", target, True)
    if result.narrow == "bfloat16" and source.dtype.itemsize == 8:
        return f"{target} = _BF16_ODD({a}).item() if {a} == {a} else {fallback}"
    cell = f"_C{result.narrow}"
    return f"{store(result.narrow, a)}; {target} = {cell}.item() if {a} == {a} else {fallback}"
