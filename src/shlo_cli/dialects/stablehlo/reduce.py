"""`stablehlo.reduce`: the kernel, upstream's compact/`reducer` syntax and the verifier.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...ir.attributes import DenseArrayAttr
from ...ir.core import Block, Location, Operation, Region, SourceLocation, Value
from ...ir.diagnostics import EvaluationError
from ...ir.lexer import PERCENT, Token, lazy_regex, lex_at
from ...ir.parse_fast import (
    COLON,
    INT,
    KEYWORD_END,
    TENSOR,
    VALUE,
    WORD,
    WS,
    brace_token,
    cached_tensor,
    functional_tail,
    register_fast_op_parser,
    same_types,
)
from ...ir.types import (
    I64,
    FunctionType,
    TensorType,
    Type,
    element_type,
)
from ..registry import OpDef, define_op, lookup
from ..syntax import Custom
from .dimension_numbers import parse_dim_list
from .reducer import (
    COMMUTATIVE_OPS,
    binary_body_ops,
    cached_analysis,
    check_inferred_results,
    error_at_op,
    pack_results,
    promoted,
    reduce_last,
    result_dtypes,
    verify_reducer_shape,
    verify_same_input_shapes,
)


def reduce(*args: np.ndarray, dimensions: tuple[int, ...], body: Callable[..., Any],
           op: Operation | None = None, result_types: Sequence[Type] = ()) -> Any:
    """results[j] = body-fold of init and inputs[..., dimensions] (spec: reduce)."""
    count = len(args) // 2
    if any(np.ndim(v) for v in args[count:]):  # upstream's verifier lets these through
        raise EvaluationError("reduce with non-scalar init values cannot be evaluated")
    inputs, init_values = promoted(args, count, result_types)
    dims = tuple(dimensions or ())
    rank = inputs[0].ndim
    if any(d < 0 or d >= rank for d in dims):
        raise EvaluationError(f"reduce dimension out of range for rank {rank}")
    kept = [d for d in range(rank) if d not in dims]
    outer = tuple(inputs[0].shape[d] for d in kept)
    size = int(np.prod([inputs[0].shape[d] for d in dims], dtype=np.int64))
    flat = [np.transpose(x, kept + list(dims)).reshape(outer + (size,)) for x in inputs]
    fast = None
    if op is not None and op.regions:
        fast = cached_analysis(op, "reduce", lambda: binary_body_ops(op.regions[0], count))
    out = reduce_last(body, fast, flat, init_values)
    if result_types:
        dtypes = result_dtypes(result_types)
        out = [np.asarray(o, dtype=d) for o, d in zip(out, dtypes, strict=False)]
    return pack_results(out)


# Pretty syntax (upstream printReduceOp/parseReduceOp):
#   stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [1] : (...) -> ...
#   stablehlo.reduce(%x init: %i), ... across dimensions = [1] : (...) -> (...)
#    reducer(%a: T, %b: T) (%c: U, %d: U)  { ... }


def _pretty_eligible(op: Operation) -> bool:
    """Upstream's conditions E1-E5 for the one-line `applies` form."""
    if not op.regions or len(op.regions[0].blocks) != 1:
        return False
    block = op.regions[0].entry
    if len(block.operations) != 2:
        return False
    inner, ret = block.operations
    if inner.dialect != op.dialect or inner.name not in COMMUTATIVE_OPS:
        return False
    if len(inner.operands) != 2 or len(inner.results) != 1 or inner.regions:
        return False
    types = inner.operand_types + inner.result_types
    if any(t != types[0] for t in types):
        return False
    count = len(op.operands) // 2
    if count == 0:
        return False
    expected = TensorType((), element_type(op.operands[0].type))
    if inner.operands[0].type != expected:
        return False
    args = block.arguments
    if len(args) != 2 or args[0] is not inner.operands[0] or args[1] is not inner.operands[1]:
        return False
    if ret.name.split(".", 1)[-1].lower() != "return":
        return False
    return len(ret.operands) == 1 and ret.operands[0] is inner.results[0]


def _print_dims(dims: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


def _print_reduce(pr: Any, op: Operation) -> None:
    count = len(op.operands) // 2
    pairs = [f"({pr.name(op.operands[i])} init: {pr.name(op.operands[i + count])})"
             for i in range(count)]
    pr.write(", ".join(pairs))
    compact = _pretty_eligible(op)
    if compact:
        pr.write(" applies " + op.regions[0].entry.operations[0].name)
    dims = op.attr("dimensions")
    pr.write(" across dimensions = " + _print_dims(dims.value if dims is not None else ()))
    extra = {k: v for k, v in op.properties.items() if k != "dimensions"}
    extra.update(op.attributes)
    pr.write(pr.attr_dict(extra))
    pr.write(" : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types))))
    if compact:
        return
    block = op.regions[0].entry
    pr.write("\n" + " " * pr.indent + " reducer")
    for i in range(count):
        first = _region_argument(pr, block, i)
        second = _region_argument(pr, block, i + count)
        pr.write(f"({first}, {second}) ")
    pr.write(" ")
    pr.print_region(op.regions[0], print_entry_args=False)


def _region_argument(pr: Any, block: Block, index: int) -> str:
    arg = block.arguments[index]
    text = f"{pr.name(arg)}: {arg.type}"
    if pr.debuginfo:
        text += " " + pr.location_text(block.arg_locations[index])
    return text




def _parse_reduce(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """The pretty form. Upstream's parseReduceOp places the op at the token after its name
    (`result.location = currLocation`), so its verifier's errors point there."""
    tok = p.tok
    location = SourceLocation(p.source, tok.start)
    inputs: list[Value] = []
    inits: list[Value] = []
    while p.accept("("):
        inputs.append(p.parse_operand())
        p.expect_keyword("init")
        p.expect(":")
        inits.append(p.parse_operand())
        p.expect(")")
        if not p.accept(","):
            break
    operands = inputs + inits
    inner_name = None
    if p.tok.kind != PERCENT and p.at("applies"):
        p.advance()
        inner_name = p.parse_keyword()
        if inner_name not in COMMUTATIVE_OPS:
            raise p.error("expected the inner-op to be a commutative binary-op from the "
                          "stablehlo dialect, with zero region, producing single result", tok)
    p.expect_keyword("across")
    p.expect_keyword("dimensions")
    p.expect("=")
    dims = parse_dim_list(p)
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    type_tok = p.tok
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", type_tok)
    if inner_name is not None and not ftype.inputs:
        raise p.error("input types missing in reduce-op function type", tok)
    p.check_operand_types(operands, list(ftype.inputs), tok)
    props = {"dimensions": DenseArrayAttr(I64, tuple(dims))}
    if inner_name is not None:
        region = _compact_region(inner_name, ftype.inputs[0], location)
    else:
        region = _parse_reducer(p)
    return p.build_operation(opdef.name, opdef, operands, list(ftype.results), props, attributes,
                             [region], None, location)


def _compact_region(name: str, input_type: Type, location: Location) -> Region:
    """The body the compact form stands for: `return name(%lhs, %rhs)` on scalars."""
    scalar = TensorType((), element_type(input_type))
    block = Block([scalar, scalar])
    inner = Operation(name, list(block.arguments), [scalar], location=location,
                      opdef=lookup(name))
    block.append(inner)
    block.append(Operation("stablehlo.return", [inner.results[0]], [], location=location,
                           opdef=lookup("stablehlo.return")))
    return Region([block])


def _parse_reducer(p: Any) -> Region:
    p.expect_keyword("reducer")
    firsts: list[tuple[Any, Type, Any]] = []
    seconds: list[tuple[Any, Type, Any]] = []
    while p.accept("("):
        for group in (firsts, seconds):
            arg_tok = p.tok
            if arg_tok.kind != PERCENT:
                raise p.error("expected SSA operand")
            p.advance()
            p.expect(":")
            arg_type = p.parse_type()
            group.append((arg_tok, arg_type, p.parse_optional_location()))
            if group is firsts:
                p.expect(",")
        p.expect(")")
    return p.parse_region(entry_args=firsts + seconds)


# ---- the fast path (see `ir.parse_fast.register_fast_op_parser`) -------------------------

_PAIR = rf"\({WS}{VALUE}{WS}init{KEYWORD_END}{COLON}{VALUE}{WS}\)"
_REDUCE_HEAD = lazy_regex(
    rf"{WS}({_PAIR}(?:{WS},{WS}{_PAIR})*)(?:{WS}applies{KEYWORD_END}{WS}({WORD}))?"
    rf"{WS}across{KEYWORD_END}{WS}dimensions{KEYWORD_END}{WS}={WS}"
    rf"\[{WS}((?:{INT}(?:{WS},{WS}{INT})*)?){WS}\]")
_VALUE_NAME = lazy_regex(VALUE)
_ARG = rf"%[A-Za-z0-9_$.\-]+(?![A-Za-z0-9_$.\-#]){COLON}{TENSOR}"
_REDUCER = lazy_regex(
    rf"{WS}reducer{KEYWORD_END}((?:{WS}\({WS}{_ARG}{WS},{WS}{_ARG}{WS}\))+){WS}(?=\{{)")
_REDUCER_ARG = lazy_regex(rf"(%[A-Za-z0-9_$.\-]+){COLON}({TENSOR})")


def _fast_reduce(p: Any, opdef: OpDef, pos: int, location: Location,
                 num_results: int) -> Operation | None:
    """`(%x init: %i), ... applies op across dimensions = [d] : type` (its region built as
    the token-level reader builds it) or `... : type reducer(%a: t, %b: t) ... { region }`
    (the region then read by the region parser), with plain operands and types."""
    src = p.src
    m = _REDUCE_HEAD.match(src, pos)
    if m is None:
        return None
    location = SourceLocation(p.source, m.start(1))  # as `_parse_reduce` places it
    values = [p.fast_value(v) for v in _VALUE_NAME.findall(m.group(1))]
    inner_name = m.group(2)
    dims = [int(d) for d in m.group(3).split(",")] if m.group(3).strip() else []
    tail = functional_tail(src, m.end())
    if (tail is None or any(v is None for v in values) or any(
            not -(1 << 63) <= d < (1 << 63) for d in dims)
            or inner_name is not None and inner_name not in COMMUTATIVE_OPS):
        return None
    attributes, ftype, end = tail
    operands: list[Value] = values[0::2] + values[1::2]  # type: ignore[operator]
    if not same_types(operands, ftype.inputs) or num_results and len(
            ftype.results) != num_results:
        return None
    props = {"dimensions": DenseArrayAttr(I64, tuple(dims))}
    if inner_name is not None:
        p.tok = lex_at(src, end)
        region = _compact_region(inner_name, ftype.inputs[0], location)
    else:
        reducer = _REDUCER.match(src, end)
        if reducer is None:
            return None
        args = [(Token(PERCENT, a.group(1), a.start(1), a.end(1)), cached_tensor(a.group(2)),
                 None) for a in _REDUCER_ARG.finditer(src, reducer.start(1), reducer.end(1))]
        if any(t is None for _, t, _ in args):
            return None
        p.tok = brace_token(src, reducer.end())
        region = p.parse_region(entry_args=args[0::2] + args[1::2])
    return p.build_operation(opdef.name, opdef, operands, list(ftype.results), props,
                             attributes, [region], None, location)


register_fast_op_parser("stablehlo.reduce", _fast_reduce)


def verify_reduce(op: Operation) -> None:
    count = len(op.operands) // 2
    inputs = op.operand_types[:count]
    if not inputs or not all(isinstance(t, TensorType) for t in op.operand_types):
        return
    verify_same_input_shapes(op, inputs)
    shape = inputs[0].shape
    dims_attr = op.attr("dimensions")
    dims = [int(d) for d in (dims_attr.value if dims_attr is not None else ())]
    seen: set[int] = set()
    for d in dims:
        if d < 0 or d >= len(shape):
            raise error_at_op(op, f"Out-of-bounds dimension {d}, expected to be in range "
                                  f"[0, {len(shape)})")
        if d in seen:
            raise error_at_op(op, f"Duplicate reduction dimension: {d}")
        seen.add(d)
    if not op.regions or not op.regions[0].blocks:
        return
    allowed = [n for i, n in enumerate(shape) if i not in seen]
    verify_reducer_shape(op, op.regions[0].entry, inputs, op.operand_types[count:], allowed)
    check_inferred_results(op, op.regions[0].entry, allowed)


define_op("stablehlo.reduce", operands=("*inputs", "*init_values"), results="*",
          attributes=("dimensions",), syntax=Custom(_parse_reduce, _print_reduce),
          regions=("body",), verify=verify_reduce)(reduce)
