"""`if` and `case` ops of a generated function as Python `if` statements (codegen.py).

A conditional's kernel runs the branch it picks through a region callable: a plan lookup,
`_run_plan`'s checks and a generated function of its own, reading the values the branch
closes over from the environment dict; in a loop step that costs more than a small
branch's ops (a `lax.switch` or `lax.cond` in a scan). Here each branch's planned ops are
lines of the enclosing function, under `if`/`elif`/`else` on the predicate or index: the
branch reads the enclosing block's values as its locals and assigns its results to the
op's. The branch picked is the evaluator's (`if`: the predicate's truth; `case`: the index,
the last branch when out of range); the branches' plans are the ones their region
callables would run (ifconvert.py turned the small pure ones into selects already). A
branch that cannot be planned (an unsupported op: its error belongs to the run that takes
it) leaves the op to its kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..ir.core import Region, Value
from ..ir.diagnostics import Diagnostic

BRANCHING = frozenset(("stablehlo.if", "stablehlo.case"))


def branch_lines(step: Any, i: int, selector: str, names: Mapping[Value, str], p: str,
                 ns: dict[str, Any], plan_region: Callable[[Region], Any],
                 captured: set[Value], block_code: Callable[..., Any]
                 ) -> tuple[list[tuple[str, Any]], list[str]] | None:
    """The lines running step `i` (an if or case op whose predicate or index is the
    expression `selector`) with its branches inline, and the names of its results; or
    None (its kernel runs). `names`: the enclosing block's values defined so far."""
    op = step.op
    if op.name not in BRANCHING or len(op.operands) != 1 or any(
            r in captured for r in op.results):
        return None
    plans = []
    for region in op.regions:
        if len(region.blocks) != 1 or region.blocks[0].arguments:
            return None
        try:
            plan = plan_region(region)
        except Diagnostic:
            return None
        if plan.terminator is None or len(plan.terminator) != len(op.results):
            return None
        plans.append((region, plan))
    if not plans or (op.name == "stablehlo.if" and len(plans) != 2):
        return None
    targets = ([f"{p}v{i}"] if len(op.results) == 1
               else [f"{p}v{i}_{j}" for j in range(len(op.results))])
    lines: list[tuple[str, Any]] = []
    if op.name == "stablehlo.if":
        heads = [f"if {selector}:", "else:"]
    else:  # (an index below 0 or past the end: the last branch, as the evaluator picks)
        lines.append((f"{p}x{i} = int({selector})", step))
        heads = [f"{'if' if k == 0 else 'elif'} {p}x{i} == {k}:" for k in range(len(plans) - 1)]
        heads.append("else:" if heads else "if True:")
    earlier = dict(names)
    for k, ((region, plan), head) in enumerate(zip(plans, heads, strict=True)):
        code = block_code([], [], plan.steps, plan.terminator, region.blocks[0], True, ns,
                          f"{p}b{i}_{k}_", earlier=earlier)
        lines.append((head, step))
        inner = [(line, step) for line in code.entry + code.outer] + list(code.lines)
        if targets:
            inner.append((f"{', '.join(targets)} = {', '.join(code.returned)}", step))
        lines += [("    " + line, s) for line, s in inner] or [("    pass", step)]
    return lines, targets
