"""What the program generators share: the Program record, types, function text, edge values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

FLOATS = ["f16", "bf16", "f32", "f64"]
F8 = ["f8E4M3FN", "f8E5M2"]  # structured ops, add/multiply and convert only
INTS = ["i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"]
COMPLEX = ["complex<f32>", "complex<f64>"]
ALL = FLOATS + F8 + INTS + ["i1"] + COMPLEX


def is_float(element: str) -> bool:
    return element in FLOATS or element in F8


@dataclass
class Program:
    op: str
    text: str
    inputs: list[np.ndarray]
    element: str
    call: Any  # jax reference: fn(*inputs) -> array, or None
    # What makes XLA's answer legitimately differ (keys of xla_compare.DEVIATIONS).
    flags: frozenset[str] = frozenset()


_DTYPES = {"f16": "float16", "f32": "float32", "f64": "float64", "i1": "bool", "i8": "int8",
           "i16": "int16", "i32": "int32", "i64": "int64", "ui8": "uint8", "ui16": "uint16",
           "ui32": "uint32", "ui64": "uint64", "complex<f32>": "complex64",
           "complex<f64>": "complex128"}
_ML_DTYPES = {"bf16": "bfloat16", "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2"}


def np_dtype(element: str) -> Any:
    if element in _ML_DTYPES:
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, _ML_DTYPES[element]))
    return np.dtype(_DTYPES[element])


def ttype(shape: tuple[int, ...], element: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def function(args: list[tuple[tuple[int, ...], str]], result: str, body: list[str],
             ret: str = "%r") -> str:
    params = ", ".join(f"%a{i}: {ttype(s, e)}" for i, (s, e) in enumerate(args))
    lines = [f"func.func @main({params}) -> {result} {{", *("  " + b for b in body),
             f"  return {ret} : {result}", "}"]
    return "\n".join(lines)


def edge_values(element: str) -> list[Any]:
    dtype = np_dtype(element)
    if dtype.kind == "b":
        return [True, False]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [0, 1, 2, 3, 7, info.max, info.min, info.max - 1, info.min + 1] + \
            ([-1, -2, -7] if dtype.kind == "i" else [])
    base = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.5, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e30,
            -1e30, 65504.0, 3.0e38, 1e-5, 100.0, np.pi]
    if dtype.kind == "c":
        return [complex(a, b) for a in base[:12] for b in (0.0, -0.0, 1.0, np.inf, np.nan)]
    return base


TAME = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.5, np.inf, -np.inf, np.nan]


def tame_values(element: str) -> list[Any]:
    """Values whose sums and products are exact in every float type, whatever the order (for
    ops such as convolution whose summation order is the implementation's): small integers and
    halves, signed zeros, infinities and NaN. Integers: any value (wrapping is exact)."""
    dtype = np_dtype(element)
    if dtype.kind == "c":
        return [complex(a, b) for a in TAME[:7] for b in (0.0, 1.0, -2.0)]
    if is_float(element):
        return TAME
    return edge_values(element)


def draw_array(draw: Any, st: Any, shape: tuple[int, ...], element: str,
               tame: bool = False) -> np.ndarray:
    dtype = np_dtype(element)
    n = int(np.prod(shape)) if shape else 1
    pool = tame_values(element) if tame else edge_values(element)
    values = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    if dtype.kind == "c":
        return np.array(values, dtype=dtype).reshape(shape)
    if dtype.kind in "iu":
        return np.array(values, dtype=object).astype(dtype).reshape(shape)
    with np.errstate(all="ignore"):
        return np.array(values, dtype=np.float64).astype(dtype).reshape(shape)


def identity(body: str, element: str) -> np.ndarray:
    """The init value the spec's reductions are well-defined with (any schedule)."""
    dtype = np_dtype(element)
    if body == "add":
        return np.zeros((), dtype)
    low = body == "maximum"
    if dtype.kind == "b":
        return np.array(not low)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array(info.min if low else info.max, dtype)
    with np.errstate(all="ignore"):
        value = np.array(-np.inf if low else np.inf, dtype)
    if np.isnan(value.astype(np.float32)):  # no infinity (f8E4M3FN): the largest finite value
        import ml_dtypes
        info = ml_dtypes.finfo(dtype)
        value = np.array(info.min if low else info.max, dtype)
    return value
