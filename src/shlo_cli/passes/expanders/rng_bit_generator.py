"""`--rng_bit_generator_philox_expander` and `--rng_bit_generator_three_fry_expander`: XLA's
RngBitGeneratorExpander (xla/hlo/transforms/expanders/rng_bit_generator_expander.cc).

As in XLA, each of the two expands every `rng_bit_generator`: an op with an explicit
PHILOX or THREE_FRY algorithm keeps it, and the flag only says what DEFAULT means (XLA's
`default_algorithm`). When both run (`--rng_bit_generator_expander`, `--expand_all`),
philox runs first, so DEFAULT is PHILOX, which is also what our interpreter (and XLA:CPU/GPU)
computes for DEFAULT directly.

The state's 64-bit words are (key, counter...): THREE_FRY uses word 1 as the counter;
PHILOX uses words 1 and 2 as a 128-bit counter, or, for a two-word state, (word 1, key) as
XLA does (it reverses the state), keeping only the low counter word. Words past those are
passed through. States of narrower elements are reshaped and bitcast to ui64 words (and
back); the output bits are bitcast to the requested element type (ints or floats of 8, 16,
32 or 64 bits). The expansion is bit-exact with the interpreter's `rng_bit_generator`.
"""

from __future__ import annotations

from ...ir.core import Module, Value
from ...ir.types import ComplexType, FloatType, IntegerType, TensorType, Type
from ..chlo_legalize import Rewriter
from . import register_expander
from .build import (
    UI64,
    bitcast,
    cannot_expand,
    concatenate,
    expand_module,
    reshape,
    slice_,
    tensor,
)
from .prng import philox_bits, threefry_bits


def _width(element: Type) -> int | None:
    if isinstance(element, IntegerType) and not element.is_bool:
        return element.width
    if isinstance(element, FloatType):
        return element.width
    return None


def _words_of(rw: Rewriter, state: Value, flag: str) -> Value:
    """The state as tensor<N x ui64>."""
    t = tensor(state)
    width = _width(t.element)
    if width is None or 64 % width or (t.shape[0] * width) % 64:
        raise cannot_expand(rw.op, flag, f"the state {t} is not made of 64-bit words")
    per_word = 64 // width
    words = t.shape[0] // per_word
    if per_word > 1:
        state = reshape(rw, state, (words, per_word))
    return bitcast(rw, state, TensorType((words,), UI64))


def _state_from(rw: Rewriter, words: Value, like: TensorType) -> Value:
    """tensor<N x ui64> back to the state's own type."""
    width = _width(like.element) or 64
    per_word = 64 // width
    shape = (tensor(words).shape[0], per_word) if per_word > 1 else like.shape
    return reshape(rw, bitcast(rw, words, TensorType(shape, like.element)), like.shape)


def _word(rw: Rewriter, words: Value, index: int) -> Value:
    return reshape(rw, slice_(rw, words, (index,), (index + 1,)), ())


def _expand(rw: Rewriter, flag: str, default: str) -> list[Value]:
    op = rw.op
    (state,) = op.operands
    state_type, out_type = op.result_types
    if not isinstance(out_type, TensorType) or not out_type.is_static:
        raise cannot_expand(op, flag, f"the output type {out_type} has a dynamic shape")
    if not tensor(state).is_static:
        raise cannot_expand(op, flag, f"the state type {state.type} has a dynamic shape")
    bits = _width(out_type.element)
    if bits not in (8, 16, 32, 64) or isinstance(out_type.element, ComplexType):
        raise cannot_expand(op, flag, f"no random bits for element type {out_type.element}")
    algorithm = str(op.attr("rng_algorithm").value)  # type: ignore[union-attr]
    if algorithm == "DEFAULT":
        algorithm = default
    words = _words_of(rw, state, flag)
    count = tensor(words).shape[0]
    key = _word(rw, words, 0)
    if algorithm == "THREE_FRY":
        if count < 2:
            raise cannot_expand(op, flag, "THREE_FRY needs a state of at least 2 words")
        values, counter = threefry_bits(rw, key, _word(rw, words, 1), out_type.shape, bits)
        kept = [counter]
        rest = 2
    else:
        if count < 2:
            raise cannot_expand(op, flag, "PHILOX needs a state of at least 2 words")
        high = _word(rw, words, 2) if count >= 3 else key
        values, low, high = philox_bits(rw, key, _word(rw, words, 1), high, out_type.shape,
                                        bits)
        kept = [low, high] if count >= 3 else [low]
        rest = 3 if count >= 3 else 2
    pieces = [reshape(rw, v, (1,)) for v in (key, *kept)]
    if count > rest:
        pieces.append(slice_(rw, words, (rest,), (count,)))
    new_state = _state_from(rw, concatenate(rw, pieces, 0), state_type)  # type: ignore[arg-type]
    return [new_state, bitcast(rw, values, out_type)]


@register_expander("rng_bit_generator_philox_expander",
                   "Expands rng_bit_generator into integer ops; DEFAULT means PHILOX")
def rng_bit_generator_philox_expander(module: Module) -> None:
    expand_module(module, {"stablehlo.rng_bit_generator": lambda rw: _expand(
        rw, "rng_bit_generator_philox_expander", "PHILOX")})


@register_expander("rng_bit_generator_three_fry_expander",
                   "Expands rng_bit_generator into integer ops; DEFAULT means THREE_FRY")
def rng_bit_generator_three_fry_expander(module: Module) -> None:
    expand_module(module, {"stablehlo.rng_bit_generator": lambda rw: _expand(
        rw, "rng_bit_generator_three_fry_expander", "THREE_FRY")})
