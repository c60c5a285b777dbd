"""One source of truth for chlo: every registered chlo op is evaluated directly (the
interpreter's chlo evaluators) and after --chlo-legalize-to-stablehlo (upstream's
decompositions, interpreted as StableHLO) on the same inputs, and the two must agree.

The op list comes from the registry, so a new chlo op without a case here fails
`test_every_chlo_op_has_a_case`. Inputs are random values in each op's interesting range
plus edge values (signed zeros, infinities, NaN, subnormals, the largest finite value, poles).
Float results are compared in ULP (NaN matches NaN only); the budget per op and precision is
the decomposition's accuracy, which is upstream's (its testdata files compare with
check.expect_close, a few ULP, or check.expect_almost_eq); functions with zeros inside their
domain get an absolute tolerance there. Integer and boolean results must be equal. Ops that
lower to the StableHLO op of the same name (the broadcasting binary ops, compare, select,
tan) must agree exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import ml_dtypes
import numpy as np
import pytest
from chlo_oracle import (
    COMPLEXES,
    FLOATS,
    SEED,
    complex_inputs,
    float_edges,
    mismatches,
    program,
    real_inputs,
    run_both,
    tensor,
)

from shlo_cli.ir import registry


class Case(NamedTuple):
    name: str
    text: str
    inputs: list[np.ndarray]
    max_ulp: int | np.ndarray = 0  # per element of the result, or one for all
    atol: float | np.ndarray = 0.0
    compared: np.ndarray | None = None  # the result elements compared (default: all)


N = 256
DTYPES = {**FLOATS, **COMPLEXES, "i1": np.bool_, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "ui8": np.uint8, "ui32": np.uint32,
          "ui64": np.uint64}
# Registered chlo ops the legalization leaves alone, with the reason: none today.
NOT_LEGALIZED: dict[str, str] = {}


def _rng(salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(SEED + salt)


def _ints(element: str, n: int, salt: int = 0) -> np.ndarray:
    """Random integers over the whole range of the type, with its extremes, 0, 1 and -1."""
    dtype = DTYPES[element]
    if dtype == np.bool_:
        return _rng(salt).integers(0, 2, n).astype(np.bool_)
    info = np.iinfo(dtype)
    edges = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype)
    rng = _rng(salt)
    values = rng.integers(info.min, int(info.max) + 1, n, dtype=dtype, endpoint=False)
    small = rng.integers(max(int(info.min), -8), 9, n).astype(dtype)
    return np.concatenate([values[: n - edges.size - n // 2], small[: n // 2], edges])


def _values(element: str, n: int, low: float = -10, high: float = 10,
            salt: int = 0) -> np.ndarray:
    """n values of `element` (random in [low, high] and edge values for floats)."""
    dtype = DTYPES[element]
    if element in COMPLEXES:
        z = complex_inputs(dtype, low, high, 2 * n, SEED + salt)
        return np.resize(_rng(salt).permutation(z), n).astype(dtype)
    if element in FLOATS:
        x = real_inputs(dtype, low, high, 2 * n, seed=SEED + salt)
        return np.resize(_rng(salt).permutation(x), n).astype(dtype)
    return np.resize(_ints(element, n, salt), n)


# ---- elementwise math ----------------------------------------------------------------------

# op -> (domain low, high, extra inputs (poles, zeros, branch points)) for random inputs.
UNARY_DOMAINS: dict[str, tuple[float, float, tuple[float, ...]]] = {
    "acos": (-1, 1, (-1, 1)), "acosh": (1, 50, (1,)), "asin": (-1, 1, (-1, 1)),
    "asinh": (-50, 50, ()), "atan": (-50, 50, ()), "atanh": (-1, 1, (-1, 1)),
    "bessel_i1e": (-40, 40, ()), "cosh": (-90, 90, (88.7, 89.5, 710, 711)),
    "sinh": (-90, 90, (88.7, 89.5, 710, 711)), "tan": (-1.6, 1.6, (np.pi / 2,)),
    "digamma": (-10, 30, (0, -1, -2, -7, 1.4616321449683622)),
    "erf": (-6, 6, ()), "erfc": (-3, 27, ()), "erf_inv": (-1, 1, (-1, 1)),
    "lgamma": (-10, 30, (0, -1, -2, -7, 1, 2)), "square": (-1e3, 1e3, ()),
    "conj": (-10, 10, ()), "is_inf": (-1, 1, ()), "is_neg_inf": (-1, 1, ()),
    "is_pos_inf": (-1, 1, ()),
}
COMPLEX_UNARY = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan",
                 "square", "conj", "_asin_acos_kernel")
PREDICATES = ("is_inf", "is_neg_inf", "is_pos_inf")
Budget = tuple["int | np.ndarray", "float | np.ndarray", "np.ndarray | None"]


def _eps(element: str) -> float:
    return float(ml_dtypes.finfo(DTYPES[element]).eps)


def _tiny(element: str) -> float:
    return float(ml_dtypes.finfo(DTYPES[element]).tiny)


def _finite_complex(z: np.ndarray) -> np.ndarray:
    return np.isfinite(z.real) & np.isfinite(z.imag)


def _budget(op: str, element: str, inputs: list[np.ndarray]) -> Budget:
    """(max ULP, absolute tolerance, elements compared) of `op` on `inputs`: the accuracy of
    upstream's decomposition, measured against mpmath (300 bits), where the direct
    evaluator is within about 1 ULP (0.5 for the special functions). Differences below
    the smallest normal number always pass: the decompositions compute in the element
    type, where subnormal intermediates keep fewer bits."""
    x = inputs[-1].astype(np.complex128 if element in COMPLEXES else np.float64)
    eps, tiny = _eps(element), _tiny(element)
    narrow = element in ("f16", "bf16")  # computed in f32 and rounded: within 1 ULP
    if element in COMPLEXES:
        if op in ("conj", "square", "tan"):
            return 1, 0.0, None
        return _complex_budget(op, element, inputs[0])
    table: dict[str, tuple[int, int]] = {  # op: (ULP for f32, ULP for f64)
        "bessel_i1e": (8, 6), "erf": (6, 4), "erf_inv": (4, 5), "acos": (1, 1),
        "acosh": (1, 1), "asin": (1, 1), "asinh": (1, 1), "atanh": (1, 1), "atan": (1, 1),
        "cosh": (0, 0), "sinh": (0, 0), "tan": (0, 0), "square": (0, 0), "conj": (0, 0),
        "is_inf": (0, 0), "is_neg_inf": (0, 0), "is_pos_inf": (0, 0)}
    if op in table:
        f32_ulp, f64_ulp = table[op]
        return (min(f32_ulp, 1) if narrow else f32_ulp if element == "f32" else f64_ulp,
                tiny, None)
    if op == "erfc":  # exp(-x^2) with x^2 rounded to the element type: ~x^2 ULP
        with np.errstate(over="ignore"):
            return (1 if narrow else 8 + x * x), tiny, None
    if op in ("lgamma", "digamma"):
        # Lanczos sums in the element type: a few eps absolute (unbounded ULP next to the
        # zeros of lgamma at 1 and 2 and of digamma at 1.4616...); for subnormal x the
        # reflection's pi * x is rounded to the subnormal grid: log error tiny_sub / |x|.
        with np.errstate(divide="ignore"):
            subnormal = np.where(np.abs(x) < tiny, float(ml_dtypes.finfo(DTYPES[element])
                                                           .smallest_subnormal) / np.abs(x),
                                 0.0)
        return (1 if narrow else 8), (64 if narrow else 32) * eps + subnormal, None
    raise KeyError(op)


def _complex_budget(op: str, element: str, z: np.ndarray) -> Budget:
    """Complex inverse and hyperbolic functions, compared on finite operands only: on NaN
    and infinite parts C99 Annex G (the direct evaluators, numpy's) and upstream's
    decompositions disagree (e.g. acos(nan i) = pi/2 + nan i vs nan + nan i). Also left
    out, where the decompositions follow upstream and C99 does otherwise:
    - a -0 part on a branch cut: the decompositions test y < 0 (or y >= 0), C99 honours
      the sign of the zero (acos(2 - 0i) = +1.317i, upstream -1.317i; asinh, atan and
      atanh likewise);
    - a nonzero part whose square underflows in the element type: the decompositions
      square it (atanh(1 + 1e-45 i) = 51.99 + 0.785i, upstream inf + 0.785i; acos(1 +
      1e-45 i) has imaginary part -3.7e-23, upstream 0)."""
    eps, tiny = _eps(element), _tiny(element)
    compared = _finite_complex(z)
    for part in (z.real, z.imag):
        a = np.abs(part.astype(np.float64))
        compared &= (a == 0) | (a >= np.sqrt(tiny))
    cut = z.real if op in ("asinh", "atan") else z.imag  # the part whose sign picks the side
    compared &= ~((cut == 0) & np.signbit(cut))
    x = np.abs(z.real.astype(np.float64))
    if op in ("cosh", "sinh"):
        # (e^(z + log 1/2) +- e^(-z + log 1/2)): rounding x + log 1/2 costs ~|x| ULP, and
        # the difference of the two halves cancels for small |x| (an absolute error of
        # a few eps of cosh x).
        with np.errstate(over="ignore"):
            return 4 + x, 4 * eps * np.cosh(x), compared
    return 4, tiny, compared


def _zeta_budget(element: str, s: np.ndarray, q: np.ndarray, polygamma: bool) -> Budget:
    """Compared where upstream's Euler-Maclaurin decomposition holds: q > 0 or at the poles
    q = 0, -1, ... (for q + 10 < 10 off the positive axis it is off by up to all digits,
    e.g. polygamma(1, -430.3) = -0.0023 instead of 14.22), and (q + k)^-s neither
    underflows nor overflows in the element type (the decomposition sums those powers; the
    direct evaluator sums in extended precision, so its zeta(2, 1e33) = 1e-33 is 0
    there). q = +inf: upstream's correction term is inf * 0 = NaN, where zeta is 0."""
    narrow = element in ("f16", "bf16")  # computed in f32, rounded once
    info = ml_dtypes.finfo(np.float32 if narrow else DTYPES[element])
    s64, q64 = np.broadcast_arrays(s.astype(np.float64), q.astype(np.float64))
    order = s64 + 1 if polygamma else s64
    with np.errstate(all="ignore"):
        power = np.power(np.abs(q64) + 10, -order)
        in_range = (power > float(info.tiny)) & (np.power(np.abs(q64), -order)
                                                  < float(info.max))
    pole = (q64 <= 0) & (q64 == np.floor(q64))
    compared = ((q64 > 0) & np.isfinite(q64) & in_range) | pole | np.isnan(q64) \
        | np.isnan(s64)
    # polygamma: n! = exp(lgamma(n + 1)) and the product in the element type; n = 0 is
    # digamma, a few eps absolute.
    if narrow:
        return 1, np.where(s64 == 0, 64 * _eps(element), _tiny(element)), compared
    if polygamma:
        return 16, np.where(s64 == 0, 32 * _eps(element), _tiny(element)), compared
    return 4, _tiny(element), compared


def _unary_cases(op: str) -> list[Case]:
    low, high, extra = UNARY_DOMAINS.get(op, (-3, 3, ()))
    elements = ([] if op == "_asin_acos_kernel" else list(FLOATS))
    elements += list(COMPLEXES) if op in COMPLEX_UNARY else []
    cases = []
    for element in elements:
        dtype = DTYPES[element]
        if element in COMPLEXES:
            x = complex_inputs(dtype, low, high, N)
        else:
            x = real_inputs(dtype, low, high, N, extra)
        result = "i1" if op in PREDICATES else element
        text = program(f"chlo.{op}", [tensor([x.size], element)], [tensor([x.size], result)])
        cases.append(Case(element, text, [x], *_budget(op, element, [x])))
        if element in ("f32", "complex<f32>"):  # dynamically shaped: constants are built
            size = x.size - x.size % 4         # from the operand's run-time shape
            text = program(f"chlo.{op}", [tensor([-1, 4], element)],
                           [tensor([-1, 4], result)])
            operand = x[:size].reshape(-1, 4)
            budget = _budget(op, element, [operand.ravel()])
            shaped = [b.reshape(operand.shape) if isinstance(b, np.ndarray) else b
                      for b in budget]
            cases.append(Case(f"{element}-dynamic", text, [operand], *shaped))
    return cases


# ---- broadcasting binary ops -----------------------------------------------------------------

BROADCAST_ELEMENTS = {
    "add": ("f16", "bf16", "f32", "f64", "i8", "ui32", "complex<f32>"),
    "subtract": ("f32", "i32", "complex<f64>"),
    "multiply": ("bf16", "f32", "i64", "ui8", "complex<f32>"),
    "divide": ("f32", "f64", "i32", "ui32", "complex<f64>"),
    "maximum": ("f16", "f32", "i16", "ui64", "i1"),
    "minimum": ("bf16", "f64", "i8", "ui32", "i1"),
    "remainder": ("f32", "f64", "i32", "ui8"),
    "power": ("f32", "f64", "i32", "complex<f32>"),
    "atan2": ("f16", "f32", "f64", "complex<f64>"),
    "and": ("i1", "i8", "ui32"), "or": ("i1", "i32", "ui64"), "xor": ("i1", "i16", "ui8"),
    "shift_left": ("i8", "i32", "ui32", "ui64"),
    "shift_right_arithmetic": ("i8", "i32", "ui32", "i64"),
    "shift_right_logical": ("i8", "i32", "ui64"),
    "complex": ("f32", "f64"),
    "next_after": ("f16", "bf16", "f32", "f64"),
    "polygamma": ("f16", "bf16", "f32", "f64"),
    "zeta": ("f16", "bf16", "f32", "f64"),
}
# (lhs shape, rhs shape, broadcast_dimensions or None, result shape)
SHAPES = (
    ((24,), (24,), None, (24,)),
    ((2, 3, 4), (3, 4), None, (2, 3, 4)),
    ((3, 4), (2, 3, 4), (1, 2), (2, 3, 4)),
    ((2, 1, 4), (3, 1), None, (2, 3, 4)),
    ((1,), (4, 6), None, (4, 6)),
    ((-1, 4), (4,), None, (-1, 4)),  # dynamic: run-time shape (3, 4)
)
RUN_TIME_SIZE = 3


def _static(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The run-time shape of a (possibly dynamic) shape."""
    return tuple(RUN_TIME_SIZE if d < 0 else d for d in shape)


def _binary_operands(name: str, element: str, shapes: tuple, salt: int) -> list[np.ndarray]:
    lhs_shape, rhs_shape = _static(shapes[0]), _static(shapes[1])
    n_l, n_r = int(np.prod(lhs_shape)), int(np.prod(rhs_shape))
    if name == "polygamma":  # orders 0..4 and a few invalid ones against x
        order = _rng(salt).choice([0, 1, 2, 3, 4, -1, 0.5], n_l).astype(DTYPES[element])
        return [order.reshape(lhs_shape), _values(element, n_r, -6, 8, salt + 1)
                .reshape(rhs_shape)]
    if name == "zeta":
        return [_values(element, n_l, 0.5, 8, salt).reshape(lhs_shape),
                _values(element, n_r, -4, 6, salt + 1).reshape(rhs_shape)]
    lhs = _values(element, n_l, salt=salt).reshape(lhs_shape)
    rhs = _values(element, n_r, salt=salt + 1).reshape(rhs_shape)
    if name.startswith("shift"):
        bits = 8 * np.dtype(DTYPES[element]).itemsize
        rhs = _rng(salt).integers(0, bits + 3, n_r).astype(DTYPES[element]).reshape(rhs_shape)
    return [lhs, rhs]


def _binary_budget(name: str, element: str, inputs: list[np.ndarray],
                   dims: tuple[int, ...] | None, shape: tuple[int, ...]) -> Budget:
    """Exact for the ops lowered to their StableHLO namesake and for next_after; zeta and
    polygamma as _zeta_budget on the operands broadcast to the result."""
    if name not in ("zeta", "polygamma"):
        return 0, 0.0, None
    lhs, rhs = inputs
    if lhs.ndim < rhs.ndim and dims:
        expanded = [1] * len(shape)
        for axis, d in enumerate(dims):
            expanded[d] = lhs.shape[axis]
        lhs = lhs.reshape(expanded)
    lhs, rhs = np.broadcast_arrays(lhs.reshape((1,) * (len(shape) - lhs.ndim) + lhs.shape),
                                   rhs.reshape((1,) * (len(shape) - rhs.ndim) + rhs.shape))
    return _zeta_budget(element, lhs, rhs, name == "polygamma")


def _broadcast_cases(name: str) -> list[Case]:
    cases = []
    for element in BROADCAST_ELEMENTS[name]:
        for index, (lhs_s, rhs_s, dims, out_s) in enumerate(SHAPES):
            inputs = _binary_operands(name, element, (lhs_s, rhs_s), index)
            result = {"complex": f"complex<{element}>"}.get(name, element)
            props = f"broadcast_dimensions = array<i64: {', '.join(map(str, dims))}>" \
                if dims else ""
            text = program(f"chlo.broadcast_{name}", [tensor(lhs_s, element),
                                                      tensor(rhs_s, element)],
                           [tensor(out_s, result)], props)
            budget = _binary_budget(name, element, inputs, dims, _static(out_s))
            cases.append(Case(f"{element}-{index}", text, inputs, *budget))
    return cases


def _plain_binary_cases(name: str) -> list[Case]:
    """Random operand pairs, and for next_after every pair of edge values."""
    cases = []
    for element in BROADCAST_ELEMENTS[name]:
        inputs = _binary_operands(name, element, ((N,), (N,)), 7)
        if name == "next_after":
            edges = float_edges(DTYPES[element])
            lhs, rhs = np.meshgrid(edges, edges)
            inputs = [np.concatenate([x, pair.ravel()])
                      for x, pair in zip(inputs, (lhs, rhs), strict=True)]
        t = tensor([inputs[0].size], element)
        text = program(f"chlo.{name}", [t, t], [t])
        budget = _binary_budget(name, element, inputs, None, inputs[0].shape)
        cases.append(Case(element, text, inputs, *budget))
    return cases


def _mulhi_cases() -> list[Case]:
    cases = []
    for element in ("i8", "i16", "i32", "i64", "ui8", "ui32", "ui64"):
        t = tensor([N], element)
        cases.append(Case(element, program("chlo.mulhi", [t, t], [t]),
                          [_ints(element, N, 1), _ints(element, N, 2)[::-1].copy()]))
    return cases


COMPARE_TYPES = {"f32": ("", "FLOAT", "TOTALORDER"), "bf16": ("", "TOTALORDER"),
                 "f64": ("FLOAT",), "i32": ("", "SIGNED"), "ui32": ("", "UNSIGNED"),
                 "i1": ("", "UNSIGNED"), "complex<f32>": ("", "FLOAT")}


def _compare_cases() -> list[Case]:
    cases = []
    for element, compare_types in COMPARE_TYPES.items():
        directions = ("EQ", "NE") if element in COMPLEXES else \
            ("EQ", "NE", "LT", "LE", "GT", "GE")
        for compare_type in compare_types:
            for direction in directions:
                for index, (lhs_s, rhs_s, dims, out_s) in enumerate(SHAPES[:3] + SHAPES[-1:]):
                    inputs = _binary_operands("compare", element, (lhs_s, rhs_s), index)
                    if element in FLOATS:  # equal values, and both zeros, against each other
                        inputs[1].ravel()[::3] = np.resize(inputs[0].ravel(),
                                                           inputs[1].size)[::3]
                    props = [f"comparison_direction = #chlo<comparison_direction {direction}>"]
                    if compare_type:
                        props.append(f"compare_type = #chlo<comparison_type {compare_type}>")
                    if dims:
                        props.append(f"broadcast_dimensions = array<i64: "
                                     f"{', '.join(map(str, dims))}>")
                    text = program("chlo.broadcast_compare", [tensor(lhs_s, element),
                                                              tensor(rhs_s, element)],
                                   [tensor(out_s, "i1")], ", ".join(props))
                    cases.append(Case(f"{element}-{compare_type or 'default'}-{direction}-"
                                      f"{index}", text, inputs))
    return cases


def _select_cases() -> list[Case]:
    cases = []
    for element in ("f32", "i8", "complex<f64>"):
        for index, (pred_s, true_s, false_s, out_s) in enumerate((
                ((N,), (N,), (N,), (N,)), ((), (4, 5), (4, 5), (4, 5)),
                ((3, 1), (1, 5), (3, 5), (3, 5)), ((4, 5), (5,), (), (4, 5)))):
            pred = _rng(index).integers(0, 2, int(np.prod(pred_s))).astype(np.bool_)
            inputs = [pred.reshape(pred_s),
                      _values(element, int(np.prod(true_s)), salt=index).reshape(true_s),
                      _values(element, int(np.prod(false_s)), salt=9 + index).reshape(false_s)]
            text = program("chlo.broadcast_select", [tensor(pred_s, "i1"),
                                                     tensor(true_s, element),
                                                     tensor(false_s, element)],
                           [tensor(out_s, element)])
            cases.append(Case(f"{element}-{index}", text, inputs))
    return cases


# ---- structured ops --------------------------------------------------------------------------


def _constant_cases() -> list[Case]:
    cases = []
    for element, literal in (("f32", "[1.5, -0.0, 0x7FC00000, 0x7F800000]"),
                             ("bf16", "[1.0e+38, -3.0, 0.0, 1.0e-40]"),
                             ("i32", "[-2147483648, 7, 0, 2147483647]"),
                             ("complex<f64>", "[(1.0, -2.0), (0.0, -0.0), (3.0, 4.0), "
                                              "(-1.0e+300, 1.0e-300)]")):
        t = tensor([4], element)
        text = (f"func.func @main() -> {t} {{\n  %r = \"chlo.constant\"() "
                f"<{{value = dense<{literal}> : {t}}}> : () -> {t}\n  return %r : {t}\n}}")
        cases.append(Case(element, text, []))
    return cases


def _constant_like_cases() -> list[Case]:
    cases = []
    for element, attr in (("f32", "-0.0 : f32"), ("f16", "6.550400e+04 : f16"),
                          ("f64", "0x7FF0000000000000 : f64"), ("i8", "-128 : i8"),
                          ("i1", "true"), ("ui32", "4294967295 : ui32")):
        for shape in ((), (3, 4)):
            t = tensor(shape, element)
            operand = tensor(shape, "f32")
            text = program("chlo.constant_like", [operand], [t], f"value = {attr}")
            x = np.zeros(shape, np.float32)
            cases.append(Case(f"{element}-{len(shape)}", text, [x]))
    t = "tensor<?x4xf32>"
    text = program("chlo.constant_like", [t], [t], "value = 2.5 : f32")
    cases.append(Case("dynamic", text, [np.zeros((3, 4), np.float32)]))
    return cases


def _top_k_inputs(element: str, shape: tuple[int, ...], salt: int) -> np.ndarray:
    """Few distinct values, so ties are common; floats add NaN, both zeros and infinities."""
    dtype = DTYPES[element]
    n = int(np.prod(shape))
    if element in FLOATS:
        pool = np.concatenate([float_edges(dtype), np.array([1.0, -1.0, 3.0], dtype)])
    else:
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, 1, 2, info.max // 2], dtype)
    return _rng(salt).choice(pool, n).astype(dtype).reshape(shape)


def _top_k_cases() -> list[Case]:
    cases = []
    for element in ("f32", "bf16", "f64", "i32", "i8", "ui8", "ui64"):
        for index, (shape, k) in enumerate((((12,), 5), ((4, 9), 9), ((2, 3, 7), 1),
                                            ((3, 6), 0))):
            x = _top_k_inputs(element, shape, index)
            out = (*shape[:-1], k)
            text = (f"func.func @main(%a0: {tensor(shape, element)}) -> "
                    f"({tensor(out, element)}, {tensor(out, 'i32')}) {{\n"
                    f"  %v, %i = chlo.top_k(%a0, k = {k}) : {tensor(shape, element)} -> "
                    f"({tensor(out, element)}, {tensor(out, 'i32')})\n"
                    f"  return %v, %i : {tensor(out, element)}, {tensor(out, 'i32')}\n}}")
            cases.append(Case(f"{element}-{index}", text, [x]))
    x = _top_k_inputs("f32", (3, 9), 5)
    text = ("func.func @main(%a0: tensor<?x9xf32>) -> (tensor<?x4xf32>, tensor<?x4xi32>) {\n"
            "  %v, %i = chlo.top_k(%a0, k = 4) : tensor<?x9xf32> -> "
            "(tensor<?x4xf32>, tensor<?x4xi32>)\n"
            "  return %v, %i : tensor<?x4xf32>, tensor<?x4xi32>\n}")
    cases.append(Case("f32-dynamic", text, [x]))
    return cases


def _ragged_numbers(lb: list[int], rb: list[int], lc: list[int], rc: list[int],
                    ragged: list[int], group: list[int]) -> str:
    return ("ragged_dot_dimension_numbers = #chlo.ragged_dot<"
            f"lhs_batching_dimensions = {lb}, rhs_batching_dimensions = {rb}, "
            f"lhs_contracting_dimensions = {lc}, rhs_contracting_dimensions = {rc}, "
            f"lhs_ragged_dimensions = {ragged}, rhs_group_dimensions = {group}>")


# (lhs shape, rhs shape, group_sizes shape, result shape, dimension numbers, groups)
RAGGED = (
    # mode 1: ragged non-contracting lhs dimension, rhs group dimension
    ((7, 4), (3, 4, 5), (3,), (7, 5), ([], [], [1], [1], [0], [0])),
    ((2, 6, 4), (2, 3, 4, 5), (2, 3), (2, 6, 5), ([0], [0], [2], [2], [1], [1])),
    ((2, 6, 4), (3, 2, 5, 4), (3,), (2, 6, 5), ([0], [1], [2], [3], [1], [0])),
    # mode 2: ragged contracting dimension, one result per group
    ((5, 8), (8, 3), (4,), (4, 5, 3), ([], [], [1], [0], [1], [])),
    ((2, 5, 8), (2, 8, 3), (2, 3), (3, 2, 5, 3), ([0], [0], [2], [1], [2], [])),
    # mode 3: ragged batch dimension
    ((4, 5, 3), (4, 3, 2), (2,), (4, 5, 2), ([0], [0], [2], [1], [0], [])),
)


def _group_sizes(shape: tuple[int, ...], total: int, salt: int) -> np.ndarray:
    """Sizes summing to at most `total` per row (a group may be empty)."""
    rng = _rng(salt)
    rows = int(np.prod(shape[:-1]))
    out = []
    for _ in range(rows):
        cuts = np.sort(rng.integers(0, total + 1, shape[-1]))
        out.append(np.diff(np.concatenate([[0], cuts])))
    return np.array(out, np.int64).reshape(shape)


def _ragged_dot_cases() -> list[Case]:
    cases = []
    for element in ("f32", "bf16", "f64", "i32"):
        for index, (lhs_s, rhs_s, gs_s, out_s, dims) in enumerate(RAGGED):
            lb, rb, lc, rc, ragged, group = dims
            total = lhs_s[ragged[0]]
            inputs = [_values(element, int(np.prod(lhs_s)), -3, 3, index).reshape(lhs_s),
                      _values(element, int(np.prod(rhs_s)), -3, 3, index + 1).reshape(rhs_s),
                      _group_sizes(gs_s, total, index)]
            if element in FLOATS:  # keep the dot products finite: no edge values here
                inputs[:2] = [np.nan_to_num(np.clip(x.astype(np.float64), -3, 3))
                              .astype(DTYPES[element]) for x in inputs[:2]]
            else:
                inputs[:2] = [np.clip(x, -50, 50).astype(DTYPES[element]) for x in inputs[:2]]
            text = program("chlo.ragged_dot", [tensor(lhs_s, element), tensor(rhs_s, element),
                                               tensor(gs_s, "i64")], [tensor(out_s, element)],
                           _ragged_numbers(*dims))
            # One rounding per product term summed in the legalized dot_general; the direct
            # evaluator sums in double and rounds once.
            max_ulp = {"f32": 4, "bf16": 1, "f64": 4}.get(element, 0)
            atol = {"f32": 1e-5, "bf16": 0.0, "f64": 1e-13}.get(element, 0.0)
            cases.append(Case(f"{element}-{index}", text, inputs, max_ulp, atol))
    return cases


SCAN = """func.func @main(%a0: tensor<{n}x3x{e}>, %a1: tensor<3x{e}>) -> (tensor<{n}x3x{e}>,
                                                                       tensor<3x{e}>) {{
  %r:2 = chlo.scan(%a0) inits(%a1) dimension=0 {attrs} {{
  ^bb0(%x: tensor<3x{e}>, %c: tensor<3x{e}>):
    %s = stablehlo.{body} %x, %c : tensor<3x{e}>
    stablehlo.return %s, %s : tensor<3x{e}>, tensor<3x{e}>
  }} : (tensor<{n}x3x{e}>, tensor<3x{e}>) -> (tensor<{n}x3x{e}>, tensor<3x{e}>)
  return %r#0, %r#1 : tensor<{n}x3x{e}>, tensor<3x{e}>
}}"""


def _scan_cases() -> list[Case]:
    cases = []
    for element, body in (("f32", "add"), ("i32", "multiply"), ("f64", "maximum")):
        for reverse in (False, True):
            attrs = "attributes {is_reverse = true}" if reverse else ""
            text = SCAN.format(n=5, e=element, body=body, attrs=attrs)
            inputs = [_values(element, 15, salt=3).reshape(5, 3),
                      _values(element, 3, salt=4)]
            cases.append(Case(f"{element}-{body}-{reverse}", text, inputs))
    return cases


CASES: dict[str, Callable[[], list[Case]]] = {
    **{f"chlo.{op}": (lambda op=op: _unary_cases(op))
       for op in (*UNARY_DOMAINS, "_asin_acos_kernel")},
    **{f"chlo.broadcast_{name}": (lambda name=name: _broadcast_cases(name))
       for name in BROADCAST_ELEMENTS},
    **{f"chlo.{name}": (lambda name=name: _plain_binary_cases(name))
       for name in ("next_after", "polygamma", "zeta")},
    "chlo.mulhi": _mulhi_cases,
    "chlo.broadcast_compare": _compare_cases,
    "chlo.broadcast_select": _select_cases,
    "chlo.constant": _constant_cases,
    "chlo.constant_like": _constant_like_cases,
    "chlo.top_k": _top_k_cases,
    "chlo.ragged_dot": _ragged_dot_cases,
    "chlo.scan": _scan_cases,
}


def test_every_chlo_op_has_a_case() -> None:
    """A chlo op added to the registry needs cases here (or a reason in NOT_LEGALIZED)."""
    registered = {name for name in registry.all_ops() if name.startswith("chlo.")}
    assert registered - set(CASES) - set(NOT_LEGALIZED) == set()
    assert set(CASES) - registered == set()


def _all_cases() -> list:
    params = []
    for op, make in sorted(CASES.items()):
        for case in make():
            params.append(pytest.param(case, id=f"{op}-{case.name}"))
    return params


def _printable(value: object) -> object:
    return value.item() if isinstance(value, np.generic) else value


@pytest.mark.parametrize("case", _all_cases())
def test_direct_matches_legalized(case: Case) -> None:
    direct, lowered = run_both(case.text, case.inputs)
    assert len(direct) == len(lowered)
    for index, (d, e) in enumerate(zip(direct, lowered, strict=True)):
        bad = mismatches(d, e, case.max_ulp, case.atol, case.compared)
        elementwise = all(x.shape == d.shape for x in case.inputs)
        flat = [x.ravel() for x in case.inputs] if elementwise else []
        report = [(i, [_printable(x[i]) for x in flat], _printable(a), _printable(b), u)
                  for i, a, b, u in bad[:6]]
        assert not bad, f"result {index}: {len(bad)} of {d.size} differ " \
                        f"(index, inputs, direct, legalized, ulp): {report}"


def test_bfloat16_is_ml_dtypes() -> None:
    """The oracle's bf16 inputs are ml_dtypes.bfloat16, as the interpreter's."""
    assert FLOATS["bf16"] is ml_dtypes.bfloat16
