"""Loop-invariant ops of a `while` body computed once per loop instead of once per iteration.

`lax.scan` and `fori_loop` carry everything the body closes over (weights, biases, the whole
input sequence) as loop values the body returns unchanged. Ops of the body that read only
such values, values from outside the loop and constants (a bias broadcast, the slices of a
parameter vector, a weight transpose) give the same result on every iteration. They are
evaluated once, right before the body first runs in each execution of the loop (so a loop
whose condition fails at once evaluates nothing), and the body's plan reads their values
from the environment like any value of an enclosing block.

Only ops that cannot fail on operands of their static types are moved (data movement,
elementwise float arithmetic, comparisons, selects and bitwise logic), so no error can
appear or move. Constants (and pure ops on constants only) stay in the body, where the plan
compiler folds them; the early evaluation recomputes those it needs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..ir.core import Operation, Value
from ..ir.types import TensorType, is_float
from .codegen import region_reads
from .scan_inputs import Batching, batch_scan_inputs

RETURNS = frozenset({"stablehlo.return"})
CONSTANT = frozenset({"stablehlo.constant", "stablehlo.iota"})
# Any element type: moving data around cannot fail on static shapes.
MOVES = frozenset("stablehlo." + n for n in (
    "slice", "reshape", "broadcast_in_dim", "transpose", "concatenate"))
# Float elements only (integer division by zero, conversions out of range stay put).
FLOAT_MATH = frozenset("stablehlo." + n for n in (
    "add", "subtract", "multiply", "divide", "negate", "abs", "exponential", "log", "tanh",
    "logistic", "sqrt", "rsqrt", "maximum", "minimum", "convert", "exponential_minus_one",
    "log_plus_one", "sine", "cosine", "tan", "cbrt", "floor", "ceil", "round_nearest_even",
    "round_nearest_afz", "sign", "power", "remainder", "atan2", "clamp"))
# Any element type: a comparison, a pick or bitwise logic (a mask) cannot fail either
# (jnp.searchsorted's loop compares and canonicalizes its queries on every step).
PICKS = frozenset("stablehlo." + n for n in ("compare", "select", "and", "or", "xor", "not",
                                             "is_finite"))
MAX_ELEMENTS = 1 << 22  # larger results would stay alive for the whole loop


class Invariants:
    """The early evaluation of one while op: `ops` (in program order) are evaluated from
    the loop's operands; the results of `hoisted` are stored for the body, which skips
    those ops. Then `batching` (scan_inputs.py) computes a scan's per-step input work for
    every step; the body reads it back instead (`body_ops`)."""

    __slots__ = ("ops", "hoisted", "arguments", "batching")

    def __init__(self, ops: list[Operation], hoisted: set[Operation],
                 arguments: list[Value], batching: Batching | None = None) -> None:
        self.ops = ops
        self.hoisted = hoisted
        self.arguments = arguments
        self.batching = batching

    def body_ops(self, ops: list[Operation]) -> list[Operation]:
        """The body's planned `ops` without the hoisted ones, batched ones read back."""
        replaced = self.batching.replaced if self.batching is not None else {}
        out: list[Operation] = []
        for o in ops:
            if o in replaced:
                out += replaced[o]
            elif o not in self.hoisted:
                out.append(o)
        return out


def _static(value: Value) -> TensorType | None:
    t = value.type
    if isinstance(t, TensorType) and t.is_static and math.prod(t.shape) <= MAX_ELEMENTS:
        return t
    return None


def _movable(op: Operation) -> bool:
    if op.regions or len(op.results) != 1 or not op.operands:
        return False
    types = [_static(v) for v in (*op.operands, op.results[0])]
    if any(t is None for t in types):
        return False
    if op.name in MOVES or op.name in PICKS:
        return True
    return op.name in FLOAT_MATH and all(
        is_float(t.element) for t in types if t is not None)


def find_invariants(op: Operation, planned: list[Operation]) -> Invariants | None:
    """The loop-invariant ops among `planned` (the ops the plan of the while op's body
    runs: its own before the terminator, small callees inlined), or None when there is
    nothing to move."""
    if op.name != "stablehlo.while" or len(op.regions) != 2:
        return None
    blocks = op.regions[1].blocks
    if len(blocks) != 1:
        return None
    block = blocks[0]
    terminator = block.operations[-1] if block.operations else None
    if terminator is None or terminator.name not in RETURNS:
        return None
    returned = terminator.operands
    if len(returned) != len(block.arguments) or len(op.operands) != len(block.arguments):
        return None
    ops = planned
    local = set(block.arguments) | {r for o in ops for r in o.results}
    # values equal on every iteration, and those among them derived from constants alone
    same = {a for a, r in zip(block.arguments, returned, strict=True) if a is r}
    constant: set[Value] = set()
    early: list[Operation] = []
    hoisted: set[Operation] = set()
    for inner in ops:
        if inner.name in CONSTANT and not inner.operands and len(inner.results) == 1:
            early.append(inner)
            same.add(inner.results[0])
            constant.add(inner.results[0])
            continue
        if not _movable(inner):
            continue
        if not all(v in same or v not in local for v in inner.operands):
            continue
        early.append(inner)
        same.add(inner.results[0])
        if all(v in constant for v in inner.operands):
            constant.add(inner.results[0])  # folded in the body's plan: stays there
        else:
            hoisted.add(inner)
    rest = [o for o in ops if o not in hoisted]
    batching = batch_scan_inputs(block, rest, returned,
                                 lambda v: v in same or v not in local, region_reads(rest))
    if not hoisted and batching is None:
        return None
    by_result = {o.results[0]: o for o in early}
    roots = list(hoisted)
    if batching is not None:  # the invariants the batched ops read
        roots += [by_result[v] for o in batching.ops for v in o.operands if v in by_result]
    needed = _needed(by_result, roots)
    return Invariants([o for o in early if o in needed], hoisted, list(block.arguments),
                      batching)


def _needed(by_result: dict[Value, Operation], roots: list[Operation]) -> set[Operation]:
    """The early ops `roots` depend on (themselves included)."""
    needed: set[Operation] = set()
    stack = list(roots)
    while stack:
        o = stack.pop()
        if o in needed:
            continue
        needed.add(o)
        stack.extend(by_result[v] for v in o.operands if v in by_result)
    return needed


def early_evaluator(invariants: Invariants, bind: Callable[[Operation], Callable[..., Any]]
                    ) -> Callable[[dict[Value, Any], tuple[Any, ...]], None]:
    """`run(frame, operands)`: evaluates the invariant ops from the loop's operands (and
    the values of enclosing blocks in `frame`) and stores the hoisted ones in `frame`."""
    steps = [(o, bind(o)) for o in invariants.ops]
    stored = {o.results[0] for o in invariants.hoisted}
    batching = invariants.batching
    if batching is not None:
        steps += [(o, batching.kernels.get(o) or bind(o)) for o in batching.ops]
        stored |= batching.stored
    # one generated function: an interpreted run costs a dict, a lookup per operand and a
    # list per op, as much as the kernels of a few slices themselves (an inner loop's
    # invariants, evaluated once per step of the outer loop)
    names = {v: f"operands[{k}]" for k, v in enumerate(invariants.arguments)}
    ns: dict[str, Any] = {}
    lines = ["def run(frame, operands):"]
    for k, (o, kernel) in enumerate(steps):
        args: list[str] = []
        for v in o.operands:
            if v not in names:  # a value of an enclosing block
                names[v] = f"frame[F{k}_{len(args)}]"
                ns[f"F{k}_{len(args)}"] = v
            args.append(names[v])
        ns[f"K{k}"] = kernel
        result = o.results[0]
        names[result] = f"v{k}"
        lines.append(f"    v{k} = K{k}({', '.join(args)})")
        if result in stored:
            ns[f"R{k}"] = result
            lines.append(f"    frame[R{k}] = v{k}")
    lines.append("    return None")
    exec(compile("\n".join(lines), "<shlo invariants>", "exec"), ns)  # noqa: S102
    run: Callable[[dict[Value, Any], tuple[Any, ...]], None] = ns["run"]
    return run
