"""`rng` and `rng_bit_generator`.

`rng_bit_generator` is bit-exact with XLA's expansion (xla/hlo/builder/lib/prng.cc and
rng_bit_generator_expander.cc): THREE_FRY is Threefry-2x32 with 20 rounds, PHILOX is
Philox-4x32 with 10 rounds, and DEFAULT is PHILOX, which XLA's CPU and GPU compilers pick.
The state's first word is the key; the rest is the counter.

`rng` has implementation-defined values. Here: numpy's `Generator(PCG64)` seeded with 0 once
per interpreter process, so a program prints the same numbers on every run; UNIFORM draws
from [a, b) and NORMAL from N(a, b^2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.diagnostics import EvaluationError
from ...ir.types import DYNAMIC, TensorType, Type, element_type, numpy_dtype
from ..asm import Format
from ..registry import define_op
from .data_movement import check_inferred, constant_ints
from .linalg_verify import verify_rng, verify_rng_bit_generator

RNG_SEED = 0

# ---- the counter-based generators --------------------------------------------------------


def _rotl(v: np.ndarray, distance: int) -> np.ndarray:
    return (v << np.uint32(distance)) | (v >> np.uint32(32 - distance))


def threefry2x32(x0: np.ndarray, x1: np.ndarray, k0: Any, k1: Any) -> tuple[np.ndarray, ...]:
    """Threefry-2x32, 20 rounds (Salmon et al., SC 2011), on uint32 arrays."""
    rotations = (13, 15, 26, 6, 17, 29, 16, 24)
    ks = (np.uint32(k0), np.uint32(k1), np.uint32(0x1BD11BDA) ^ np.uint32(k0) ^ np.uint32(k1))
    with np.errstate(over="ignore"):
        x0 = x0 + ks[0]
        x1 = x1 + ks[1]
        for block in range(5):
            for r in rotations[(block % 2) * 4:(block % 2) * 4 + 4]:
                x0 = x0 + x1
                x1 = _rotl(x1, r) ^ x0
            x0 = x0 + ks[(block + 1) % 3]
            x1 = x1 + (ks[(block + 2) % 3] + np.uint32(block + 1))
    return x0, x1


def philox4x32(x: list[np.ndarray], k0: Any, k1: Any) -> list[np.ndarray]:
    """Philox-4x32, 10 rounds, on four uint32 arrays."""
    key = [int(k0), int(k1)]
    for _ in range(10):
        p0 = x[0].astype(np.uint64) * np.uint64(0xD2511F53)
        p1 = x[2].astype(np.uint64) * np.uint64(0xCD9E8D57)
        x = [(p1 >> np.uint64(32)).astype(np.uint32) ^ x[1] ^ np.uint32(key[0]),
             p1.astype(np.uint32),
             (p0 >> np.uint64(32)).astype(np.uint32) ^ x[3] ^ np.uint32(key[1]),
             p0.astype(np.uint32)]
        key = [(key[0] + 0x9E3779B9) & 0xFFFFFFFF, (key[1] + 0xBB67AE85) & 0xFFFFFFFF]
    return x


def _split(u64: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return u64.astype(np.uint32), (u64 >> np.uint64(32)).astype(np.uint32)


def _join(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo.astype(np.uint64) | (hi.astype(np.uint64) << np.uint64(32))


def _split_dim(shape: tuple[int, ...]) -> int:
    """XLA's SplitShapeIntoHalves: the first even dimension, else the largest one."""
    for i, d in enumerate(shape):
        if d % 2 == 0:
            return i
    return max(range(len(shape)), key=lambda i: (shape[i], -i))


def threefry_bits(key: int, counter: int, shape: tuple[int, ...],
                  bits: int) -> tuple[np.ndarray, int]:
    """Random words of `bits` width (as uint64) and the new counter."""
    k0, k1 = np.uint32(key & 0xFFFFFFFF), np.uint32(key >> 32)
    if bits == 64:
        n = int(np.prod(shape, dtype=np.int64))
        inputs = np.uint64(counter) + np.arange(n, dtype=np.uint64)
        lo, hi = threefry2x32(*_split(inputs), k0, k1)
        return _join(lo, hi).reshape(shape), (counter + n) & 0xFFFFFFFFFFFFFFFF
    if not shape:
        lo, _ = threefry2x32(*_split(np.array([counter], np.uint64)), k0, k1)
        return lo.reshape(()).astype(np.uint64), (counter + 1) & 0xFFFFFFFFFFFFFFFF
    axis = _split_dim(shape)
    half = list(shape)
    half[axis] = -(-shape[axis] // 2)
    n = int(np.prod(half, dtype=np.int64))
    inputs = np.uint64(counter) + np.arange(n, dtype=np.uint64)
    out0, out1 = threefry2x32(*_split(inputs), k0, k1)
    # Pair (out0, out1) of counter k fills positions 2k and 2k+1 along the split axis.
    pair = np.stack([out0.reshape(half), out1.reshape(half)], axis=axis + 1)
    merged = list(shape)
    merged[axis] = 2 * half[axis]
    words = pair.reshape(merged)
    words = words[tuple(slice(0, d) for d in shape)]
    return _narrow(words, bits), (counter + n) & 0xFFFFFFFFFFFFFFFF


def philox_bits(key: int, counter: tuple[int, int], shape: tuple[int, ...],
                bits: int) -> tuple[np.ndarray, tuple[int, int]]:
    """Random words of `bits` width (as uint64) and the new 128-bit counter (low, high)."""
    n = int(np.prod(shape, dtype=np.int64))
    words32 = 2 * n if bits == 64 else n
    blocks = -(-words32 // 4)
    low, high = counter
    index = np.arange(blocks, dtype=np.uint64)
    new_low = np.uint64(low) + index
    carry = new_low < np.uint64(low)
    new_high = np.where(carry, np.uint64((high + 1) & 0xFFFFFFFFFFFFFFFF), np.uint64(high))
    state = [*_split(new_low), *_split(new_high)]
    out = philox4x32(state, key & 0xFFFFFFFF, key >> 32)
    if bits == 64:
        pairs = np.stack([_join(out[0], out[1]), _join(out[2], out[3])], axis=1)
    else:
        pairs = _narrow(np.stack(out, axis=1), bits)
    values = pairs.reshape(-1)[:n].reshape(shape)
    total = low + blocks
    next_counter = (total & 0xFFFFFFFFFFFFFFFF, (high + (total >> 64)) & 0xFFFFFFFFFFFFFFFF)
    return values, next_counter


def _narrow(words: np.ndarray, bits: int) -> np.ndarray:
    """XLA's *RngBitNarrow: keep the low `bits` of each 32-bit word."""
    wide = words.astype(np.uint64)
    return (wide & np.uint64((1 << bits) - 1)) if bits < 32 else wide


# ---- rng_bit_generator -------------------------------------------------------------------


def _state_words(state: np.ndarray) -> list[int]:
    """The state's bytes as 64-bit words (XLA's states are ui64 tensors)."""
    raw = np.ascontiguousarray(state).reshape(-1)
    if raw.dtype == np.bool_ or raw.nbytes % 8:
        raise EvaluationError("rng_bit_generator expects a state made of 64-bit words")
    return [int(v) for v in raw.view(np.uint64)]


@define_op("stablehlo.rng_bit_generator", operands=("initial_state",), results=2,
           attributes=("rng_algorithm",),
           syntax=Format("$initial_state `,` `algorithm` `=` $rng_algorithm",
                         operands=("initial_state",), types="functional",
                         attrs={"rng_algorithm": "enum:rng_algorithm"}, num_results=2),
           verify=verify_rng_bit_generator, asm_result_name=lambda op: ["output_state", "output"])
def rng_bit_generator(initial_state: np.ndarray, *, rng_algorithm: Any,
                      result_types: list[Type]) -> tuple[np.ndarray, np.ndarray]:
    """spec rng_bit_generator: uniformly random bits and the updated state, computed by
    XLA's algorithm for the same state (see the module docstring)."""
    words = _state_words(initial_state)
    out_type = result_types[1]
    dtype = numpy_dtype(element_type(out_type))
    shape = tuple(out_type.shape)
    bits = dtype.itemsize * 8
    if dtype == np.bool_ or bits not in (8, 16, 32, 64):
        raise EvaluationError(f"rng_bit_generator does not support {element_type(out_type)}")
    algorithm = str(rng_algorithm or "DEFAULT")
    if not words:
        raise EvaluationError("rng_bit_generator expects a non-empty state")
    key = words[0]
    if algorithm == "THREE_FRY":
        if len(words) < 2:
            raise EvaluationError("THREE_FRY expects a state of at least 2 words")
        values, counter = threefry_bits(key, words[1], shape, bits)
        new_words = [key, counter, *words[2:]]
    elif algorithm in ("PHILOX", "DEFAULT"):
        if len(words) >= 3:
            values, (low, high) = philox_bits(key, (words[1], words[2]), shape, bits)
            new_words = [key, low, high, *words[3:]]
        elif len(words) == 2:  # XLA reads the reversed state [s1, s0] as the counter
            values, (low, _) = philox_bits(key, (words[1], words[0]), shape, bits)
            new_words = [key, low]
        else:
            raise EvaluationError("PHILOX expects a state of at least 2 words")
    else:
        raise EvaluationError(f"unsupported rng_algorithm {algorithm}")
    new_state = np.array(new_words, dtype=np.uint64).view(initial_state.dtype)
    new_state = new_state.reshape(initial_state.shape).copy()
    unsigned = np.dtype(f"uint{bits}")
    output = values.astype(unsigned).view(dtype).reshape(shape)
    return new_state, np.require(output, requirements="C")  # 0-d stays 0-d


# ---- rng ---------------------------------------------------------------------------------


def _generator(ctx: Any) -> np.random.Generator:
    gen = getattr(ctx, "rng_generator", None)
    if gen is None:
        gen = np.random.Generator(np.random.PCG64(RNG_SEED))
        try:
            ctx.rng_generator = gen
        except AttributeError:
            pass
    return gen


def verify_rng_op(op: Operation) -> None:
    """The operand constraints, then the inferred result (upstream inferRngOp): the shape
    operand's values when it is a constant, else one `?` per element of `shape`; the element
    type of `b`."""
    verify_rng(op)
    shape_type, b_type = op.operands[2].type, op.operands[1].type
    if not isinstance(shape_type, TensorType) or not isinstance(b_type, TensorType):
        return
    dims = constant_ints(op.operands[2])
    if dims is None:
        if shape_type.shape[0] == DYNAMIC:
            return  # unranked inferred result: compatible with any result type
        dims = [DYNAMIC] * shape_type.shape[0]
    check_inferred(op, [TensorType(tuple(dims), b_type.element)])


@define_op("stablehlo.rng", operands=("a", "b", "shape"), results=1,
           attributes=("rng_distribution",),
           syntax=Format("$a `,` $b `,` $shape `,` `distribution` `=` $rng_distribution",
                         operands=("a", "b", "shape"), types="functional",
                         attrs={"rng_distribution": "enum:rng_distribution"}), verify=verify_rng_op)
def rng(a: np.ndarray, b: np.ndarray, shape: np.ndarray, *, rng_distribution: Any,
        result_type: Type, ctx: Any = None) -> np.ndarray:
    """spec rng: random numbers of shape `shape`, UNIFORM in [a, b) or NORMAL with mean a
    and standard deviation b (the generator is documented in the module docstring)."""
    dtype = numpy_dtype(element_type(result_type))
    dims = tuple(int(v) for v in np.asarray(shape).reshape(-1))
    if any(d < 0 for d in dims):
        raise EvaluationError("rng shape must be non-negative")
    gen = _generator(ctx)
    kind = str(rng_distribution)
    low, high = a.reshape(()), b.reshape(())
    if kind == "UNIFORM":
        if dtype == np.bool_:
            if bool(low) == bool(high):
                return np.full(dims, bool(low))
            return gen.integers(int(low), int(high), size=dims).astype(np.bool_)
        if dtype.kind in "iu":
            if int(high) <= int(low):
                return np.full(dims, low, dtype)
            return gen.integers(int(low), int(high), size=dims).astype(dtype)
        values = gen.random(size=dims) * (float(high) - float(low)) + float(low)
        values = np.minimum(values, np.nextafter(float(high), float(low)))
        return np.asarray(values).astype(dtype)
    if kind == "NORMAL":
        if dtype.kind not in "fV":
            raise EvaluationError("NORMAL rng expects a floating-point result")
        return np.asarray(gen.normal(float(low), float(high), size=dims)).astype(dtype)
    raise EvaluationError(f"unsupported rng_distribution {kind}")
