"""IR building shared by `hlo-expand`'s expanders.

Expanders rewrite one op at a time with the CHLO passes' `Rewriter` (it creates ops in front
of the op being replaced and makes splat constants of any shape); this module adds the
whole-tensor pieces they have in common: a sum reduction, broadcasts that follow dynamic
shapes, slices, reshapes, concatenation, iota, conversions, `#stablehlo.<struct>`
attributes, the located `cannot be expanded` diagnostic, and `expand_module`, which applies
one expander's rewrites to every op of a module (nested regions first)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...ir import registry
from ...ir.attributes import DenseArrayAttr, DialectAttr, IntegerAttr
from ...ir.clone import replace_uses
from ...ir.core import Block, Module, Operation, Region, Value
from ...ir.diagnostics import Diagnostic
from ...ir.parser import STRUCT_FIELD_ORDER
from ...ir.types import DYNAMIC, I64, IntegerType, TensorType, Type
from ...ir.verifier import op_error
from ..chlo_legalize import Rewriter, legalize_block

UI32 = IntegerType(32, "u")
UI64 = IntegerType(64, "u")

Rewrite = Callable[[Rewriter], "list[Value] | None"]


def expand_module(module: Module, rewrites: dict[str, Rewrite]) -> None:
    """Replace every op named in `rewrites` (nested regions included) by what its rewrite
    builds; a rewrite returning None keeps the op."""
    replacements: dict[Value, Value] = {}
    patterns = {name: [fn] for name, fn in rewrites.items()}
    for region in module.op.regions:
        for block in region.blocks:
            legalize_block(block, replacements, patterns)
    replace_uses(module.op, replacements)


def cannot_expand(op: Operation, flag: str, reason: str) -> Diagnostic:
    """The located error for an op an expander cannot rewrite (e.g. a dynamic shape its
    algorithm needs static)."""
    return op_error(op, f"cannot be expanded by --{flag}: {reason}")


def tensor(value: Value) -> TensorType:
    t = value.type
    assert isinstance(t, TensorType), t
    return t


def create(rw: Rewriter, name: str, operands: Sequence[Value], result_types: Sequence[Type],
           properties: dict[str, Any] | None = None,
           regions: list[Region] | None = None) -> Operation:
    """An op with any number of results or regions, placed like `rw.create`'s."""
    op = Operation(name, list(operands), list(result_types), dict(properties or {}), {},
                   regions, location=rw.op.location, opdef=registry.lookup(name))
    rw.ops.append(op)
    return op


def binary_region(rw: Rewriter, element: Type, name: str = "stablehlo.add") -> Region:
    """`^bb0(%a: tensor<T>, %b: tensor<T>): return name(%a, %b)`, a reducer body."""
    scalar = TensorType((), element)
    block = Block([scalar, scalar])
    body = Operation(name, list(block.arguments), [scalar], {}, {},
                     location=rw.op.location, opdef=registry.lookup(name))
    block.append(body)
    block.append(Operation("stablehlo.return", body.results, [], {}, {},
                           location=rw.op.location, opdef=registry.lookup("stablehlo.return")))
    return Region([block])


def reduce_sum(rw: Rewriter, x: Value, dims: Sequence[int]) -> Value:
    """Sum of `x` over `dims` (in x's element type, from a zero of that type)."""
    t = tensor(x)
    if not dims:
        return x
    result = TensorType(tuple(d for i, d in enumerate(t.shape) if i not in dims), t.element)
    op = create(rw, "stablehlo.reduce", [x, rw.scalar(0, t.element)], [result],
                {"dimensions": DenseArrayAttr(I64, tuple(sorted(dims)))},
                [binary_region(rw, t.element)])
    return op.results[0]


def broadcast_to(rw: Rewriter, value: Value, target: TensorType, dims: Sequence[int],
                 like: Value | None = None) -> Value:
    """broadcast_in_dim to a static `target`; for a dynamic one dynamic_broadcast_in_dim to
    the run-time shape of `like` (a value of the target's shape)."""
    if target.is_static:
        return rw.broadcast(value, target, tuple(dims))
    assert like is not None
    return rw.dynamic_broadcast(value, rw.shape_of(like), target, tuple(dims))


def convert(rw: Rewriter, x: Value, element: Type) -> Value:
    t = tensor(x)
    if t.element == element:
        return x
    return rw.create("stablehlo.convert", [x], t.with_element(element))


def cast_to(rw: Rewriter, x: Value, target: Type) -> Value:
    """`x` with exactly the type `target` (a shape-compatible type that knows more, or less,
    of the sizes), via an element-preserving convert when the types differ."""
    if x.type == target:
        return x
    return rw.create("stablehlo.convert", [x], target)


def bitcast(rw: Rewriter, x: Value, target: TensorType) -> Value:
    if tensor(x) == target:
        return x
    return rw.create("stablehlo.bitcast_convert", [x], target)


def reshape(rw: Rewriter, x: Value, shape: Sequence[int]) -> Value:
    t = tensor(x)
    if t.shape == tuple(shape):
        return x
    return rw.create("stablehlo.reshape", [x], t.with_shape(tuple(shape)))


def slice_(rw: Rewriter, x: Value, starts: Sequence[int], limits: Sequence[int]) -> Value:
    """x[starts:limits] with unit strides (static shapes)."""
    t = tensor(x)
    if tuple(starts) == (0,) * t.rank and tuple(limits) == t.shape:
        return x
    shape = tuple(b - a for a, b in zip(starts, limits, strict=True))
    return rw.create("stablehlo.slice", [x], t.with_shape(shape), {
        "start_indices": DenseArrayAttr(I64, tuple(starts)),
        "limit_indices": DenseArrayAttr(I64, tuple(limits)),
        "strides": DenseArrayAttr(I64, (1,) * t.rank)})


def concatenate(rw: Rewriter, xs: Sequence[Value], dim: int) -> Value:
    if len(xs) == 1:
        return xs[0]
    first = tensor(xs[0])
    shape = list(first.shape)
    sizes = [tensor(x).shape[dim] for x in xs]
    shape[dim] = DYNAMIC if DYNAMIC in sizes else sum(sizes)
    return rw.create("stablehlo.concatenate", list(xs), first.with_shape(tuple(shape)),
                     {"dimension": IntegerAttr(dim, I64)})


def iota(rw: Rewriter, t: TensorType, dim: int) -> Value:
    return rw.create("stablehlo.iota", [], t, {"iota_dimension": IntegerAttr(dim, I64)})


def transpose(rw: Rewriter, x: Value, permutation: Sequence[int]) -> Value:
    t = tensor(x)
    if list(permutation) == list(range(t.rank)):
        return x
    shape = tuple(t.shape[p] for p in permutation)
    return rw.create("stablehlo.transpose", [x], t.with_shape(shape),
                     {"permutation": DenseArrayAttr(I64, tuple(permutation))})


def struct_attr(name: str, fields: dict[str, Any]) -> DialectAttr:
    """`#stablehlo.<name><...>` (dot, gather, scatter) with upstream's field order, leaving
    out empty lists and zero integers as upstream's printer does."""
    order = STRUCT_FIELD_ORDER[name]
    kept = [(k, fields[k]) for k in order if k in fields and fields[k] not in ([], (), 0)]
    body = ", ".join(f"{k} = [{', '.join(map(str, v))}]" if isinstance(v, (list, tuple))
                     else f"{k} = {v}" for k, v in kept)
    return DialectAttr("stablehlo", name, body,
                       tuple((k, list(v) if isinstance(v, (list, tuple)) else v)
                             for k, v in kept))
