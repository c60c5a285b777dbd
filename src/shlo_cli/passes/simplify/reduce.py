"""reduce with unused results: drop the results nobody reads, with the input/init pairs and
body ops only they needed (when what remains is exactly the used pairs)."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

from ...ir.core import Block, Operation, Region, Value
from ..rewrite import PatternRewriter, RewritePattern, pattern


def _needed(body: Block, ret: Operation, used: list[int], pairs: int
            ) -> tuple[set[int], list[Operation]]:
    """The argument indices and body ops the used return operands depend on."""
    args: set[int] = set()
    ops: set[int] = set()
    work: list[Value] = [ret.operands[i] for i in used]
    while work:
        value = work.pop()
        owner = value.owner
        if owner is body:
            pair = value.index % pairs
            args.update((pair, pair + pairs))
        elif isinstance(owner, Operation) and owner.parent is body and id(owner) not in ops:
            ops.add(id(owner))
            work.extend(owner.operands)
    return args, [op for op in body.operations if id(op) in ops]


@pattern("stablehlo.reduce")
def reduce_drop_unused_results(op: Operation, rewriter: PatternRewriter) -> bool:
    used = [i for i, r in enumerate(op.results) if rewriter.has_uses(r)]
    pairs = len(op.results)
    if len(used) == pairs:
        return False
    body = op.regions[0].blocks[0]
    ret = body.operations[-1]
    args, needed_ops = _needed(body, ret, used, pairs)
    if len(args) != 2 * len(used):
        return False
    kept_pairs = [i for i in range(pairs) if i in args]
    operands = [op.operands[i] for i in kept_pairs] + [op.operands[i + pairs]
                                                       for i in kept_pairs]
    new = Operation("stablehlo.reduce", [], [op.result_types[i] for i in used],
                    dict(op.properties), dict(op.attributes), location=op.location,
                    opdef=op.opdef)
    rewriter.set_insertion_point(op)
    rewriter.insert(new)
    rewriter.set_operands(new, operands)
    block = Block()
    for index in sorted(args):
        old = body.arguments[index]
        rewriter.replace_all_uses_with(old, block.add_argument(old.type))
    for inner in needed_ops:
        body.operations.remove(inner)
        block.append(inner)
    new.regions = [Region([block])]
    new.regions[0].parent = new
    rewriter.set_insertion_point_to_end(block)
    rewriter.create("stablehlo.return", [ret.operands[i] for i in used], [],
                    location=ret.location)
    for inner in needed_ops:
        rewriter.modified(inner)
    for position, index in enumerate(used):
        rewriter.replace_all_uses_with(op.results[index], new.results[position])
    rewriter.erase_op(op)
    return True


PATTERNS: list[RewritePattern] = [reduce_drop_unused_results]
