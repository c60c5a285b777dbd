"""A scan's per-step input work done for every step at once, before its `while` loop runs.

A `lax.scan` body reads its step's input as `dynamic_slice(xs, i, 0, ...)` (one row of a
loop-invariant sequence, at an index counted by the loop) and projects it, `x_t @ W_x`,
before anything reads the carried state. Those ops depend on the step only through the
slice, and on a recurrent model's small vectors each costs a whole numpy call (a dot of
eight or fewer terms, several). Here they run once per execution of the loop on the whole
sequence: each per-step value `v` of that chain gets a batched counterpart, `v`'s shape with
the sliced axis (size 1 in `v`) as long as the sequence, and the body reads `v` back as the
slice of its counterpart at the step's own index (`dynamic_slice` clamps it alike, so it is
the same row). Only values the body's other ops read are read back.

Results are bit for bit the same: elementwise ops and data movement compute each element
from the same elements; a dot whose sums keep the reference's order (at most
SEQUENTIAL_DEPTH terms, or exact integer and complex sums) computes each output element by
the same products and sums in any batch; a BLAS dot of one row per step (`x_t @ W`) becomes
one `matmul` of the stacked rows, which numpy evaluates as a loop of the same one-row BLAS
call on the same layouts (the per-step kernel's own call; numpy's loop picks its BLAS
routine per row from the row's shape and strides). Only ops that cannot fail on operands
of their static types are batched (rows no step reads are computed too), the index must be
counted by the loop (an argument stepped by a constant, so the steps read about as many
rows as there are), and the batched values are bounded in size (`MAX_ELEMENTS`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from ..dialects.stablehlo.blas_threads import ONE_THREAD_BELOW
from ..dialects.stablehlo.gemm import SEQUENTIAL_DEPTH, blas_dtype
from ..ir.attributes import DenseArrayAttr
from ..ir.core import Block, Operation, Value
from ..ir.types import IntegerType, TensorType, is_float, is_integer, numpy_dtype

MAX_ELEMENTS = 1 << 20  # all batched values of one loop together
DYNAMIC_SLICE = "stablehlo.dynamic_slice"
MOVES = frozenset("stablehlo." + n for n in ("reshape", "transpose", "broadcast_in_dim"))
# Elementwise ops that cannot fail on float elements (licm.FLOAT_MATH and hoist.UNARY).
FLOAT_MATH = frozenset("stablehlo." + n for n in (
    "add", "subtract", "multiply", "divide", "negate", "abs", "exponential",
    "exponential_minus_one", "log", "log_plus_one", "tanh", "logistic", "sine", "cosine",
    "sqrt", "rsqrt", "cbrt", "maximum", "minimum", "convert", "floor", "ceil"))
DOT = "stablehlo.dot_general"
_I64 = IntegerType(64)

Kernel = Callable[..., Any]


class Batching:
    """What `batch_scan_inputs` found for one loop: `ops` (evaluated after the loop's
    invariants, in order) compute the batched values, some with their own kernels
    (`kernels`); `stored` are the stacks of them the body reads back; `replaced` maps the
    body's batched ops to the ops that now give their value per step (a row read of a
    stack and its reshape), or to none where nothing in the body reads the value any
    more."""

    __slots__ = ("ops", "kernels", "stored", "replaced")

    def __init__(self, ops: list[Operation], kernels: dict[Operation, Kernel],
                 stored: set[Value], replaced: dict[Operation, list[Operation]]) -> None:
        self.ops = ops
        self.kernels = kernels
        self.stored = stored
        self.replaced = replaced


def _static(value: Value) -> TensorType | None:
    t = value.type
    if isinstance(t, TensorType) and t.is_static and (is_float(t.element)
                                                      or is_integer(t.element)):
        return t
    return None


def _dims(op: Operation, name: str) -> tuple[int, ...] | None:
    attr = op.attr(name)
    if not isinstance(attr, DenseArrayAttr):
        return None
    return tuple(int(v) for v in attr.items)


def _with_axis(t: TensorType, axis: int, length: int) -> TensorType:
    shape = list(t.shape)
    shape[axis] = length
    return TensorType(tuple(shape), t.element)


def _counted(index: Value, defs: dict[Value, Operation], block: Block,
             returned: Sequence[Value], invariant: Callable[[Value], bool]) -> bool:
    """Whether `index` is computed from one loop argument that the body steps by a constant
    (a scan's counter, also as `n - 1 - i` or jax's negative-index select), constants and
    loop invariants."""
    counters: set[Value] = set()
    stack, seen = [index], set()
    while stack:
        v = stack.pop()
        if v in seen or invariant(v):
            continue
        seen.add(v)
        if v.owner is block:
            step = defs.get(returned[v.index])
            if step is None or step.name != "stablehlo.add" or v not in step.operands:
                return False
            other = step.operands[1] if step.operands[0] is v else step.operands[0]
            source = defs.get(other)
            if source is None or source.name != "stablehlo.constant":
                return False
            counters.add(v)
            continue
        op = defs.get(v)
        if op is None or op.regions or any(
                not isinstance(r.type, TensorType) or r.type.shape for r in op.results):
            return False
        stack.extend(op.operands)
    return len(counters) == 1


def _seed(op: Operation, invariant: Callable[[Value], bool]) -> tuple[int, Value] | None:
    """(sliced axis, index) of a dynamic_slice taking one row of a loop invariant along one
    axis and its other axes whole (their starts clamp to 0 whatever they are)."""
    if op.name != DYNAMIC_SLICE or len(op.results) != 1 or not op.operands:
        return None
    source, result = _static(op.operands[0]), _static(op.results[0])
    sizes = _dims(op, "slice_sizes")
    if (source is None or result is None or sizes is None or not invariant(op.operands[0])
            or len(op.operands) != 1 + len(source.shape) or sizes != result.shape):
        return None
    cut = [d for d, (n, s) in enumerate(zip(source.shape, sizes, strict=True)) if n != s]
    if len(cut) != 1 or sizes[cut[0]] != 1:
        return None
    index = op.operands[1 + cut[0]]
    if invariant(index):
        return None
    return cut[0], index


def _reshaped_axis(before: tuple[int, ...], after: tuple[int, ...], axis: int) -> int | None:
    """The unit axis of `after` that a reshape maps the unit `axis` of `before` to, such
    that the same reshape with both as long as the sequence keeps every row whole."""
    leading = math.prod(before[:axis])
    for d, n in enumerate(after):
        if n == 1 and math.prod(after[:d]) == leading:
            return d
    return None


class _Finder:
    """The batched counterparts of one body's values (one sequence length and index)."""

    def __init__(self, invariant: Callable[[Value], bool]) -> None:
        self.invariant = invariant
        self.batched: dict[Value, tuple[Value, int, Value, int]] = {}  # v: (B, axis, index, T)
        self.ops: list[Operation] = []
        self.kernels: dict[Operation, Kernel] = {}
        self.origin: dict[Value, Operation] = {}  # batched value -> its body op
        self.elements = 0

    def add(self, op: Operation, result: TensorType, operands: list[Value], axis: int,
            index: Value, length: int, kernel: Kernel | None = None) -> bool:
        size = math.prod(result.shape)
        if self.elements + size > MAX_ELEMENTS:
            return False
        self.elements += size
        new = Operation(op.name, operands, [result], dict(op.properties), dict(op.attributes),
                        location=op.location, opdef=op.opdef)
        self.ops.append(new)
        if kernel is not None:
            self.kernels[new] = kernel
        self.batched[op.results[0]] = (new.results[0], axis, index, length)
        self.origin[op.results[0]] = op
        return True

    def visit(self, op: Operation) -> None:
        seed = _seed(op, self.invariant)
        if seed is not None:
            axis, index = seed
            source = op.operands[0]
            self.batched[op.results[0]] = (source, axis, index,
                                           source.type.shape[axis])  # type: ignore[attr-defined]
            self.origin[op.results[0]] = op
            return
        if op.regions or len(op.results) != 1 or not op.operands:
            return
        inputs = [self.batched.get(v) for v in op.operands]
        found = [b for b in inputs if b is not None]
        if not found:
            return
        _, axis, index, length = found[0]
        if any(b[2] is not index or b[3] != length for b in found):
            return
        if not all(b is not None or self.invariant(v)
                   for v, b in zip(op.operands, inputs, strict=True)):
            return
        result = _static(op.results[0])
        if result is None or any(_static(v) is None for v in op.operands):
            return
        if op.name in FLOAT_MATH:
            self._elementwise(op, result, inputs, axis, index, length)
        elif op.name in MOVES and len(op.operands) == 1:
            self._move(op, result, found[0], index, length)
        elif op.name == DOT and len(found) == 1 and len(op.operands) == 2:
            self._dot(op, result, inputs, index, length)

    def _elementwise(self, op: Operation, result: TensorType,
                     inputs: list[tuple[Value, int, Value, int] | None], axis: int,
                     index: Value, length: int) -> None:
        if not all(is_float(t.element) for t in (result, *(v.type for v in op.operands))
                   if isinstance(t, TensorType)):
            return
        if any(b is not None and b[1] != axis for b in inputs):
            return
        if any(b is None and v.type.shape != result.shape  # type: ignore[attr-defined]
               for v, b in zip(op.operands, inputs, strict=True)):
            return
        batched = _with_axis(result, axis, length)
        wide_size = math.prod(batched.shape) * sum(b is None for b in inputs)
        if self.elements + wide_size + math.prod(batched.shape) > MAX_ELEMENTS:
            return
        operands = []
        for v, b in zip(op.operands, inputs, strict=True):
            if b is not None:
                operands.append(b[0])
                continue
            # an invariant operand (of the step's shape) repeated along the sequence axis
            wide = Operation("stablehlo.broadcast_in_dim", [v], [_with_axis(
                v.type, axis, length)], {"broadcast_dimensions": DenseArrayAttr(  # type: ignore[arg-type]
                    _I64, tuple(range(len(result.shape))))}, location=op.location)
            self.ops.append(wide)
            self.elements += math.prod(batched.shape)
            operands.append(wide.results[0])
        self.add(op, batched, operands, axis, index, length)

    def _move(self, op: Operation, result: TensorType, source: tuple[Value, int, Value, int],
              index: Value, length: int) -> None:
        value, axis, _, _ = source
        before = op.operands[0].type.shape  # type: ignore[attr-defined]
        moved: int | None
        if op.name == "stablehlo.reshape":
            moved = _reshaped_axis(before, result.shape, axis)
        elif op.name == "stablehlo.transpose":
            perm = _dims(op, "permutation")
            moved = perm.index(axis) if perm is not None and axis in perm else None
        else:
            dims = _dims(op, "broadcast_dimensions")
            moved = dims[axis] if dims is not None and axis < len(dims) else None
            if moved is not None and result.shape[moved] != 1:
                return
        if moved is None:
            return
        self.add(op, _with_axis(result, moved, length), [value], moved, index, length)

    def _dot(self, op: Operation, result: TensorType,
             inputs: list[tuple[Value, int, Value, int] | None], index: Value,
             length: int) -> None:
        layout = _dot_dimensions(op)
        if layout is None:
            return
        lb, rb, lc, rc = layout
        side = 0 if inputs[0] is not None else 1
        batched = inputs[side]
        assert batched is not None
        value, axis, _, _ = batched
        ranks = [len(v.type.shape) for v in op.operands]  # type: ignore[attr-defined]
        free = [[d for d in range(ranks[s]) if d not in (lb, rb)[s] and d not in (lc, rc)[s]]
                for s in (0, 1)]
        if axis not in free[side]:
            return
        moved = len(lb) + (free[0].index(axis) if side == 0 else
                           len(free[0]) + free[1].index(axis))
        shapes = [v.type.shape for v in op.operands]  # type: ignore[attr-defined]
        k = math.prod(shapes[0][d] for d in lc)
        dtype = numpy_dtype(result.element)
        operands = [value, op.operands[1]] if side == 0 else [op.operands[0], value]
        batched_type = _with_axis(result, moved, length)
        if blas_dtype(dtype) is None or k <= SEQUENTIAL_DEPTH:  # the same sums per element
            self.add(op, batched_type, operands, moved, index, length)
            return
        n = math.prod(shapes[1][d] for d in free[1])
        m = math.prod(shapes[0][d] for d in free[0])
        if (side != 0 or lb or m != 1 or blas_dtype(dtype) != dtype or k * n >= ONE_THREAD_BELOW
                or any(numpy_dtype(v.type.element) != dtype  # type: ignore[attr-defined]
                       for v in op.operands)):
            return
        order = (axis, *(d for d in free[0] if d != axis), *lc)
        rperm = (*rc, *free[1])
        kernel = _row_products(order, rperm, length, k, n, batched_type.shape, dtype)
        self.add(op, batched_type, operands, moved, index, length, kernel)


def _dot_dimensions(op: Operation) -> tuple[list[int], list[int], list[int], list[int]] | None:
    attr = op.attr("dot_dimension_numbers")
    body = getattr(attr, "body", None)
    if not isinstance(body, str):
        return None
    fields: dict[str, list[int]] = {"lhs_batching_dimensions": [], "rhs_batching_dimensions": [],
              "lhs_contracting_dimensions": [], "rhs_contracting_dimensions": []}
    for part in body.split("]"):
        if "=" not in part:
            continue
        name, _, values = part.partition("=")
        name = name.strip(" ,")
        if name not in fields:
            return None
        try:
            fields[name] = [int(v) for v in values.strip(" [").split(",") if v.strip()]
        except ValueError:
            return None
    return (fields["lhs_batching_dimensions"], fields["rhs_batching_dimensions"],
            fields["lhs_contracting_dimensions"], fields["rhs_contracting_dimensions"])


def _row_products(order: tuple[int, ...], rperm: tuple[int, ...], length: int, k: int,
                  n: int, shape: tuple[int, ...], dtype: np.dtype) -> Kernel:
    """Every step's one-row BLAS product `row @ W` as one stacked matmul: numpy runs the same
    BLAS call per row that the per-step kernel makes for that row (specialize._dot_general:
    the row contiguous; W as the step reads it, C- or Fortran-ordered in place, else copied
    in its own memory order)."""
    zero = np.array(0, dtype)
    item = dtype.itemsize
    right_c, right_f = (n * item, item), (item, k * item)
    f_sure = k > 1 and n > 1  # with no unit dimension, Fortran strides are Fortran order

    def kernel(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        left = np.ascontiguousarray(lhs.transpose(order)).reshape(length, 1, k)
        right = rhs.transpose(rperm).reshape(k, n)
        strides = right.strides
        if not (strides == right_c or strides == right_f and (
                f_sure or right.flags.f_contiguous and not right.flags.c_contiguous)):
            right = right.astype(dtype)  # as the step's kernel copies it (its memory order)
        with np.errstate(all="ignore"):
            out = np.matmul(left, right)
            out += zero
        return out.reshape(shape)
    return kernel


def batch_scan_inputs(body: Block, ops: Sequence[Operation], returned: Sequence[Value],
                      invariant: Callable[[Value], bool],
                      captured: Collection[Value]) -> Batching | None:
    """The batching of `ops` (a while body's planned ops after its invariants left; their
    values and `invariant` ones are all they read besides the body's arguments), or None
    when it saves nothing. `returned`: the body's results; `captured`: values nested
    regions read."""
    defs = {r: o for o in ops for r in o.results}
    finder = _Finder(invariant)
    for op in ops:
        finder.visit(op)
    if not finder.ops:
        return None
    # every index must be a loop counter (the steps then read about every row)
    indices = {b[2] for b in finder.batched.values()}
    if not all(_counted(i, defs, body, returned, invariant) for i in indices):
        return None
    outside = set(returned) | set(captured)
    for op in ops:
        if not (op.results and op.results[0] in finder.origin):  # (a batched op's operands
            outside.update(op.operands)  # are read by its batched copy)
    stored: set[Value] = set()
    replaced: dict[Operation, list[Operation]] = {}
    for v, op in finder.origin.items():
        if v not in outside:
            replaced[op] = []
            continue
        if op.name == DYNAMIC_SLICE:
            continue  # a slice the body also reads as it is: it stays
        value, axis, index, length = finder.batched[v]
        t = v.type
        assert isinstance(t, TensorType)
        stack = _stacked(finder, value, axis, length, t, op)
        stored.add(stack)
        row = (1, *t.shape)
        read = Operation(DYNAMIC_SLICE, [stack] + [index] * len(row),
                         [TensorType(row, t.element)],
                         {"slice_sizes": DenseArrayAttr(_I64, row)}, location=op.location)
        reshape = Operation("stablehlo.reshape", [read.results[0]], [t], location=op.location)
        reshape.results = [v]
        replaced[op] = [read, reshape]
    computing = [o for o in replaced if o.name in FLOAT_MATH or o.name == DOT]
    if not computing or all(replaced.values()):  # not one op fewer per step
        return None
    return Batching(finder.ops, finder.kernels, stored, replaced)


def _stacked(finder: _Finder, value: Value, axis: int, length: int, step: TensorType,
             op: Operation) -> Value:
    """`value` (the step's shape, `length` along `axis`) as the stack of the steps' values,
    shape (length, *step): the body reads it as a scan reads its input, a slice of one row
    and a reshape dropping the unit axis (codegen's fused row read, a Python int index)."""
    t = value.type
    assert isinstance(t, TensorType)
    if axis:
        perm = (axis, *(d for d in range(len(t.shape)) if d != axis))
        moved = Operation("stablehlo.transpose", [value],
                          [TensorType(tuple(t.shape[d] for d in perm), t.element)],
                          {"permutation": DenseArrayAttr(_I64, perm)}, location=op.location)
        finder.ops.append(moved)
        value = moved.results[0]
    stack = Operation("stablehlo.reshape", [value],
                      [TensorType((length, *step.shape), t.element)], location=op.location)
    finder.ops.append(stack)
    return stack.results[0]

