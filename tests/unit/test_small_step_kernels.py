"""Kernels of a decode or RNN step on small arrays (a 4x32 attention row sum and max, a
64-element sum, their `unquieted` forms that generated loops call): bit for bit the
general evaluator's results on random inputs with -0.0, NaN (several payloads),
infinities and subnormals, for shapes that take the fast path and shapes that miss it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.dialects.quiet import switches
from shlo_cli.dialects.stablehlo import specialize_reduce
from shlo_cli.dialects.stablehlo.reducer import fast_reduce_last
from shlo_cli.ir.parser import parse_source

EDGES = np.array([-0.0, 0.0, np.inf, -np.inf, 1e-45, -1e-45,
                  np.uint32(0x7FC00001).view(np.float32),
                  np.uint32(0xFFC00002).view(np.float32)], np.float32)


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any,
            edges: float) -> np.ndarray:
    """Normal values over several magnitudes (order shows in sums), a fraction `edges` of
    them edge cases."""
    x = (rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 3e3], shape)).astype(dtype)
    flat = x.reshape(-1)
    if flat.size and edges:
        count = max(1, int(flat.size * edges))
        flat[rng.choice(flat.size, count, replace=False)] = rng.choice(
            EDGES.astype(dtype), count)
    return x


def _reduce_op(op: str, shape: tuple[int, ...], dims: tuple[int, ...], elem: str) -> Any:
    out = tuple(n for i, n in enumerate(shape) if i not in dims)

    def t(s: tuple[int, ...]) -> str:
        return "tensor<" + "".join(f"{d}x" for d in s) + elem + ">"
    text = (f"func.func @main(%x: {t(shape)}, %i: {t(())}) -> {t(out)} {{\n"
            f"  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.{op} across dimensions"
            f" = [{', '.join(map(str, dims))}] : ({t(shape)}, {t(())}) -> {t(out)}\n"
            f"  func.return %0 : {t(out)}\n}}\n")
    return next(o for o in parse_source(text).op.walk() if o.name == "stablehlo.reduce")


def _general(op: str, x: np.ndarray, dims: tuple[int, ...], init: Any) -> np.ndarray:
    kept = [d for d in range(x.ndim) if d not in dims]
    flat = x.transpose(kept + list(dims)).reshape(
        tuple(x.shape[d] for d in kept) + (-1,))
    return np.asarray(fast_reduce_last(f"stablehlo.{op}", flat, np.asarray(init, x.dtype)))


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


REDUCES = [("add", (4, 32), (1,)), ("add", (32, 4), (0,)), ("add", (2, 3, 8), (0, 2)),
           ("add", (64,), (0,)), ("add", (1, 64), (1,)), ("add", (64, 1), (0,)),
           ("maximum", (4, 32), (1,)), ("minimum", (4, 32), (1,)), ("maximum", (32, 4), (0,)),
           ("maximum", (3, 4, 5), (1, 2)), ("minimum", (100,), (0,)),
           ("maximum", (2, 3, 4), (2,)), ("maximum", (300, 20), (1,)),
           ("add", (9, 4, 16), (1,)), ("maximum", (4, 4), (0,)), ("minimum", (2, 3, 3), (1,))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize(("op", "shape", "dims"), REDUCES)
def test_reduce_kernels_and_their_unquieted_forms(op: str, shape: tuple[int, ...],
                                                  dims: tuple[int, ...], dtype: Any) -> None:
    elem = {np.float32: "f32", np.float64: "f64", np.float16: "f16"}[dtype]
    reduce = _reduce_op(op, shape, dims, elem)
    kernel = specialize_reduce.bind_reduce(reduce, None, {"dimensions": list(dims)})
    assert kernel is not None and callable(kernel.unquieted)
    quiet, loud = switches()
    rng = np.random.default_rng(hash((op, shape, dims)) % 1000)
    for trial in range(12):
        x = _values(rng, shape, dtype, (0.0, 0.05, 0.5, 1.0)[trial % 4])
        if trial == 5:
            x[...] = -0.0
        for init in (0.0, -0.0, 0.3, -np.inf, np.nan):
            want = _general(op, x, dims, init)
            init_forms = (np.asarray(init, dtype), dtype(init))
            for given in init_forms:
                with np.errstate(all="ignore"):
                    got = kernel(x, given)
                    assert _same(got, want)
                    assert np.asarray(got).flags.c_contiguous
                token = quiet()
                try:
                    assert _same(kernel.unquieted(x, given), want)
                finally:
                    loud(token)


def test_reduce_kernel_of_a_view_and_of_another_layout() -> None:
    """Operands that are views (a transposed slice): the kernels copy as the general path
    does."""
    reduce = _reduce_op("add", (4, 32), (1,), "f32")
    kernel = specialize_reduce.bind_reduce(reduce, None, {"dimensions": [1]})
    rng = np.random.default_rng(3)
    base = _values(rng, (32, 8), np.float32, 0.1)
    for x in (base.T[:4], base[:, ::2].T, np.asfortranarray(base[:, :4].T)):
        assert x.shape == (4, 32) and not x.flags.c_contiguous
        with np.errstate(all="ignore"):
            assert _same(kernel(x, np.float32(0.0)), _general("add", x, (1,), 0.0))


def _dot_op(lhs: tuple[int, ...], rhs: tuple[int, ...], dims: str, out: tuple[int, ...],
            elem: str = "f32") -> Any:
    def t(s: tuple[int, ...]) -> str:
        return "tensor<" + "".join(f"{d}x" for d in s) + elem + ">"
    text = (f"func.func @main(%a: {t(lhs)}, %b: {t(rhs)}) -> {t(out)} {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, {dims} : ({t(lhs)}, {t(rhs)}) -> {t(out)}\n"
            f"  func.return %0 : {t(out)}\n}}\n")
    return next(o for o in parse_source(text).op.walk() if o.name == "stablehlo.dot_general")


DOTS = [((64,), (64, 256), "contracting_dims = [0] x [0]", (256,)),
        ((256,), (256, 64), "contracting_dims = [0] x [0]", (64,)),
        ((64,), (64, 3), "contracting_dims = [0] x [0]", (3,)),
        ((1, 64), (64, 256), "contracting_dims = [1] x [0]", (1, 256)),
        ((64,), (256, 64), "contracting_dims = [0] x [1]", (256,)),
        ((4, 16), (32, 4, 16), "batching_dims = [0] x [1], contracting_dims = [1] x [2]",
         (4, 32)),
        ((2, 3, 16), (2, 16, 5), "batching_dims = [0] x [0], contracting_dims = [2] x [1]",
         (2, 3, 5)),
        ((4, 32), (32, 4, 16), "batching_dims = [0] x [1], contracting_dims = [1] x [0]",
         (4, 16))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("lhs", "rhs", "dims", "out"), DOTS)
def test_dot_kernels_and_their_unquieted_forms(lhs: tuple[int, ...], rhs: tuple[int, ...],
                                               dims: str, out: tuple[int, ...],
                                               dtype: Any) -> None:
    """Against the general dot_general, on operands as they come and as views (another
    layout: the kernel's general fallback)."""
    from shlo_cli.dialects.stablehlo import dot_general, specialize_dot

    op = _dot_op(lhs, rhs, dims, out, "f32" if dtype is np.float32 else "f64")
    kwargs = {"dot_dimension_numbers": op.attr("dot_dimension_numbers")}
    kernel = specialize_dot._dot_general(op, kwargs, np.dtype(dtype))
    assert kernel is not None
    quiet, loud = switches()
    rng = np.random.default_rng(len(lhs) * 31 + len(rhs))
    for trial in range(8):
        a = _values(rng, lhs, dtype, (0.0, 0.1, 1.0)[trial % 3])
        b = _values(rng, rhs, dtype, (0.0, 0.05, 0.5)[trial % 3])
        if trial == 4:
            a[...] = -0.0
        if trial == 6:  # views: a reversed lhs, a Fortran-ordered rhs
            a, b = a[::-1].copy()[::-1], np.asfortranarray(b)
        with np.errstate(all="ignore"):
            want = dot_general.dot_general(a, b, dot_dimension_numbers=kwargs[
                "dot_dimension_numbers"], result_type=op.result_types[0])
            assert _same(kernel(a, b), want)
        forms = [kernel.unquieted] if hasattr(kernel, "unquieted") else []
        token = quiet()
        try:
            for form in forms:
                assert _same(form(a, b), want)
            if getattr(kernel, "signed_zeros", False):
                raw = np.asarray(kernel(a, b, False))
                assert _same(raw + dtype(0), want)
        finally:
            loud(token)


BROADCASTS = [((1,), (64,), [0]), ((4, 1), (4, 32), [0, 1]), ((1, 32), (4, 32), [0, 1]),
              ((32,), (4, 32), [1]), ((4,), (4, 32), [0]), ((3, 1), (1, 2, 3), [2, 1]),
              ((2, 3), (3, 4, 2), [2, 0]), ((1,), (2, 1, 3), [1]), ((5,), (2, 5, 3), [1])]


@pytest.mark.parametrize("dtype", ["f32", "i1", "i32"])
@pytest.mark.parametrize(("src", "shape", "dims"), BROADCASTS)
def test_small_broadcasts_are_the_general_path(src: tuple[int, ...], shape: tuple[int, ...],
                                               dims: list[int], dtype: str) -> None:
    """Small broadcast_in_dim kernels (a step's (4, 1) -> (4, 32) row maxima): the source
    assigned as it is where its dimensions are the result's last, else reshaped or
    transposed first; on arrays and views."""
    from bind_helpers import run_first_op

    from shlo_cli.dialects.stablehlo import specialize

    def t(s: tuple[int, ...]) -> str:
        return "tensor<" + "".join(f"{d}x" for d in s) + dtype + ">"
    text = (f"func.func @main(%x: {t(src)}) -> {t(shape)} {{\n"
            f"  %0 = stablehlo.broadcast_in_dim %x, dims = {dims} : ({t(src)}) -> {t(shape)}\n"
            f"  func.return %0 : {t(shape)}\n}}\n")
    rng = np.random.default_rng(len(src) + len(shape))
    numpy_type = {"f32": np.float32, "i1": np.bool_, "i32": np.int32}[dtype]
    with np.errstate(invalid="ignore"):  # (NaN to integers: any value will do)
        base = _values(rng, (2,) + src, np.float32, 0.3).astype(numpy_type)
    for x in (base[0], base[1].copy(), base[::-1][1]):
        got, kernel = run_first_op(text, [x], specialize.bind_specialized, True)
        want, _ = run_first_op(text, [x], specialize.bind_specialized, False)
        assert _same(got, want)
        assert got.flags.c_contiguous


UPDATES = [((2, 32, 4, 16), (1, 1, 4, 16)), ((2, 32, 4, 16), (1, 3, 4, 16)),
           ((2, 32, 4, 16), (1, 1, 2, 16)), ((5, 1, 3), (1, 1, 3)), ((5, 1, 3), (2, 1, 3)),
           ((4,), (1,)), ((4, 6), (1, 1)), ((3, 4, 5), (3, 1, 5)), ((1, 1, 8), (1, 1, 8)),
           ((6, 2), (0, 2))]


@pytest.mark.parametrize(("shape", "sizes"), UPDATES)
def test_dynamic_update_slices_are_the_general_path(shape: tuple[int, ...],
                                                    sizes: tuple[int, ...]) -> None:
    """dynamic_update_slice kernels (copying and in place), leading unit dimensions of the
    update indexed by integers: the general evaluator's result at starts inside, at and
    past both ends (clamped)."""
    import functools

    from shlo_cli.dialects.stablehlo import slicing, specialize
    from shlo_cli.ir.types import F32, TensorType

    general = functools.partial(slicing.dynamic_update_slice,
                                result_type=TensorType(shape, F32))
    kernel = specialize._dynamic_update_slice(shape, sizes, general)
    rng = np.random.default_rng(sum(shape) + sum(sizes))
    for trial in range(12):
        x = _values(rng, shape, np.float32, 0.1)
        update = _values(rng, sizes, np.float32, 0.1)
        starts = [np.int32(rng.integers(-3, n + 3)) for n in shape]
        if trial % 3 == 0:
            starts = [np.array(s) for s in starts]  # (0-d arrays, as constants come)
        want = general(x, update, *starts)
        assert _same(kernel(x, update, *starts), want)
        alone = x.copy()
        got = kernel.in_place(alone, update, *starts)
        assert _same(got, want)
