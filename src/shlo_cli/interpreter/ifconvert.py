"""Small `stablehlo.if` / `stablehlo.case` ops planned as their branches' ops and selects.

A `lax.cond` or `lax.switch` inside a scan runs, per step, the case kernel, a region
callable, a plan run with its checks and the stores of every value its branch reads from
the enclosing block; and it hides the branches' ops from the generated loop (loopgen.py,
codegen.py), so the values the branches read stay numpy values instead of Python scalars.
A branch of a few pure ops on small tensors costs less than that: every branch is planned
in the enclosing block (copies of its ops, reading the enclosing values), and each result
is a select of the branches' results by the predicate (`if`; a `case` on `convert(pred)`)
or by `index == k` (other cases: an index out of range picks the last branch, as the case
kernel does). Only ops that can neither fail nor have effects, on tensors of at most
`_ELEMENTS` elements, qualify; running the branch not taken changes nothing but time, and
that only while it costs less than the case kernel's region call (`_EXTRA`). Only
conditionals of 0-d results are converted: their branches become Python-scalar lines of a
generated loop (pyscalar.py); a generated function runs the others' branches inline
(branches.py), the branch taken alone, with no region call to save.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..ir import registry
from ..ir.attributes import DenseElementsAttr, DialectAttr
from ..ir.clone import clone_op
from ..ir.core import Operation, Value
from ..ir.types import IntegerType, TensorType, element_type, numpy_dtype
from .codegen import region_reads

_PURE = frozenset("stablehlo." + name for name in (
    "add", "subtract", "multiply", "negate", "abs", "maximum", "minimum", "tanh",
    "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "sqrt",
    "rsqrt", "sine", "cosine", "floor", "ceil", "round_nearest_even", "sign", "compare",
    "select", "clamp", "constant", "convert", "reshape", "slice", "dynamic_slice",
    "broadcast_in_dim", "and", "or", "not", "xor", "optimization_barrier"))
_FLOAT_ONLY = frozenset(("stablehlo.divide",))  # (an integer division by zero: no)
_ELEMENTS = 256  # at most this many elements in any value a converted branch defines
_OPS = 48  # and at most this many ops in all branches together
# The work of the branches not taken, in numpy calls on small arrays (a 0-d op: a fifth,
# a Python line in a generated loop; a transcendental: four), at most about what the case
# kernel's region call costs.
_EXTRA = 8.0
_COSTLY = frozenset("stablehlo." + name for name in (
    "tanh", "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic",
    "sine", "cosine"))
_SELECT, _COMPARE, _CONSTANT = "stablehlo.select", "stablehlo.compare", "stablehlo.constant"


def if_convert(ops: Iterable[Operation]) -> list[Operation]:
    """`ops` with each small pure conditional replaced by its branches' ops and selects."""
    out: list[Operation] = []
    for op in ops:
        converted = _convert(op) if op.name in ("stablehlo.if", "stablehlo.case") else None
        out.extend([op] if converted is None else converted)
    return out


def drop_unread(ops: list[Operation], kept: Iterable[Value]) -> list[Operation]:
    """`ops` without the small pure ops whose results nothing reads (not the ops after
    them, their regions, nor `kept`): a converted case's index conversion."""
    read = set(kept)
    out = []
    for op in reversed(ops):
        if _pure(op) and not any(r in read for r in op.results):
            continue
        out.append(op)
        read.update(op.operands)
        read.update(region_reads([op]))
    out.reverse()
    return out


def _small(v: Value) -> bool:
    t = v.type
    return isinstance(t, TensorType) and t.is_static and math.prod(t.shape) <= _ELEMENTS


def _shape(v: Value) -> tuple[int, ...]:
    t = v.type
    return tuple(t.shape) if isinstance(t, TensorType) else ()


def _pure(op: Operation) -> bool:
    if op.regions or op.successors or not all(_small(r) for r in op.results):
        return False
    if op.name in _PURE:
        return True
    return op.name in _FLOAT_ONLY and all(
        np.dtype(numpy_dtype(element_type(r.type))).kind in "fc" for r in op.results)


def _cost(op: Operation) -> float:
    t = op.results[0].type if op.results else None
    if isinstance(t, TensorType) and not t.shape:
        return 0.2
    return 4.0 if op.name in _COSTLY else 1.0


def _convert(op: Operation) -> list[Operation] | None:
    """The branches' ops and the selects defining `op`'s results, or None."""
    branches = []
    count = 0
    for region in op.regions:
        if len(region.blocks) != 1 or region.blocks[0].arguments:
            return None
        block_ops = region.blocks[0].operations
        if not block_ops or block_ops[-1].name != "stablehlo.return" \
                or len(block_ops[-1].operands) != len(op.results) or any(
                    v.type != r.type for v, r in zip(block_ops[-1].operands, op.results,
                                                     strict=True)):
            return None  # (a select's operands have its result's type)
        body = if_convert(block_ops[:-1])  # (nested conditionals first)
        if not all(_pure(inner) for inner in body):
            return None
        count += len(body)
        branches.append((body, block_ops[-1].operands))
    costs = [sum(_cost(inner) for inner in body) for body, _ in branches]
    if not branches or count > _OPS or sum(costs) - min(costs) > _EXTRA \
            or not all(_small(r) and not _shape(r) for r in op.results) \
            or any(registry.lookup(name) is None for name in (_SELECT, _COMPARE, _CONSTANT)):
        return None
    out: list[Operation] = []
    returned = []
    for body, values in branches:
        mapping: dict[Value, Value] = {}
        out.extend(clone_op(inner, mapping) for inner in body)
        returned.append([mapping.get(v, v) for v in values])
    picks = _predicates(op, len(branches), out)
    if picks is None:
        return None
    choices, default = picks
    for j, result in enumerate(op.results):
        chosen = returned[default][j]
        for pred, k in reversed(choices):
            select = Operation(_SELECT, [pred, returned[k][j], chosen], [result.type],
                               location=op.location, opdef=registry.lookup(_SELECT))
            chosen = select.results[0]
            out.append(select)
        if not choices:
            return None
        out[-1].results = [result]  # the last select defines the op's own result
    return out


def _predicates(op: Operation, n: int, out: list[Operation]
                ) -> tuple[list[tuple[Value, int]], int] | None:
    """The i1 values picking branches (the first true one's branch is taken) and the
    branch taken when none holds: `if`'s predicate picks the true branch; a two-branch
    case on `convert(pred)` takes its second branch when pred holds; otherwise `index == k`
    picks branch k (compares appended to `out`), the last branch taking the rest."""
    operand = op.operands[0]
    if op.name == "stablehlo.if":
        return [(operand, 0)], 1
    owner = getattr(operand, "owner", None)
    if n == 2 and isinstance(owner, Operation) and owner.name == "stablehlo.convert":
        source = owner.operands[0]
        t = source.type
        if isinstance(t, TensorType) and not t.shape and isinstance(t.element, IntegerType) \
                and t.element.width == 1:
            return [(source, 1)], 0
    t = operand.type
    if not isinstance(t, TensorType) or t.shape:
        return None
    choices = []
    i1 = TensorType((), IntegerType(1))
    for k in range(n - 1):
        constant = Operation(_CONSTANT, [], [t], {"value": DenseElementsAttr(
            t, np.array(k, numpy_dtype(t.element)))}, location=op.location,
            opdef=registry.lookup(_CONSTANT))
        compare = Operation(_COMPARE, [operand, constant.results[0]], [i1], {
            "comparison_direction": DialectAttr("stablehlo", "", "comparison_direction EQ"),
            "compare_type": DialectAttr("stablehlo", "", "comparison_type SIGNED")},
            location=op.location, opdef=registry.lookup(_COMPARE))
        out += [constant, compare]
        choices.append((compare.results[0], k))
    return choices, n - 1
