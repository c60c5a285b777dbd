"""The `shape` dialect ops that shape computations in StableHLO programs use (what
`--shape-legalize-to-stablehlo` rewrites, and what `--chlo-legalize-to-stablehlo` emits for
dynamically shaped broadcasts): `shape_of`, `num_elements`, `broadcast`,
`cstr_broadcastable`, `const_shape`, `const_witness`, `assuming` and `assuming_yield`, with
MLIR's assembly formats, folders and canonicalization patterns (facts from MLIR's
ShapeOps.td and Shape.cpp). Extents are `index` tensors (or the dialect's opaque
`!shape.shape` / `!shape.size` / `!shape.witness` types)."""

from __future__ import annotations

import numpy as np

from ..ir.attributes import BoolAttr, DenseElementsAttr
from ..ir.core import Block, Location, Operation, Value
from ..ir.diagnostics import EvaluationError
from ..ir.types import DYNAMIC, IndexType, OpaqueType, TensorType, UnrankedTensorType
from ..ir.verifier import op_error
from .registry import (
    OpDef,
    canonicalization,
    constant_materializer,
    declare_op,
    define_op,
    folder,
    lookup,
)
from .syntax import Custom

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing is not imported at start-up: this module is loaded then)
    from typing import Any

WITNESS = OpaqueType("!shape.witness")


def _parse_types(p: Any) -> list[Any]:
    types = [p.parse_type()]
    while p.accept(","):
        types.append(p.parse_type())
    return types


def _parse_mapping(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`$operands attr-dict : type($operands) -> type($result)` (no `->` for a witness)."""
    tok = p.tok
    operands = [p.parse_operand()]
    while p.accept(","):
        operands.append(p.parse_operand())
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    p.check_operand_types(operands, _parse_types(p), tok)
    if opdef.name == "shape.cstr_broadcastable":
        result = WITNESS
    else:
        p.expect("->")
        result = p.parse_type()
    return p.build_operation(opdef.name, opdef, operands, [result], {}, attributes, [], None,
                             location)


def _print_mapping(pr: Any, op: Operation) -> None:
    types = ", ".join(str(t) for t in op.operand_types)
    attrs = pr.attr_dict({**op.properties, **op.attributes})
    pr.write(" " + pr.operands(op.operands) + attrs + f" : {types}")
    if op.name != "shape.cstr_broadcastable":
        pr.write(f" -> {op.results[0].type}")


_MAPPING = Custom(_parse_mapping, _print_mapping)


def _extents(values: Any, result_type: Any) -> np.ndarray:
    """`values` as the result type holds them: an extent tensor of its (possibly dynamic)
    shape, a 1-d extent list for the opaque `!shape.shape`, else (`index`, `!shape.size`) a 0-d
    size."""
    out = np.asarray(values, dtype=np.int64)
    if isinstance(result_type, TensorType):
        try:
            return out.reshape([-1 if d == DYNAMIC else d for d in result_type.shape])
        except ValueError:
            raise EvaluationError(f"{out.size} extents do not fit the result type "
                                  f"{result_type}") from None
    return out.reshape(-1) if str(result_type) == "!shape.shape" else out.reshape(())


def _shape_tuples(shapes: tuple[np.ndarray, ...]) -> list[tuple[int, ...]]:
    """The operands as extent tuples; a negative extent is no shape."""
    out = [tuple(int(d) for d in np.asarray(s).reshape(-1)) for s in shapes]
    for shape in out:
        if any(d < 0 for d in shape):
            raise EvaluationError(f"negative extent in shape [{', '.join(map(str, shape))}]")
    return out


def verify_shape_of(op: Operation) -> None:
    """The result is the operand's extent tensor: `tensor<Rxindex>` (or `?`) for a ranked
    operand (upstream's inferred-type check), or the opaque `!shape.shape`."""
    arg, result = op.operands[0].type, op.results[0].type
    if not isinstance(arg, TensorType | UnrankedTensorType):
        raise op_error(op, f"operand #0 must be shaped of any type values, but got '{arg}'")
    if isinstance(arg, TensorType) and isinstance(result, TensorType) and (
            len(result.shape) != 1 or result.shape[0] not in (len(arg.shape), DYNAMIC)
            or not isinstance(result.element, IndexType)):
        raise op_error(op, f"inferred type(s) 'tensor<{len(arg.shape)}xindex>' are "
                           f"incompatible with return type(s) of operation '{result}'")


@define_op("shape.shape_of", operands=("arg",), results=1, syntax=_MAPPING, verify=verify_shape_of)
def shape_of(arg: np.ndarray, *, result_type: Any) -> np.ndarray:
    """The extents of `arg`."""
    return _extents(arg.shape, result_type)


@define_op("shape.num_elements", operands=("shape",), results=1, syntax=_MAPPING)
def num_elements(shape: np.ndarray, *, result_type: Any) -> np.ndarray:
    """The product of the extents."""
    return _extents(int(np.prod(np.asarray(shape, dtype=np.int64))), result_type)


@define_op("shape.broadcast", operands=("*shapes",), results=1, attributes=("error?",),
           syntax=_MAPPING)
def broadcast(*shapes: np.ndarray, result_type: Any) -> np.ndarray:
    """The numpy-style broadcast of the operand shapes."""
    tuples = _shape_tuples(shapes)
    try:
        out = np.broadcast_shapes(*tuples)
    except ValueError:
        raise EvaluationError("shapes " + ", ".join(
            "[" + ", ".join(map(str, t)) + "]" for t in tuples) + " do not broadcast") from None
    return _extents(out, result_type)


def _verify_cstr_broadcastable(op: Operation) -> None:
    if len(op.operands) < 2:
        raise op_error(op, "required at least 2 input shapes")


@define_op("shape.cstr_broadcastable", operands=("*shapes",), results=1, syntax=_MAPPING,
           verify=_verify_cstr_broadcastable)
def cstr_broadcastable(*shapes: np.ndarray) -> np.ndarray:
    """A witness: whether the shapes broadcast together."""
    try:
        np.broadcast_shapes(*_shape_tuples(shapes))
    except (ValueError, EvaluationError):
        return np.asarray(False)
    return np.asarray(True)


def _parse_const_shape(p: Any, opdef: OpDef, location: Location,
                       num_results: int) -> Operation:
    attributes = p.parse_optional_attr_dict()
    p.expect("[")
    extents: list[int] = []
    while not p.at("]"):
        tok = p.tok
        extent = p.parse_integer()
        if not -(1 << 63) <= extent < (1 << 63):  # an index: int64, as MLIR parses it
            raise p.error("integer value too large", tok)
        extents.append(extent)
        if not p.accept(","):
            break
    p.expect("]")
    p.expect(":")
    result = p.parse_type()
    value = DenseElementsAttr(TensorType((len(extents),), IndexType()),
                              np.array(extents, dtype=np.int64))
    return p.build_operation(opdef.name, opdef, [], [result], {"shape": value}, attributes,
                             [], None, location)


def _print_const_shape(pr: Any, op: Operation) -> None:
    extents = ", ".join(str(int(d)) for d in op.properties["shape"].value.reshape(-1))
    # MLIR prints a space, then the optional dictionary (with its own leading space), then
    # the extents: `shape.const_shape  {a = 1}[4, 8]` when attributes are present.
    pr.write(" " + pr.attr_dict(op.attributes) + f"[{extents}] : {op.results[0].type}")


@define_op("shape.const_shape", operands=(), results=1, attributes=("shape",),
           syntax=Custom(_parse_const_shape, _print_const_shape))
def const_shape(*, shape: np.ndarray, result_type: Any) -> np.ndarray:
    return _extents(shape, result_type)



# ---- constants: shape.const_witness, the dialect's constant materializer ------------------


def _parse_const_witness(p: Any, opdef: OpDef, location: Location,
                         num_results: int) -> Operation:
    tok = p.tok
    value = p.parse_attribute()
    if not isinstance(value, BoolAttr):
        raise p.error("expected a bool attribute for 'passing'", tok)
    attributes = p.parse_optional_attr_dict()
    return p.build_operation(opdef.name, opdef, [], [WITNESS], {"passing": value}, attributes,
                             [], None, location)


def _print_const_witness(pr: Any, op: Operation) -> None:
    pr.write(f" {op.properties['passing']}" + pr.attr_dict(op.attributes))


@define_op("shape.const_witness", operands=(), results=1, attributes=("passing",),
           syntax=Custom(_parse_const_witness, _print_const_witness))
def const_witness(*, passing: Any) -> np.ndarray:
    """A witness known when the program was built."""
    return np.asarray(bool(getattr(passing, "value", passing)))


def _extent_attr(extents: Any) -> DenseElementsAttr:
    values = [int(d) for d in extents]
    return DenseElementsAttr(TensorType((len(values),), IndexType()),
                             np.array(values, dtype=np.int64))


def _is_extent_tensor(t: Any) -> bool:
    return isinstance(t, TensorType) and t.rank == 1 and isinstance(t.element, IndexType)


@constant_materializer("shape")
def materialize_constant(value: Any, type: Any, location: Location) -> Operation | None:
    """MLIR's ShapeDialect::materializeConstant: extents as `const_shape`, a bool as a
    `const_witness`."""
    if isinstance(value, DenseElementsAttr) and (_is_extent_tensor(type)
                                                 or str(type) == "!shape.shape"):
        return Operation("shape.const_shape", [], [type], {"shape": value}, location=location,
                         opdef=lookup("shape.const_shape"))
    if isinstance(value, BoolAttr) and type == WITNESS:
        return Operation("shape.const_witness", [], [type], {"passing": value},
                         location=location, opdef=lookup("shape.const_witness"))
    return None


@folder("shape.const_shape")
def _fold_const_shape(op: Operation, constants: list[Any]) -> Any:
    return op.properties["shape"]


@folder("shape.const_witness")
def _fold_const_witness(op: Operation, constants: list[Any]) -> Any:
    return op.properties["passing"]


# ---- folders and canonicalization patterns of the shape computations ----------------------


def _constants_last(op: Operation, constants: list[Any]) -> Value | None:
    """The Commutative trait's fold: constant operands move behind the others (stable), in
    place; None when nothing moved."""
    if len(op.operands) < 2:
        return None
    pairs = list(zip(op.operands, constants, strict=True))
    order = [v for v, c in pairs if c is None] + [v for v, c in pairs if c is not None]
    if all(a is b for a, b in zip(order, op.operands, strict=True)):
        return None
    op.operands = order
    return op.results[0]


def _extents_of(attr: Any) -> list[int]:
    return [int(d) for d in np.asarray(attr.value).reshape(-1)]


def _broadcast_pair(a: list[int], b: list[int]) -> list[int] | None:
    """The numpy broadcast of two extent lists (MLIR's getBroadcastedShape on known sizes);
    None when they do not broadcast."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return out[::-1]


def _statically_broadcastable(shapes: list[list[int]]) -> bool:
    """MLIR's staticallyKnownBroadcastable: per trailing-aligned column, all 1 or one size,
    a dynamic extent only among 1s."""
    for i in range(max((len(s) for s in shapes), default=0)):
        seen_dynamic, other = False, None
        for extents in shapes:
            dim = extents[-1 - i] if i < len(extents) else 1
            if dim == 1:
                continue
            if dim == DYNAMIC:
                if seen_dynamic or other is not None:
                    return False
                seen_dynamic = True
            if other is not None and dim != other:
                return False
            other = dim
    return True


def _shape_vector(value: Value, constant: Any) -> list[int] | None:
    """MLIR's getShapeVec: a constant's extents, or a ranked `shape_of` operand's sizes."""
    if constant is not None:
        return _extents_of(constant)
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "shape.shape_of":
        t = owner.operands[0].type
        if isinstance(t, TensorType):
            return list(t.shape)
    return None


@folder("shape.shape_of")
def _fold_shape_of(op: Operation, constants: list[Any]) -> Any:
    t, result = op.operands[0].type, op.results[0].type
    if not isinstance(t, TensorType) or not t.is_static:
        return None
    if isinstance(result, TensorType) and result.shape != (t.rank,):
        return None  # a tensor<?xindex> result would need a cast
    return _extent_attr(t.shape)


@folder("shape.broadcast")
def _fold_broadcast(op: Operation, constants: list[Any]) -> Any:
    if len(op.operands) == 1:
        return op.operands[0] if op.operands[0].type == op.results[0].type else None
    if len(op.operands) == 2 and all(c is not None for c in constants):
        out = _broadcast_pair(_extents_of(constants[0]), _extents_of(constants[1]))
        if out is not None:
            return _extent_attr(out)
    return _constants_last(op, constants)


@folder("shape.cstr_broadcastable")
def _fold_cstr_broadcastable(op: Operation, constants: list[Any]) -> Any:
    """Passing when at most one shape is not a scalar, or when the constant (or shape_of)
    extents broadcast statically; a failing witness is never folded (a run-time error)."""
    non_scalar = sum(1 for c in constants if c is None or np.asarray(c.value).size != 0)
    if non_scalar <= 1:
        return BoolAttr(True)
    vectors = [_shape_vector(v, c) for v, c in zip(op.operands, constants, strict=True)]
    if all(v is not None for v in vectors) and _statically_broadcastable(vectors):  # type: ignore
        return BoolAttr(True)
    return _constants_last(op, constants)


def _replace_with_shapes(op: Operation, rewriter: Any, operands: list[Value]) -> None:
    rewriter.replace_op_with(op, op.name, operands, dict(op.properties), dict(op.attributes))


def _defining(value: Value, name: str) -> Operation | None:
    owner = value.owner
    return owner if isinstance(owner, Operation) and owner.name == name else None


@canonicalization("shape.broadcast")
def broadcast_concretize_result_type(op: Operation, rewriter: Any) -> bool:
    """A `tensor<?xindex>` result gets the largest operand rank, cast back."""
    result = op.results[0].type
    if not isinstance(result, TensorType) or result.shape != (DYNAMIC,):
        return False
    rank = 0
    for value in op.operands:
        t = value.type
        if isinstance(t, TensorType):
            if t.shape[0] == DYNAMIC:
                return False
            rank = max(rank, t.shape[0])
    rewriter.set_insertion_point(op)
    new = rewriter.create("shape.broadcast", op.operands, [TensorType((rank,), IndexType())],
                          location=op.location)
    rewriter.replace_op_with(op, "tensor.cast", [new.results[0]])
    return True


@canonicalization("shape.broadcast")
def broadcast_fold_constant_operands(op: Operation, rewriter: Any) -> bool:
    """Two or more `const_shape` operands become one (their broadcast), placed last."""
    folded: list[int] = []
    kept = []
    for value in op.operands:
        constant = _defining(value, "shape.const_shape")
        if constant is not None:
            merged = _broadcast_pair(folded, _extents_of(constant.properties["shape"]))
            if merged is not None:
                folded = merged
                continue
        kept.append(value)
    if len(op.operands) - len(kept) < 2:
        return False
    rewriter.set_insertion_point(op)
    constant = rewriter.create("shape.const_shape", [],
                               [TensorType((len(folded),), IndexType())],
                               {"shape": _extent_attr(folded)}, location=op.location)
    rewriter.replace_op_with(op, "shape.broadcast", [*kept, constant.results[0]])
    return True


@canonicalization("shape.broadcast")
def broadcast_forward_single_operand(op: Operation, rewriter: Any) -> bool:
    if len(op.operands) != 1:
        return False
    value, result = op.operands[0], op.results[0].type
    if value.type != result:
        if not isinstance(result, TensorType) or not isinstance(value.type, TensorType):
            return False  # !shape.shape needs from_extent_tensor (not modelled)
        rewriter.set_insertion_point(op)
        value = rewriter.create("tensor.cast", [value], [result],
                                location=op.location).results[0]
    rewriter.replace_op(op, [value])
    return True


def _uncast_extent_operands(op: Operation, rewriter: Any) -> bool:
    """A `tensor.cast` to `tensor<?xindex>` holds no shape information: use its source."""
    changed = False
    operands = []
    for value in op.operands:
        cast = _defining(value, "tensor.cast")
        if cast is not None and isinstance(value.type, TensorType) \
                and value.type.shape[0] == DYNAMIC:
            value = cast.operands[0]
            changed = True
        operands.append(value)
    if changed:
        rewriter.replace_op_with(op, op.name, operands)
    return changed


def _remove_duplicate_operands(op: Operation, rewriter: Any) -> bool:
    unique = list(dict.fromkeys(op.operands))
    if len(unique) == len(op.operands):
        return False
    _replace_with_shapes(op, rewriter, unique)
    return True


def _remove_empty_shape_operands(op: Operation, rewriter: Any) -> bool:
    def maybe_nonempty(value: Value) -> bool:
        t = value.type
        if isinstance(t, TensorType) and t.shape[0] == 0:
            return False
        constant = _defining(value, "shape.const_shape")
        return constant is None or np.asarray(constant.properties["shape"].value).size != 0

    kept = [v for v in op.operands if maybe_nonempty(v)]
    if len(kept) == len(op.operands):
        return False
    _replace_with_shapes(op, rewriter, kept)
    return True


@canonicalization("shape.broadcast")
def broadcast_uncast_operands(op: Operation, rewriter: Any) -> bool:
    return _uncast_extent_operands(op, rewriter)


@canonicalization("shape.broadcast")
def broadcast_remove_duplicate_operands(op: Operation, rewriter: Any) -> bool:
    return _remove_duplicate_operands(op, rewriter)


@canonicalization("shape.broadcast")
def broadcast_remove_empty_shape_operands(op: Operation, rewriter: Any) -> bool:
    return _remove_empty_shape_operands(op, rewriter)


@canonicalization("shape.cstr_broadcastable")
def cstr_broadcastable_uncast_operands(op: Operation, rewriter: Any) -> bool:
    return _uncast_extent_operands(op, rewriter)


@canonicalization("shape.cstr_broadcastable")
def cstr_broadcastable_of_equal_shapes(op: Operation, rewriter: Any) -> bool:
    """One shape many times is trivially broadcastable."""
    if any(v is not op.operands[0] for v in op.operands):
        return False
    rewriter.replace_op_with(op, "shape.const_witness", [], {"passing": BoolAttr(True)})
    return True


@canonicalization("shape.cstr_broadcastable")
def cstr_broadcastable_remove_duplicate_operands(op: Operation, rewriter: Any) -> bool:
    return _remove_duplicate_operands(op, rewriter)


@canonicalization("shape.cstr_broadcastable")
def cstr_broadcastable_remove_empty_shape_operands(op: Operation, rewriter: Any) -> bool:
    return _remove_empty_shape_operands(op, rewriter)


# ---- shape.assuming / shape.assuming_yield ----------------------------------------------
# `shape.assuming %w -> (types) { ... } attr-dict`; the yield is elided when there are no
# results (SingleBlockImplicitTerminator).


def _parse_assuming(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    witness = p.parse_operand()
    p.check_operand_types([witness], [WITNESS], tok)
    result_types = p.parse_function_result_types() if p.accept("->") else []
    region = p.parse_region()
    if not region.blocks:
        region.add_block(Block())
    block = region.blocks[-1]
    if not block.operations or block.operations[-1].name != "shape.assuming_yield":
        block.append(Operation("shape.assuming_yield", [], [], location=location,
                               opdef=lookup("shape.assuming_yield")))
    attributes = p.parse_optional_attr_dict()
    return p.build_operation(opdef.name, opdef, [witness], result_types, {}, attributes,
                             [region], None, location)


def _print_assuming(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands))
    if op.results:
        pr.write(" -> (" + ", ".join(str(t) for t in op.result_types) + ")")
    pr.write(" ")
    block = op.regions[0].blocks[0] if op.regions[0].blocks else None
    yield_op = block.operations[-1] if block is not None and block.operations else None
    if op.results or yield_op is None or yield_op.operands:
        pr.print_region(op.regions[0], print_entry_args=False)
    else:  # the terminator is implied
        block.operations.pop()  # type: ignore[union-attr]
        try:
            pr.print_region(op.regions[0], print_entry_args=False)
        finally:
            block.operations.append(yield_op)  # type: ignore[union-attr]
    pr.write(pr.attr_dict(op.attributes))


def _verify_assuming(op: Operation) -> None:
    region = op.regions[0]
    if len(region.blocks) != 1:
        raise op_error(op, "expects region #0 to have 0 or 1 blocks")
    terminator = region.blocks[0].terminator
    if terminator is None or terminator.name != "shape.assuming_yield":
        raise op_error(op, "expects regions to end with 'shape.assuming_yield'")
    # RegionBranchOpInterface's check of the edge from the region to the results
    yielded = [v.type for v in terminator.operands]
    edge = "region control flow edge from Region #0 to parent results"
    if len(yielded) != len(op.results):
        raise op_error(op, f" {edge}: source has {len(yielded)} operands, but target "
                           f"successor needs {len(op.results)}")
    for i, (source, target) in enumerate(zip(yielded, op.result_types, strict=True)):
        if source != target:
            raise op_error(op, f" along control flow edge from Region #0 to parent results: "
                               f"source type #{i} '{source}' should match input type #{i} "
                               f"'{target}'")


@define_op("shape.assuming", operands=("witness",), results="*", regions=("doRegion",),
           syntax=Custom(_parse_assuming, _print_assuming), verify=_verify_assuming)
def assuming(witness: np.ndarray, *, doRegion: Any) -> Any:  # noqa: N803 (ODS name)
    """Runs the region when the witness passed; a failed witness is the run-time assertion
    failure its `cstr_*` op stands for."""
    if not bool(np.asarray(witness)):
        raise EvaluationError("the witness of 'shape.assuming' failed: its shapes do not "
                              "broadcast")
    values = doRegion()
    return values[0] if len(values) == 1 else tuple(values)


def _parse_yield(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    attributes = p.parse_optional_attr_dict()
    operands = []
    if p.tok.text.startswith("%"):
        operands = p.parse_operand_list()
        p.expect(":")
        p.check_operand_types(operands, p.parse_type_list(), tok)
    return p.build_operation(opdef.name, opdef, operands, [], {}, attributes, [], None,
                             location)


def _print_yield(pr: Any, op: Operation) -> None:
    pr.write(pr.attr_dict(op.attributes))
    if op.operands:
        pr.write(" " + pr.operands(op.operands) + " : "
                 + ", ".join(str(t) for t in op.operand_types))


def _verify_yield(op: Operation) -> None:
    block = op.parent
    region = block.parent if block is not None else None
    parent = region.parent if region is not None else None
    if parent is None or parent.name != "shape.assuming":
        raise op_error(op, "expects parent op 'shape.assuming'")


declare_op("shape.assuming_yield", operands=("*operands",), results=0,
           syntax=Custom(_parse_yield, _print_yield), verify=_verify_yield, terminator=True)


@canonicalization("shape.assuming")
def assuming_remove_unused_results(op: Operation, rewriter: Any) -> bool:
    """Results nobody uses are no longer yielded."""
    block = op.regions[0].blocks[0]
    yield_op = block.operations[-1]
    used = [rewriter.has_uses(r) for r in op.results]
    if all(used):
        return False
    rewriter.set_operands(yield_op, [v for v, u in zip(yield_op.operands, used, strict=True)
                                     if u])
    region = op.regions[0]
    op.regions = []
    rewriter.set_insertion_point(op)
    new = rewriter.create("shape.assuming", list(op.operands),
                          [r.type for r, u in zip(op.results, used, strict=True) if u],
                          {}, dict(op.attributes), [region], location=op.location)
    values = iter(new.results)
    for result, u in zip(op.results, used, strict=True):
        if u:
            rewriter.replace_all_uses_with(result, next(values))
    rewriter.erase_op(op)
    return True


@canonicalization("shape.assuming")
def assuming_with_true(op: Operation, rewriter: Any) -> bool:
    """A passing constant witness: the region's ops take the assuming's place."""
    witness = _defining(op.operands[0], "shape.const_witness")
    if witness is None or not witness.properties["passing"].value:
        return False
    block = op.regions[0].blocks[0]
    yield_op = block.operations[-1]
    values = list(yield_op.operands)
    rewriter.inline_block_before(block, op)
    rewriter.replace_op(op, values)
    rewriter.erase_op(yield_op)
    return True
