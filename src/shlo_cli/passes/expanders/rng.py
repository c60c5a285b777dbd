"""`--rng_expander`: XLA's RngExpander (xla/hlo/transforms/expanders/rng_expander.cc) turns
`stablehlo.rng` into Philox random bits plus XLA's distribution arithmetic
(xla/hlo/builder/lib/prng.cc); the bits come from a `stablehlo.rng_bit_generator` with
algorithm PHILOX, which `--rng_bit_generator_*_expander` (run after this one) expand further.

XLA's form needs run-time state StableHLO does not have: the seed comes from a custom call
(`GetRngSeed`) and the 128-bit counter from a global generator state that every rng op
advances when it runs (`RngGetAndUpdateState`). The expansion here is a deterministic
program instead:
- seed 0, so the key of the k-th rng op of the module (in program order) is XLA's
  seed ^ ((k * 0x9E3779B97F4A7C15 mod 2^64) >> 32) (one replica, one partition);
- the counter is a constant: the number of 32-bit words the rng ops before this one draw
  (XLA's increments, as if the global state started at 0 and each op ran once). An rng op
  inside a loop body therefore draws the same numbers on every iteration.

Distributions, as XLA: UNIFORM floats take the top mantissa bits of a 32-bit (f32) or
64-bit (f64) word as a value in [0, 1), times (b - a), plus a; f16, bf16 and other floats
narrower than 32 bits are drawn as f32 and converted. UNIFORM integers: a + d/2 + (d - d/2)
with d = bits mod (b - a) in the unsigned type (ints narrower than 32 bits, and booleans,
are drawn as 32-bit ints and converted). NORMAL: the Box-Muller transform of uniform pairs
(the shape split in two along its first even dimension), times b, plus a.

The values differ from the interpreter's direct `rng`, whose numbers are
implementation-defined (numpy's generator); they match XLA's formulas on XLA's bits.
"""

from __future__ import annotations

import math

import numpy as np

from ...ir.attributes import DenseElementsAttr, DialectAttr
from ...ir.core import Module, Value
from ...ir.types import F32, FloatType, IntegerType, TensorType, Type
from ..chlo_legalize import Real, Rewriter
from . import register_expander
from .build import (
    UI64,
    bitcast,
    broadcast_to,
    cannot_expand,
    concatenate,
    convert,
    create,
    expand_module,
    reshape,
    slice_,
    tensor,
)

FLAG = "rng_expander"
SEED = 0
_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def key_for(op_index: int, seed: int = SEED) -> int:
    """XLA's Philox key for the op with this id (one replica, one partition)."""
    return seed ^ (((op_index * _GOLDEN) & _MASK64) >> 32)


def _compute_type(element: Type) -> Type:
    """The element type the numbers are drawn in (XLA draws only 32- and 64-bit values)."""
    if isinstance(element, FloatType):
        return element if element.width >= 32 else F32
    assert isinstance(element, IntegerType)
    if element.width >= 32:
        return element
    return IntegerType(32, "u" if element.is_unsigned or element.is_bool else "")


def words_drawn(result: TensorType) -> int:
    """XLA's per-op state increment: the result's 32-bit words."""
    width = 64 if _width(_compute_type(result.element)) == 64 else 32
    return result.num_elements * width // 32


def _width(t: Type) -> int:
    return t.width if isinstance(t, (FloatType, IntegerType)) else 0


def _random_bits(rw: Rewriter, key: int, counter: int, shape: tuple[int, ...],
                 bits: int) -> Value:
    """Philox bits from the state (key, counter, 0) via rng_bit_generator."""
    state_type = TensorType((3,), UI64)
    words = np.array([key, counter, 0], dtype=np.uint64)
    state = rw.create("stablehlo.constant", [], state_type,
                      {"value": DenseElementsAttr(state_type, words, False)})
    out_type = TensorType(shape, IntegerType(bits, "u"))
    op = create(rw, "stablehlo.rng_bit_generator", [state], [state_type, out_type],
                {"rng_algorithm": DialectAttr("stablehlo", "", "rng_algorithm PHILOX")})
    return op.results[1]


def _uniform_floats(rw: Rewriter, bits: Value, element: FloatType) -> Value:
    """Values in [0, 1): the top mantissa-many bits of each word, scaled down."""
    t = tensor(bits)
    word = _width(t.element)
    mantissa = {32: 23, 64: 52}[element.width]
    e = Real(rw, t)
    shifted = e("shift_right_logical", bits, e.const(word - mantissa))
    f = Real(rw, t.with_element(element))
    return f("multiply", convert(rw, shifted, element), f.const(math.ldexp(1.0, -mantissa)))


def _spread(rw: Rewriter, scalar: Value, t: TensorType) -> Value:
    return broadcast_to(rw, scalar, t, ())


def _uniform(rw: Rewriter, a: Value, b: Value, key: int, counter: int,
             result: TensorType) -> Value:
    element = result.element
    bits = _random_bits(rw, key, counter, result.shape, _width(element))
    s = Real(rw, TensorType((), element))
    e = Real(rw, result)
    if isinstance(element, FloatType):
        values = _uniform_floats(rw, bits, element)
        return e("add", e("multiply", values, _spread(rw, s("subtract", b, a), result)),
                 _spread(rw, a, result))
    unsigned = IntegerType(_width(element), "u")
    scalar_u = TensorType((), unsigned)
    u = Real(rw, tensor(bits))
    span = rw.create("stablehlo.subtract", [bitcast(rw, b, scalar_u), bitcast(rw, a, scalar_u)],
                     scalar_u)
    dist = u("remainder", bits, _spread(rw, span, tensor(bits)))
    half = u("shift_right_logical", dist, u.const(1))
    low = e("add", _spread(rw, a, result), bitcast(rw, half, result))
    return e("add", low, bitcast(rw, u("subtract", dist, half), result))


def _halves(shape: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """XLA's SplitShapeIntoHalves: (half shape, pair shape, pair dimension)."""
    if not shape:
        return (1,), (2,), 0
    split = next((i for i, d in enumerate(shape) if d % 2 == 0),
                 max(range(len(shape)), key=lambda i: (shape[i], -i)))
    half = (*shape[:split], -(-shape[split] // 2), 1, *shape[split + 1:])
    pair = (*shape[:split], -(-shape[split] // 2), 2, *shape[split + 1:])
    return half, pair, split + 1


def _normal(rw: Rewriter, a: Value, b: Value, key: int, counter: int,
            result: TensorType) -> Value:
    element = result.element
    assert isinstance(element, FloatType)
    half, pair, dim = _halves(result.shape)
    bits = _random_bits(rw, key, counter, pair, element.width)
    uniform = _uniform_floats(rw, bits, element)
    x0 = slice_(rw, uniform, (0,) * len(pair), half)
    x1 = slice_(rw, uniform, tuple(1 if i == dim else 0 for i in range(len(pair))), pair)
    h = Real(rw, TensorType(half, element))
    # Box-Muller, with XLA's constants: u1 >= 1e-7 (an f32 literal), 2 pi and -2.
    u1 = h("maximum", x0, h.const(float(np.float32(1.0e-7))))
    v1 = h("multiply", h.const(2.0 * math.pi), x1)
    u2 = h("sqrt", h("multiply", h.const(-2.0), h("log", u1)))
    z0, z1 = h("multiply", h("sine", v1), u2), h("multiply", h("cosine", v1), u2)
    if not result.shape:
        normal = reshape(rw, z0, ())
    else:
        joined = concatenate(rw, [z0, z1], dim)
        merged = list(result.shape)
        merged[dim - 1] = 2 * half[dim - 1]
        normal = slice_(rw, reshape(rw, joined, merged), (0,) * result.rank, result.shape)
    e = Real(rw, result)
    return e("add", _spread(rw, a, result), e("multiply", _spread(rw, b, result), normal))


def _expand(rw: Rewriter, key: int, counter: int) -> list[Value]:
    op = rw.op
    a, b, _ = op.operands
    result = op.result_types[0]
    if not isinstance(result, TensorType) or not result.is_static:
        raise cannot_expand(op, FLAG, f"the result type {result} has a dynamic shape (its "
                                      "shape operand is not a constant)")
    distribution = str(op.attr("rng_distribution").value)  # type: ignore[union-attr]
    compute = _compute_type(result.element)
    if distribution == "NORMAL" and not isinstance(compute, FloatType):
        raise cannot_expand(op, FLAG, f"a NORMAL distribution needs a float result, got "
                                      f"{result.element}")
    draw = result.with_element(compute)
    a, b = convert(rw, a, compute), convert(rw, b, compute)
    build = _normal if distribution == "NORMAL" else _uniform
    return [convert(rw, build(rw, a, b, key, counter, draw), result.element)]


@register_expander(FLAG, "Expands rng into rng_bit_generator (PHILOX) and XLA's distribution "
                         "arithmetic")
def rng_expander(module: Module) -> None:
    rngs = [op for op in module.op.walk() if op.name == "stablehlo.rng"]
    plan: dict[int, tuple[int, int]] = {}
    counter = 0
    for index, op in enumerate(rngs):
        plan[id(op)] = (key_for(index), counter)
        result = op.result_types[0]
        if isinstance(result, TensorType) and result.is_static:
            counter += words_drawn(result)

    def rewrite(rw: Rewriter) -> list[Value]:
        key, start = plan[id(rw.op)]
        return _expand(rw, key, start)

    expand_module(module, {"stablehlo.rng": rewrite})
