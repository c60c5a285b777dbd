"""Upstream's shape-inference checks (hlo TypeInference.cpp wording) for the ops of linalg,
fft, rng and batch_norm."""

from __future__ import annotations

from ...ir.attributes import FloatAttr, IntegerAttr
from ...ir.core import Operation
from ...ir.types import DYNAMIC, ComplexType, FloatType, IntegerType, TensorType, Type
from ...ir.verifier import inference_error
from .elementwise_verify import (
    bounds_attr,
    bounds_of,
    check_inferred,
    error,
    require_static_results,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

KDYNAMIC = -(1 << 63)  # how upstream prints a `?` size inside a shape list


def shape_text(shape: Sequence[int]) -> str:
    return ", ".join(str(KDYNAMIC if d == DYNAMIC else d) for d in shape)


def compatible_dims(a: int, b: int) -> bool:
    return a == DYNAMIC or b == DYNAMIC or a == b


def ranked(t: Type) -> TensorType | None:
    return t if isinstance(t, TensorType) else None


def verify_cholesky(op: Operation) -> None:
    a = ranked(op.operands[0].type)
    if a is None:
        return
    if a.rank < 2:
        raise inference_error(op, f"argument 'a' must have rank >= 2, got shape "
                                  f"{shape_text(a.shape)}.")
    if not compatible_dims(a.shape[-2], a.shape[-1]):
        raise inference_error(op, f"minor dimensions of 'a' must have equal size, got shape "
                                  f"{shape_text(a.shape)}.")
    check_inferred(op, [a])


def verify_triangular_solve(op: Operation) -> None:
    a, b = ranked(op.operands[0].type), ranked(op.operands[1].type)
    if a is None:
        return
    if a.rank < 2:
        raise inference_error(op, f"operand 'a' must have rank >= 2, but got '{a}'")
    if not compatible_dims(a.shape[-2], a.shape[-1]):
        raise inference_error(op, f"two minor dimensions of operand 'a' must be compatible, "
                                  f"but got '{a}'")
    if b is None:
        return
    if a.rank != b.rank:
        raise inference_error(op, f"operands must have equal rank, but got '{a}' and '{b}'")
    left = op.attr("left_side")
    if not compatible_dims(a.shape[-1], b.shape[-2 if getattr(left, "value", False) else -1]):
        raise inference_error(op, f"shared dimension of operands 'a' and 'b' must be compatible, "
                                  f"but got '{a}' and '{b}'")
    if not all(compatible_dims(x, y) for x, y in zip(a.shape[:-2], b.shape[:-2], strict=False)):
        raise inference_error(op, f"batch dimensions of the operands must be compatible, "
                                  f"but got '{a}' and '{b}'")
    transpose = op.attr("transpose_a")
    if transpose is not None and str(getattr(transpose, "value", "")) == "TRANSPOSE_INVALID":
        raise inference_error(op, "Invalid transpose option value for triangular solve")
    check_inferred(op, [b])


def verify_fft(op: Operation) -> None:
    lengths_attr = op.attr("fft_length")
    lengths = [int(v) for v in getattr(lengths_attr, "value", ()) or ()]
    kind = str(getattr(op.attr("fft_type"), "value", ""))
    rank = len(lengths)
    if not 1 <= rank <= 3:
        raise inference_error(op, f"rank must be between 1 and 3, but got {rank}.")
    operand = op.operands[0].type
    element = operand.element if isinstance(operand, TensorType) else operand
    if kind == "RFFT":
        if not (isinstance(element, FloatType) and element.name in ("f32", "f64")):
            raise inference_error(op, f"RFFT requires f32 or f64 input type, but is given "
                                      f"'{element}'.")
    elif not isinstance(element, ComplexType):
        raise inference_error(op, f"FFT/IFFT/IRFFT take a complex tensor as input, but is given "
                                  f"'{operand}'.")
    t = ranked(operand)
    if t is None:
        return
    shape = list(t.shape)
    if len(shape) < rank:
        raise inference_error(op, f"operand rank must not be less than fft rank of {rank} for "
                                  f"operand of type '{t}'.")
    wanted = shape_text(lengths)
    if kind == "RFFT":
        for dim, length in zip(shape[-rank:], lengths, strict=False):
            if not compatible_dims(dim, length):
                raise inference_error(op, f"RFFT requires innermost dimensions to be compatible "
                                          f"with fft_length. Got: {shape_text(shape)} but wanted "
                                          f"{wanted}.")
    if kind == "IRFFT":
        for dim, length in zip(shape[-rank:-1], lengths, strict=False):
            if not compatible_dims(dim, length):
                raise inference_error(op, f"IRFFT requires non-final dimensions to be compatible "
                                          f"with fft_length. Got: {shape_text(shape)} but wanted "
                                          f"{wanted}, and {shape_text([dim])} != {length}.")
        last = shape[-1]
        if ((not compatible_dims(last, 0) or lengths[-1] != 0)
                and not compatible_dims(last, lengths[-1] // 2 + 1)):
            raise inference_error(op, f"IRFFT requires innermost dimension to be compatible with "
                                      f"fft_length[-1]/2+1. Got: {shape_text([last])} but "
                                      f"fft_length is {wanted}.")
    check_inferred(op, [fft_result_type(t, kind, lengths)])


def fft_result_type(operand: TensorType, kind: str, lengths: Sequence[int]) -> TensorType:
    """inferFftOp: RFFT keeps `fft_length[-1]/2+1` complex values of the innermost dimension,
    IRFFT yields `fft_length[-1]` real values, FFT/IFFT keep the operand type. An RFFT of
    length 0 keeps the operand's innermost size (upstream's inference, which XLA checks)."""
    if kind == "RFFT":
        last = lengths[-1] // 2 + 1 if lengths[-1] else operand.shape[-1]
        shape = (*operand.shape[:-1], last)
        return TensorType(shape, ComplexType(operand.element))
    if kind == "IRFFT" and isinstance(operand.element, ComplexType):
        return TensorType((*operand.shape[:-1], lengths[-1]), operand.element.element)
    return operand


def verify_rng_bit_generator(op: Operation) -> None:
    require_static_results(op, "statically shaped tensor of 2/4/8/16/32/64-bit integer or "
                               "4/6/8/16/32/64-bit float values", first=1)  # ODS: output
    state, out_state = op.operands[0].type, op.results[0].type
    if isinstance(state, TensorType) and isinstance(out_state, TensorType):
        same_rank = state.rank == out_state.rank
        if not same_rank or not all(compatible_dims(a, b) for a, b in
                                    zip(state.shape, out_state.shape, strict=False)):
            raise error(op, f"output state shape must be compatible with initial state "
                            f"shape. Got: '{state}' and '{out_state}'")


_SCALAR_OF = ("0D tensor of bool or 2/4/8/16/32/64-bit "
              "integer or floating-point values")


def verify_rng(op: Operation) -> None:
    for index in (0, 1):
        t = op.operands[index].type
        if not isinstance(t, TensorType) or t.rank != 0 or isinstance(t.element, ComplexType):
            raise error(op, f"operand #{index} must be {_SCALAR_OF}, but got '{t}'")
    shape = op.operands[2].type
    if not isinstance(shape, TensorType) or shape.rank != 1 or not shape.is_static:
        raise error(op, "operand #2 must be statically shaped 1-dimensional tensor of index "
                        f"or 64-bit signless integer or 32-bit signless integer values, "
                        f"but got '{shape}'")


def verify_feature_index(op: Operation) -> None:
    """The ODS constraints: `epsilon` and `feature_index` are required (the evaluator has no
    default for either), `feature_index` a non-negative integer."""
    for name in ("epsilon", "feature_index"):
        if op.attr(name) is None:
            raise error(op, f"requires attribute '{name}'")
    epsilon = op.attr("epsilon")
    if not (isinstance(epsilon, FloatAttr) and epsilon.type == FloatType("f32")):
        raise error(op, "attribute 'epsilon' failed to satisfy constraint: 32-bit float "
                        "attribute")
    attr = op.attr("feature_index")
    if not (isinstance(attr, IntegerAttr) and attr.type == IntegerType(64)) or int(
            attr.value) < 0:
        raise error(op, "attribute 'feature_index' failed to satisfy constraint: 64-bit "
                        "signless integer attribute whose value is non-negative")


def _pairwise_compatible(types: Sequence[TensorType]) -> bool:
    return all(compatible_shapes(a, b) for a in types for b in types)


def compatible_shapes(a: TensorType, b: TensorType) -> bool:
    return a.rank == b.rank and all(compatible_dims(x, y)
                                    for x, y in zip(a.shape, b.shape, strict=True))


def dim_text(size: int) -> str:
    return "?" if size == DYNAMIC else str(size)


def batch_norm_verifier(multi_dim: Sequence[int], single_dim: Sequence[int],
                        per_feature_results: bool) -> Callable[[Operation], None]:
    """verifyBatchNorm + inferBatchNormOp for one op: `multi_dim`/`single_dim` are the
    indices of the operands shaped like the input and like one feature; the op yields the
    input's type and, unless `per_feature_results` is false, two per-feature tensors."""

    def verify(op: Operation) -> None:
        verify_feature_index(op)
        multi = [ranked(op.operands[i].type) for i in multi_dim]
        single = [ranked(op.operands[i].type) for i in single_dim]
        attr = op.attr("feature_index")
        if None in multi or None in single or not isinstance(attr, IntegerAttr):
            return
        if not _pairwise_compatible(multi):
            raise inference_error(op, "expects multi-dimensional operands to have compatible "
                                      "shapes.")
        if not _pairwise_compatible(single):
            raise inference_error(op, "expects single-dimensional operands to have "
                                      "compatible shapes.")
        operand, feature_index = multi[0], int(attr.value)
        if feature_index >= operand.rank:
            raise inference_error(op, "expects featureIndex to be smaller than the rank of "
                                      f"multi-dimensional operands; got featureIndex "
                                      f"{feature_index}, and rank {operand.rank}.")
        feature_count = operand.shape[feature_index]
        single_size = single[0].shape[0] if single[0].rank else DYNAMIC
        if not compatible_dims(single_size, feature_count):
            raise inference_error(op, "expects the size of single-dimensional operands to be "
                                      "compatible with feature count, but the size of "
                                      f"single-dimensional operands is {dim_text(single_size)}"
                                      f" and the feature count is {dim_text(feature_count)}.")
        inferred: list[Type] = [operand]
        if per_feature_results:
            bound = bounds_of(operand)[feature_index]
            per_feature = TensorType((feature_count,), operand.element,
                                     bounds_attr([bound]))
            inferred += [per_feature, per_feature]
        check_inferred(op, inferred)

    return verify


def verify_dynamic_iota(op: Operation) -> None:
    attr = op.attr("iota_dimension")
    result = ranked(op.results[0].type)
    if isinstance(attr, IntegerAttr):
        if int(attr.value) < 0:
            raise error(op, "attribute 'iota_dimension' failed to satisfy constraint: 64-bit "
                            "signless integer attribute whose value is non-negative")
        if result is not None and int(attr.value) >= result.rank:
            raise error(op, "iota dimension cannot go beyond the output rank.", op_prefix=False)
