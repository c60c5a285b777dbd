"""Simplifications of indexing and sorting ops: a dynamic_slice with constant starts is a
static slice, sort drops operands nobody reads and counts its dimension from the front, and a
custom_call still in the original API that carries its config as an `mhlo.backend_config`
dictionary moves to the typed-FFI form."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.attributes import DenseArrayAttr, IntegerAttr, StringAttr
from ...ir.core import Operation, Value
from ...ir.types import I32, I64, IndexType, IntegerType, TensorType
from ..fold.common import constant_attr
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .loops import _drop_arguments
from .match import defining, ints, is_static

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


@pattern("stablehlo.sort")
def sort_drop_unused_operands(op: Operation, rewriter: PatternRewriter) -> bool:
    """sort: an operand whose result nobody reads and the comparator ignores is dropped."""
    block = op.regions[0].blocks[0]
    args = block.arguments
    drop = {i for i, result in enumerate(op.results)
            if not rewriter.has_uses(result) and not rewriter.has_uses(args[2 * i])
            and not rewriter.has_uses(args[2 * i + 1])}
    if not drop or len(drop) == len(op.results):
        return False
    _drop_arguments(block, {j for i in drop for j in (2 * i, 2 * i + 1)})
    kept = [i for i in range(len(op.results)) if i not in drop]
    regions = op.regions
    op.regions = []
    new = Operation("stablehlo.sort", [], [op.result_types[i] for i in kept],
                    dict(op.properties), dict(op.attributes), location=op.location,
                    opdef=op.opdef)
    rewriter.set_insertion_point(op)
    rewriter.insert(new)
    rewriter.set_operands(new, [op.operands[i] for i in kept])
    new.regions = regions
    for region in regions:
        region.parent = new
    for i, value in zip(kept, new.results, strict=True):
        rewriter.replace_all_uses_with(op.results[i], value)
    rewriter.erase_op(op)
    return True


@pattern("stablehlo.sort")
def sort_set_dimension(op: Operation, rewriter: PatternRewriter) -> bool:
    """sort with a negative dimension: the same dimension counted from the front."""
    dim = op.properties.get("dimension")
    rank = getattr(op.result_types[0], "rank", None)
    if not isinstance(dim, IntegerAttr) or dim.number >= 0 or rank is None:
        return False
    op.properties["dimension"] = IntegerAttr(dim.number + rank, dim.type)
    rewriter.modified(op)
    return True


PATTERNS += [sort_drop_unused_operands, sort_set_dimension]


def _dims(numbers: object, name: str) -> list[int]:
    return [int(v) for v in (numbers.get(name) or [])] if numbers is not None else []


@pattern("stablehlo.gather")
def gather_to_slice(op: Operation, rewriter: PatternRewriter) -> bool:
    """gather of one constant index vector: a slice (clamped like gather's starts), then a
    reshape dropping the collapsed dimensions."""
    numbers = op.attr("dimension_numbers")
    index = constant_attr(op.operands[1])
    operand = op.operands[0]
    sizes = ints(op, "slice_sizes")
    if (numbers is None or index is None or index.value.dtype.kind not in "iu"
            or index.value.ndim > 1 or int(numbers.get("index_vector_dim", 0)) != 0
            or _dims(numbers, "operand_batching_dims") or not is_static(operand)
            or sizes is None):
        return False
    index_map = _dims(numbers, "start_index_map")
    values = [int(v) for v in np.asarray(index.value).reshape(-1)]
    if len(values) != len(index_map):
        return False
    shape = operand.type.shape
    start = [0] * len(sizes)
    for dim, value in zip(index_map, values, strict=True):
        start[dim] = min(max(value, 0), shape[dim] - sizes[dim])
    limit = [s + n for s, n in zip(start, sizes, strict=True)]
    element = op.result_types[0].element
    rewriter.set_insertion_point(op)
    result = rewriter.create("stablehlo.slice", [operand], [TensorType(tuple(sizes), element)],
                             {"start_indices": _i64s(start), "limit_indices": _i64s(limit),
                              "strides": _i64s([1] * len(sizes))},
                             location=op.location).results[0]
    if _dims(numbers, "collapsed_slice_dims"):
        result = rewriter.create("stablehlo.reshape", [result], [op.result_types[0]],
                                 location=op.location).results[0]
    rewriter.replace_op(op, [result])
    return True


PATTERNS += [gather_to_slice]


def _constant_ints(value: Value) -> list[int] | None:
    attr = constant_attr(value)
    if attr is None or attr.value.dtype.kind not in "iu":
        return None
    return [int(v) for v in np.asarray(attr.value).reshape(-1)]


@pattern("stablehlo.real_dynamic_slice")
def real_dynamic_slice_to_dynamic_slice(op: Operation, rewriter: PatternRewriter) -> bool:
    """real_dynamic_slice(X, s, s + constant sizes, ones) -> dynamic_slice(X, s[0], ...)."""
    operand, start, limit, strides = op.operands
    if _constant_ints(strides) is None or any(v != 1 for v in _constant_ints(strides) or []):
        return False
    add = defining(limit, "stablehlo.add")
    if add is None:
        return False
    lhs, rhs = add.operands
    sizes = _constant_ints(rhs) if lhs is start else _constant_ints(lhs) if rhs is start \
        else None
    if sizes is None:
        return False
    rewriter.set_insertion_point(op)
    element = start.type.element
    starts = []
    for i in range(len(sizes)):
        piece = rewriter.create("stablehlo.slice", [start], [TensorType((1,), element)],
                                {"start_indices": _i64s([i]), "limit_indices": _i64s([i + 1]),
                                 "strides": _i64s([1])}, location=op.location).results[0]
        starts.append(rewriter.create("stablehlo.reshape", [piece], [TensorType((), element)],
                                      location=op.location).results[0])
    rewriter.replace_op_with(op, "stablehlo.dynamic_slice", [operand, *starts],
                             {"slice_sizes": _i64s(sizes)}, dict(op.attributes))
    return True


PATTERNS += [real_dynamic_slice_to_dynamic_slice]


@pattern("stablehlo.dynamic_iota")
def dynamic_iota_to_iota(op: Operation, rewriter: PatternRewriter) -> bool:
    """dynamic_iota with a static result is an iota; one whose iota dimension is static is a
    1-D iota broadcast along the other (dynamic) dimensions."""
    result = op.result_types[0]
    dim_attr = op.properties.get("iota_dimension")
    if not isinstance(result, TensorType) or not isinstance(dim_attr, IntegerAttr):
        return False
    dim = dim_attr.number
    if result.is_static:
        rewriter.replace_op_with(op, "stablehlo.iota", [], {"iota_dimension": dim_attr},
                                 dict(op.attributes))
        return True
    size = result.shape[dim]
    shape = op.operands[0]
    if result.rank < 2 or not isinstance(shape.type.element, IntegerType | IndexType):
        return False
    rewriter.set_insertion_point(op)
    if size >= 0:
        iota = rewriter.create("stablehlo.iota", [], [TensorType((size,), result.element)],
                               {"iota_dimension": IntegerAttr(0, I64)},
                               location=op.location).results[0]
    else:
        wide = shape
        if shape.type.element != I64:  # index extents take arith.index_cast, as upstream
            cast = ("arith.index_cast" if isinstance(shape.type.element, IndexType)
                    else "stablehlo.convert")
            wide = rewriter.create(cast, [shape], [TensorType(shape.type.shape, I64)],
                                   location=op.location).results[0]
        length = rewriter.create("stablehlo.slice", [wide], [TensorType((1,), I64)],
                                 {"start_indices": _i64s([dim]),
                                  "limit_indices": _i64s([dim + 1]), "strides": _i64s([1])},
                                 location=op.location).results[0]
        iota = rewriter.create("stablehlo.dynamic_iota", [length],
                               [TensorType((size,), result.element)],
                               {"iota_dimension": IntegerAttr(0, I64)},
                               location=op.location).results[0]
    rewriter.replace_op_with(op, "stablehlo.dynamic_broadcast_in_dim", [iota, op.operands[0]],
                             {"broadcast_dimensions": _i64s([dim])}, dict(op.attributes))
    return True


PATTERNS += [dynamic_iota_to_iota]
