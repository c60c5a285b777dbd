"""The plan-time convolution kernel (specialize_conv) equals the general evaluator bit for
bit: random f32/f64 inputs with NaN and -0.0, NHWC and NCHW layouts, padding, strides, rhs
dilation, 1x1 kernels, batch > 1, the conv_shifted and im2col paths; repeated calls (its
kept buffers) and ops it leaves to the general evaluator (groups, lhs dilation, reversal,
integers, empty results)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import specialize_conv
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.registry import BIND_HOOKS


def _program(lhs: str, rhs: str, out: str, dims: str, window: str, attrs: str = "") -> str:
    return f"""func.func @main(%a: {lhs}, %b: {rhs}) -> {out} {{
  %0 = stablehlo.convolution(%a, %b) dim_numbers = {dims}, window = {{{window}}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64{attrs}}} : ({lhs}, {rhs}) -> {out}
  return %0 : {out}
}}"""


def _run(text: str, args: list[np.ndarray], specialized: bool) -> tuple[np.ndarray, list[str]]:
    saved = list(BIND_HOOKS)
    if not specialized:
        BIND_HOOKS[:] = [h for h in BIND_HOOKS if h is not specialize_conv.bind_convolution]
    try:
        module = parse_source(text)
        interpreter = Interpreter(module)
        func = interpreter.lookup_function("main")
        outs = [interpreter.call(func, list(args))[0] for _ in range(2)]  # kept buffers reused
        kinds = [getattr(s.fn, "__qualname__", "") for s in
                 interpreter._plans[id(func.regions[0])].steps]
    finally:
        BIND_HOOKS[:] = saved
    assert np.array_equal(outs[0].view(np.uint8), outs[1].view(np.uint8))
    return outs[0], kinds


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    if flat.size > 8:
        flat[rng.choice(flat.size, flat.size // 8, replace=False)] = -0.0
        flat[rng.integers(flat.size)] = np.nan
    return x


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "x" + elem + ">"


# (input NHWC dims, kernel HWIO, stride, pad, rhs dilation, layout)
CASES = [
    ((1, 12, 12, 16), (3, 3, 16, 16), 1, 1, 1, "nhwc"),  # im2col (C < 3F)
    ((1, 12, 12, 48), (3, 3, 48, 12), 1, 1, 1, "nhwc"),  # conv_shifted
    ((2, 9, 11, 48), (3, 3, 48, 12), 1, 0, 2, "nhwc"),  # shifted, dilated, batch 2, no pad
    ((1, 10, 10, 24), (1, 1, 24, 40), 1, 0, 1, "nhwc"),  # 1x1: the input is the window matrix
    ((1, 10, 10, 16), (1, 1, 16, 32), 2, 0, 1, "nhwc"),  # 1x1 stride 2
    ((2, 13, 13, 8), (3, 3, 8, 10), 2, 1, 1, "nhwc"),  # stride 2, padded
    ((1, 8, 8, 3), (3, 3, 3, 16), 1, 1, 1, "nhwc"),  # stem: depth 27
    ((2, 10, 10, 12), (3, 3, 12, 6), 1, 1, 1, "nchw"),  # NCHW / OIHW, shifted
    ((1, 9, 9, 12), (3, 3, 12, 20), 2, 1, 1, "nchw"),  # NCHW / OIHW, im2col
    ((1, 16, 16, 1), (3, 3, 1, 1), 1, 1, 1, "nchw"),  # one channel (a stencil): tap by tap
    ((2, 12, 10, 1), (3, 3, 1, 4), 2, 1, 2, "nhwc"),  # one channel, strided and dilated
    ((1, 9, 9, 1), (5, 5, 1, 2), 1, 0, 1, "nhwc"),  # one channel, 5x5, no padding
]


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("case", CASES)
def test_specialized_convolution_is_the_general_path(case: tuple, elem: str) -> None:
    shape, kshape, stride, pad, dil, layout = case
    dtype = {"f32": np.float32, "f64": np.float64}[elem]
    n, h, w, c = shape
    kh, kw, _, f = kshape
    oh = (h + 2 * pad - (kh - 1) * dil - 1) // stride + 1
    ow = (w + 2 * pad - (kw - 1) * dil - 1) // stride + 1
    rng = np.random.default_rng(sum(shape) + f)
    if layout == "nhwc":
        lshape, rshape, oshape = shape, kshape, (n, oh, ow, f)
        dims = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"
    else:
        lshape, rshape, oshape = (n, c, h, w), (f, c, kh, kw), (n, f, oh, ow)
        dims = "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]"
    window = (f"stride = [{stride}, {stride}], pad = [[{pad}, {pad}], [{pad}, {pad}]], "
              f"rhs_dilate = [{dil}, {dil}]")
    text = _program(_t(lshape, elem), _t(rshape, elem), _t(oshape, elem), dims, window)
    args = [_data(rng, lshape, dtype), _data(rng, rshape, dtype)]
    got, kinds = _run(text, args, True)
    want, general = _run(text, args, False)
    assert any("bind_convolution" in k for k in kinds)
    assert not any("bind_convolution" in k for k in general)
    assert got.dtype == want.dtype and got.shape == want.shape == oshape
    assert got.flags.c_contiguous and got.flags.writeable
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


# (input NHWC dims, kernel HWIO, stride, pad, budget in bytes): window matrices above the
# budget, copied block by block (gemm.im2col_blocks) by the specialized kernel too
BLOCKED = [
    ((1, 13, 11, 6), (3, 3, 6, 8), 1, 1, 1000),  # slabs of one output row
    ((1, 13, 11, 6), (3, 3, 6, 8), 2, 1, 3000),  # slabs of a few rows, the last one short
    ((3, 7, 7, 5), (3, 3, 5, 7), 1, 0, 2000),  # one image per block
    ((5, 6, 6, 4), (2, 2, 4, 9), 1, 1, 7000),  # several images per block, the last short
]


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("case", BLOCKED)
def test_blocked_window_matrix_is_the_general_path(case: tuple, elem: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from shlo_cli.dialects.stablehlo import gemm

    shape, kshape, stride, pad, budget = case
    monkeypatch.setattr(gemm, "IM2COL_BUDGET", budget)
    dtype = {"f32": np.float32, "f64": np.float64}[elem]
    n, h, w, _ = shape
    kh, kw, _, f = kshape
    out = (n, (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kw) // stride + 1, f)
    window = f"stride = [{stride}, {stride}], pad = [[{pad}, {pad}], [{pad}, {pad}]]"
    text = _program(_t(shape, elem), _t(kshape, elem), _t(out, elem),
                    "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", window)
    rng = np.random.default_rng(sum(shape) + budget)
    args = [_data(rng, shape, dtype), _data(rng, kshape, dtype)]
    got, kinds = _run(text, args, True)
    want, _ = _run(text, args, False)
    assert any("_blocked_kernel" in k for k in kinds)
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    # and the blocks are a partition: the same products as one unblocked GEMM, within f32
    monkeypatch.setattr(gemm, "IM2COL_BUDGET", 1 << 30)
    whole, _ = _run(text, args, True)
    np.testing.assert_allclose(got, whole, rtol=1e-5, atol=1e-5)


LEFT_ALONE = [
    # feature groups
    ("tensor<1x6x6x4xf32>", "tensor<3x3x2x4xf32>", "tensor<1x4x4x4xf32>", "stride = [1, 1]",
     ", feature_group_count = 2 : i64"),
    # lhs dilation
    ("tensor<1x6x6x4xf32>", "tensor<3x3x4x4xf32>", "tensor<1x9x9x4xf32>", "lhs_dilate = [2, 2]", ""),
    # window reversal
    ("tensor<1x6x6x4xf32>", "tensor<3x3x4x4xf32>", "tensor<1x4x4x4xf32>",
     "reverse = [true, false]", ""),
    # integers
    ("tensor<1x6x6x4xi32>", "tensor<3x3x4x4xi32>", "tensor<1x4x4x4xi32>", "stride = [1, 1]", ""),
]


@pytest.mark.parametrize("case", LEFT_ALONE)
def test_other_convolutions_keep_the_general_evaluator(case: tuple) -> None:
    lhs, rhs, out, window, extra = case
    text = _program(lhs, rhs, out, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", window)
    if extra:
        text = text.replace("feature_group_count = 1 : i64", extra.lstrip(", "))
    module = parse_source(text)
    interpreter = Interpreter(module)
    func = interpreter.lookup_function("main")
    elem = np.int32 if "i32" in lhs else np.float32
    shapes = [tuple(int(v) for v in t[7:-5].split("x")) for t in (lhs, rhs)]
    interpreter.call(func, [np.ones(s, elem) for s in shapes])
    kinds = [getattr(s.fn, "__qualname__", "") for s in
             interpreter._plans[id(func.regions[0])].steps]
    assert not any("bind_convolution" in k for k in kinds)
