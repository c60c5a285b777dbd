"""Plan-time dot_general kernels (specialize.py's binding hook): the general path's
permutations, shapes and BLAS call (or shallow dots' sequential sums) worked out once per op,
so that each call is the numpy call itself (an RNN step's 1x64 x 64x256)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.types import TensorType
from ..quiet import quieted, switches
from ..undispatched import undispatched
from .blas_threads import ONE_THREAD_BELOW, SINGLE_THREAD_WORK, matmul
from .dot_general import product_layout, sequential_products, summed_products
from .gemm import SEQUENTIAL_DEPTH
from .ordered_dot import available as ordered_available
from .ordered_dot import backwards, column_available, looped_column, unblasable

Kernel = Callable[..., Any]


def _fortran_only(view: np.ndarray) -> bool:
    flags = view.flags
    return bool(flags.f_contiguous and not flags.c_contiguous)


def dot_dimensions(op: Operation, kwargs: dict[str, Any], ls: tuple[int, ...],
                   rs: tuple[int, ...]) -> tuple[list[int], list[int], list[int],
                                                 list[int]] | None:
    """(lhs batch, rhs batch, lhs contracting, rhs contracting) dimensions of a dot_general
    (or a dot: the last lhs and first rhs dimension contract) on operand shapes `ls`, `rs`,
    when they are in range and their sizes agree; else None."""
    if op.name == "stablehlo.dot":
        lb: list[int] = []
        rb: list[int] = []
        lc, rc = [len(ls) - 1], [0]
    else:
        dims = kwargs.get("dot_dimension_numbers")
        if dims is None or not hasattr(dims, "get"):
            return None

        def ints_of(name: str) -> list[int]:
            value = dims.get(name)
            return [int(v) for v in value] if value else []

        lb, rb = ints_of("lhs_batching_dimensions"), ints_of("rhs_batching_dimensions")
        lc, rc = ints_of("lhs_contracting_dimensions"), ints_of("rhs_contracting_dimensions")
    if any(not 0 <= d < len(ls) for d in lb + lc) or any(not 0 <= d < len(rs) for d in rb + rc):
        return None
    if [ls[d] for d in lc] != [rs[d] for d in rc] or [ls[d] for d in lb] != [rs[d] for d in rb]:
        return None
    return lb, rb, lc, rc


def dot_layout(op: Operation, kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """(lhs permutation, rhs permutation, b, m, k, n, result shape) of a dot_general or
    dot whose static shapes agree; else None."""
    lhs_t, rhs_t, res_t = op.operand_types[0], op.operand_types[1], op.result_types[0]
    if not (isinstance(lhs_t, TensorType) and isinstance(rhs_t, TensorType)
            and isinstance(res_t, TensorType)):
        return None
    ls, rs = tuple(lhs_t.shape), tuple(rhs_t.shape)
    found = dot_dimensions(op, kwargs, ls, rs)
    if found is None:
        return None
    lb, rb, lc, rc = found
    lf = [d for d in range(len(ls)) if d not in lb and d not in lc]
    rf = [d for d in range(len(rs)) if d not in rb and d not in rc]
    out_shape = tuple([ls[d] for d in lb] + [ls[d] for d in lf] + [rs[d] for d in rf])
    if out_shape != tuple(res_t.shape):
        return None
    b, m = math.prod(ls[d] for d in lb), math.prod(ls[d] for d in lf)
    k, n = math.prod(ls[d] for d in lc), math.prod(rs[d] for d in rf)
    return tuple(lb + lf + lc), tuple(rb + rc + rf), b, m, k, n, out_shape


def _quieted(unquieted: Kernel) -> Kernel:
    """`unquieted` with numpy's errors ignored around it (quiet.py), the bare form its
    `unquieted` attribute (for a loop that runs quiet already)."""
    quiet, loud = switches()

    def direct(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """`unquieted` with numpy's errors ignored (quiet.py)."""
        token = quiet()
        try:
            return unquieted(lhs, rhs)
        finally:
            loud(token)
    direct.unquieted = unquieted  # type: ignore[attr-defined]
    return direct


def _matvec(kernel: Kernel, perms: tuple[tuple[int, ...], tuple[int, ...]],
            shapes: tuple[tuple[int, ...], tuple[int, ...]], dims: tuple[int, int, int],
            out_shape: tuple[int, ...], dtype: np.dtype) -> Kernel:
    """`kernel` of a shallow dot with one result per row (N = 1: a small RNN's `W @ h`),
    on operands of `dtype`, their static `shapes` (untransposed) and C layout: the
    general path's sequential_products on the operands themselves, without its copies.
    Where matmul's loop keeps the order (ordered_dot.column_available), that is one
    matmul, and its `prepare` gives a loop's invariant left operand (the weights, the
    data of a regression) once per execution in a layout matmul's loop reads as it is
    (`backwards`): a step is then the matmul alone, written into the step's line
    (`emit`) when the operands' and the result's shapes are matmul's own."""
    (ls, rs), (b, m, k), array = shapes, dims, np.ndarray
    if k == 0 or perms != (tuple(range(len(ls))), tuple(range(len(rs)))):
        return kernel
    lstrides, rstrides = np.empty(ls, dtype).strides, np.empty(rs, dtype).strides
    if not column_available(dtype):
        def summed(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
            """`kernel` with numpy's errors ignored already (quiet.py)."""
            if (lhs.__class__ is not array or rhs.__class__ is not array
                    or lhs.dtype != dtype or rhs.dtype != dtype or lhs.shape != ls
                    or rhs.shape != rs or lhs.strides != lstrides or rhs.strides != rstrides):
                return kernel(lhs, rhs)
            out: np.ndarray = sequential_products(lhs.reshape(b, m, k), rhs.reshape(b, k, 1))
            return out.reshape(out_shape)
        return _quieted(summed)
    prepared = backwards(np.empty(ls, dtype)).strides
    left, right = (b, m, k), (b, k, 1)
    # matmul's own shapes: a (M, K) matrix times a (K,) or (K, 1) column
    direct = b == 1 and ls == (m, k) and rs in ((k,), (k, 1)) and out_shape == (m, *rs[1:])
    matmul = np.matmul

    def unquieted(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """`kernel` with numpy's errors ignored already (quiet.py): one matmul whose loop
        is the reference's, on a prepared left operand as it is, else on the right one
        copied backwards (ordered_dot.looped_column)."""
        if (lhs.__class__ is not array or rhs.__class__ is not array or lhs.dtype != dtype
                or rhs.dtype != dtype or lhs.shape != ls or rhs.shape != rs):
            return kernel(lhs, rhs)
        if lhs.strides != prepared:
            return looped_column(lhs.reshape(left), rhs.reshape(right)).reshape(out_shape)
        if direct:
            return matmul(lhs, rhs)  # type: ignore[no-any-return]
        out: np.ndarray = matmul(lhs.reshape(left), rhs.reshape(right))
        return out.reshape(out_shape)

    def prepare(lhs: np.ndarray) -> np.ndarray:
        """`lhs` in the layout `unquieted` reads as it is (anything else as it is)."""
        if lhs.__class__ is not array or lhs.dtype != dtype or lhs.shape != ls:
            return lhs
        return backwards(lhs)

    fast = _quieted(unquieted)
    fast.prepare = (0, prepare)  # type: ignore[attr-defined]
    if direct:  # (the left operand's class, type and shape are the step's static ones)
        fast.emit = _prepared_line(0, prepared)  # type: ignore[attr-defined]
    return fast


def _prepared_line(at: int, strides: tuple[int, ...]
                   ) -> Callable[[str, list[str], dict[str, Any]], str | None]:
    """A looped kernel's prepared case as generated code (codegen._inline): matmul where
    operand `at` has the prepared `strides`, else the kernel's call. The operands' classes,
    types and shapes are the step's static ones (a value has the type its op declares)."""
    def emit(kernel: str, args: list[str], ns: dict[str, Any]) -> str | None:
        if len(args) != 2:
            return None
        ns[f"{kernel}M"], ns[f"{kernel}S"] = np.matmul, strides
        lhs, rhs = args
        return (f"{kernel}M({lhs}, {rhs}) if {args[at]}.strides == {kernel}S "
                f"else {kernel}({lhs}, {rhs})")
    return emit


def _shallow_dot(lperm: tuple[int, ...], rperm: tuple[int, ...], left: tuple[int, ...],
                 right: tuple[int, ...], out_shape: tuple[int, ...], dtype: np.dtype,
                 shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> Kernel:
    """A dot of at most SEQUENTIAL_DEPTH terms (an RNN step's input projection of 8
    features): the general path's sequential products with its layout worked out once.
    Operands of `dtype` and their static `shapes` go straight to its numpy calls: matmul's
    own loop (`_looped_dot`) where this numpy keeps the order in it, else the multiply and
    reduction (dot_general.summed_products, in the shapes it uses)."""
    quiet, loud = switches()

    def kernel(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        token = quiet()
        try:
            out = sequential_products(lhs.transpose(lperm).reshape(left).astype(dtype),
                                      rhs.transpose(rperm).reshape(right).astype(dtype))
        finally:
            loud(token)
        return np.asarray(out.reshape(out_shape), order="C")

    b, m, k = left
    n = right[2]
    if n < 2:
        return _matvec(kernel, (lperm, rperm), shapes, (b, m, k), out_shape, dtype) \
            if n == 1 else kernel
    if ordered_available(dtype):
        return _looped_dot(kernel, (lperm, rperm), shapes, (b, m, k, n), out_shape, dtype)
    lshape, rshape, perm, pshape = product_layout(b, m, k, n)
    moved = perm != tuple(range(len(perm)))
    (ls, rs), array = shapes, np.ndarray
    if lperm != tuple(range(len(ls))) or rperm != tuple(range(len(rs))):
        return kernel  # (a transposed operand: its copy's layout steers numpy's loops)
    final = None if out_shape == pshape[1:] else out_shape
    # numpy's strides for fresh arrays of these shapes (its astype copies'): operands with
    # them are laid out as the copies would be
    lstrides, rstrides = np.empty(ls, dtype).strides, np.empty(rs, dtype).strides
    rsame = rshape == rs

    def unquieted(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """`kernel` with numpy's errors ignored already (quiet.py); on operands laid out
        as its copies, the same multiply and reduction on the operands themselves."""
        if (lhs.__class__ is not array or rhs.__class__ is not array or lhs.dtype != dtype
                or rhs.dtype != dtype or lhs.shape != ls or rhs.shape != rs
                or lhs.strides != lstrides or rhs.strides != rstrides):
            return kernel(lhs, rhs)
        left, right = lhs.reshape(lshape), rhs if rsame else rhs.reshape(rshape)
        if moved:
            left, right = left.transpose(perm), right.transpose(perm)
        out = summed_products(left, right, pshape)
        return out if final is None else out.reshape(final)
    return _quieted(unquieted)


def _looped_dot(kernel: Kernel, perms: tuple[tuple[int, ...], tuple[int, ...]],
                shapes: tuple[tuple[int, ...], tuple[int, ...]], sizes: tuple[int, int, int, int],
                out_shape: tuple[int, ...], dtype: np.dtype) -> Kernel:
    """`kernel`, a shallow dot of N >= 2 results, as the general path's one matmul
    (ordered_dot.py) on the operands as they come: a reshaped view of the left one, the
    right one's columns reversed and the result written back through the reversal. Its
    `prepare` (operand index, function) gives a loop's invariant right operand, once per
    execution of the loop (codegen.py), in a layout matmul's loop reads as it is
    (`unblasable`): then the result needs no reversal."""
    (lperm, rperm), (ls, rs) = perms, shapes
    b, m, k, n = sizes
    lsame, rsame = lperm == tuple(range(len(ls))), rperm == tuple(range(len(rs)))
    # (B, M, 1, K) x (B, 1, K, N): a (1, K) x (K, N) core per output row; B = 1 dropped,
    # and M = 1 too (an RNN step's row: its operand and result as they are)
    row = b == m == 1
    left = (1, k) if row else (m, 1, k) if b == 1 else (b, m, 1, k)
    right = (k, n) if b == 1 else (b, 1, k, n)
    product = (1, n) if row else (m, 1, n) if b == 1 else (b, m, 1, n)
    lhs_as_is, out_as_is = lsame and ls == left, out_shape == product
    spread = unblasable(np.empty(right, dtype)).strides
    array, empty, matmul = np.ndarray, np.empty, np.matmul

    def unquieted(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        if (lhs.__class__ is array and rhs.__class__ is array and lhs.dtype == dtype
                and rhs.dtype == dtype and lhs.shape == ls):
            x = lhs if lhs_as_is else lhs.reshape(left) if lsame else lhs.transpose(
                lperm).reshape(left)
            if rhs.strides == spread and rhs.shape == right:  # (prepared)
                out = matmul(x, rhs)
                return out if out_as_is else out.reshape(out_shape)  # type: ignore[no-any-return]
            if rhs.shape == rs:
                w = (rhs.reshape(right) if rsame else rhs.transpose(rperm).reshape(right))
                w = w[..., ::-1]
                if w.strides[-1] <= 0:  # (else a reversed view: BLAS would take it back)
                    out = empty(product, dtype)
                    matmul(x, w, out[..., ::-1])
                    return out.reshape(out_shape)
        return kernel(lhs, rhs)  # type: ignore[no-any-return]

    def prepare(rhs: np.ndarray) -> np.ndarray:
        """`rhs` in the layout `unquieted` reads as it is (anything else as it is)."""
        if rhs.__class__ is not array or rhs.dtype != dtype or rhs.shape != rs:
            return rhs
        return unblasable(rhs.reshape(right) if rsame else rhs.transpose(rperm).reshape(right))

    looped = quieted(unquieted)
    looped.prepare = (1, prepare)  # type: ignore[attr-defined]
    if row and lhs_as_is and out_as_is and rsame and rs == right:  # (interpreter/steady.py)
        looped.stack = ("loop", k, n, dtype)  # type: ignore[attr-defined]
        # (a row times a matrix as they come; the row's strides change nothing: matmul
        # takes its own loop whenever one operand is no BLAS layout)
        looped.emit = _prepared_line(1, spread)  # type: ignore[attr-defined]
    return looped


def _dot_general(op: Operation, kwargs: dict[str, Any], dtype: np.dtype) -> Kernel | None:
    """dot_general.dot_general_arrays + gemm.float_matmul with the permutations and shapes
    worked out once. The operands reach BLAS in the same layout, so the results are the
    general path's bit for bit."""
    layout = dot_layout(op, kwargs)
    if layout is None:
        return None
    lperm, rperm, b, m, k, n, out_shape = layout
    ls, rs = (tuple(t.shape) for t in op.operand_types[:2])  # type: ignore[attr-defined]
    if k <= SEQUENTIAL_DEPTH:
        return _shallow_dot(lperm, rperm, (b, m, k), (b, k, n), out_shape, dtype, (ls, rs))
    quiet, loud = switches()
    zero = dtype.type(0)

    def kernel(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        # astype copies in the view's memory order ('K'), as the general path does: the
        # layout BLAS sees (and so its summation order) is the same.
        left = lhs.transpose(lperm).reshape(b, m, k).astype(dtype)
        right = rhs.transpose(rperm).reshape(b, k, n).astype(dtype)
        token = quiet()
        try:
            out = matmul(left[0], right[0])[None] if b == 1 else matmul(left, right)
            out += zero
        finally:
            loud(token)
        return out.reshape(out_shape)

    if b != 1:
        return _batched(kernel, dtype, (lperm, rperm), (ls, rs), (b, m, k, n), out_shape)
    array = np.ndarray
    item = dtype.itemsize
    # The strides astype's copy of a C- or Fortran-contiguous 2-D view has (numpy keeps a
    # contiguous layout; an array contiguous both ways is copied in C order).
    left_c, left_f = (k * item, item), (item, m * item)
    right_c, right_f = (n * item, item), (item, k * item)
    # With no unit dimension, Fortran strides mean Fortran- and not C-contiguous; else the
    # flags decide (as for the copy).
    left_f_sure, right_f_sure = m > 1 and k > 1, k > 1 and n > 1
    left_shape, right_shape = (m, k), (k, n)
    left_same = lperm == tuple(range(len(ls))) and ls == left_shape
    right_same = rperm == tuple(range(len(rs))) and rs == right_shape
    out_same = out_shape == (m, n)

    f_only = _fortran_only
    zero_array = np.array(0, dtype)  # a 0-d array operand costs less than a scalar
    work = m * k * n
    product = matmul if ONE_THREAD_BELOW <= work else operator.matmul  # as float_matmul
    # A row times a C-ordered matrix: matmul and np.dot make the same BLAS call (gemv on
    # the transposed matrix, row-major), np.dot for a third less overhead (an RNN step);
    # outside matmul's one-thread band, where matmul makes that call too.
    dot = undispatched(np.dot)  # (dialects/undispatched.py)
    band = ONE_THREAD_BELOW <= work <= SINGLE_THREAD_WORK
    row = dot if not band and m == 1 and k > 1 and n > 1 else None

    def plain(lhs: np.ndarray, rhs: np.ndarray, normalize: bool = True) -> np.ndarray:
        """(m, k) x (k, n) whose operand views (after the permutations: a transposed
        operand is a Fortran-ordered view) are laid out exactly as the copies above would
        be: BLAS reads them in place (an LSTM step's 1x64 x 64x256, a backward pass's
        transposed operands). C strides of the full shape mean C-contiguous; with no unit
        dimension, Fortran strides mean Fortran- and not C-contiguous, else the flags
        decide (as for the copy). `normalize=False` leaves an all -0.0 sum -0.0."""
        if (lhs.__class__ is array and rhs.__class__ is array and lhs.dtype == dtype
                and rhs.dtype == dtype):
            if left_same and lhs.shape == left_shape:
                left = lhs
            else:
                left = lhs.transpose(lperm).reshape(m, k)
            if right_same and rhs.shape == right_shape:
                right = rhs
            else:
                right = rhs.transpose(rperm).reshape(k, n)
            strides = left.strides
            if strides == left_c or (strides == left_f and (left_f_sure or f_only(left))):
                strides = right.strides
                if strides == right_c or (strides == right_f
                                          and (right_f_sure or f_only(right))):
                    token = quiet()
                    try:
                        if row is not None and strides == right_c:
                            out = row(left, right)
                        else:
                            out = product(left, right)
                        if normalize:
                            out += zero_array
                    finally:
                        loud(token)
                    return out if out_same else out.reshape(out_shape)
        return kernel(lhs, rhs)

    # codegen passes normalize=False for a product whose only use is an add with a value
    # that is never -0.0 (another normalized product): x + y is then the same for x = -0.0
    # and x = +0.0
    plain.signed_zeros = True  # type: ignore[attr-defined]
    line = _matrix_line(product, zero_array, (lperm, rperm), (ls, rs),
                        (left_shape, right_shape), (left_f_sure, right_f_sure), dtype, out_shape)
    if row is None and line is not None:
        plain.emit = line  # type: ignore[attr-defined]
    if row is not None and ls == (k,) and right_same and out_shape == (n,):
        return _vector_plain(plain, dtype, (k,), right_shape, right_c)
    if row is None or not (left_same and right_same and out_same):
        return plain
    add = np.add

    def row_plain(lhs: np.ndarray, rhs: np.ndarray, normalize: bool = True) -> np.ndarray:
        """`plain` for a C-ordered row and matrix as they come (an RNN step's h x W): its
        np.dot case tested first, the others left to it."""
        if (lhs.__class__ is array and rhs.__class__ is array and lhs.dtype == dtype
                and rhs.dtype == dtype and lhs.shape == left_shape
                and rhs.shape == right_shape and lhs.strides == left_c
                and rhs.strides == right_c):
            token = quiet()
            try:
                out = dot(lhs, rhs)
                if normalize:
                    add(out, zero_array, out)
            finally:
                loud(token)
            return out  # type: ignore[no-any-return]
        return plain(lhs, rhs, normalize)

    def unquieted(lhs: np.ndarray, rhs: np.ndarray, normalize: bool = True) -> np.ndarray:
        """`row_plain` with numpy's errors ignored already (quiet.py)."""
        if (lhs.__class__ is array and rhs.__class__ is array and lhs.dtype == dtype
                and rhs.dtype == dtype and lhs.shape == left_shape
                and rhs.shape == right_shape and lhs.strides == left_c
                and rhs.strides == right_c):
            out = dot(lhs, rhs)
            if normalize:
                add(out, zero_array, out)
            return out  # type: ignore[no-any-return]
        return plain(lhs, rhs, normalize)
    row_plain.signed_zeros = True  # type: ignore[attr-defined]
    row_plain.unquieted = unquieted  # type: ignore[attr-defined]
    row_plain.emit = dot_line(dot, zero_array, left_c, right_c)  # type: ignore[attr-defined]
    row_plain.stack = ("dot", k, n, dtype)  # type: ignore[attr-defined]  # (steady.py)
    return row_plain


def _vector_plain(plain: Kernel, dtype: np.dtype, vector: tuple[int, ...],
                  matrix: tuple[int, ...], matrix_c: tuple[int, ...]) -> Kernel:
    """`plain` for a vector times a C-ordered matrix (a decode step's (64,) x (64, 256)):
    np.dot of the vector itself. numpy's cblas_matrixproduct makes one gemv call for a
    vector or a (1, k) row times a matrix, with the same arguments (the row's element
    stride either way), so the bits are plain's; the reshapes to and from the row go."""
    array, dot, add = np.ndarray, undispatched(np.dot), np.add
    vector_c = (dtype.itemsize,)
    zero = np.array(0, dtype)

    def unquieted(lhs: np.ndarray, rhs: np.ndarray, normalize: bool = True) -> np.ndarray:
        if (lhs.__class__ is array and rhs.__class__ is array and lhs.dtype == dtype
                and rhs.dtype == dtype and lhs.shape == vector and rhs.shape == matrix
                and lhs.strides == vector_c and rhs.strides == matrix_c):
            out = dot(lhs, rhs)
            if normalize:
                add(out, zero, out)
            return out  # type: ignore[no-any-return]
        return plain(lhs, rhs, normalize)  # type: ignore[no-any-return]
    quiet, loud = switches()

    def vector_plain(lhs: np.ndarray, rhs: np.ndarray, normalize: bool = True) -> np.ndarray:
        token = quiet()
        try:
            return unquieted(lhs, rhs, normalize)
        finally:
            loud(token)
    vector_plain.signed_zeros = True  # type: ignore[attr-defined]
    vector_plain.unquieted = unquieted  # type: ignore[attr-defined]
    vector_plain.emit = dot_line(dot, zero, vector_c, matrix_c)  # type: ignore[attr-defined]
    return vector_plain


def dot_line(dot: Kernel, zero: np.ndarray, left: tuple[int, ...], right: tuple[int, ...],
             flips: tuple[bool, bool] = (False, False)
             ) -> Callable[[str, list[str], dict[str, Any]], str]:
    """A row kernel's product as generated code (codegen._inline): `emit(kernel, args,
    ns)` -> the expression computing `kernel(*args)` (the operands' names, then the
    `normalize` argument's expression if the call passes one). It is the kernel's own
    np.dot case inline: the strides that case tests (`left`, `right`) are tested, the
    classes, types and shapes it also tests are the step's static types (a value has the
    type its op declares); any other layout calls the kernel. An RNN step's h x U then
    costs np.dot and two stride reads, not a Python call with eight tests (a third of a
    16-wide SimpleRNN step). `flips`: which operands the product takes transposed (`.T`,
    a matrix product's operand contracted on its first axis: a backward pass's)."""
    add = np.add
    tails = tuple(".T" if flip else "" for flip in flips)

    def emit(kernel: str, args: list[str], ns: dict[str, Any]) -> str:
        ns[f"{kernel}D"], ns[f"{kernel}A"], ns[f"{kernel}Z"] = dot, add, zero
        ns[f"{kernel}L"], ns[f"{kernel}R"] = left, right
        lhs, rhs = args[0], args[1]
        product = f"{kernel}D({lhs}{tails[0]}, {rhs}{tails[1]})"
        normalize = args[2] if len(args) > 2 else "True"
        if normalize != "False":  # (+0 added in place: the kernel's `add(out, zero, out)`)
            summed = f"{kernel}A(_p := {product}, {kernel}Z, _p)"
            product = summed if normalize == "True" else (
                f"({summed} if {normalize} else {product})")
        return (f"{product} if {lhs}.strides == {kernel}L and {rhs}.strides == {kernel}R "
                f"else {kernel}({', '.join(args)})")
    return emit


def _matrix_line(product: Kernel, zero: np.ndarray, perms: tuple[tuple[int, ...], ...],
                 shapes: tuple[tuple[int, ...], ...], views: tuple[tuple[int, ...], ...],
                 f_sure: tuple[bool, bool], dtype: np.dtype, out_shape: tuple[int, ...]
                 ) -> Callable[[str, list[str], dict[str, Any]], str] | None:
    """`plain`'s product of two C-contiguous matrices as generated code (dot_line), each
    as it is or transposed (a backward pass's x^T g and g W^T), where `plain` hands those
    very views to BLAS: as they are (C strides), or transposed when a unit dimension
    cannot make the view C-contiguous too (`f_sure`: then plain's flags test is decided
    by its strides alone). Any other layout calls the kernel, as the line tests the
    operands' strides; None where plain would copy such operands. `views`: the (M, K)
    and (K, N) shapes plain multiplies. A right operand that is a vector (a decoder's
    logits, W @ h) is one column: matmul makes the same gemv call on it as on plain's
    (K, 1) view of it (only its column stride, which gemv does not read, differs),
    and the result is the op's (M,) as it comes; not where plain's product is
    blas_threads.matmul, which counts a vector's work as none."""
    rperm, rs = perms[1], shapes[1]
    m, k = views[0]
    n = views[1][1]
    column = rperm == (0,) and rs == (k,) and n == 1 and product is operator.matmul
    if out_shape != ((m,) if column else (m, n)):
        return None
    flips = []
    for perm, shape, view, sure in zip(perms[:1] if column else perms, shapes, views, f_sure,
                                       strict=False):
        flip = perm == (1, 0)
        if (perm not in ((0, 1), (1, 0)) or (shape[::-1] if flip else shape) != view
                or (flip and not sure)):
            return None
        flips.append(flip)
    left, right = (np.empty(shape, dtype).strides for shape in shapes)
    return dot_line(product, zero, left, right, (flips[0], not column and flips[1]))


def _batched(kernel: Kernel, dtype: np.dtype, perms: tuple[tuple[int, ...], ...],
             shapes: tuple[tuple[int, ...], ...], sizes: tuple[int, int, int, int],
             out_shape: tuple[int, ...]) -> Kernel:
    """`kernel` for a batched product (an attention step's (4, 16) x (32, 4, 16) over 4
    heads) without its copies where they change nothing: for C-contiguous operands whose
    permuted (B, M, K) and (B, K, N) views have exactly the strides `kernel`'s astype
    copies would have (found once, on arrays of the static shapes), matmul gets the views
    and makes the same BLAS calls on the same layout."""
    (lperm, rperm), (ls, rs) = perms, shapes
    b, m, k, n = sizes
    left_shape, right_shape = (b, m, k), (b, k, n)

    def view_strides(shape: tuple[int, ...], perm: tuple[int, ...],
                     to: tuple[int, ...]) -> tuple[int, ...] | None:
        probe = np.empty(shape, dtype)
        view = probe.transpose(perm).reshape(to)
        if not np.shares_memory(view, probe) or view.strides != view.astype(dtype).strides:
            return None
        return view.strides
    left_ok = view_strides(ls, lperm, left_shape) is not None
    right_ok = view_strides(rs, rperm, right_shape) is not None
    if not (left_ok or right_ok):
        return kernel
    left_c, right_c = np.empty(ls, dtype).strides, np.empty(rs, dtype).strides
    array, add = np.ndarray, np.add
    zero = np.array(0, dtype)
    work = b * m * k * n
    product = matmul if ONE_THREAD_BELOW <= work else operator.matmul

    def unquieted(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        if not (lhs.__class__ is array and rhs.__class__ is array and lhs.dtype == dtype
                and rhs.dtype == dtype and lhs.shape == ls and rhs.shape == rs):
            return kernel(lhs, rhs)
        if left_ok and lhs.strides == left_c:
            left = lhs.transpose(lperm).reshape(left_shape)
        else:
            left = lhs.transpose(lperm).reshape(left_shape).astype(dtype)
        if right_ok and rhs.strides == right_c:
            right = rhs.transpose(rperm).reshape(right_shape)
        else:
            right = rhs.transpose(rperm).reshape(right_shape).astype(dtype)
        out = product(left, right)
        add(out, zero, out)
        return out.reshape(out_shape)  # type: ignore[no-any-return]
    return quieted(unquieted)
