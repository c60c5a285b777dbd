"""Control flow and call-like ops: while, if, case, return, composite, custom_call.
(`optimization_barrier` lives with the elementwise misc ops.)

Region-taking evaluators receive each region as a callable that runs the region's prebuilt
plan, so a `while` loop costs one plan execution per `cond`/`body` run and nothing more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...check_dialect.custom_call_targets import evaluate_custom_call
from ...ir import limits
from ...ir.attributes import Attribute, DenseElementsAttr, StringAttr, SymbolRefAttr
from ...ir.clone import clone_op
from ...ir.core import Location, Operation, Region, Value
from ...ir.diagnostics import EvaluationError
from ...ir.lexer import PERCENT
from ...ir.types import BOOL, FunctionType, TensorType, Type, UnrankedTensorType
from ..registry import OpDef, canonicalization, declare_op, define_op
from ..syntax import Custom, resolve_functional_operands
from .control_flow_verify import verify_conditional, verify_custom_call
from .elementwise_verify import check_inferred, compatible, error, quoted


def _results(values: Sequence[Any]) -> Any:
    """Evaluator convention: one result is returned bare, several as a tuple."""
    return values[0] if len(values) == 1 else tuple(values)


def _attrs_without(op: Operation, elided: set[str]) -> dict[str, Attribute]:
    """Inherent and discardable attributes together (one sorted dict when printed)."""
    merged = {k: v for k, v in op.properties.items() if k not in elided}
    merged.update((k, v) for k, v in op.attributes.items() if k not in elided)
    return merged


def _functional_type(op: Operation) -> str:
    return str(FunctionType(tuple(op.operand_types), tuple(op.result_types)))


def _parse_functional_type(p: Any, operands: list[Value], tok: Any, location: Location,
                           operands_at: Any = None) -> list[Type]:
    """`: (A, B) -> R` resolving the operands; returns the result types."""
    p.expect(":")
    type_tok = p.tok
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", type_tok)
    resolve_functional_operands(p, operands, list(ftype.inputs), location, tok, operands_at)
    return list(ftype.results)


# ---- stablehlo.return -------------------------------------------------------------------
# Format: `$results attr-dict (`:` type($results)^)?`


def _parse_return(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    operands = p.parse_operand_list()
    attributes = p.parse_optional_attr_dict()
    types = p.parse_type_list() if p.accept(":") else []  # the format's `:` is optional
    if operands or types:
        p.resolve_operands(operands, types, tok)
    return p.build_operation(opdef.name, opdef, operands, [], {}, attributes, [], None, location)


def _print_return(pr: Any, op: Operation) -> None:
    # `$results attr-dict ...`: MLIR writes the space before the operand list even when it
    # is empty (`stablehlo.return ` with no results, as upstream prints it).
    pr.write(" " + pr.operands(op.operands))
    pr.write(pr.attr_dict(_attrs_without(op, set())))
    if op.operands:
        pr.write(" : " + ", ".join(map(str, op.operand_types)))


declare_op("stablehlo.return", operands=("*results",), results=0,
           syntax=Custom(_parse_return, _print_return), terminator=True)

# ---- stablehlo.while ----------------------------------------------------------------------
# `stablehlo.while(%iterArg = %init, ...) : T, ... attributes {...}` newline `cond {...} do {...}`


def _parse_while(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    p.expect("(")
    names: list[Any] = []
    operands: list[Value] = []
    if not p.accept(")"):
        while True:
            if p.tok.kind != PERCENT:
                raise p.error("expected SSA operand")
            names.append(p.advance())
            p.expect("=")
            operands.append(p.parse_operand())
            if p.accept(")"):
                break
            p.expect(",")
    types: list[Type] = []
    if operands:
        p.expect(":")
        types = p.parse_type_list()
    p.check_operand_types(operands, types, tok)
    attributes = p.parse_attr_dict_body() if p.accept("attributes") else {}
    entry_args = [(name, t, None) for name, t in zip(names, types, strict=True)]
    p.expect_keyword("cond")
    cond = p.parse_region(entry_args=list(entry_args))
    p.expect_keyword("do")
    body = p.parse_region(entry_args=list(entry_args))
    return p.build_operation(opdef.name, opdef, operands, types, {}, attributes, [cond, body],
                             None, location)


def _print_while(pr: Any, op: Operation) -> None:
    cond, body = op.regions
    args = body.entry.arguments if body.blocks else []
    pairs = zip(args, op.operands, strict=False)
    pr.write("(" + ", ".join(f"{pr.name(a)} = {pr.name(v)}" for a, v in pairs) + ")")
    if op.operands:
        pr.write(" : " + ", ".join(map(str, op.operand_types)))
    pr.write(pr.attr_dict(_attrs_without(op, set()), keyword=True))
    pr.write("\n" + " " * pr.indent + "cond ")  # printNewline(), "cond " (one space less
    # than before llvm-project#184253 printed, as upstream's older testdata shows)
    pr.print_region(cond, print_entry_args=False)
    pr.write(" do ")
    pr.print_region(body, print_entry_args=False)


def _iter_arg_names(op: Operation, region: Region) -> list[str]:
    """Both regions name their arguments `iterArg` (so they print identically)."""
    return ["iterArg"] * (len(region.entry.arguments) if region.blocks else 0)


def verify_while(op: Operation) -> None:
    """Upstream's verifyWhileOp: the regions' arguments and the body's results are
    compatible with the operands; cond yields one 0-d i1 tensor."""
    operands = op.operand_types
    check_inferred(op, operands)  # InferTypeOpInterface: the results are the operands' types
    if len(op.regions) != 2 or not all(r.blocks for r in op.regions):
        return
    cond, body = (r.entry for r in op.regions)

    def check(types: list[Type], what: str) -> None:
        if len(types) != len(operands) or not all(
                compatible(a, b) for a, b in zip(operands, types, strict=False)):
            raise error(op, f"expect operands to be compatible with {what} but got "
                            f"{quoted(operands)} vs {quoted(types)}", False)

    check([a.type for a in cond.arguments], "condition block arguments")
    check([a.type for a in body.arguments], "body block arguments")
    if body.terminator is not None:
        check(body.terminator.operand_types, "body block return types")
    if cond.terminator is None:
        return
    returned = cond.terminator.operand_types
    if len(returned) != 1:
        raise error(op, f"expect condition body returns a single value but got {len(returned)}",
                    False)
    kind = returned[0]
    if not isinstance(kind, (TensorType, UnrankedTensorType)) or (
            isinstance(kind, TensorType) and kind.rank != 0) or kind.element != BOOL:
        raise error(op, "expect condition block return a zero-ranked tensor of i1 but got "
                        f"'{kind}'", False)


@define_op("stablehlo.while", operands=("*operand",), results="*",
           syntax=Custom(_parse_while, _print_while, _iter_arg_names), regions=("cond", "body"),
           verify=verify_while)
def while_(*operand: np.ndarray, cond: Callable[..., list[Any]],
           body: Callable[..., list[Any]]) -> Any:
    """Runs `body` while `cond` holds; the results are the last loop-carried values."""
    results = operand
    cap = limits.max_iterations()
    if cap is None:
        while cond(*results)[0]:
            results = body(*results)
        return _results(results)
    count = 0
    while cond(*results)[0]:
        if count >= cap:
            raise EvaluationError(f"while loop exceeded {cap} iterations (--max-iterations)")
        count += 1
        results = body(*results)
    return _results(results)


# ---- stablehlo.if / stablehlo.case (generic syntax upstream) ----------------------------


@define_op("stablehlo.if", operands=("pred",), results="*", regions=("true_branch", "false_branch"),
           verify=verify_conditional)
def if_(pred: np.ndarray, *, true_branch: Callable[..., list[Any]],
        false_branch: Callable[..., list[Any]]) -> Any:
    """Runs `true_branch` if `pred` is true, else `false_branch`."""
    return _results(true_branch() if pred else false_branch())


@define_op("stablehlo.case", operands=("index",), results="*", regions=("branches*",),
           verify=verify_conditional)
def case(index: np.ndarray, *, branches: list[Callable[..., list[Any]]]) -> Any:
    """Runs `branches[index]`; an out-of-range index selects the last branch."""
    index = int(index)
    if index < 0 or index >= len(branches):
        index = len(branches) - 1
    return _results(branches[index]())


@canonicalization("stablehlo.case")
def fold_constant_case(op: Operation, rewriter: Any) -> bool:
    """A case on a constant in-range index becomes the ops of that branch (upstream's only
    canonicalization pattern of case; an out-of-range index is left alone)."""
    owner = op.operands[0].owner
    value = owner.attr("value") if isinstance(owner, Operation) and \
        owner.name == "stablehlo.constant" else None
    if not isinstance(value, DenseElementsAttr):
        return False
    index = int(np.asarray(value.value).reshape(-1)[0])
    if not 0 <= index < len(op.regions):
        return False
    block = op.regions[index].blocks[-1]
    mapping: dict[Value, Value] = {}
    for inner in block.operations[:-1]:
        rewriter.insert(clone_op(inner, mapping))
    terminator = block.operations[-1]
    rewriter.replace_op(op, [mapping.get(v, v) for v in terminator.operands])
    return True


# ---- stablehlo.composite ------------------------------------------------------------------
# Format: `$name $inputs attr-dict `:` functional-type(operands, results)`


def _parse_composite(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`"name" %a, %b ({...}, {...}) {attrs} : (types) -> types`: the region list is
    optional (`composite_regions`, since StableHLO 1.14)."""
    name = StringAttr(p.parse_string())
    tok = p.tok
    operands = p.parse_operand_list()
    regions: list[Region] = []
    if p.at("(") and p.peek_next().text == "{":
        p.advance()
        regions.append(p.parse_region())
        while p.accept(","):
            regions.append(p.parse_region())
        p.expect(")")
    attributes = p.parse_optional_attr_dict()
    result_types = _parse_functional_type(p, operands, tok, location, tok)  # `operands`
    return p.build_operation(opdef.name, opdef, operands, result_types, {"name": name},
                             attributes, regions, None, location)


def _composite_elided(op: Operation) -> set[str]:
    elided = {"name"}
    attrs = op.attr("composite_attributes")
    if attrs is not None and not attrs.value:
        elided.add("composite_attributes")
    version = op.attr("version")
    if version is not None and version.value == 0:
        elided.add("version")
    return elided


def _print_composite(pr: Any, op: Operation) -> None:
    pr.write(f" {op.attr('name')}")
    if op.operands:
        pr.write(" " + pr.operands(op.operands))
    if op.regions:
        pr.write(" (")
        for i, region in enumerate(op.regions):
            if i:
                pr.write(", ")
            pr.print_region(region)
        pr.write(")")
    pr.write(pr.attr_dict(_attrs_without(op, _composite_elided(op))))
    pr.write(" : " + _functional_type(op))


@define_op("stablehlo.composite", operands=("*inputs",), results="*",
           attributes=("name", "composite_attributes?", "decomposition", "version?"),
           syntax=Custom(_parse_composite, _print_composite), regions=("composite_regions*",))
def composite(*inputs: np.ndarray, decomposition: str, ctx: Any) -> Any:
    """Runs the `decomposition` function on `inputs` (the op's reference semantics)."""
    interpreter = ctx.interpreter
    return _results(interpreter.call(interpreter.lookup_function(decomposition), inputs))


# ---- stablehlo.custom_call ----------------------------------------------------------------
# Format: `custom<CustomCallTarget>($call_target_name) `(` $inputs `)` attr-dict `:`
#          functional-type(operands, results)`

_API_VERSION_ORIGINAL = 1


def _parse_custom_call(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    target = StringAttr(p.parse_symbol_name())
    tok = p.tok
    p.expect("(")
    operands = p.parse_operand_list(")")
    p.expect(")")
    attributes = p.parse_optional_attr_dict()
    result_types = _parse_functional_type(p, operands, tok, location)
    return p.build_operation(opdef.name, opdef, operands, result_types,
                             {"call_target_name": target}, attributes, [], None, location)


def _custom_call_elided(op: Operation) -> set[str]:
    """`call_target_name` is printed as the symbol; default-valued attributes are elided."""
    elided = {"call_target_name"}
    defaults = {"has_side_effect": False, "api_version": _API_VERSION_ORIGINAL,
                "called_computations": [], "output_operand_aliases": []}
    for name, default in defaults.items():
        attr = op.properties.get(name)
        if attr is not None and attr.value == default:
            elided.add(name)
    return elided


def _print_custom_call(pr: Any, op: Operation) -> None:
    target = op.attr("call_target_name")
    pr.write(f" {SymbolRefAttr(target.value if target is not None else '')}(")
    pr.write(pr.operands(op.operands) + ")")
    pr.write(pr.attr_dict(_attrs_without(op, _custom_call_elided(op))))
    pr.write(" : " + _functional_type(op))


@define_op("stablehlo.custom_call", operands=("*inputs",), results="*",
           attributes=("call_target_name", "has_side_effect?", "backend_config?", "api_version?",
                       "called_computations?", "operand_layouts?", "result_layouts?",
                       "output_operand_aliases?", "result_tilings?"),
           syntax=Custom(_parse_custom_call, _print_custom_call), verify=verify_custom_call)
def custom_call(*inputs: np.ndarray, call_target_name: str, op: Operation, ctx: Any) -> Any:
    """Dispatches to the evaluator registered for `call_target_name`."""
    return _results(evaluate_custom_call(call_target_name, inputs, op=op, ctx=ctx))
