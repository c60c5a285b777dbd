"""`--stablehlo-refine-shapes`: propagate static shapes through the entry function, with
partial evaluation of integer shape computations, and into the functions it calls.

Facts from upstream's StablehloRefineShapes.cpp: the entry function is the only function or
`main`; patterns run with the greedy driver (top-down, two iterations); a call refines its
callee for the call's argument types, first turning leading scalar integer constants
("dimension arguments", after any leading tokens) into constants inside the callee and
dropping them from both; a callee is refined once per context, and a different context or a
recursive refinement is an error; a call whose callee returns only integer constants and has
no effects becomes those constants.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir import registry
from ..ir.attributes import ArrayAttr, DenseElementsAttr, TypeAttr
from ..ir.core import Module, Operation
from ..ir.diagnostics import Diagnostic
from ..ir.types import (
    FunctionType,
    IndexType,
    IntegerType,
    TensorType,
    TokenType,
    Type,
    numpy_dtype,
)
from . import DeferredErrors, register_pass
from .effects import has_no_effect
from .rewrite import GreedyConfig, PatternRewriter, RewritePattern, apply_patterns_greedily
from .shape_facts import constant_attr, match_ints, op_error
from .shape_folder import SHAPE_FOLDER_PATTERNS
from .shape_refinement import OP_PATTERNS, refine_result_types
from .stablehlo_refine_arguments import refine_arguments, target_function

CONFIG = GreedyConfig(top_down=True, max_iterations=2, region_dce=True)


def symbol_name(op: Operation, attr: str = "sym_name") -> str:
    """The symbol an op names in `attr` (its own name by default); "" when absent."""
    found = op.attr(attr)
    return str(found.value) if found is not None else ""


@dataclass(frozen=True)
class RefinementKey:
    """A function with the context it is refined for."""

    func: Operation
    leading_tokens: int
    global_constants: tuple[int, ...]
    argument_types: tuple[Type, ...]

    @property
    def name(self) -> str:
        return symbol_name(self.func)

    def non_constant_types(self) -> list[Type]:
        return [TokenType()] * self.leading_tokens + list(self.argument_types)

    def __str__(self) -> str:
        return (f"RefinementKey({self.name}, toks={self.leading_tokens}, dim_args=["
                f"{', '.join(map(str, self.global_constants))}], fn_args=["
                f"{', '.join(map(str, self.argument_types))}])")


@dataclass
class RefineState:
    module: Module
    errors: list[Diagnostic] = field(default_factory=list)
    contexts: dict[str, RefinementKey] = field(default_factory=dict)
    stack: list[str] = field(default_factory=list)
    effect_free: dict[str, bool] = field(default_factory=dict)

    def error(self, diag: Diagnostic) -> bool:
        self.errors.append(diag)
        return False

    def is_effect_free(self, func: Operation) -> bool:
        name = symbol_name(func)
        if name in self.effect_free:
            return self.effect_free[name]
        self.effect_free[name] = False  # a recursive call is not known to be free
        free = bool(func.regions and func.regions[0].blocks) and all(
            self._op_is_free(op) for block in func.regions[0].blocks
            for op in block.operations)
        self.effect_free[name] = free
        return free

    def _op_is_free(self, op: Operation) -> bool:
        if op.name == "func.call":
            callee = self.module.lookup(symbol_name(op, "callee"))
            return callee is not None and callee.name == "func.func" \
                and self.is_effect_free(callee)
        if op.name in ("func.return", "stablehlo.return"):
            return True
        if op.regions:
            return has_no_effect(op) and all(self._op_is_free(inner) for r in op.regions
                                             for b in r.blocks for inner in b.operations)
        return has_no_effect(op)


def key_for_call(state: RefineState, call: Operation) -> RefinementKey | None:
    operands = call.operands
    tokens = 0
    while tokens < len(operands) and isinstance(operands[tokens].type, TokenType):
        tokens += 1
    constants = []
    for value in operands[tokens:]:
        t = value.type
        if not isinstance(t, TensorType) or t.rank != 0 or not isinstance(t.element,
                                                                          IntegerType):
            break
        ints = match_ints(value)
        if ints is None:
            break
        constants.append(ints[0])
    rest = tuple(v.type for v in operands[tokens + len(constants):])
    callee = state.module.lookup(symbol_name(call, "callee"))
    if callee is None or callee.name != "func.func":
        state.error(op_error(call, "cannot resolve function call"))
        return None
    return RefinementKey(callee, tokens, tuple(constants), rest)


def _validate(state: RefineState, key: RefinementKey) -> str | bool:
    """"new", "done" (already refined in this context), or False after an error."""
    previous = state.contexts.get(key.name)
    if previous is None:
        return "new"
    if (key.global_constants and previous.global_constants != key.global_constants) or \
            key.non_constant_types() != previous.non_constant_types():
        return state.error(op_error(
            key.func, f"refined with incompatible refinement keys:\n  curr={key}\n  "
            f"prev={previous}"))
    if key.name in state.stack:
        return state.error(op_error(
            key.func, f"Function {key.name} is being refined recursively\n"))
    return "done"


def refine_function(state: RefineState, key: RefinementKey) -> bool:
    status = _validate(state, key)
    if status is False:
        return False
    if status == "done":
        return True
    func = key.func
    state.stack.append(key.name)
    state.contexts[key.name] = key
    try:
        if len(func.regions[0].blocks) != 1:
            return state.error(op_error(func, "must have exactly one block"))
        if not _inline_global_constants(state, key):
            return False
        try:
            refine_arguments(func, key.non_constant_types())
        except Diagnostic as d:
            return state.error(d)
        if not apply_patterns_greedily(func, _patterns(state), CONFIG):
            state.error(op_error(func, "Failed to converge StablehloRefineShapes in "
                                 f"{CONFIG.max_iterations} iterations", prefix=False))
        return True
    finally:
        state.stack.pop()


def _inline_global_constants(state: RefineState, key: RefinementKey) -> bool:
    """Replace the dimension arguments by constants and drop them from the signature."""
    func = key.func
    block = func.regions[0].entry
    first = key.leading_tokens
    count = len(key.global_constants)
    at = 0
    for i, value in enumerate(key.global_constants):
        arg = block.arguments[first + i]
        if not isinstance(arg.type, TensorType):
            return state.error(op_error(func, "expected global constant argument to be shaped"))
        attr = DenseElementsAttr(arg.type, np.array(value, dtype=numpy_dtype(arg.type.element)))
        const = Operation("stablehlo.constant", [], [arg.type], {"value": attr},
                          location=func.location, opdef=registry.lookup("stablehlo.constant"))
        const.parent = block
        block.operations.insert(at, const)
        at += 1
        for op in func.walk():
            if any(v is arg for v in op.operands):
                op.operands = [const.results[0] if v is arg else v for v in op.operands]
    if count:
        del block.arguments[first:first + count]
        del block.arg_locations[first:first + count]
        for index, arg in enumerate(block.arguments):
            arg.index = index
        ftype: FunctionType = func.properties["function_type"].value
        inputs = ftype.inputs[:first] + ftype.inputs[first + count:]
        func.properties["function_type"] = TypeAttr(FunctionType(inputs, ftype.results))
        arg_attrs = func.attr("arg_attrs")
        if isinstance(arg_attrs, ArrayAttr):
            kept = arg_attrs.elements[:first] + arg_attrs.elements[first + count:]
            func.set_attr("arg_attrs", ArrayAttr(tuple(kept)))
    return True


def _constant_results(callee: Operation) -> list[DenseElementsAttr | None]:
    terminator = callee.regions[0].entry.operations[-1]
    out = []
    for value in terminator.operands:
        attr = constant_attr(value)
        ok = attr is not None and isinstance(attr.type.element, IntegerType | IndexType)
        out.append(attr if ok else None)
    return out


def _refine_call(state: RefineState, op: Operation, rw: PatternRewriter) -> bool:
    key = key_for_call(state, op)
    if key is None or not refine_function(state, key):
        return False
    callee = key.func
    constants = _constant_results(callee)
    rw.set_insertion_point(op)
    known = [c for c in constants if c is not None]
    if len(known) == len(constants) and state.is_effect_free(callee):
        made = [rw.create("stablehlo.constant", [], [c.type], {"value": c},
                          location=op.location).results[0] for c in known]
        rw.replace_op(op, made)
        return True
    callee_results = list(callee.properties["function_type"].value.results)
    changed = False
    if op.result_types != callee_results:
        if not refine_result_types(rw, op, callee_results):
            return False
        changed = True
    if key.global_constants:
        tokens = op.operands[:key.leading_tokens]
        rest = op.operands[len(op.operands) - len(key.argument_types):] \
            if key.argument_types else []
        arg_attrs = op.attr("arg_attrs")
        if isinstance(arg_attrs, ArrayAttr):
            items = arg_attrs.elements
            kept = items[:key.leading_tokens] + (
                items[len(items) - len(key.argument_types):] if key.argument_types else ())
            op.set_attr("arg_attrs", ArrayAttr(tuple(kept)))
        rw.set_operands(op, list(tokens) + list(rest))
        changed = True
    used = [(r, c) for r, c in zip(op.results, constants, strict=True)
            if c is not None and rw.has_uses(r)]
    if used:
        rw.set_insertion_point_after(op)
        for result, attr in used:
            const = rw.create("stablehlo.constant", [], [attr.type], {"value": attr},
                              location=op.location)
            rw.replace_all_uses_with(result, const.results[0])
        rw.modified(op)
        return True
    if changed:
        return True
    return refine_result_types(rw, op, callee_results)


def _patterns(state: RefineState) -> list[RewritePattern]:
    def refine_call(op: Operation, rw: PatternRewriter) -> bool:
        return _refine_call(state, op, rw)

    call = RewritePattern(refine_call, ("func.call",), benefit=2)
    return [*OP_PATTERNS[:-1], call, *SHAPE_FOLDER_PATTERNS, OP_PATTERNS[-1]]


@register_pass("stablehlo-refine-shapes",
               "Refines shapes across a StableHLO program.")
def stablehlo_refine_shapes(module: Module) -> None:
    func = target_function(module)
    if func is None:
        return
    state = RefineState(module)
    ftype: FunctionType = func.properties["function_type"].value
    key = RefinementKey(func, 0, (), tuple(ftype.inputs))
    if not refine_function(state, key):
        state.error(op_error(func, "Failed to refine entry function", prefix=False))
    if state.errors:
        raise DeferredErrors(state.errors)
