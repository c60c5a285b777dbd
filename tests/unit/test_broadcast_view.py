"""Specialized broadcast_in_dim (specialize._broadcast_view): large results are read-only
zero-stride views, small ones filled arrays; both equal the general evaluator's result for
permuted and size-1 dimensions, NaN/-0.0 payloads and empty tensors, and later kernels that
consume a view (elementwise, reshape, dynamic_update_slice, dot_general, returned) work."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import specialize
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def _t(shape: tuple[int, ...], elem: str = "f32") -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _run(text: str, args: list[np.ndarray], fast: bool) -> list[np.ndarray]:
    saved = list(engine.BIND_HOOKS)
    if not fast:
        engine.BIND_HOOKS[:] = [h for h in saved if h is not specialize.bind_specialized]
    try:
        interpreter = Interpreter(parse_source(text))
        return interpreter.call(interpreter.lookup_function("main"), args)
    finally:
        engine.BIND_HOOKS[:] = saved


@pytest.mark.parametrize("src,dims,out", [
    ((3,), [1], (2, 3)), ((3,), [2], (64, 32, 3)), ((2, 3), [2, 0], (3, 70, 2)),
    ((1, 4), [0, 2], (5, 6, 4)), ((), [], (4, 4096)), ((3,), [0], (3, 0)),
    ((48,), [3], (1, 32, 32, 48)), ((64,), [0], (64, 2048)),
    ((0,), [1], (2, 0)), ((4, 1), [1, 0], (1, 4, 5000)),
    # only unit dimensions added: a reshape
    ((256,), [1], (1, 256)), ((3, 4), [0, 2], (3, 1, 4)), ((6,), [0], (6,)), ((), [], (1, 1)),
    ((0, 2), [1, 2], (1, 0, 2)),
])
@pytest.mark.parametrize("elem", ["f32", "i8"])
def test_broadcast_matches_general(src: tuple[int, ...], dims: list[int], out: tuple[int, ...],
                                   elem: str) -> None:
    text = (f"func.func @main(%x: {_t(src, elem)}) -> {_t(out, elem)} {{\n"
            f"  %0 = stablehlo.broadcast_in_dim %x, dims = {dims} : ({_t(src, elem)}) -> {_t(out, elem)}\n"
            f"  func.return %0 : {_t(out, elem)}\n}}\n")
    rng = np.random.default_rng(len(src) + len(out))
    dtype = np.float32 if elem == "f32" else np.int8
    x = (rng.standard_normal(src) * 50).astype(dtype)
    if elem == "f32" and x.size >= 2:
        x.reshape(-1)[:2] = [np.nan, -0.0]
    (fast,) = _run(text, [x], True)
    (slow,) = _run(text, [x], False)
    fast, slow = np.asarray(fast), np.asarray(slow)
    assert fast.shape == slow.shape == out and fast.dtype == slow.dtype
    assert fast.tobytes() == slow.tobytes()
    expanded = [1] * len(out)
    for d, n in zip(dims, src, strict=True):
        expanded[d] = n
    if (fast.size >= specialize._VIEW_FROM
            and specialize._innermost_run(tuple(expanded), out) >= specialize._VIEW_RUN):
        assert not fast.flags.writeable  # a view: kernels never write into operands
    else:
        assert fast.flags.c_contiguous


@pytest.mark.parametrize("expanded,shape,run", [
    ((1, 1, 1, 48), (1, 32, 32, 48), 48), ((1, 1), (4, 4096), 16384),
    ((1, 4, 1), (1, 4, 5000), 5000), ((64, 1), (64, 2048), 2048), ((3, 1, 5), (3, 7, 5), 5),
    ((2, 3), (2, 3), 6), ((1,), (1,), 1),
])
def test_innermost_run(expanded: tuple[int, ...], shape: tuple[int, ...], run: int) -> None:
    assert specialize._innermost_run(expanded, shape) == run


def test_views_feed_later_kernels() -> None:
    text = """func.func @main(%x: tensor<64xf32>, %u: tensor<1x64xf32>, %w: tensor<64x8xf32>, %i: tensor<i32>) -> (tensor<128x64xf32>, tensor<128x8xf32>, tensor<64x128xf32>) {
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<64xf32>) -> tensor<128x64xf32>
  %s = stablehlo.add %b, %b : tensor<128x64xf32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %d = stablehlo.dynamic_update_slice %b, %u, %i, %z : (tensor<128x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<128x64xf32>
  %m = stablehlo.dot_general %d, %w, contracting_dims = [1] x [0] : (tensor<128x64xf32>, tensor<64x8xf32>) -> tensor<128x8xf32>
  %t = stablehlo.transpose %s, dims = [1, 0] : (tensor<128x64xf32>) -> tensor<64x128xf32>
  func.return %d, %m, %t : tensor<128x64xf32>, tensor<128x8xf32>, tensor<64x128xf32>
}
"""
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(64).astype(np.float32), rng.standard_normal((1, 64)).astype(np.float32),
            rng.standard_normal((64, 8)).astype(np.float32), np.int32(5)]
    fast = _run(text, args, True)
    slow = _run(text, args, False)
    for a, b in zip(fast, slow, strict=True):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    x = args[0]
    want = np.broadcast_to(x, (128, 64)).copy()
    want[5] = args[1][0]
    np.testing.assert_array_equal(fast[0], want)


@pytest.mark.parametrize("elem,dtype", [("f32", np.float32), ("bf16", "bfloat16"),
                                        ("ui32", np.uint32), ("i1", np.bool_),
                                        ("f64", np.float64), ("i8", np.int8)])
@pytest.mark.parametrize("src,dims", [((), []), ((1, 1), [0, 2]), ((1,), [1])])
def test_one_value_views(elem: str, dtype: object, src: tuple[int, ...],
                         dims: list[int]) -> None:
    """One value (jax's scalar operands: threefry's key words, `x * c`) broadcast to a large
    shape is a read-only zero-stride view made directly: the general evaluator's bytes,
    for 0-d arrays, size-1 arrays and numpy scalars (NaN payloads and -0.0 too); a
    dynamic_update_slice into it, an in-place kernel's candidate, leaves the operand as it
    was."""
    import ml_dtypes

    np_dtype = np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    out = (64, 3, 64)
    t_src, t_out = _t(src, elem), _t(out, elem)
    text = (f"func.func @main(%x: {t_src}, %u: {_t((1, 3, 64), elem)}) -> ({t_out}, {t_out}) {{\n"
            f"  %0 = stablehlo.broadcast_in_dim %x, dims = {dims} : ({t_src}) -> {t_out}\n"
            f"  %z = stablehlo.constant dense<0> : tensor<i32>\n"
            f"  %1 = stablehlo.dynamic_update_slice %0, %u, %z, %z, %z : ({t_out}, {_t((1, 3, 64), elem)}, tensor<i32>, tensor<i32>, tensor<i32>) -> {t_out}\n"
            f"  func.return %0, %1 : {t_out}, {t_out}\n}}\n")
    update = np.ones((1, 3, 64), np_dtype)
    values = [np.array(1.0), np.array(-0.0), np.array(np.nan)]
    if np_dtype.kind == "f":
        values.append(np.array(0x7FC01234, np.uint32).view(np.float32))  # a NaN payload
    for value in values:
        with np.errstate(invalid="ignore"):
            x = value.astype(np_dtype).reshape(src)
        fast = _run(text, [x, update], True)
        slow = _run(text, [x, update], False)
        for a, b in zip(fast, slow, strict=True):
            a, b = np.asarray(a), np.asarray(b)
            assert a.shape == b.shape == out and a.dtype == b.dtype == np_dtype
            assert a.tobytes() == b.tobytes()
        assert not fast[0].flags.writeable and fast[0].strides == (0, 0, 0)
        assert np.asarray(fast[0]).reshape(-1)[:1].tobytes() == x.tobytes()


def test_one_value_view_of_a_numpy_scalar() -> None:
    """0-d values in generated loops may be numpy scalars: the same view."""
    text = ("func.func @main(%x: tensor<ui32>) -> tensor<128x128xui32> {\n"
            "  %0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<ui32>) -> tensor<128x128xui32>\n"
            "  func.return %0 : tensor<128x128xui32>\n}\n")
    module = parse_source(text)
    op = next(o for o in module.op.walk() if o.name == "stablehlo.broadcast_in_dim")
    kernel = specialize._broadcast_view(op, {"broadcast_dimensions": []})
    assert kernel is not None
    got = kernel(np.uint32(0xDEADBEEF))
    assert got.shape == (128, 128) and got.dtype == np.uint32 and got.strides == (0, 0)
    assert not got.flags.writeable and (got == 0xDEADBEEF).all()
