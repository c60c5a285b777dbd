"""Python lines of the ops pyscalar.py holds beyond arithmetic: integer division, shifts,
abs and sign, float maximum, minimum, abs and sign, and f32/f64 reduce_precision (a collatz
step's `n // 2`, a xorshift generator's `x ^ (x << 13)`, a ReLU's `max(z, 0)` in a scalar
loop).

Held integers are Python ints within their type's range; each line keeps its result there
with the type's two's-complement arithmetic (a mask, then the sign bit's weight taken off
for signed types). Cases whose result the kernels define apart run the op's own kernel
(`K`): a division by zero (x / 0 is all ones) or INT_MIN / -1 (INT_MIN), a shift by the width
or more (or by a negative amount: read unsigned, it is a large one), abs(INT_MIN) (itself);
float maximum/minimum of equal zeros (+0 against -0: the spec's sign) or of a NaN, sign of
NaN. Float results are operands or exact constants: nothing to round to f32.
reduce_precision runs its kernel's own step on the bits (`on_bits`) of a non-NaN value,
read and written through a float cell and an unsigned view of the same bytes.
"""

from __future__ import annotations

from typing import Any

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
