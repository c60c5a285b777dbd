"""`--stablehlo-compatibility-expander='target=X.Y.Z'`: rewrite newer StableHLO features into
ops an older target version has, as upstream's opt-in compatibility expander does:

- before 1.1.0, gather/scatter batching dims become collapsed (inserted) window dims with one
  iota per batching dim concatenated in front of the indices (indices converted to i32/i64
  first when a batching dim's size does not fit their type; a trailing index vector dim gets
  a reshape); indices with a dynamic shape are kept;
- before 1.4.0, `tan` (default accuracy) becomes `sine / cosine`, and complex `tan(a + bi)`
  `(tan a + i tanh b) / (1 - i tan a tanh b)` (its real `tan` then expanded in turn);
- before 1.16.0, `replica_groups = #stablehlo.replica_group_mesh_axes<...>` becomes the dense
  replica-group table (mesh_axes.py);
- before 1.9.0, FileLineColRange locations (`"f":2:21 to :30`) become their start point
  (`"f":2:21`) wherever they occur: ops, block arguments, nested in other locations.

The patterns run under the greedy driver (passes/rewrite.py) top-down, as upstream's pass does,
so folding, constant uniquing and hoisting and dead-op erasure happen as they do there."""

from __future__ import annotations

import numpy as np

from ..dialects.vhlo.version import Version, VersionError, resolve_target
from ..ir.attributes import (
    Attribute,
    BoolAttr,
    DenseElementsAttr,
    DialectAttr,
    FloatAttr,
    IntegerAttr,
)
from ..ir.core import Module, Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.locations import CallSiteLoc, FileLineColLoc, FusedLoc, LocationAttr, NameLoc
from ..ir.types import I32, I64, ComplexType, IntegerType, TensorType, numpy_dtype
from . import PassOption, register_pass
from .expanders.build import struct_attr, tensor
from .mesh_axes import expand_op_mesh_axes
from .rewrite import GreedyConfig, PatternRewriter, RewritePattern, apply_patterns_greedily, pattern

BATCHING_DIMS = Version(1, 1, 0)  # gather/scatter batching dims
TAN = Version(1, 4, 0)
LOCATION_RANGES = Version(1, 9, 0)
MESH_AXES = Version(1, 16, 0)  # replica_group_mesh_axes


@register_pass("stablehlo-compatibility-expander",
               "Compatibility expander for StableHLO operations.",
               options=(PassOption("target", "The target version. Must be a version of the "
                                   "form #.#.#.", ""),))
def compatibility_expander(module: Module, target: str = "") -> None:
    try:
        version = resolve_target(target)
    except VersionError as e:
        loc = module.op.location
        raise Diagnostic(str(e), line=loc.line, col=loc.col) from None
    expand_for(module, version)


def expand_for(module: Module, version: Version) -> None:
    """Apply every expansion `version` needs (upstream's pattern set for that target)."""
    patterns: list[RewritePattern] = []
    if version < BATCHING_DIMS:
        patterns += [_gather, _scatter]
    if version < TAN:
        patterns += [_tan]
    if version < MESH_AXES:
        patterns += [_mesh_axes]
    apply_patterns_greedily(module.op, patterns, GreedyConfig(top_down=True))
    if version < LOCATION_RANGES:
        _locations_to_points(module.op)


# ---- FileLineColRange -> FileLineColLoc ----------------------------------------------------


def _locations_to_points(top: Operation) -> None:
    """Upstream's FileLineColRangeToLoc: every location attribute of the module, the ranges
    in it replaced by their start (the parse position an op keeps for diagnostics stays)."""
    for op in top.walk():
        loc = op.location
        if isinstance(loc.attr, LocationAttr):
            loc.attr = _points(loc.attr)
        for region in op.regions:
            for block in region.blocks:
                block.arg_locations = [_points(a) if isinstance(a, LocationAttr) else a
                                       for a in block.arg_locations]


def _points(loc: LocationAttr) -> LocationAttr:
    loc = loc.resolved()
    if isinstance(loc, FileLineColLoc):
        return FileLineColLoc(loc.filename, loc.line, loc.col) if loc.is_range else loc
    if isinstance(loc, NameLoc):
        return NameLoc(loc.name, None if loc.child is None else _points(loc.child))
    if isinstance(loc, CallSiteLoc):
        return CallSiteLoc(_points(loc.callee), _points(loc.caller))
    if isinstance(loc, FusedLoc):
        return FusedLoc(tuple(_points(c) for c in loc.locations), loc.metadata)
    return loc


# ---- tan -----------------------------------------------------------------------------------


def _default_accuracy(op: Operation) -> bool:
    attr = op.attr("result_accuracy")
    if attr is None:
        return True
    if isinstance(attr, DialectAttr):
        mode = attr.get("mode")
        text = str(mode) if mode is not None else attr.body
        return "DEFAULT" in text and attr.get("atol", 0) in (0, 0.0) \
            and attr.get("rtol", 0) in (0, 0.0) and attr.get("ulps", 0) == 0
    return False


def _make(rw: PatternRewriter, name: str, operands: list[Value], result: TensorType,
          properties: dict[str, Attribute] | None = None) -> Value:
    return rw.create(name, operands, [result], properties).results[0]


def _one_like(rw: PatternRewriter, like: Value) -> Value:
    """1.0 of `like`'s type: a splat constant, or chlo.constant_like for a dynamic shape
    (upstream's getConstantLike; --chlo-legalize-to-stablehlo lowers it)."""
    t = tensor(like)
    if not t.is_static:
        return _make(rw, "chlo.constant_like", [like], t, {"value": FloatAttr(1.0, t.element)})
    data = np.array(1.0).astype(numpy_dtype(t.element)).reshape(())
    return _make(rw, "stablehlo.constant", [], t, {"value": DenseElementsAttr(t, data, True)})


@pattern("stablehlo.tan")
def _tan(op: Operation, rw: PatternRewriter) -> bool:
    if not _default_accuracy(op):
        return False
    x = op.operands[0]
    t = tensor(x)
    if not isinstance(t.element, ComplexType):
        sine = _make(rw, "stablehlo.sine", [x], t)
        cosine = _make(rw, "stablehlo.cosine", [x], t)
        rw.replace_op(op, [_make(rw, "stablehlo.divide", [sine, cosine], t)])
        return True
    part = t.with_element(t.element.element)
    tan_a = _make(rw, "stablehlo.tan", [_make(rw, "stablehlo.real", [x], part)], part)
    tanh_b = _make(rw, "stablehlo.tanh", [_make(rw, "stablehlo.imag", [x], part)], part)
    numerator = _make(rw, "stablehlo.complex", [tan_a, tanh_b], t)
    one = _one_like(rw, tan_a)
    product = _make(rw, "stablehlo.multiply", [tan_a, tanh_b], part)
    minus = _make(rw, "stablehlo.negate", [product], part)
    denominator = _make(rw, "stablehlo.complex", [one, minus], t)
    rw.replace_op(op, [_make(rw, "stablehlo.divide", [numerator, denominator], t)])
    return True


# ---- gather / scatter batching dims ------------------------------------------------------


def _fits(size: int, element: IntegerType) -> bool:
    if element.is_unsigned:
        return 0 <= size < 2**element.width
    return -(2 ** (element.width - 1)) <= size < 2 ** (element.width - 1)


def _concat_indices(rw: PatternRewriter, indices: Value, index_vector_dim: int,
                    batching_dims: list[int]) -> Value:
    """`indices` with an iota along each batching dim concatenated in front of its index
    vectors (converted to i32/i64 first when a batching dim size does not fit)."""
    t = tensor(indices)
    element = t.element
    for dim in batching_dims:
        if isinstance(element, IntegerType) and not _fits(t.shape[dim], element):
            element = I32 if _fits(t.shape[dim], I32) else I64
    if element != t.element:
        t = t.with_element(element)
        indices = _make(rw, "stablehlo.convert", [indices], t)
    shape = list(t.shape)
    trailing = index_vector_dim == t.rank
    if trailing:
        shape.append(1)
    else:
        shape[index_vector_dim] = 1
    iota_type = TensorType(tuple(shape), element)
    if trailing:
        indices = _make(rw, "stablehlo.reshape", [indices], iota_type)
    pieces = [_make(rw, "stablehlo.iota", [], iota_type, {"iota_dimension": IntegerAttr(d, I64)})
              for d in batching_dims]
    pieces.append(indices)
    shape[index_vector_dim] = sum(tensor(v).shape[index_vector_dim] for v in pieces)
    return _make(rw, "stablehlo.concatenate", pieces, TensorType(tuple(shape), element),
                 {"dimension": IntegerAttr(index_vector_dim, I64)})


def _dims(attr: Attribute | None, name: str) -> list[int]:
    return list(attr.get(name) or []) if attr is not None else []  # type: ignore[attr-defined]


def _sorted_after(sorted_before: bool, batching_dims: list[int], index_map: list[int]) -> bool:
    """Indices stay sorted when both the batching dims and the new index map are sorted."""
    return sorted_before and batching_dims == sorted(batching_dims) \
        and index_map == sorted(index_map)


def _bool(op: Operation, name: str) -> bool:
    attr = op.attr(name)
    return bool(attr.value) if attr is not None else False


@pattern("stablehlo.gather")
def _gather(op: Operation, rw: PatternRewriter) -> bool:
    dims = op.attr("dimension_numbers")
    operand_batching = _dims(dims, "operand_batching_dims")
    indices_batching = _dims(dims, "start_indices_batching_dims")
    if not operand_batching or not tensor(op.operands[1]).is_static:
        return False
    index_vector_dim = dims.get("index_vector_dim", 0)  # type: ignore[union-attr]
    index_map = [*operand_batching, *_dims(dims, "start_index_map")]
    indices = _concat_indices(rw, op.operands[1], index_vector_dim, indices_batching)
    numbers = struct_attr("gather", {
        "offset_dims": _dims(dims, "offset_dims"),
        "collapsed_slice_dims": sorted(operand_batching + _dims(dims, "collapsed_slice_dims")),
        "start_index_map": index_map, "index_vector_dim": index_vector_dim})
    sorted_ = _sorted_after(_bool(op, "indices_are_sorted"), indices_batching, index_map)
    rw.replace_op_with(op, "stablehlo.gather", [op.operands[0], indices], {
        "dimension_numbers": numbers, "slice_sizes": op.properties["slice_sizes"],
        "indices_are_sorted": BoolAttr(sorted_)})
    return True


@pattern("stablehlo.scatter")
def _scatter(op: Operation, rw: PatternRewriter) -> bool:
    dims = op.attr("scatter_dimension_numbers")
    count = (len(op.operands) - 1) // 2
    inputs, indices, updates = op.operands[:count], op.operands[count], op.operands[count + 1:]
    input_batching = _dims(dims, "input_batching_dims")
    indices_batching = _dims(dims, "scatter_indices_batching_dims")
    if not input_batching or not tensor(indices).is_static:
        return False
    index_vector_dim = dims.get("index_vector_dim", 0)  # type: ignore[union-attr]
    index_map = [*input_batching, *_dims(dims, "scatter_dims_to_operand_dims")]
    new_indices = _concat_indices(rw, indices, index_vector_dim, indices_batching)
    numbers = struct_attr("scatter", {
        "update_window_dims": _dims(dims, "update_window_dims"),
        "inserted_window_dims": sorted(input_batching + _dims(dims, "inserted_window_dims")),
        "scatter_dims_to_operand_dims": index_map, "index_vector_dim": index_vector_dim})
    sorted_ = _sorted_after(_bool(op, "indices_are_sorted"), indices_batching, index_map)
    new = rw.create("stablehlo.scatter", [*inputs, new_indices, *updates], op.result_types, {
        "indices_are_sorted": BoolAttr(sorted_), "scatter_dimension_numbers": numbers,
        "unique_indices": BoolAttr(_bool(op, "unique_indices"))}, location=op.location)
    # The update computation moves over (upstream's takeBody), uses and all.
    new.regions, op.regions = op.regions, []
    for region in new.regions:
        region.parent = new
    rw.replace_op(op, new.results)
    return True


# ---- replica groups ------------------------------------------------------------------------


@pattern()
def _mesh_axes(op: Operation, rw: PatternRewriter) -> bool:
    if not expand_op_mesh_axes(op):
        return False
    rw.modified(op)
    return True
