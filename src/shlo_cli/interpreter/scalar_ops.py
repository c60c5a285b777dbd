"""Python lines of the ops pyscalar.py holds beyond arithmetic: integer division, shifts,
abs and sign, float maximum, minimum, abs and sign, f32/f64 reduce_precision and bitcasts
(a collatz step's `n // 2`, a xorshift generator's `x ^ (x << 13)`, a ReLU's `max(z, 0)`,
a uniform sample's `bitcast(bits >> 9 | 0x3F800000) - 1` in a scalar loop).

Held integers are Python ints within their type's range; each line keeps its result there
with the type's two's-complement arithmetic (a mask, then the sign bit's weight taken off
for signed types). Cases whose result the kernels define apart run the op's own kernel
(`K`): a division by zero (x / 0 is all ones) or INT_MIN / -1 (INT_MIN), a shift by the width
or more (or by a negative amount: read unsigned, it is a large one), abs(INT_MIN) (itself);
float maximum/minimum of equal zeros (+0 against -0: the spec's sign) or of a NaN, sign of
NaN. Float results are operands or exact constants: nothing to round to f32.
reduce_precision runs its kernel's own step on the bits (`on_bits`) of a non-NaN value,
read and written through a float cell and an unsigned view of the same bytes; a bitcast
writes its operand to a cell of its width and reads the result's view of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# Integer op -> tag; float op -> tag (tags are pyscalar.classify's).
INTEGER = {"stablehlo.divide": "div", "stablehlo.shift_left": "shl",
           "stablehlo.shift_right_logical": "shr", "stablehlo.shift_right_arithmetic": "sra",
           "stablehlo.abs": "abs", "stablehlo.sign": "sign"}
FLOAT = {"stablehlo.maximum": "fmax", "stablehlo.minimum": "fmin", "stablehlo.abs": "fabs",
         "stablehlo.sign": "fsign"}


def integer_lines(tag: str, kind: Any, args: list[str], t: str, k: str,
                  constant: int | None = None) -> list[str]:
    """`t` = the integer op `tag` of `args` in `kind`'s type (kernel `k` for the rest);
    a `constant` second operand in the usual range (a shift by 0 to the width - 1, a
    positive divisor) is written in, with no test."""
    low, high = kind.low, kind.high
    width = (high - low).bit_length()
    mask = (1 << width) - 1
    signed = low < 0
    wrap = f"if {t} > {high}: {t} -= {mask + 1}"  # an unsigned pattern read signed
    if tag == "abs":
        if not signed:
            return [f"{t} = {args[0]}"]
        return [f"{t} = {args[0]} if {args[0]} >= 0 else -{args[0]}",
                f"if {t} > {high}: {t} = {k}({args[0]})"]
    if tag == "sign":
        return [f"{t} = ({args[0]} > 0) - ({args[0]} < 0)"]
    a, b = args
    in_width = f"0 <= {b} < {width}" if signed else f"{b} < {width}"
    if tag == "div":  # toward zero: floor division of the magnitudes when signs differ
        if constant is not None and constant > 0:
            return [f"{t} = {a} // {constant} if {a} >= 0 else -(-{a} // {constant})"]
        line = (f"{t} = ({a} // {b} if ({a} ^ {b}) >= 0 else -(-{a} // {b})) if {b} "
                f"else {k}({a}, {b})")
        return [line, f"if {t} > {high}: {t} = {k}({a}, {b})"] if signed else [line]
    if constant is not None and 0 <= constant < width:  # (a shift by a constant)
        b, fallback = str(constant), ""
    else:
        fallback = f" if {in_width} else {k}({a}, {b})"
    if tag == "shl":
        return [f"{t} = ({a} << {b}) & {mask}{fallback}"] + ([wrap] if signed else [])
    if tag == "shr":
        if not signed:
            return [f"{t} = {a} >> {b}{fallback}"]
        return [f"{t} = ({a} & {mask}) >> {b}{fallback}", wrap]
    assert tag == "sra"
    if signed:  # Python's >> on ints fills with the sign
        return [f"{t} = {a} >> {b}{fallback}"]
    top = high >> 1  # an unsigned value read as signed, shifted, its bits kept
    return [f"{t} = (({a} - {mask + 1} if {a} > {top} else {a}) >> {b}) & {mask}{fallback}"]


def float_lines(tag: str, args: list[str], t: str, k: str) -> list[str]:
    """`t` = the float op `tag` of `args` (kernel `k` for equal operands, NaN and zeros)."""
    a = args[0]
    if tag == "fabs":  # (Python's abs is C's fabs: a NaN's sign bit cleared, as numpy's)
        return [f"{t} = abs({a})"]
    if tag == "fsign":
        return [f"{t} = 1.0 if {a} > 0.0 else (-1.0 if {a} < 0.0 else "
                f"({a} if {a} == 0.0 else {k}({a})))"]
    b = args[1]
    more = ">" if tag == "fmax" else "<"
    return [f"{t} = {a} if {a} {more} {b} else ({b} if {b} {more} {a} else "
            f"({a} if {a} == {b} != 0.0 else {k}({a}, {b})))"]


def reduce_precision_lines(kind: Any, a: str, t: str, k: str, ns: dict[str, Any]) -> list[str]:
    """`t` = reduce_precision of the f32 or f64 `a`: its bits through the kernel's step
    (`{k}B`, set by the caller); NaN the kernel's (`k`)."""
    cell = "_RPf" if kind.f32 else "_RPd"
    if cell not in ns:
        raw = memoryview(bytearray(4 if kind.f32 else 8))
        ns[cell] = raw.cast("f", shape=[]) if kind.f32 else raw.cast("d", shape=[])
        ns[f"{cell}B"] = raw.cast("I", shape=[]) if kind.f32 else raw.cast("Q", shape=[])
    return [f"{cell}[()] = {a}; {cell}B[()] = {k}B({cell}B[()]); "
            f"{t} = {cell}[()] if {a} == {a} else {k}({a})"]


# memoryview formats of the bitcasts' cells (f16's: a 0-d float16 array and its views)
_FORMATS = {"float32": "f", "float64": "d", "int32": "i", "uint32": "I", "int64": "q",
            "uint64": "Q", "float16": "e", "int16": "h", "uint16": "H"}


def bitcast_tag(source: Any, result: Any) -> str | None:
    """pyscalar's tag of a bitcast between held kinds: "from_bits" (integer -> float),
    "to_bits" (float or integer -> integer), None (other pairs: their kernels)."""
    names = source.dtype.name, result.dtype.name
    if not all(n in _FORMATS for n in names) or source.dtype.itemsize != result.dtype.itemsize:
        return None
    if result.is_float:
        return None if source.is_float else "from_bits"
    return "to_bits"


def bitcast_lines(source: Any, result: Any, a: str, t: str, ns: dict[str, Any]) -> list[str]:
    """`t` = the bits of `a` read as `result`'s type: an integer wrapped to the result's
    range; a float's through a cell of its width."""
    if not source.is_float and not result.is_float:
        if result.low == source.low:
            return [f"{t} = {a}"]
        if result.low == 0:  # (two's complement: Python's & of a negative int)
            return [f"{t} = {a} & {result.high}"]
        return [f"{t} = {a} - {result.high - result.low + 1} if {a} > {result.high} else {a}"]
    width = source.dtype.itemsize
    formats = [_FORMATS[source.dtype.name], _FORMATS[result.dtype.name]]
    if width == 2:  # (a memoryview has no half floats before Python 3.12)
        if "_BCe" not in ns:
            ns["_BCe"] = np.empty((), np.float16)
            ns["_BCh"], ns["_BCH"] = ns["_BCe"].view(np.int16), ns["_BCe"].view(np.uint16)
        return [f"_BC{formats[0]}[()] = {a}; {t} = _BC{formats[1]}.item()"]
    raw = ns.setdefault(f"_BC{width}", bytearray(width))
    for f in formats:
        if f"_BC{f}" not in ns:
            ns[f"_BC{f}"] = memoryview(raw).cast(f, shape=[])  # type: ignore[call-overload]
    return [f"_BC{formats[0]}[()] = {a}; {t} = _BC{formats[1]}[()]"]
