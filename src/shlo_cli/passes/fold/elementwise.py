"""Folding elementwise StableHLO ops whose operands are all constants: arithmetic, logic,
compare, clamp, select, convert and the unary math ops.

The values come from the interpreter's own kernels; the guards say when upstream's folder
declines (e.g. integer division by zero, `log` of a non-positive number, a float that does not
fit the integer it converts to), because then the op must stay as it is.
"""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...ir.core import Operation
from ...ir.types import FloatType, IntegerType, TensorType
from ...lazy_imports import lazy
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .common import (
    FoldOptions,
    constant_array,
    evaluate,
    is_float,
    is_int,
    make_attr,
    replace_with_constant,
    shape_fold_dtype,
    splat_attr,
    splat_of,
    splat_scalar,
    static_tensor,
    within_limit,
)

_ARITHMETIC = ("add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
               "compare", "clamp")
_LOGIC = ("and", "or", "xor")


def _fold_with_kernel(op: Operation, rewriter: PatternRewriter) -> bool:
    result_type = op.result_types[0]
    splats = [splat_attr(v) for v in op.operands]
    if all(a is not None and a.splat for a in splats) and isinstance(result_type, TensorType):
        # Splats fold on one element each (a splat of 10^22 elements stays one element).
        ones = (1,) * len(result_type.shape)
        result = evaluate(op, [splat_scalar(a).reshape(ones)  # type: ignore[arg-type]
                               for a in splats])
        if result is None or np.size(result) != 1:
            return False
        return replace_with_constant(op, rewriter, splat_of(result_type, result))
    arrays = [constant_array(v) for v in op.operands]
    if any(a is None for a in arrays):
        return False
    result = evaluate(op, arrays)  # type: ignore[arg-type]
    if result is None:
        return False
    return replace_with_constant(op, rewriter, make_attr(result_type, result))


def _divisor_has_zero(op: Operation) -> bool:
    divisor = constant_array(op.operands[1])
    return divisor is not None and bool(np.any(divisor == 0))


_COMPARE = lazy(lambda: {"EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal,
                         "GT": np.greater, "LE": np.less_equal, "LT": np.less})


def _fold_int_compare(op: Operation, rewriter: PatternRewriter) -> bool:
    """Integer compare honours an explicit `compare_type` (UNSIGNED on signless integers
    compares the bit patterns as unsigned), as upstream's folder does."""
    lhs, rhs = (constant_array(v) for v in op.operands)
    if lhs is None or rhs is None:
        return False
    element = op.operand_types[0].element
    kind = op.attr("compare_type")
    kind_name = str(getattr(kind, "value", kind) or "").upper()
    if "UNSIGNED" in kind_name:
        unsigned = True
    elif "SIGNED" in kind_name:
        unsigned = False
    else:
        unsigned = element.is_unsigned or element.width == 1
    target = np.uint64 if unsigned else np.int64
    bits = element.width
    left, right = lhs.astype(np.int64), rhs.astype(np.int64)
    if unsigned and bits < 64:
        mask = (1 << bits) - 1
        left, right = left & mask, right & mask
    direction = op.attr("comparison_direction")
    name = str(getattr(direction, "value", direction)).upper().split()[-1].strip("#>")
    fn = _COMPARE.get(name[-2:])
    if fn is None:
        return False
    result = fn(left.astype(target), right.astype(target))
    return replace_with_constant(op, rewriter, make_attr(op.result_types[0], result))


def binary_patterns(options: FoldOptions) -> list[RewritePattern]:
    """Arithmetic/compare/clamp (integers; floats with optimize-float) and bitwise logic."""

    def arithmetic(op: Operation, rewriter: PatternRewriter) -> bool:
        if not shape_fold_dtype(op.result_types[0], options):
            return False
        if op.name == "stablehlo.compare" and not (is_int(op.operand_types[0])
                                                   or is_float(op.operand_types[0])):
            return False
        if op.name == "stablehlo.compare" and is_int(op.operand_types[0]):
            return _fold_int_compare(op, rewriter)
        if (op.name in ("stablehlo.divide", "stablehlo.remainder")
                and is_int(op.result_types[0]) and _divisor_has_zero(op)):
            return False
        return _fold_with_kernel(op, rewriter)

    def logic(op: Operation, rewriter: PatternRewriter) -> bool:
        if not is_int(op.result_types[0]):
            return False
        return _fold_with_kernel(op, rewriter)

    arithmetic.__name__ = "fold_binary_elementwise"
    logic.__name__ = "fold_bitwise"
    return [RewritePattern(arithmetic, tuple(f"stablehlo.{n}" for n in _ARITHMETIC)),
            RewritePattern(logic, tuple(f"stablehlo.{n}" for n in _LOGIC))]


def select_pattern(options: FoldOptions) -> RewritePattern:
    @pattern("stablehlo.select")
    def fold_select(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if not static_tensor(result_type) or not shape_fold_dtype(result_type, options):
            return False
        pred, on_true, on_false = (constant_array(v) for v in op.operands)
        if pred is None or on_true is None or on_false is None:
            return False
        if pred.size and np.all(pred == pred.reshape(-1)[0]):
            chosen = on_true if pred.reshape(-1)[0] else on_false
            return replace_with_constant(op, rewriter, make_attr(result_type, chosen))
        if is_float(result_type) or not within_limit(result_type, options):
            return False
        return _fold_with_kernel(op, rewriter)

    return fold_select


def _float_fits_int(values: np.ndarray, target: IntegerType) -> bool:
    """APFloat::convertToInteger succeeds (toward zero) and the value is no -0/inf."""
    if not np.all(np.isfinite(values)) or np.any(np.signbit(values) & (values == 0)):
        return False
    truncated = np.trunc(values.astype(np.float64))
    if target.is_unsigned:
        lo, hi = 0, 2 ** target.width - 1
    else:
        lo, hi = -(2 ** (target.width - 1)), 2 ** (target.width - 1) - 1
    return bool(np.all((truncated >= lo) & (truncated <= hi)))


def convert_pattern(options: FoldOptions) -> RewritePattern:
    @pattern("stablehlo.convert")
    def fold_convert(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if (not static_tensor(result_type) or not shape_fold_dtype(result_type, options)
                or not within_limit(result_type, options)):
            return False
        source = op.operand_types[0]
        if not (is_int(source) or is_float(source)):
            return False
        values = constant_array(op.operands[0])
        if values is None:
            return False
        target = result_type.element
        if (is_float(source) and isinstance(target, IntegerType) and not target.is_bool
                and not _float_fits_int(np.asarray(values, dtype=np.float64), target)):
            return False
        return _fold_with_kernel(op, rewriter)

    return fold_convert


# Unary ops: the values that make upstream's folder decline (it folds only finite answers).
def _positive(x: np.ndarray) -> bool:
    return not np.any(x <= 0)


_UNARY: dict[str, Callable[[np.ndarray], bool] | None] = {
    "stablehlo.abs": None, "stablehlo.cosine": None, "chlo.erf": None,
    "stablehlo.exponential": None, "stablehlo.log": _positive, "stablehlo.logistic": None,
    "stablehlo.negate": None, "stablehlo.not": None, "stablehlo.round_nearest_afz": None,
    "stablehlo.round_nearest_even": None, "stablehlo.rsqrt": _positive,
    "stablehlo.sign": lambda x: not np.any(np.isnan(x)), "stablehlo.sine": None,
    "stablehlo.sqrt": lambda x: not np.any(x < 0), "stablehlo.tan": None,
    "stablehlo.tanh": None,
}
# Ops upstream folds for one kind of element only.
_INT_ONLY = frozenset({"stablehlo.not"})
_FLOAT_ONLY = frozenset({"stablehlo.cosine", "chlo.erf", "stablehlo.exponential",
                         "stablehlo.log", "stablehlo.logistic", "stablehlo.round_nearest_afz",
                         "stablehlo.round_nearest_even", "stablehlo.rsqrt", "stablehlo.sine",
                         "stablehlo.sqrt", "stablehlo.tan", "stablehlo.tanh"})


@pattern(*_UNARY)
def fold_unary(op: Operation, rewriter: PatternRewriter) -> bool:
    result_type = op.result_types[0]
    if not isinstance(result_type, TensorType) or len(op.operands) != 1:
        return False
    element = result_type.element
    if isinstance(element, IntegerType):
        if op.name in _FLOAT_ONLY:
            return False
        if op.name == "stablehlo.sign" and element.is_unsigned:
            return False
    elif isinstance(element, FloatType):
        if op.name in _INT_ONLY:
            return False
    else:
        return False
    values = constant_array(op.operands[0])
    if values is None:
        return False
    guard = _UNARY[op.name]
    if guard is not None and not guard(np.asarray(values)):
        return False
    return _fold_with_kernel(op, rewriter)
