"""`--stablehlo-compatibility-expander='target=X.Y.Z'`: rewrite newer StableHLO features into
ops an older target version has, as upstream's opt-in compatibility expander does:

- before 1.1.0, gather/scatter batching dims become collapsed (inserted) window dims with one
  iota per batching dim concatenated in front of the indices (indices converted to i32/i64
  first when a batching dim's size does not fit their type; a trailing index vector dim gets
  a reshape); indices with a dynamic shape are kept;
- before 1.4.0, `tan` (default accuracy) becomes `sine / cosine`, and complex `tan(a + bi)`
  `(tan a + i tanh b) / (1 - i tan a tanh b)` with the real tan expanded too;
- before 1.16.0, `replica_groups = #stablehlo.replica_group_mesh_axes<...>` becomes the dense
  replica-group table (mesh_axes.py);
- before 1.9.0, `file:line:col to :col` locations would lose their range; our parser already
  keeps only the start (see locations below), so nothing is left to do.

New splat constants go to the front of their function, deduplicated, as MLIR's greedy driver
hoists them."""

from __future__ import annotations

import numpy as np

from ..dialects.vhlo.version import Version, VersionError, resolve_target
from ..ir import registry
from ..ir.attributes import (
    Attribute,
    BoolAttr,
    DenseElementsAttr,
    DialectAttr,
    FloatAttr,
)
from ..ir.core import Block, Module, Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.types import I32, I64, ComplexType, IntegerType, TensorType, numpy_dtype
from . import PassOption, register_pass
from .chlo_legalize import Rewriter
from .expanders.build import concatenate, create, expand_module, iota, struct_attr, tensor
from .mesh_axes import expand_mesh_axes

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
    """Apply every expansion `version` needs."""
    rewrites = {}
    if version < BATCHING_DIMS:
        rewrites["stablehlo.gather"] = _gather
        rewrites["stablehlo.scatter"] = _scatter
    if version < TAN:
        rewrites["stablehlo.tan"] = _tan
    if rewrites:
        expand_module(module, rewrites)
        _hoist_constants(module)
    if version < MESH_AXES:
        expand_mesh_axes(module)


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


def _unary(rw: Rewriter, name: str, x: Value, result: TensorType | None = None) -> Value:
    return rw.create(name, [x], result or tensor(x))


def _binary(rw: Rewriter, name: str, a: Value, b: Value) -> Value:
    return rw.create(name, [a, b], tensor(a))


def _real_tan(rw: Rewriter, x: Value) -> Value:
    return _binary(rw, "stablehlo.divide", _unary(rw, "stablehlo.sine", x),
                   _unary(rw, "stablehlo.cosine", x))


_HOISTED = "compat_expander_hoist"  # marks constants this pass created


def _one_like(rw: Rewriter, like: Value) -> Value:
    """1.0 of `like`'s type: a splat constant, or chlo.constant_like for a dynamic shape
    (upstream's getConstantLike; --chlo-legalize-to-stablehlo lowers it)."""
    t = tensor(like)
    if not t.is_static:
        return rw.create("chlo.constant_like", [like], t,
                         {"value": FloatAttr(1.0, t.element)})
    data = np.array(1.0).astype(numpy_dtype(t.element)).reshape(())
    value = rw.create("stablehlo.constant", [], t, {"value": DenseElementsAttr(t, data, True)})
    rw.ops[-1].attributes[_HOISTED] = BoolAttr(True)
    return value


def _tan(rw: Rewriter) -> list[Value] | None:
    op = rw.op
    if not _default_accuracy(op):
        return None
    x = op.operands[0]
    t = tensor(x)
    if not isinstance(t.element, ComplexType):
        return [_real_tan(rw, x)]
    part = t.with_element(t.element.element)
    tan_a = _real_tan(rw, _unary(rw, "stablehlo.real", x, part))
    tanh_b = _unary(rw, "stablehlo.tanh", _unary(rw, "stablehlo.imag", x, part))
    numerator = rw.create("stablehlo.complex", [tan_a, tanh_b], t)
    one = _one_like(rw, tan_a)
    minus = _unary(rw, "stablehlo.negate", _binary(rw, "stablehlo.multiply", tan_a, tanh_b))
    denominator = rw.create("stablehlo.complex", [one, minus], t)
    return [rw.create("stablehlo.divide", [numerator, denominator], t)]


# ---- gather / scatter batching dims ------------------------------------------------------


def _merge_sorted(a: list[int], b: list[int]) -> list[int]:
    return sorted([*a, *b])


def _fits(size: int, element: IntegerType) -> bool:
    if element.is_unsigned:
        return 0 <= size < 2**element.width
    return -(2 ** (element.width - 1)) <= size < 2 ** (element.width - 1)


def _concat_indices(rw: Rewriter, indices: Value, index_vector_dim: int,
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
        indices = rw.create("stablehlo.convert", [indices], t)
    shape = list(t.shape)
    trailing = index_vector_dim == t.rank
    if trailing:
        shape.append(1)
    else:
        shape[index_vector_dim] = 1
    iota_type = TensorType(tuple(shape), element)
    if trailing:
        indices = rw.create("stablehlo.reshape", [indices], iota_type)
    pieces = [iota(rw, iota_type, dim) for dim in batching_dims]
    return concatenate(rw, [*pieces, indices], index_vector_dim)


def _dims(attr: Attribute, name: str) -> list[int]:
    return list(attr.get(name) or [])  # type: ignore[attr-defined]


def _sorted_after(sorted_before: bool, batching_dims: list[int], index_map: list[int]) -> bool:
    """Indices stay sorted when both the batching dims and the new index map are sorted."""
    return sorted_before and batching_dims == sorted(batching_dims) \
        and index_map == sorted(index_map)


def _bool(op: Operation, name: str) -> bool:
    attr = op.attr(name)
    return bool(attr.value) if attr is not None else False


def _gather(rw: Rewriter) -> list[Value] | None:
    op = rw.op
    dims = op.attr("dimension_numbers")
    operand_batching = _dims(dims, "operand_batching_dims")
    indices_batching = _dims(dims, "start_indices_batching_dims")
    if not operand_batching or not tensor(op.operands[1]).is_static:
        return None
    index_vector_dim = dims.get("index_vector_dim", 0)  # type: ignore[union-attr]
    index_map = [*operand_batching, *_dims(dims, "start_index_map")]
    indices = _concat_indices(rw, op.operands[1], index_vector_dim, indices_batching)
    numbers = struct_attr("gather", {
        "offset_dims": _dims(dims, "offset_dims"),
        "collapsed_slice_dims": _merge_sorted(operand_batching,
                                              _dims(dims, "collapsed_slice_dims")),
        "start_index_map": index_map, "index_vector_dim": index_vector_dim})
    sorted_ = _sorted_after(_bool(op, "indices_are_sorted"), indices_batching, index_map)
    properties = {"dimension_numbers": numbers, "slice_sizes": op.attr("slice_sizes"),
                  "indices_are_sorted": BoolAttr(sorted_)}
    return [rw.create("stablehlo.gather", [op.operands[0], indices], op.result_types[0],
                      properties)]


def _scatter(rw: Rewriter) -> list[Value] | None:
    op = rw.op
    dims = op.attr("scatter_dimension_numbers")
    count = (len(op.operands) - 1) // 2
    inputs, indices, updates = op.operands[:count], op.operands[count], op.operands[count + 1:]
    input_batching = _dims(dims, "input_batching_dims")
    indices_batching = _dims(dims, "scatter_indices_batching_dims")
    if not input_batching or not tensor(indices).is_static:
        return None
    index_vector_dim = dims.get("index_vector_dim", 0)  # type: ignore[union-attr]
    index_map = [*input_batching, *_dims(dims, "scatter_dims_to_operand_dims")]
    new_indices = _concat_indices(rw, indices, index_vector_dim, indices_batching)
    numbers = struct_attr("scatter", {
        "update_window_dims": _dims(dims, "update_window_dims"),
        "inserted_window_dims": _merge_sorted(input_batching,
                                              _dims(dims, "inserted_window_dims")),
        "scatter_dims_to_operand_dims": index_map, "index_vector_dim": index_vector_dim})
    sorted_ = _sorted_after(_bool(op, "indices_are_sorted"), indices_batching, index_map)
    properties = {"indices_are_sorted": BoolAttr(sorted_),
                  "scatter_dimension_numbers": numbers,
                  "unique_indices": BoolAttr(_bool(op, "unique_indices"))}
    new = create(rw, "stablehlo.scatter", [*inputs, new_indices, *updates], op.result_types,
                 properties, list(op.regions))
    op.regions = []
    return list(new.results)


# ---- constants -----------------------------------------------------------------------------


def _hoist_constants(module: Module) -> None:
    """Move the constants created here to the front of their isolated region's entry block
    (after the ones already moved), one per value and type."""
    for func in module.op.walk():
        if registry.lookup(func.name) is None or not registry.lookup(func.name).isolated:
            continue
        for region in func.regions:
            if region.blocks:
                _hoist_into(region.entry, region)


def _hoist_into(entry: Block, region: object) -> None:
    found: list[tuple[Block, Operation]] = []
    stack = [entry, *region.blocks[1:]]  # type: ignore[attr-defined]
    while stack:
        block = stack.pop()
        for op in block.operations:
            if op.attributes.pop(_HOISTED, None) is not None:
                found.append((block, op))
            elif not (registry.lookup(op.name) and registry.lookup(op.name).isolated):
                stack.extend(b for r in op.regions for b in r.blocks)
    if not found:
        return
    kept: dict[tuple[str, str], Operation] = {}
    replacements: dict[Value, Value] = {}
    for block, op in found:
        block.operations = [o for o in block.operations if o is not op]
        key = (str(op.attr("value")), str(op.result_types[0]))
        if key in kept:
            replacements[op.results[0]] = kept[key].results[0]
        else:
            kept[key] = op
    entry.operations[:0] = list(reversed(kept.values()))  # each one moved to the very front
    for op in kept.values():
        op.parent = entry
    if replacements:
        from ..ir.clone import replace_uses

        assert entry.parent is not None and entry.parent.parent is not None
        replace_uses(entry.parent.parent, replacements)
