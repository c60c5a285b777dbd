"""XLA's counter-based bit generators (xla/hlo/builder/lib/prng.cc) built from StableHLO
integer ops, for the rng expanders.

- Philox-4x32, 10 rounds: each 128-bit counter (state + block index, a ui64 pair with
  carry) gives four 32-bit words; the words of consecutive counters fill the output in
  order (two words make one 64-bit value). The new state is the counter plus the number of
  blocks.
- Threefry-2x32, 20 rounds: 64-bit values take counter + linear index as input and join the
  two output words; narrower values split the shape in two along its first even dimension
  (else its largest), draw one counter per element of the half, and interleave the two
  output words along that dimension. The new state is the counter plus the number of
  inputs.
- Values narrower than 32 bits keep the low bits of a 32-bit word (XLA's *RngBitNarrow).

Shapes are static (the caller checks). Keys and counters are tensor<ui64> scalars.
"""

from __future__ import annotations

from ...ir.core import Value
from ...ir.types import IntegerType, TensorType
from ..chlo_legalize import Real, Rewriter
from .build import UI32, UI64, broadcast_to, concatenate, convert, iota, reshape, slice_, tensor

_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_THREEFRY_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
_THREEFRY_PARITY = 0x1BD11BDA


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


class _Shared(Real):
    """A `Real` that makes each constant once (the rounds reuse a handful of them)."""

    def __init__(self, rw: Rewriter, t: TensorType) -> None:
        super().__init__(rw, t)
        self._made: dict[float, Value] = {}

    def const(self, value: float) -> Value:
        if value not in self._made:
            self._made[value] = super().const(value)
        return self._made[value]


class _Words:
    """Builders for 32- and 64-bit unsigned words of one shape."""

    def __init__(self, rw: Rewriter, shape: tuple[int, ...]) -> None:
        self.rw = rw
        self.shape = shape
        self.u32 = _Shared(rw, TensorType(shape, UI32))
        self.u64 = _Shared(rw, TensorType(shape, UI64))
        self.scalar = _Shared(rw, TensorType((), UI32))

    def spread(self, scalar: Value) -> Value:
        """A scalar broadcast to the shape."""
        t = tensor(scalar).with_shape(self.shape)
        return broadcast_to(self.rw, scalar, t, ())

    def split(self, u64: Value) -> tuple[Value, Value]:
        """(low, high) 32-bit halves."""
        high = self.u64("shift_right_logical", u64, self.u64.const(32))
        return convert(self.rw, u64, UI32), convert(self.rw, high, UI32)

    def join(self, low: Value, high: Value) -> Value:
        wide = convert(self.rw, high, UI64)
        shifted = self.u64("shift_left", wide, self.u64.const(32))
        return self.u64("or", convert(self.rw, low, UI64), shifted)

    def rotate_left(self, v: Value, distance: int) -> Value:
        e = self.u32
        return e("or", e("shift_left", v, e.const(distance)),
                 e("shift_right_logical", v, e.const(32 - distance)))


def split_scalar(rw: Rewriter, u64: Value) -> tuple[Value, Value]:
    """A tensor<ui64>'s 32-bit halves as tensor<ui32> scalars."""
    return _Words(rw, ()).split(u64)


def add_scalar(rw: Rewriter, u64: Value, amount: int) -> Value:
    """u64 + amount (wrapping)."""
    return rw.create("stablehlo.add", [u64, rw.scalar(amount, UI64)], tensor(u64))


# ---- Philox ------------------------------------------------------------------------------


def _philox4x32(w: _Words, x: list[Value], k0: Value, k1: Value) -> list[Value]:
    """Ten rounds on four ui32 tensors of w's shape; k0, k1 are ui32 scalars."""
    e, rw, scalar = w.u32, w.rw, w.scalar
    for _ in range(10):
        lo0, hi0 = w.split(w.u64("multiply", convert(rw, x[0], UI64), w.u64.const(_PHILOX_M[0])))
        lo1, hi1 = w.split(w.u64("multiply", convert(rw, x[2], UI64), w.u64.const(_PHILOX_M[1])))
        x = [e("xor", e("xor", hi1, x[1]), w.spread(k0)), lo1,
             e("xor", e("xor", hi0, x[3]), w.spread(k1)), lo0]
        k0 = scalar("add", k0, scalar.const(_PHILOX_W[0]))
        k1 = scalar("add", k1, scalar.const(_PHILOX_W[1]))
    return x


def _add_u128(rw: Rewriter, low: Value, high: Value, delta: Value) -> tuple[Value, Value]:
    """(low, high) + delta with the carry into high; delta may be a vector (low and high are
    scalars then broadcast to it)."""
    t = tensor(delta)
    e = Real(rw, t)
    low_b = broadcast_to(rw, low, t, ()) if t.shape else low
    high_b = broadcast_to(rw, high, t, ()) if t.shape else high
    new_low = e("add", low_b, delta)
    carry = e.compare("LT", new_low, low_b)
    return new_low, e.select(carry, e("add", high_b, e.const(1)), high_b)


def philox_bits(rw: Rewriter, key: Value, low: Value, high: Value, shape: tuple[int, ...],
                bits: int) -> tuple[Value, Value, Value]:
    """(ui<bits> values of `shape`, new counter low, new counter high) for the 128-bit
    counter (low, high) and the 64-bit key."""
    n = _count(shape)
    words = 2 * n if bits == 64 else n
    blocks = -(-words // 4)
    value_type = TensorType(shape, IntegerType(bits, "u"))
    new_low, new_high = _add_u128(rw, low, high, rw.scalar(blocks, UI64))
    if n == 0:
        return rw.constant(0, value_type), new_low, new_high
    w = _Words(rw, (blocks,))
    counter_low, counter_high = _add_u128(rw, low, high, iota(rw, TensorType((blocks,), UI64), 0))
    k0, k1 = split_scalar(rw, key)
    out = _philox4x32(w, [*w.split(counter_low), *w.split(counter_high)], k0, k1)
    if bits == 64:
        lanes = [w.join(out[0], out[1]), w.join(out[2], out[3])]
    else:
        lanes = out
    columns = [reshape(rw, lane, (blocks, 1)) for lane in lanes]
    flat = reshape(rw, concatenate(rw, columns, 1), (blocks * len(lanes),))
    values = reshape(rw, slice_(rw, flat, (0,), (n,)), shape)
    return _narrow(rw, values, bits), new_low, new_high


# ---- Threefry ----------------------------------------------------------------------------


def _threefry2x32(w: _Words, x0: Value, x1: Value, k0: Value, k1: Value) -> tuple[Value, Value]:
    """Twenty rounds on two ui32 tensors of w's shape; k0, k1 are ui32 scalars."""
    e, scalar = w.u32, w.scalar
    ks = [k0, k1, scalar("xor", scalar("xor", scalar.const(_THREEFRY_PARITY), k0), k1)]
    x0 = e("add", x0, w.spread(ks[0]))
    x1 = e("add", x1, w.spread(ks[1]))
    for block in range(5):
        rotations = _THREEFRY_ROTATIONS[(block % 2) * 4:(block % 2) * 4 + 4]
        for r in rotations:
            x0 = e("add", x0, x1)
            x1 = e("xor", w.rotate_left(x1, r), x0)
        x0 = e("add", x0, w.spread(ks[(block + 1) % 3]))
        injected = scalar("add", ks[(block + 2) % 3], scalar.const(block + 1))
        x1 = e("add", x1, w.spread(injected))
    return x0, x1


def _split_dim(shape: tuple[int, ...]) -> int:
    """XLA's SplitShapeIntoHalves: the first even dimension, else the first largest."""
    for i, d in enumerate(shape):
        if d % 2 == 0:
            return i
    return max(range(len(shape)), key=lambda i: (shape[i], -i))


def threefry_bits(rw: Rewriter, key: Value, counter: Value, shape: tuple[int, ...],
                  bits: int) -> tuple[Value, Value]:
    """(ui<bits> values of `shape`, new counter) for the 64-bit counter and key."""
    value_type = TensorType(shape, IntegerType(bits, "u"))
    k0, k1 = split_scalar(rw, key)
    if bits == 64 or not shape:
        n = _count(shape) if shape else 1
    else:
        axis = _split_dim(shape)
        half = list(shape)
        half[axis] = -(-shape[axis] // 2)
        n = _count(tuple(half))
    new_counter = add_scalar(rw, counter, n)
    if _count(shape) == 0:
        return rw.constant(0, value_type), new_counter
    w = _Words(rw, (n,))
    inputs = w.u64("add", w.spread(counter), iota(rw, TensorType((n,), UI64), 0))
    out0, out1 = _threefry2x32(w, *w.split(inputs), k0, k1)
    if bits == 64:
        return reshape(rw, w.join(out0, out1), shape), new_counter
    if not shape:
        return _narrow(rw, reshape(rw, out0, ()), bits), new_counter
    with_pair = [*half[:axis + 1], 1, *half[axis + 1:]]
    pair = concatenate(rw, [reshape(rw, out0, with_pair), reshape(rw, out1, with_pair)],
                       axis + 1)
    merged = list(shape)
    merged[axis] = 2 * half[axis]
    values = slice_(rw, reshape(rw, pair, merged), (0,) * len(shape), shape)
    return _narrow(rw, values, bits), new_counter


def _narrow(rw: Rewriter, values: Value, bits: int) -> Value:
    """Keep the low `bits` of each 32-bit word (a truncating convert, as XLA's)."""
    return convert(rw, values, IntegerType(bits, "u")) if bits < 32 else values
