"""Use-list orders (bytecode version 3+).

MLIR's reader builds use lists in reverse pre-order of the uses (the "reference" order); when
a value's uses were in another order, the writer records, for the i-th use of the reference
order, its position in the real use list: either every position, or `(position, i)` pairs
for the shuffled uses when fewer than half moved. We keep that list on the value
(`Value.use_order`) so a file read and written again keeps it.
"""

from __future__ import annotations

from ...ir.core import Operation, Value


def stored_order(value: Value, uses: int) -> list[int] | None:
    """The value's recorded order if it still fits its uses and is not the identity."""
    order = value.use_order
    if order is None or uses < 2 or len(order) != uses:
        return None
    if sorted(order) != list(range(uses)) or all(i == j for i, j in enumerate(order)):
        return None
    return list(order)


def decode_order(indices: list[int], pairs: bool, uses: int) -> tuple[int, ...] | None:
    """The writer-side order from an encoded list, or None when upstream's reader would
    reject it (not a permutation of the value's uses)."""
    if pairs:
        if len(indices) % 2:
            return None
        order = list(range(uses))
        applied = list(range(uses))  # what upstream's reader shuffles with
        for k in range(0, len(indices), 2):
            target, source = indices[k], indices[k + 1]
            if source >= uses or target >= uses:
                return None
            order[source] = target
            applied[target] = source
        check = applied
    else:
        order = list(indices)
        check = order
    if len(check) != uses or sorted(check) != list(range(uses)):
        return None
    return tuple(order)


def densemap_order(keys: list[int]) -> list[int]:
    """The iteration order of an LLVM `DenseMap<unsigned, ...>` filled with `keys` in order
    (hash `k * 37`, quadratic probing, 64 buckets at first, doubled at 3/4 load)."""
    buckets: list[int | None] = [None] * 64
    count = 0
    for key in keys:
        if (count + 1) * 4 >= len(buckets) * 3:
            old = [k for k in buckets if k is not None]
            buckets = [None] * (len(buckets) * 2)
            for k in old:
                _place(buckets, k)
        _place(buckets, key)
        count += 1
    return [k for k in buckets if k is not None]


def _place(buckets: list[int | None], key: int) -> None:
    mask = len(buckets) - 1
    at = (key * 37) & 0xFFFFFFFF & mask
    probe = 1
    while buckets[at] is not None:
        if buckets[at] == key:
            return
        at = (at + probe) & mask
        probe += 1
    buckets[at] = key


def model_use_orders(top: Operation, recreated: list[Operation]) -> None:
    """Set `Value.use_order` as MLIR's use lists would stand after the IR was built in
    pre-order (each new use goes to the front of its value's list, so the list is the
    reference order) and then the ops in `recreated` were replaced, in that order, by new
    ops (what upstream's vhlo-to-version leaves for the writer to record): the new op's
    uses go to the front of its operands' lists, and replacing the old op's results moves
    their uses one by one to the front of the new results' lists, reversing them."""
    number = {id(op): n for n, op in enumerate(top.walk())}
    lists: dict[int, list[tuple[int, int]]] = {}
    values: dict[int, Value] = {}
    for op in top.walk():
        for index, operand in enumerate(op.operands):
            # A use is named by MLIR's use id order: owner number, operand number.
            lists.setdefault(id(operand), []).insert(0, (number[id(op)], index))
            values[id(operand)] = operand
    for op in recreated:
        n = number.get(id(op))
        if n is None:
            continue
        for index, operand in enumerate(op.operands):
            in_memory = lists[id(operand)]
            in_memory.remove((n, index))
            in_memory.insert(0, (n, index))
        for result in op.results:
            if id(result) in lists:
                lists[id(result)].reverse()
    for key, in_memory in lists.items():
        if len(in_memory) < 2:
            continue
        position = {use: at for at, use in enumerate(in_memory)}
        order = [position[use] for use in sorted(in_memory, reverse=True)]
        values[key].use_order = None if order == sorted(order) else tuple(order)
