"""Kernels specialized once per op when the plan is built (an engine binding hook).

The general evaluators decide per call what to do from the operands' dtypes and decode their
attributes (slice bounds, result shapes) each time; in a scalar `while` loop that costs more
than numpy's own call. When every operand and result type is a static tensor of a native
numpy element type, the dtype is known at binding time, so the hook returns the final numpy
call directly (`np.add`) or a closure over pre-decoded attributes. Each specialization does
exactly what the general evaluator does for that dtype (see the cited branches); anything
else (quantized, dynamic shapes, ml_dtypes' narrow types, bool arithmetic) is left to it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.diagnostics import EvaluationError
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import QuantizedType, TensorType, element_type, numpy_dtype
from ...lazy_imports import lazy
from .. import libm
from ..layout import astype
from ..undispatched import undispatched
from . import specialize_math
from .conversions import _EXACT_TO_FLOAT, _WIDE_FLOATS, convert_array
from .elementwise_numerics import NATIVE_ARITH, NATIVE_FLOATS, NATIVE_INTS
from .elementwise_select import NATIVE_COMPARE
from .specialize_dynamic_slice import _dynamic_slice, _dynamic_update_slice, _fresh
from .specialize_extremum import _signed_extremum, max_positive_zero, positive_zero_operand
from .transposed_copy import transposer

_BLAS_TYPES = lazy(lambda: frozenset((np.dtype(np.float32), np.dtype(np.float64))))

Kernel = Callable[..., Any]

# elementwise.add / subtract / multiply: `dtype in NATIVE_ARITH` (multiply: ints and floats)
# branch straight to the ufunc.
_ARITH: dict[str, tuple[np.ufunc, frozenset[np.dtype]]] = lazy(lambda: {
    "stablehlo.add": (np.add, NATIVE_ARITH),
    "stablehlo.subtract": (np.subtract, NATIVE_ARITH),
    "stablehlo.multiply": (np.multiply, NATIVE_INTS | NATIVE_FLOATS),
})
# elementwise.divide on native floats: float_op computes np.divide in the element type.
_DIVIDE = "stablehlo.divide"
# elementwise_math's libm ops: upcast_to_double sends unary f16/f32 to libm.native_kernel.
_LIBM_OPS = {"stablehlo.exponential": libm.exp, "stablehlo.exponential_minus_one": libm.expm1,
             "stablehlo.log": libm.log, "stablehlo.log_plus_one": libm.log1p,
             "stablehlo.sine": libm.sin, "stablehlo.cosine": libm.cos,
             "stablehlo.tan": libm.tan, "stablehlo.tanh": libm.tanh, "stablehlo.cbrt": libm.cbrt}
_ROUNDED = lazy(lambda: frozenset((np.dtype(np.float16), np.dtype(np.float32))))
_COMPARE = lazy(lambda: {"EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal,
                         "GT": np.greater, "LE": np.less_equal, "LT": np.less})


def _native_dtype(t: Any) -> np.dtype | None:
    """The numpy dtype of a static, non-quantized tensor type; else None."""
    if not isinstance(t, TensorType) or not t.is_static:
        return None
    element = element_type(t)
    if isinstance(element, QuantizedType):
        return None
    try:
        return np.dtype(numpy_dtype(element))
    except Exception:  # noqa: BLE001 - a type numpy cannot hold: the evaluator decides
        return None


_DTYPES: dict[Any, np.dtype | None] = {}  # type -> _native_dtype(type), types repeat a lot


def _native_types(op: Operation) -> list[np.dtype] | None:
    """Element dtypes of all operands and results, when all are static non-quantized
    tensors; else None."""
    dtypes = []
    for t in (*op.operand_types, *op.result_types):
        try:
            dtype = _DTYPES[t]
        except KeyError:
            dtype = _native_dtype(t)
            if len(_DTYPES) < 4096:
                _DTYPES[t] = dtype
        except TypeError:  # unhashable
            dtype = _native_dtype(t)
        if dtype is None:
            return None
        dtypes.append(dtype)
    return dtypes


def _reshape(shape: tuple[int, ...], size: int) -> Kernel:
    def kernel(x: np.ndarray) -> np.ndarray:
        if x.size != size:
            raise EvaluationError(f"cannot reshape {list(np.shape(x))} into {list(shape)}")
        return _fresh(x.reshape(shape))
    kernel.plain_reshape = True  # type: ignore[attr-defined]  # codegen may fuse a row read
    return kernel


def _slice(window: tuple[slice, ...], shape: tuple[int, ...], size: int) -> Kernel:
    def kernel(x: np.ndarray) -> np.ndarray:
        return _fresh(x[window])

    def emit(name: str, args: list[str], ns: dict[str, Any]) -> str:
        """The kernel as a generated line's expression (codegen._inline): the view where
        `_fresh` returns it (C-contiguous and writeable), else the kernel's call (an
        LSTM step's four gate slices, each half a kernel call's cost)."""
        ns[f"{name}W"] = window
        return (f"_w if (_f := (_w := {args[0]}[{name}W]).flags).c_contiguous and "
                f"_f.writeable else {name}({args[0]})")
    kernel.emit = emit  # type: ignore[attr-defined]
    kernel.window = window  # type: ignore[attr-defined]  # (interpreter/layouts.py)
    if size == 1 and shape:
        at = tuple(w.start for w in window)
        array = np.ndarray

        def element(x: np.ndarray) -> Any:
            """kernel(x) reshaped to 0-d by a scalar reshape (specialize_scalar's
            _element): x's element at the window's start, a numpy scalar (a state
            vector's c[0] in a scan step: one read for the pair)."""
            if x.__class__ is not array or x.shape != shape:
                window = kernel(x)  # what the pair does, its error included
                if window.size != 1:
                    raise EvaluationError(f"cannot reshape {list(window.shape)} into []")
                return window[(0,) * window.ndim]
            return x[at]
        kernel.element = element  # type: ignore[attr-defined]  # codegen fuses the pair
    return kernel


def _concatenate(axis: int, shape: tuple[int, ...], dtype: np.dtype, general: Kernel
                 ) -> Kernel:
    """slicing.concatenate of operands of the result's element type: numpy's
    concatenate, a fresh C-ordered array of that type (what result_array returns), without
    result_array's conversions; anything else (another shape or type: its error) goes to
    the general evaluator."""
    concatenate = undispatched(np.concatenate)

    def kernel(*inputs: np.ndarray) -> np.ndarray:
        try:
            out = concatenate(inputs, axis=axis)
        except (ValueError, TypeError):
            return general(*inputs)
        if out.shape != shape or out.dtype != dtype:
            return general(*inputs)
        return out
    return kernel


def _transpose(perm: tuple[int, ...], shape: tuple[int, ...], general: Kernel) -> Kernel:
    """reshaping.transpose: the permuted view as a fresh contiguous array (result_array);
    an operand of another shape goes to the general evaluator (its error)."""
    copy = transposer(perm, shape)
    array = np.ndarray

    def kernel(x: np.ndarray) -> np.ndarray:
        if x.__class__ is not array or x.shape != shape:
            return general(x)
        view = x.transpose(perm)
        flags = view.flags
        if flags.c_contiguous and flags.writeable:
            return view
        return copy(x)
    return kernel


def _clear_sign(dtype: np.dtype) -> Kernel:
    """|x| on the bit pattern (NaN payloads kept), as elementwise.abs_ computes it."""
    bits = np.dtype(f"u{dtype.itemsize}")
    mask = np.array((1 << (8 * dtype.itemsize - 1)) - 1, bits)
    and_ = np.bitwise_and

    def kernel(x: np.ndarray) -> np.ndarray:
        return and_(np.asarray(x).view(bits), mask).view(dtype)
    kernel.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
    return kernel


_ROOTS = ("stablehlo.sqrt", "stablehlo.rsqrt")


def _scalar_to_ones(rank: int) -> Kernel:
    """A 0-d value as shape (1, ..., 1): one fresh copy (a dynamic index vector built from
    a scalar in a loop body; half the cost of asarray + reshape + the freshness check)."""
    array = np.array

    def ones(x: Any) -> np.ndarray:
        return array(x, ndmin=rank)
    return ones


def _broadcast_view(op: Operation, kwargs: dict[str, Any]) -> Kernel | None:
    """broadcast.broadcast_in_dim without materializing where that pays: a read-only view
    with zero strides (kernels never write into their operands; constants are read-only
    arrays already), so a bias broadcast along a long axis costs nothing until an
    elementwise ufunc reads it; short runs (`_VIEW_RUN`) and small results are filled.
    Only for static shapes where the broadcast is valid."""
    source, result = op.operand_types[0], op.result_types[0]
    assert isinstance(source, TensorType) and isinstance(result, TensorType)
    try:
        dims = tuple(int(v) for v in kwargs["broadcast_dimensions"])
    except (TypeError, KeyError, ValueError):
        return None
    shape, src = tuple(result.shape), tuple(source.shape)
    if len(dims) != len(src) or len(set(dims)) != len(dims) or any(
            d < 0 or d >= len(shape) or n not in (1, shape[d]) for d, n in zip(dims, src,
                                                                                strict=True)):
        return None
    order = tuple(sorted(range(len(dims)), key=lambda d: dims[d]))
    expanded = [1] * len(shape)
    for d in order:
        expanded[dims[d]] = src[d]
    expanded_shape = tuple(expanded)
    keep = order == tuple(range(len(dims)))
    dtype = _native_dtype(result)

    ndarray, zeros = np.ndarray, (0,) * len(shape)
    scalar = dtype.type if dtype is not None else None

    def view(x: np.ndarray) -> np.ndarray:
        cls = x.__class__
        if (cls is ndarray and x.size == 1 or cls is scalar) and x.dtype == dtype:
            # one value (jax's scalar operands): the zero-stride view made directly, 0.6 us
            # against np.broadcast_to's 2.7 (a Python function); read-only like its views,
            # which kernels tell from arrays they may write by that flag
            out = ndarray(shape, dtype, x, 0, zeros)
            out.flags.writeable = False
            return out
        arranged = np.asarray(x) if keep else np.transpose(x, order)
        return np.broadcast_to(arranged.reshape(expanded_shape), shape)

    # the source's dimensions already in place at the end of the result's (numpy aligns
    # an assigned array's shape to the right): assigned as it is, no reshape
    lead = len(shape) - len(src)
    aligned = keep and expanded_shape == (1,) * lead + src

    def small(x: np.ndarray) -> np.ndarray:  # a view costs more than filling a few elements
        out = empty(shape, dtype)
        if aligned and x.__class__ is ndarray:
            out[...] = x
        else:
            out[...] = (np.asarray(x) if keep else np.transpose(x, order)).reshape(
                expanded_shape)
        return out

    def splat(x: np.ndarray) -> np.ndarray:  # a 0-d value: numpy broadcasts it itself
        out = empty(shape, dtype)
        out[...] = x
        return out
    empty = np.empty
    if keep and math.prod(src) == math.prod(shape):
        if not src and shape:
            return _scalar_to_ones(len(shape))

        def same(x: np.ndarray) -> np.ndarray:  # only unit dimensions added: a reshape
            return _fresh(np.asarray(x).reshape(shape))
        same.plain_reshape = True  # type: ignore[attr-defined]  # (as _reshape's)
        return same
    if result.num_elements >= _VIEW_FROM and _innermost_run(expanded_shape, shape) >= _VIEW_RUN:
        return view
    return splat if not src else small


_VIEW_FROM = 1 << 12  # broadcasts to at least this many elements may be views...
_VIEW_RUN = 1 << 10
"""...when numpy's innermost loop over the view is this long. A ufunc reading a view walks
its last run of dimensions that are all broadcast (stride 0) or all copied; a batch-norm
scale broadcast to 1x32x32x48 makes that 48 elements, and a multiply by the view then
costs ~3x one by a filled array (more than filling it)."""


def _innermost_run(expanded: tuple[int, ...], shape: tuple[int, ...]) -> int:
    """Elements in the last run of result dimensions that are all broadcast or all taken
    from the source (unit dimensions belong to either)."""
    run, kind = 1, None
    for e, n in zip(reversed(expanded), reversed(shape), strict=True):
        if n == 1:
            continue
        broadcast = e != n
        if kind is not None and broadcast != kind:
            break
        kind = broadcast
        run *= n
    return run


def _identity(x: np.ndarray) -> np.ndarray:
    return x


_identity.returns_operand = True  # type: ignore[attr-defined]  # codegen names it anew


def _astype(x: np.ndarray, target: np.dtype) -> np.ndarray:
    return astype(x, target)


_MAXIMUM = lazy(lambda: {"stablehlo.maximum": _signed_extremum(np.maximum, True),
                         "stablehlo.minimum": _signed_extremum(np.minimum, False)})


def bind_specialized(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A specialized kernel for `op`, or None (the general evaluator)."""
    name = op.name
    if name not in _HANDLED:
        return None
    dtypes = _native_types(op)
    if dtypes is None:
        general = bind_after(bind_specialized, op, opdef, kwargs)
        if name in _PER_SHAPE:
            return _per_shape(op, kwargs, general)
        if name not in _ELEMENTWISE:
            return None
        return dynamic_elementwise(op, lambda d: _bind_typed(op, opdef, kwargs, d), general)
    return _bind_typed(op, opdef, kwargs, dtypes)


_PER_SHAPE = ("stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice")


def _per_shape(op: Operation, kwargs: dict[str, Any], general: Kernel) -> Kernel | None:
    """A dynamic_slice or dynamic_update_slice of a dynamically shaped operand (a scan over
    a symbolic length): the static kernel for each run-time shape met (a few kept), built
    on its first use; shapes it does not take go to `general`."""
    slicing = op.name == "stablehlo.dynamic_slice"
    first_index = 1 if slicing else 2
    dtypes = ranked_types(op)
    if (dtypes is None or any(d == np.uint64 for d in dtypes[first_index:-1])  # (as int64)
            or any(getattr(t, "shape", None) != () for t in op.operand_types[first_index:])
            or not slicing and dtypes[1] != dtypes[0]):
        return None
    try:
        sizes = tuple(int(v) for v in kwargs["slice_sizes"]) if slicing else ()
    except (TypeError, KeyError, ValueError):
        return None
    starts = len(op.operands) - first_index
    itemsize = dtypes[0].itemsize
    built: dict[tuple[Any, ...], Kernel] = {}

    def build(shape: tuple[int, ...], window: tuple[int, ...]) -> Kernel:
        if (len(window) != len(shape) or starts != len(shape)
                or any(k > n for k, n in zip(window, shape, strict=True))):
            return general
        if slicing:
            return _dynamic_slice(window, shape, itemsize)
        return _dynamic_update_slice(shape, window, general)

    def kernel(x: Any, *rest: Any) -> Any:
        key = (x.shape, sizes if slicing else rest[0].shape)
        bound = built.get(key)
        if bound is None:
            bound = build(*key)
            if len(built) < 8:
                built[key] = bound
        return bound(x, *rest)
    return kernel


def ranked_types(op: Operation) -> list[np.dtype] | None:
    """Element dtypes of all operands and results when all are ranked non-quantized tensors,
    some of their dimensions dynamic (`tensor<?x4xf32>`); else None."""
    dtypes = []
    for t in (*op.operand_types, *op.result_types):
        if not isinstance(t, TensorType) or isinstance(element_type(t), QuantizedType):
            return None
        try:
            dtypes.append(np.dtype(numpy_dtype(element_type(t))))
        except Exception:  # noqa: BLE001 - a type numpy cannot hold: the evaluator decides
            return None
    return dtypes


def dynamic_elementwise(op: Operation, bind: Callable[[list[np.dtype]], Kernel | None],
                        general: Kernel) -> Kernel | None:
    """An elementwise op on dynamically shaped tensors (a jax export with symbolic shapes)
    takes the kernel `bind` gives for its element types (their results depend on the
    elements only); a binary kernel checks that its operands' run-time shapes agree (numpy
    would broadcast them) and leaves any other case to `general`."""
    dtypes = ranked_types(op)
    kernel = bind(dtypes) if dtypes is not None else None
    if kernel is None or len(op.operands) == 1:
        return kernel

    def same_shapes(lhs: Any, rhs: Any) -> Any:
        if lhs.shape != rhs.shape:
            return general(lhs, rhs)
        return kernel(lhs, rhs)
    return same_shapes


def _bind_typed(op: Operation, opdef: Any, kwargs: dict[str, Any],
                dtypes: list[np.dtype]) -> Kernel | None:
    """bind_specialized's kernel for `op` of element types `dtypes`."""
    name = op.name
    operand = dtypes[0]
    if name in _ARITH:
        ufunc, allowed = _ARITH[name]
        return ufunc if operand in allowed and all(d == operand for d in dtypes) else None
    if name in ("stablehlo.maximum", "stablehlo.minimum"):
        if operand in NATIVE_FLOATS and all(d == operand for d in dtypes):
            if positive_zero_operand(op):
                return max_positive_zero()
            return _MAXIMUM[name]
        if operand in NATIVE_INTS and all(d == operand for d in dtypes):
            return np.maximum if name == "stablehlo.maximum" else np.minimum
        return None
    if name == "stablehlo.dot_general":
        if operand in _BLAS_TYPES and all(d == operand for d in dtypes) and len(dtypes) == 3:
            from .specialize_dot import _dot_general  # (with dot_general's own modules)

            return _dot_general(op, kwargs, operand)
        return None
    if name == _DIVIDE:
        return np.divide if operand in NATIVE_FLOATS and all(d == operand for d in dtypes) else None
    if name in _LIBM_OPS:
        if operand in _ROUNDED and dtypes[1] == operand:
            return libm.native_kernel(_LIBM_OPS[name], operand)
        return None
    if name == "stablehlo.logistic":
        if operand in _ROUNDED and dtypes[1] == operand:
            return specialize_math.logistic(
                operand, bind_after(bind_specialized, op, opdef, kwargs))
        return None
    if name in _ROOTS:  # elementwise_math: sqrt and 1/sqrt in double, rounded once
        if operand in _ROUNDED and dtypes[1] == operand:
            return specialize_math.root(name == "stablehlo.rsqrt", operand,
                                        bind_after(bind_specialized, op, opdef, kwargs))
        return None
    if name == "stablehlo.abs":  # elementwise.abs_ on floats: the sign bit cleared
        if operand in NATIVE_FLOATS and dtypes[1] == operand:
            return _clear_sign(operand)
        return None
    if name == "stablehlo.negate":  # elementwise.negate: floats negate exactly in any width
        return np.negative if operand in NATIVE_FLOATS and dtypes[1] == operand else None
    if name == "stablehlo.compare":
        kind = kwargs.get("compare_type")
        direction = kwargs.get("comparison_direction")
        if operand in NATIVE_COMPARE and kind != "TOTALORDER" and direction in _COMPARE:
            return _COMPARE[direction]
        return None
    if name == "stablehlo.convert":  # conversions.convert_array's first two branches
        target = dtypes[1]
        if operand == target:
            return _identity
        convert = (functools.partial(_astype, target=target)
                   if operand in _EXACT_TO_FLOAT and target in _WIDE_FLOATS
                   else functools.partial(convert_array, target=target))
        convert.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
        return convert
    if len(set(dtypes[:1] + dtypes[-1:])) != 1:  # data movement keeps the element type
        return None
    result = op.result_types[0]
    assert isinstance(result, TensorType)
    if name == "stablehlo.broadcast_in_dim":
        return _broadcast_view(op, kwargs)
    if name == "stablehlo.reshape":
        return _reshape(tuple(result.shape), result.num_elements)
    if name == "stablehlo.concatenate":
        axis = kwargs.get("dimension")
        if (not isinstance(axis, int) or not 0 <= axis < len(result.shape)
                or len(set(dtypes)) != 1 or not result.is_static):
            return None
        return _concatenate(axis, tuple(result.shape), operand,
                            bind_after(bind_specialized, op, opdef, kwargs))
    source = op.operand_types[0]
    assert isinstance(source, TensorType)
    if name == "stablehlo.slice":
        try:
            starts, limits, strides = (tuple(int(v) for v in kwargs[k]) for k in (
                "start_indices", "limit_indices", "strides"))
        except (TypeError, KeyError, ValueError):
            return None
        window = tuple(slice(s, e, k) for s, e, k in zip(starts, limits, strides, strict=True))
        if tuple(len(range(*w.indices(n))) for w, n in zip(
                window, source.shape, strict=True)) != tuple(result.shape):
            return None
        return _slice(window, tuple(source.shape), result.num_elements)
    if name == "stablehlo.transpose":
        try:
            perm = tuple(int(v) for v in kwargs["permutation"])
        except (TypeError, KeyError, ValueError):
            return None
        if sorted(perm) != list(range(len(source.shape))) or tuple(
                source.shape[d] for d in perm) != tuple(result.shape):
            return None
        return _transpose(perm, tuple(source.shape),
                          bind_after(bind_specialized, op, opdef, kwargs))
    if name == "stablehlo.dynamic_update_slice":
        update = op.operand_types[1]
        if (not isinstance(update, TensorType) or dtypes[1] != operand
                or len(op.operands) != 2 + len(source.shape)
                or any(len(t.shape) for t in op.operand_types[2:] if isinstance(t, TensorType))
                or any(d == np.uint64 for d in dtypes[2:-1])
                or tuple(result.shape) != tuple(source.shape)
                or any(k > n for k, n in zip(update.shape, source.shape, strict=True))):
            return None
        return _dynamic_update_slice(tuple(source.shape), tuple(update.shape),
                                     bind_after(bind_specialized, op, opdef, kwargs))
    if name == "stablehlo.dynamic_slice":
        if any(len(t.shape) for t in op.operand_types[1:] if isinstance(t, TensorType)):
            return None
        if any(d == np.uint64 for d in dtypes[1:-1]):  # clamped_start reads them as int64
            return None
        try:
            sizes = tuple(int(v) for v in kwargs["slice_sizes"])
        except (TypeError, KeyError, ValueError):
            return None
        if (len(sizes) != len(source.shape) or len(op.operands) != 1 + len(sizes)
                or sizes != tuple(result.shape) or any(
                    k > n for k, n in zip(sizes, source.shape, strict=True))):
            return None
        return _dynamic_slice(sizes, tuple(source.shape), operand.itemsize)
    return None


_HANDLED = frozenset(("stablehlo.add", "stablehlo.subtract", "stablehlo.multiply",  # _ARITH
                      _DIVIDE, *_LIBM_OPS, *_ROOTS, "stablehlo.logistic",
                      "stablehlo.maximum", "stablehlo.minimum", "stablehlo.negate", "stablehlo.abs",
                      "stablehlo.compare",
                      "stablehlo.dot_general",
                      "stablehlo.convert", "stablehlo.reshape", "stablehlo.slice",
                      "stablehlo.broadcast_in_dim",
                      "stablehlo.dynamic_slice", "stablehlo.transpose",
                      "stablehlo.dynamic_update_slice", "stablehlo.concatenate"))
# The ones whose kernels depend on element types only (dynamic_elementwise).
_ELEMENTWISE = _HANDLED - {"stablehlo.dot_general", "stablehlo.reshape", "stablehlo.slice",
                           "stablehlo.broadcast_in_dim", "stablehlo.dynamic_slice",
                           "stablehlo.transpose", "stablehlo.dynamic_update_slice",
                           "stablehlo.concatenate"}

register_bind_hook(bind_specialized, 60, ops=_HANDLED)
