"""Simplifications of indexing ops whose indices are known: a dynamic_slice with constant
starts is a static slice, and a custom_call still in the original API that carries its
config as `mhlo.backend_config` dictionary moves to the typed-FFI form."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.attributes import DenseArrayAttr, IntegerAttr, StringAttr
from ...ir.core import Operation, Value
from ...ir.types import I32, I64
from ..fold.common import constant_attr
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .match import ints, is_static

_API_ORIGINAL = 1
_API_TYPED_FFI = 4


def _i64s(values: list[int]) -> DenseArrayAttr:
    return DenseArrayAttr(I64, tuple(int(v) for v in values))


def constant_scalar_int(value: Value) -> int | None:
    """The integer held by a constant single-element tensor, else None."""
    attr = constant_attr(value)
    if attr is None or attr.value.dtype.kind not in "iu" or attr.value.size != 1:
        return None
    return int(np.asarray(attr.value).reshape(-1)[0])


@pattern("stablehlo.dynamic_slice")
def dynamic_slice_to_slice(op: Operation, rewriter: PatternRewriter) -> bool:
    """dynamic_slice(X, constant starts) -> slice; starts clamped into range as the op does."""
    operand = op.operands[0]
    sizes = ints(op, "slice_sizes")
    if not is_static(operand) or sizes is None:
        return False
    starts = [constant_scalar_int(v) for v in op.operands[1:]]
    if any(s is None for s in starts):
        return False
    dims = operand.type.shape
    clamped = [min(max(int(s), 0), d - n)  # type: ignore[arg-type]
               for s, d, n in zip(starts, dims, sizes, strict=True)]
    rewriter.replace_op_with(op, "stablehlo.slice", [operand],
                             {"start_indices": _i64s(clamped),
                              "limit_indices": _i64s([s + n for s, n in zip(clamped, sizes,
                                                                            strict=True)]),
                              "strides": _i64s([1] * len(dims))}, dict(op.attributes))
    return True


@pattern("stablehlo.custom_call")
def custom_call_backend_config_to_ffi(op: Operation, rewriter: PatternRewriter) -> bool:
    """An original-API custom_call with a `mhlo.backend_config` dictionary and no string
    config of its own: the dictionary becomes its `backend_config`, API typed FFI."""
    version = op.properties.get("api_version")
    if (version.number if isinstance(version, IntegerAttr) else _API_ORIGINAL) != _API_ORIGINAL:
        return False
    config = op.attributes.get("mhlo.backend_config")
    if config is None:
        return False
    old = op.properties.get("backend_config")
    if old is not None and not (isinstance(old, StringAttr) and old.value == ""):
        return False
    op.properties["backend_config"] = config
    op.properties["api_version"] = IntegerAttr(_API_TYPED_FFI, I32)
    del op.attributes["mhlo.backend_config"]
    rewriter.modified(op)
    return True


PATTERNS: list[RewritePattern] = [custom_call_backend_config_to_ffi, dynamic_slice_to_slice]
