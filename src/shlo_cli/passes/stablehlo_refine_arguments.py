"""`--stablehlo-refine-arguments='types=...'`: give the entry function more specific argument
types, keeping the body valid by routing each refined argument through a
`stablehlo.shape_refinement_operand_wrapper` custom call that still has the old type
(`--stablehlo-refine-shapes` later folds the wrappers away).

Facts from upstream's StablehloRefineArguments.cpp: which refinements are allowed and the
exact error texts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..ir import registry
from ..ir.attributes import DenseElementsAttr, StringAttr, TypeAttr
from ..ir.core import Module, Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.parser import parse_type_text
from ..ir.types import I64, FunctionType, OpaqueType, TensorType, Type, UnrankedTensorType
from . import PassOption, register_pass

OPERAND_WRAPPER = "stablehlo.shape_refinement_operand_wrapper"


def op_error(op: Operation, message: str) -> Diagnostic:
    """MLIR's emitOpError at `op`: the message prefixed with the op's name."""
    loc = op.location
    return Diagnostic(f"'{op.name}' op {message}", line=loc.line or 1, col=loc.col or 1)


def split_type_list(text: str) -> list[str]:
    """A comma-separated list of types; commas nested in `<>`, `()`, `[]`, `{}` stay."""
    items: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        items.append(text[start:].strip())
    return items


def target_function(module: Module) -> Operation | None:
    """The function refinement applies to: the only one, else `main` (upstream's rule);
    None for a module without functions (upstream then stops without a message)."""
    funcs = module.functions()
    if not funcs:
        return None
    target = funcs[0] if len(funcs) == 1 else module.lookup("main")
    if target is None or target.name != "func.func":
        raise op_error(module.op, "must have no more than one function or a `main` function "
                       "to clearly identify which function will be refined")
    if len(target.regions[0].blocks) != 1:
        raise op_error(target, "must have exactly one block")
    return target


def _refinement_error(func: Operation, index: int, old: Type, new: Type, what: str) -> Diagnostic:
    return op_error(func, f"invalid refinement for argument {index}, refinement {what} in "
                    f"{old} -> {new}")


def validate_refinements(func: Operation, old_types: Sequence[Type],
                         new_types: Sequence[Type]) -> None:
    """Raise upstream's diagnostic for the first refinement that is not a specialization."""
    if len(old_types) != len(new_types):
        raise op_error(func, "number of refinements must match number of op operands "
                       f"{len(new_types)} vs {len(old_types)}")
    for i, (old, new) in enumerate(zip(old_types, new_types, strict=True)):
        if old == new:
            continue
        tensors = (TensorType, UnrankedTensorType)
        if not isinstance(old, tensors) or not isinstance(new, tensors):
            raise _refinement_error(func, i, old, new, "must be a tensor")
        if old.element != new.element:
            raise _refinement_error(func, i, old, new, "element types must match")
        if isinstance(new, UnrankedTensorType):
            raise _refinement_error(func, i, old, new, "must be ranked")
        if isinstance(old, UnrankedTensorType):
            continue
        if old.rank != new.rank:
            raise _refinement_error(func, i, old, new, "rank must match operand rank")
        if any(a >= 0 and a != b for a, b in zip(old.shape, new.shape, strict=True)):
            raise _refinement_error(func, i, old, new,
                                    "dimension sizes must match for static dimensions")


def refine_arguments(func: Operation, new_types: Sequence[Type]) -> None:
    """Check the refinements, wrap each refined argument, and retype the function."""
    ftype: FunctionType = func.properties["function_type"].value
    validate_refinements(func, ftype.inputs, new_types)
    block = func.regions[0].entry
    at = 0
    for arg, new in zip(block.arguments, new_types, strict=True):
        if arg.type == new:
            continue
        assert isinstance(new, TensorType)
        loc = block.operations[0].location if block.operations else func.location
        shape = DenseElementsAttr(TensorType((new.rank,), I64),
                                  np.array(new.shape, dtype=np.int64))
        const = Operation("stablehlo.constant", [], [shape.type], {"value": shape},
                          location=loc, opdef=registry.lookup("stablehlo.constant"))
        wrapper = Operation(
            "stablehlo.custom_call", [arg, const.results[0]], [arg.type],
            {"call_target_name": StringAttr(OPERAND_WRAPPER)},
            {"indices_of_shape_operands": DenseElementsAttr(
                TensorType((1,), I64), np.array([1], dtype=np.int64))},
            location=loc, opdef=registry.lookup("stablehlo.custom_call"))
        _replace_uses(func, arg, wrapper.results[0], wrapper)
        for op in (const, wrapper):
            op.parent = block
            block.operations.insert(at, op)
            at += 1
    for arg, new in zip(block.arguments, new_types, strict=True):
        arg.type = new
    func.properties["function_type"] = TypeAttr(FunctionType(tuple(new_types),
                                                             tuple(ftype.results)))


def _replace_uses(func: Operation, old: Value, new: Value, keep: Operation) -> None:
    for op in func.walk():
        if op is not keep and any(v is old for v in op.operands):
            op.operands = [new if v is old else v for v in op.operands]


def parse_refined_types(module: Module, texts: Sequence[str]) -> list[Type]:
    types = []
    for text in texts:
        try:
            parsed = parse_type_text(text)
        except Diagnostic:
            parsed = None
        if parsed is None or isinstance(parsed, OpaqueType):
            raise op_error(module.op, f"Invalid type string: {text}")
        types.append(parsed)
    return types


@register_pass("stablehlo-refine-arguments",
               "Refines the argument shapes of the main function.",
               options=(PassOption("types", "The new types to be used for the main "
                                   "function's arguments, specified as an MLIR TypeRange "
                                   "'tensor<1x2xf32>, ...'", default=(),
                                   parse=split_type_list),))
def stablehlo_refine_arguments(module: Module, types: Sequence[str] = ()) -> None:
    func = target_function(module)
    if func is None:
        return
    refine_arguments(func, parse_refined_types(module, types))
