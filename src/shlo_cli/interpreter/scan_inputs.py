"""A scan's per-step input work done for every step at once, before its `while` loop runs.

A `lax.scan` body reads its step's input as `dynamic_slice(xs, i, 0, ...)` (one row of a
loop-invariant sequence, at an index counted by the loop) and projects it, `x_t @ W_x`,
before anything reads the carried state. Those ops depend on the step only through the
slice, and on a recurrent model's small vectors each costs a whole numpy call (a dot of
eight or fewer terms, several). Here they run once per execution of the loop on the whole
sequence: each per-step value `v` of that chain gets a stacked counterpart of shape
(T, *v.shape), the values of all T rows of the sequence, and the body reads `v` back as row
`i` of its stack (a slice at the step's own index, which `dynamic_slice` clamps as it
clamped the input's: the same row) and a reshape, which codegen fuses into one row read.
Only values the body's other ops read are read back.

Results are bit for bit the same: elementwise ops and data movement compute each element
from the same elements (a masked RNN's mask chain too: bool and integer ops, comparisons,
and reduces of bools or integers by one op, exact in any order); a dot whose sums keep the
reference's order (at most SEQUENTIAL_DEPTH terms, or exact integer and complex sums)
computes each output element by the same products and sums in any batch (matmul's own
loop, ordered_dot.py, as the step's kernel runs it); a BLAS dot of a step's rows
(`x_t @ W`: one row, or a batch's rows) becomes one `matmul` of the stacked rows, which
numpy evaluates as a loop of the same BLAS call on the same layouts (the per-step
kernel's own call: numpy's loop picks its routine, gemv or gemm, per step from the step's
shapes and strides; both on one BLAS thread, the step's product being below OpenBLAS's
threading threshold). Only ops that cannot
fail on operands of their static types are batched (rows no step reads are computed too),
the index must be counted by the loop (an argument stepped by a constant, so the steps read
about as many rows as there are), and the stacks are bounded in size (`MAX_ELEMENTS`).
0-d values are batched too (a scalar loop reads their stack as a list of Python numbers,
as it reads a vector's elements: a scalar RNN's u * x[i]); other one-element values of
float math and dots stay per step.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from ..dialects.stablehlo.blas_threads import ONE_THREAD_BELOW
from ..dialects.stablehlo.gemm import SEQUENTIAL_DEPTH, blas_dtype
from ..dialects.stablehlo.reducer import binary_body_ops
from ..ir.attributes import DenseArrayAttr, DialectAttr
from ..ir.core import Block, Operation, Value
from ..ir.types import (
    IntegerType,
    TensorType,
    UnsupportedTypeError,
    is_float,
    is_integer,
    numpy_dtype,
)

MAX_ELEMENTS = 1 << 20  # all batched values of one loop together
DYNAMIC_SLICE = "stablehlo.dynamic_slice"
MOVES = frozenset("stablehlo." + n for n in ("reshape", "transpose", "broadcast_in_dim"))
# Elementwise ops that cannot fail on float elements (licm.FLOAT_MATH and hoist.UNARY).
FLOAT_MATH = frozenset("stablehlo." + n for n in (
    "add", "subtract", "multiply", "divide", "negate", "abs", "exponential",
    "exponential_minus_one", "log", "log_plus_one", "tanh", "logistic", "sine", "cosine",
    "sqrt", "rsqrt", "cbrt", "maximum", "minimum", "convert", "floor", "ceil"))
# Elementwise ops that cannot fail on any element type, whose results are exact (bools,
# masks and comparisons: a masked RNN's `not mask_t`).
EXACT = frozenset("stablehlo." + n for n in ("not", "and", "or", "xor", "compare"))
REDUCE = "stablehlo.reduce"
# Batched whatever their size (one-element masks included): their chains end in values of
# the step's full shape, and their steps cost a numpy call each.
EXACT_STEPS = EXACT | {REDUCE} | MOVES
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
    """The value's type when a static int or float tensor numpy holds, else None."""
    t = value.type
    if isinstance(t, TensorType) and t.is_static and (is_float(t.element)
                                                      or is_integer(t.element)):
        try:
            numpy_dtype(t.element)
        except UnsupportedTypeError:
            return None
        return t
    return None


def _dims(op: Operation, name: str) -> tuple[int, ...] | None:
    attr = op.attr(name)
    if not isinstance(attr, DenseArrayAttr):
        return None
    return tuple(int(v) for v in attr.items)


def _stacked_type(t: TensorType, length: int) -> TensorType:
    return TensorType((length, *t.shape), t.element)


def _dot_attr(lc: list[int], rc: list[int]) -> DialectAttr:
    """Dot dimension numbers without batching dimensions, as the parser gives them."""
    fields = (("lhs_contracting_dimensions", list(lc)), ("rhs_contracting_dimensions", list(rc)))
    body = ", ".join(f"{k} = [{', '.join(map(str, v))}]" for k, v in fields)
    return DialectAttr("stablehlo", "dot", body, fields)


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


class _Finder:
    """The stacked counterparts of one body's values: v -> (stack, index, T)."""

    def __init__(self, invariant: Callable[[Value], bool]) -> None:
        self.invariant = invariant
        self.batched: dict[Value, tuple[Value, Value, int]] = {}
        self.seeds: dict[Value, tuple[Operation, int]] = {}  # stacked lazily: (slice, axis)
        self.ops: list[Operation] = []
        self.kernels: dict[Operation, Kernel] = {}
        self.origin: dict[Value, Operation] = {}  # a batched value -> its body op
        self.elements = 0

    def _new(self, name: str, operands: list[Value], result: TensorType,
             properties: dict[str, Any], like: Operation) -> Operation:
        new = Operation(name, operands, [result], properties, location=like.location,
                        opdef=like.opdef if name == like.name else None)
        if name == like.name:
            new.regions = like.regions  # (a reduce's body, shared: its parent stays `like`)
        self.ops.append(new)
        return new

    def stack(self, v: Value) -> Value:
        """The stack of `v` (a seed's made on first use: the sequence with the sliced
        axis moved first, each row given the slice's shape)."""
        if v in self.seeds:
            op, axis = self.seeds.pop(v)
            source = op.operands[0]
            t = source.type
            assert isinstance(t, TensorType)
            if axis:
                perm = (axis, *(d for d in range(len(t.shape)) if d != axis))
                source = self._new("stablehlo.transpose", [source], TensorType(
                    tuple(t.shape[d] for d in perm), t.element),
                    {"permutation": DenseArrayAttr(_I64, perm)}, op).results[0]
            step = op.results[0].type
            assert isinstance(step, TensorType)
            source = self._new("stablehlo.reshape", [source],
                               _stacked_type(step, t.shape[axis]), {}, op).results[0]
            _, index, length = self.batched[v]
            self.batched[v] = (source, index, length)
        return self.batched[v][0]

    def add(self, op: Operation, operands: list[Value | None], properties: dict[str, Any],
            length: int, index: Value, kernel: Kernel | None = None,
            broadcast: Sequence[int] = (), sequence_at: int = 0) -> None:
        """Batch `op`: its stacked copy reads the stacks of batched operands (None) and the
        invariant ones as they are, or repeated along the sequence for the positions in
        `broadcast` (an elementwise op's operands of the step's shape). The copy's result
        has the sequence axis at `sequence_at` (a transpose then moves it first)."""
        result = op.results[0].type
        assert isinstance(result, TensorType)
        size = length * math.prod(result.shape)
        copies = 1 + len(broadcast) + (sequence_at > 0)
        if self.elements + size * copies > MAX_ELEMENTS:
            return
        self.elements += size * copies
        values = []
        for k, (v, mine) in enumerate(zip(op.operands, operands, strict=True)):
            if mine is None:
                values.append(self.stack(v))
            elif k in broadcast:
                t = v.type
                assert isinstance(t, TensorType)
                values.append(self._new("stablehlo.broadcast_in_dim", [v], _stacked_type(
                    t, length), {"broadcast_dimensions": DenseArrayAttr(
                        _I64, tuple(range(1, len(t.shape) + 1)))}, op).results[0])
            else:
                values.append(v)
        shape = list(result.shape)
        shape.insert(sequence_at, length)
        new = self._new(op.name, values, TensorType(tuple(shape), result.element), properties,
                        op)
        if kernel is not None:
            self.kernels[new] = kernel
        if sequence_at:
            perm = (sequence_at, *(d for d in range(len(shape)) if d != sequence_at))
            new = self._new("stablehlo.transpose", new.results, _stacked_type(result, length),
                            {"permutation": DenseArrayAttr(_I64, perm)}, op)
        self.batched[op.results[0]] = (new.results[0], index, length)
        self.origin[op.results[0]] = op

    def visit(self, op: Operation) -> None:
        seed = _seed(op, self.invariant)
        if seed is not None:
            axis, index = seed
            source = op.operands[0]
            if axis and math.prod(source.type.shape) > MAX_ELEMENTS:  # type: ignore[attr-defined]
                return  # (its stack would be a transposed copy of the whole sequence)
            self.batched[op.results[0]] = (source, index,
                                           source.type.shape[axis])  # type: ignore[attr-defined]
            self.seeds[op.results[0]] = (op, axis)
            self.origin[op.results[0]] = op
            return
        if (op.regions and op.name != REDUCE) or len(op.results) != 1 or not op.operands:
            return
        inputs = [self.batched.get(v) for v in op.operands]
        found = [b for b in inputs if b is not None]
        if not found:
            return
        _, index, length = found[0]
        if any(b[1] is not index or b[2] != length for b in found):
            return
        if not all(b is not None or self.invariant(v)
                   for v, b in zip(op.operands, inputs, strict=True)):
            return
        result = _static(op.results[0])
        if (result is None or (math.prod(result.shape) < 2 and result.shape
                               and op.name not in EXACT_STEPS)
                or any(_static(v) is None for v in op.operands)):
            return
        operands: list[Value | None] = [None if b is not None else v
                                        for v, b in zip(op.operands, inputs, strict=True)]
        if op.name == REDUCE:
            self._reduce(op, result, operands, length, index)
        elif op.name in EXACT:
            if all(v.type.shape == result.shape for v in op.operands):  # type: ignore[attr-defined]
                self.add(op, operands, dict(op.properties), length, index,
                         broadcast=[k for k, b in enumerate(inputs) if b is None])
        elif op.name in FLOAT_MATH:
            if all(is_float(t.element) for t in (result, *(v.type for v in op.operands))
                   if isinstance(t, TensorType)) and all(
                    v.type.shape == result.shape for v in op.operands):  # type: ignore[attr-defined]
                self.add(op, operands, dict(op.properties), length, index,
                         broadcast=[k for k, b in enumerate(inputs) if b is None])
        elif op.name in MOVES and len(op.operands) == 1:
            self.add(op, operands, self._moved(op), length, index)
        elif op.name == DOT and len(op.operands) == 2 and len(found) == 1:
            self._dot(op, result, operands, length, index)

    def _reduce(self, op: Operation, result: TensorType, operands: list[Value | None],
                length: int, index: Value) -> None:
        """A reduce of one stacked bool or integer input by one commutative op (and, or,
        xor, max, min, wrapping add and multiply: exact, so any order of the terms gives
        the same bits) with an invariant init value: the same reduce over the stack's
        shifted dimensions."""
        dims = _dims(op, "dimensions")
        names = binary_body_ops(op.regions[0], 1) if len(op.regions) == 1 else None
        if (dims is None or names is None or len(op.operands) != 2 or operands[0] is not None
                or operands[1] is None or is_float(result.element)
                or any(is_float(v.type.element) for v in op.operands)):  # type: ignore[attr-defined]
            return
        properties = {**op.properties, "dimensions": DenseArrayAttr(
            _I64, tuple(d + 1 for d in dims))}
        self.add(op, operands, properties, length, index)

    @staticmethod
    def _moved(op: Operation) -> dict[str, Any]:
        """The properties of a data movement op on stacks (the leading axis stays first)."""
        for name in ("permutation", "broadcast_dimensions"):
            dims = _dims(op, name)
            if dims is not None:
                shifted = (0, *(d + 1 for d in dims))  # (a transpose's or a broadcast's)
                return {**op.properties, name: DenseArrayAttr(_I64, shifted)}
        return dict(op.properties)

    def _dot(self, op: Operation, result: TensorType, operands: list[Value | None],
             length: int, index: Value) -> None:
        """x_t @ W or W @ x_t (no batching dimensions): the stacked x's first axis is one
        more free dimension of its side, moved first in the result."""
        attr = op.attr("dot_dimension_numbers")
        get = getattr(attr, "get", None)
        if get is None or get("lhs_batching_dimensions") or get("rhs_batching_dimensions"):
            return
        lc = [int(d) for d in get("lhs_contracting_dimensions") or ()]
        rc = [int(d) for d in get("rhs_contracting_dimensions") or ()]
        lhs_t, rhs_t = (v.type for v in op.operands)
        assert isinstance(lhs_t, TensorType) and isinstance(rhs_t, TensorType)
        lfree = [d for d in range(len(lhs_t.shape)) if d not in lc]
        rfree = [d for d in range(len(rhs_t.shape)) if d not in rc]
        stacked_lhs = operands[0] is None
        properties = {**op.properties, "dot_dimension_numbers": _dot_attr(
            [d + int(stacked_lhs) for d in lc], [d + int(not stacked_lhs) for d in rc])}
        m, k, n = (math.prod(t.shape[d] for d in dims)
                   for t, dims in ((lhs_t, lfree), (lhs_t, lc), (rhs_t, rfree)))
        dtype = numpy_dtype(result.element)
        if blas_dtype(dtype) is None or k <= SEQUENTIAL_DEPTH:  # the same sums per element
            self.add(op, operands, properties, length, index,
                     sequence_at=0 if stacked_lhs else len(lfree))
            return
        # BLAS: a step's product small enough for one BLAS thread (the step's own call)
        if (blas_dtype(dtype) != dtype or m * k * n >= ONE_THREAD_BELOW
                or numpy_dtype(lhs_t.element) != dtype or numpy_dtype(rhs_t.element) != dtype):
            return
        if stacked_lhs:
            kernel = _stacked_products(length, (0, *(d + 1 for d in lfree + lc)),
                                       (*rc, *rfree), (m, k), (k, n), result, dtype, True)
        else:
            kernel = _stacked_products(length, (*lfree, *lc),
                                       (0, *(d + 1 for d in rc + rfree)), (m, k), (k, n),
                                       result, dtype, False)
        self.add(op, operands, properties, length, index, kernel)


def _as_stepped(view: np.ndarray, rows: int, cols: int, dtype: np.dtype) -> np.ndarray:
    """A step's (rows, cols) operand as specialize_dot's kernel hands it to BLAS: in place
    when C-ordered or (with no unit dimension, or by its flags) Fortran-ordered, else a
    copy in its own memory order."""
    item = dtype.itemsize
    strides = view.strides
    if strides == (cols * item, item) or strides == (item, rows * item) and (
            rows > 1 and cols > 1 or view.flags.f_contiguous and not view.flags.c_contiguous):
        return view
    return view.astype(dtype)


def _stacked_products(length: int, lorder: tuple[int, ...], rorder: tuple[int, ...],
                      left: tuple[int, int], right: tuple[int, int], result: TensorType,
                      dtype: np.dtype, stacked_lhs: bool) -> Kernel:
    """Every step's BLAS product (x_t @ W or W @ x_t) as one matmul of the stacked steps:
    numpy runs, per step, the same BLAS call the step's own kernel makes (specialize_dot:
    x_t contiguous, W laid out as the step reads it)."""
    zero = np.array(0, dtype)
    shape = (length, *result.shape)

    def kernel(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        if stacked_lhs:
            a = np.ascontiguousarray(lhs.transpose(lorder)).reshape(length, *left)
            b = _as_stepped(rhs.transpose(rorder).reshape(right), *right, dtype)
        else:
            a = _as_stepped(lhs.transpose(lorder).reshape(left), *left, dtype)
            b = np.ascontiguousarray(rhs.transpose(rorder)).reshape(length, *right)
        with np.errstate(all="ignore"):
            out = np.matmul(a, b)
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
    made = [v for v, op in finder.origin.items() if op.name != DYNAMIC_SLICE]
    if not made:
        return None
    # every index must be a loop counter (the steps then read about every row)
    indices = {finder.batched[v][1] for v in made}
    if not all(_counted(i, defs, body, returned, invariant) for i in indices):
        return None
    outside = set(returned) | set(captured)
    for op in ops:
        if not (op.results and op.results[0] in finder.origin):  # (a batched op's operands
            outside.update(op.operands)  # are read by its stacked copy)
    stored: set[Value] = set()
    replaced: dict[Operation, list[Operation]] = {}
    for v, op in finder.origin.items():
        if v not in outside:
            replaced[op] = []
            continue
        if op.name == DYNAMIC_SLICE:
            continue  # a slice the body also reads as it is: it stays
        stack, index, _ = finder.batched[v]
        t = v.type
        assert isinstance(t, TensorType)
        stored.add(stack)
        row = (1, *t.shape)
        read = Operation(DYNAMIC_SLICE, [stack] + [index] * len(row),
                         [TensorType(row, t.element)],
                         {"slice_sizes": DenseArrayAttr(_I64, row)}, location=op.location)
        reshape = Operation("stablehlo.reshape", [read.results[0]], [t], location=op.location)
        reshape.results = [v]
        replaced[op] = [read, reshape]
    computing = [o for o in replaced if o.name in FLOAT_MATH or o.name in EXACT
                 or o.name in (REDUCE, DOT)]
    if not computing or all(replaced.values()):  # not one op fewer per step
        return None
    return Batching(finder.ops, finder.kernels, stored, replaced)
