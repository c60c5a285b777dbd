"""Verifiers of `if`, `case`, `composite` and `custom_call`, in upstream's order and wording.

`if` and `case` infer their result types from the branches (inferConditionalOp), so their
failures carry MLIR's second `failed to infer returned types` error. `composite` checks its
decomposition as a symbol use, after the whole module has verified. `custom_call` has only
its own verify(): layouts, output/operand aliases, backend_config and buffer custom calls.
"""

from __future__ import annotations

from ...ir import regex_programs
from ...ir.attributes import ArrayAttr, DenseElementsAttr, DictAttr, IntegerAttr, StringAttr
from ...ir.core import Module, Operation
from ...ir.types import (
    DYNAMIC,
    FunctionType,
    TensorType,
    TokenType,
    TupleType,
    Type,
    UnrankedTensorType,
)
from ...ir.verifier import (
    SYMBOL_USE_VERIFIERS,
    inference_error,
    inferred_type_mismatch,
    op_error,
)
from .elementwise_verify import compatible, quoted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# ---- if / case ------------------------------------------------------------------------------

# ODS HLO_TensorOrPerAxisQuantizedTensorOrToken, as MLIR words a violated constraint.
_RESULT_CONSTRAINT = (
    "variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit "
    "integer or complex type with 32-bit float or 64-bit float elements or per-tensor "
    "integer quantized or per-axis integer quantized values or token")


def _check_branch_result_types(op: Operation) -> None:
    """ODS: every result is a tensor, a token or a tuple (buffers are not values here)."""
    for index, t in enumerate(op.result_types):
        if not isinstance(t, (TensorType, UnrankedTensorType, TokenType, TupleType)):
            raise op_error(op, f"result #{index} must be {_RESULT_CONSTRAINT}, but got '{t}'")


def least_specific(types: Sequence[Type]) -> Type:
    """inferLeastSpecificType of compatible types: per dimension, sizes that differ become
    `?`; an unranked input makes the result unranked; tuples are merged element-wise."""
    first = types[0]
    if all(isinstance(t, TupleType) for t in types):
        return TupleType(tuple(least_specific([t.types[i] for t in types])
                               for i in range(len(first.types))))
    for t in types:
        if isinstance(t, UnrankedTensorType):
            return t
    if not all(isinstance(t, TensorType) and t.rank == getattr(first, "rank", -1)
               for t in types):
        return first
    shape = [d if all(t.shape[i] == d for t in types) else DYNAMIC
             for i, d in enumerate(first.shape)]
    if shape == list(first.shape):
        return first
    return TensorType(tuple(shape), first.element, None)


def _infer_conditional(op: Operation) -> list[Type]:
    """inferConditionalOp: a 0-d selector, at least one branch, branches without arguments
    whose results agree; the result types are the least specific of the branches'."""
    selector = op.operand_types[0] if op.operands else None
    if isinstance(selector, TensorType) and selector.rank != 0:
        raise inference_error(op, f"operand should be rank 0 tensor but got rank "
                                  f"{selector.rank}")
    branches = op.regions
    if not branches:
        raise inference_error(op, "expect at least one branch")
    for region in branches:
        if not region.blocks:
            raise inference_error(op, "expect non-empty region")
    returned = []
    for region in branches:
        terminator = region.entry.terminator
        returned.append(list(terminator.operand_types) if terminator is not None else [])
    for i, region in enumerate(branches):
        arguments = region.entry.arguments
        if arguments:
            raise inference_error(op, f"branch {i} must have 0 arguments, but found "
                                      f"{len(arguments)}")
        if len(returned[i]) != len(returned[0]) or not all(
                compatible(a, b) for a, b in zip(returned[0], returned[i], strict=False)):
            raise inference_error(op, f"branch 0 and branch {i} have mismatched return "
                                      f"types: {quoted(returned[0])} vs {quoted(returned[i])}")
    return [least_specific([types[k] for types in returned]) for k in range(len(returned[0]))]


def verify_conditional(op: Operation) -> None:
    """IfOp / CaseOp: ODS result types, then the inferred types against the declared ones."""
    _check_branch_result_types(op)
    inferred = _infer_conditional(op)
    results = op.result_types
    if len(inferred) != len(results) or not all(
            compatible(a, b) for a, b in zip(inferred, results, strict=False)):
        raise inferred_type_mismatch(op, quoted(inferred))


# ---- composite ------------------------------------------------------------------------------

# A namespaced op name: a dialect prefix, then dot-separated parts.
_NAMESPACED = regex_programs.compile(r"[a-zA-Z][a-zA-Z0-9_]*(\.[a-zA-Z0-9_$]+)+")


def verify_composite_symbol_uses(op: Operation, module: Module) -> None:
    """verifyCompositeOp: a namespaced name and a decomposition function whose signature
    is the op's."""
    name = op.attr("name")
    if not isinstance(name, StringAttr) or not _NAMESPACED.fullmatch(name.value):
        raise op_error(op, "name must be a valid namespaced op name")
    decomposition = op.attr("decomposition")
    symbol = getattr(decomposition, "root", None)
    target = module.lookup(symbol) if symbol is not None else None
    if target is None or target.name != "func.func":
        raise op_error(op, f"'{symbol}' does not reference a valid function")
    ftype = getattr(target.attr("function_type"), "value", None)
    if not isinstance(ftype, FunctionType):
        return
    _check_signature(op, "operand", op.operand_types, ftype.inputs)
    _check_signature(op, "result", op.result_types, ftype.results)


def _check_signature(op: Operation, kind: str, ours: Sequence[Type],
                     theirs: Sequence[Type]) -> None:
    if len(ours) != len(theirs):
        raise op_error(op, f"has {len(ours)} {kind}(s), but decomposition has {len(theirs)}")
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if a != b:
            raise op_error(op, f"{kind} at index {i} has type '{a}', but decomposition has "
                               f"type '{b}'")


SYMBOL_USE_VERIFIERS["stablehlo.composite"] = verify_composite_symbol_uses


# ---- custom_call ----------------------------------------------------------------------------

_API_VERSIONS = {0: "API_VERSION_UNSPECIFIED", 1: "API_VERSION_ORIGINAL",
                 2: "API_VERSION_STATUS_RETURNING", 3: "API_VERSION_STATUS_RETURNING_UNIFIED",
                 4: "API_VERSION_TYPED_FFI"}
_TYPED_FFI = 4


def is_buffer(t: Type) -> bool:
    """A memref: custom calls may create, pin and pass buffers."""
    return str(t).startswith("memref<")


def verify_custom_call(op: Operation) -> None:
    _check_layouts(op)
    aliases = _check_aliases(op)
    _check_backend_config(op)
    _check_buffers(op, aliases)


def _check_layouts(op: Operation) -> None:
    operand_layouts = op.attr("operand_layouts")
    result_layouts = op.attr("result_layouts")
    if operand_layouts is None and result_layouts is None:
        return
    if (operand_layouts is None) != (result_layouts is None):
        raise op_error(op, "Layout attributes should be specified for either both operands "
                           "and results or none.")
    results = op.result_types
    if len(results) == 1 and isinstance(results[0], TupleType):
        results = list(results[0].types)
    _check_types_and_layouts(op, op.operand_types, operand_layouts, "operand")
    _check_types_and_layouts(op, results, result_layouts, "result")


def _check_types_and_layouts(op: Operation, types: Sequence[Type], layouts: object,
                             kind: str) -> None:
    elements = layouts.elements if isinstance(layouts, ArrayAttr) else []
    if len(types) != len(elements):
        raise op_error(op, f"Number of {kind}s must match the number of {kind} layouts, "
                           f"{len(types)} != {len(elements)}")
    for index, (t, layout) in enumerate(zip(types, elements, strict=True)):
        if isinstance(t, TupleType):
            raise op_error(op, "Tuple types are not fully supported with layout constraints "
                               "yet")
        dims = ([int(x) for x in layout.value.reshape(-1)]
                if isinstance(layout, DenseElementsAttr) else [])
        if not isinstance(t, (TensorType, UnrankedTensorType)):
            if not dims:
                continue
            raise op_error(op, f"Only tensor types can have non-empty layout: {kind} #{index} "
                               f"of type '{t}' has layout {layout}")
        if isinstance(t, UnrankedTensorType):
            continue
        if sorted(dims) != list(range(t.rank)):
            raise op_error(op, f"incorrect layout {layout} for type '{t}', layout must be a "
                               f"permutation of [0, {t.rank})")


def _indices(value: object) -> list[int]:
    return [int(i) for i in value] if isinstance(value, (list, tuple)) else []


def _check_aliases(op: Operation) -> list[tuple[list[int], int, list[int], Type]]:
    """Each output_operand_alias names an operand part and an output part of one type;
    returns (output indices, operand index, operand indices, type) per alias."""
    aliases = op.attr("output_operand_aliases")
    checked = []
    for alias in aliases.elements if isinstance(aliases, ArrayAttr) else []:
        output_indices = _indices(alias.get("output_tuple_indices", []))
        operand_index = int(alias.get("operand_index", 0))
        operand_indices = _indices(alias.get("operand_tuple_indices", []))
        if not 0 <= operand_index < len(op.operands):
            raise op_error(op, "expects operandIndex in the output_operand_alias attribute to "
                               f"be in range [0, {len(op.operands)}); got: {operand_index}.")
        operand_part = op.operand_types[operand_index]
        for i in operand_indices:
            if not isinstance(operand_part, TupleType) or not 0 <= i < len(operand_part.types):
                raise op_error(op, "operand_tuple_indices in the output_operand_alias "
                                   "attribute out of bounds")
            operand_part = operand_part.types[i]
        results = op.result_types
        output_part = TupleType(tuple(results)) if len(results) > 1 else (
            results[0] if results else TupleType(()))
        for i in output_indices:
            if not isinstance(output_part, TupleType) or not 0 <= i < len(output_part.types):
                raise op_error(op, "output_tuple_indices in the output_operand_alias attribute "
                                   "out of bounds")
            output_part = output_part.types[i]
        if operand_part != output_part:
            raise op_error(op, "shapes mismatch in the output_operand_alias attribute: operand "
                               f"part has type '{operand_part}' and output part has type "
                               f"'{output_part}'")
        checked.append((output_indices, operand_index, operand_indices, output_part))
    return checked


def _check_backend_config(op: Operation) -> None:
    """Typed-FFI calls take a dictionary backend_config; the older APIs take a string."""
    config = op.attr("backend_config")
    if config is None:
        return
    version_attr = op.attr("api_version")
    version = int(version_attr.value) if isinstance(version_attr, IntegerAttr) else 1
    name = _API_VERSIONS.get(version)
    if name is None:
        return
    if version == _TYPED_FFI:
        if not isinstance(config, DictAttr):
            raise op_error(op, f"backend_config for api_version {name} must be a dictionary "
                               "attribute")
    elif not isinstance(config, StringAttr):
        raise op_error(op, f"backend_config for api_version {name} must be a string attribute")


def _paths(t: Type, prefix: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], Type]]:
    """Every non-tuple leaf of `t` with its tuple index path."""
    if isinstance(t, TupleType):
        return [leaf for i, e in enumerate(t.types) for leaf in _paths(e, (*prefix, i))]
    return [(prefix, t)]


def _check_buffers(op: Operation, aliases: list[tuple[list[int], int, list[int], Type]]) -> None:
    """Buffer custom calls: `CreateBuffer` makes a buffer from nothing, `Pin` turns a tensor
    into a buffer and `Unpin` back; any other call may only return a buffer it was given,
    each aliased to exactly one buffer operand part."""
    target = op.attr("call_target_name")
    name = target.value if isinstance(target, StringAttr) else ""
    results = op.result_types
    if name == "CreateBuffer":
        if op.operands:
            raise op_error(op, "CreateBuffer custom_call shouldn't have any inputs")
        if len(results) != 1 or not is_buffer(results[0]):
            raise op_error(op, "CreateBuffer custom_call should have a memref output")
        return
    if name == "Pin":
        if len(results) != 1 or not is_buffer(results[0]):
            raise op_error(op, "Pin custom_call should have a memref output")
        return
    if name == "Unpin":
        operands = op.operand_types
        if (len(operands) != 1 or len(results) != 1 or not is_buffer(operands[0])
                or not isinstance(results[0], TensorType)
                or str(operands[0])[len("memref"):] != str(results[0])[len("tensor"):]):
            raise op_error(op, "Unpin custom_call should have compatible input and output "
                               "types")
        return
    used_operands: set[tuple[int, ...]] = set()
    used_outputs: set[tuple[int, ...]] = set()
    for output_indices, operand_index, operand_indices, part in aliases:
        if not is_buffer(part):
            continue
        operand_key = (operand_index, *operand_indices)
        if operand_key in used_operands:
            raise op_error(op, f"buffer operand {operand_index}{_listed(operand_indices)} is "
                               "used in output_operand_alias more than once")
        used_operands.add(operand_key)
        if tuple(output_indices) in used_outputs:
            raise op_error(op, f"buffer output {_listed(output_indices)} is used in "
                               "output_operand_alias more than once")
        used_outputs.add(tuple(output_indices))
    output = TupleType(tuple(results)) if len(results) > 1 else (
        results[0] if results else TupleType(()))
    for path, t in _paths(output):
        if is_buffer(t) and path not in used_outputs:
            raise op_error(op, f"buffer output {_listed(path)} is not used in "
                               "output_operand_alias")


def _listed(indices: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, indices)) + "]"
