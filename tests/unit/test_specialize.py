"""Plan-time specialized kernels (dialects/stablehlo/specialize.py) give the same results as
the general evaluators, bit for bit, on random data with NaN, -0.0, extremes and empty
tensors; and they are actually chosen."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import specialize, specialize_half
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

ELEMS = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32,
         "i8": np.int8, "ui16": np.uint16, "i1": np.bool_}


def _data(rng: np.random.Generator, shape: tuple[int, ...], elem: str) -> np.ndarray:
    dtype = np.dtype(ELEMS[elem])
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    for i, v in enumerate([np.nan, -0.0, 0.0, np.inf, -np.inf]):
        if i < flat.size:
            flat[i] = v
    return x


def _run(text: str, args: list[np.ndarray], specialized: bool) -> list[np.ndarray]:
    saved = list(engine.BIND_HOOKS)
    if not specialized:
        engine.BIND_HOOKS[:] = [h for h in saved if h not in (
            specialize.bind_specialized, specialize_half.bind_half)]  # f16 extremum
    try:
        interpreter = Interpreter(parse_source(text))
        out = interpreter.call(interpreter.lookup_function("main"), args)
        plan = next(iter(interpreter._plans.values()))
        kernels = [step.fn for step in plan.steps]
    finally:
        engine.BIND_HOOKS[:] = saved
    return [np.asarray(o) for o in out] + [kernels]  # type: ignore[list-item]


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


CASES = []
for elem in ("f32", "f64", "f16", "i32", "i8", "ui16"):
    for op in ("add", "subtract", "multiply"):
        CASES.append((f"%0 = stablehlo.{op} %a, %b : {{T}}", elem, (5, 3), 2, None))
for elem in ("f32", "f64", "f16"):
    CASES.append(("%0 = stablehlo.negate %a : {T}", elem, (7,), 1, None))
    CASES.append(("%0 = stablehlo.abs %a : {T}", elem, (7,), 1, None))
    CASES.append(("%0 = stablehlo.abs %a : {T}", elem, (), 1, None))
    CASES.append(("%0 = stablehlo.abs %a : {T}", elem, (0, 3), 1, None))
for elem in ("f32", "f64", "f16", "i8", "ui16"):
    for op in ("maximum", "minimum"):
        CASES.append((f"%0 = stablehlo.{op} %a, %b : {{T}}", elem, (40,), 2, "zeros"))
        CASES.append((f"%0 = stablehlo.{op} %a, %b : {{T}}", elem, (), 2, "zeros"))
for elem in ("f32", "i32", "ui16", "i1"):
    for direction in ("EQ", "NE", "LT", "LE", "GT", "GE"):
        ctype = {"f32": "FLOAT", "i32": "SIGNED", "ui16": "UNSIGNED", "i1": "UNSIGNED"}[elem]
        CASES.append((f"%0 = stablehlo.compare {direction}, %a, %b, {ctype} : ({{T}}, {{T}}) -> {{R}}",
                      elem, (6,), 2, "i1"))
for elem in ("f32", "f64", "f16"):  # "zeros" data: -0, +0 and NaN pairs; "nans": none
    for direction in ("EQ", "NE", "LT", "LE", "GT", "GE"):
        for data in ("zeros", "numbers"):
            CASES.append((f"%0 = stablehlo.compare {direction}, %a, %b, TOTALORDER : "
                          "({T}, {T}) -> {R}", elem, (40,), 2, ("i1", data)))
for elem in ("f32", "i8", "i1"):
    CASES.append(("%0 = stablehlo.reshape %a : ({T}) -> tensor<3x2x{E}>", elem, (6,), 1, "3x2"))
    CASES.append(("%0 = stablehlo.slice %a [1:5:2, 0:3] : ({T}) -> tensor<2x3x{E}>", elem, (6, 3), 1, "2x3"))
CASES.append(("%0 = stablehlo.reshape %a : ({T}) -> tensor<0x4xf32>", "f32", (2, 0), 1, "0x4"))
for elem in ("f32", "i8", "i1", "f16"):
    CASES.append(("%0 = stablehlo.transpose %a, dims = [1, 0] : ({T}) -> tensor<3x6x{E}>", elem, (6, 3), 1, "3x6"))
    CASES.append(("%0 = stablehlo.transpose %a, dims = [2, 0, 1] : ({T}) -> tensor<4x2x3x{E}>", elem, (2, 3, 4), 1, "4x2x3"))
CASES.append(("%0 = stablehlo.transpose %a, dims = [1, 0] : ({T}) -> tensor<0x2xf32>", "f32", (2, 0), 1, "0x2"))
CASES.append(("%0 = stablehlo.transpose %a, dims = [0, 1] : ({T}) -> tensor<2x5xf32>", "f32", (2, 5), 1, "2x5"))
for elem in ("f32", "f64", "f16"):
    CASES.append(("%0 = stablehlo.divide %a, %b : {T}", elem, (5, 3), 2, None))
    CASES.append(("%0 = stablehlo.divide %a, %b : {T}", elem, (0, 3), 2, None))
for elem in ("f32", "f16"):
    for op in ("exponential", "exponential_minus_one", "log", "log_plus_one", "sine", "cosine",
               "tan", "tanh", "cbrt"):
        CASES.append((f"%0 = stablehlo.{op} %a : {{T}}", elem, (41,), 1, "wide"))
    CASES.append(("%0 = stablehlo.tanh %a : {T}", elem, (0,), 1, None))
    for op in ("sqrt", "rsqrt", "logistic"):
        CASES.append((f"%0 = stablehlo.{op} %a : {{T}}", elem, (41,), 1, "wide"))
        CASES.append((f"%0 = stablehlo.{op} %a : {{T}}", elem, (0, 2), 1, None))
for src, dst in (("f32", "f64"), ("i32", "f32"), ("f64", "i8"), ("f32", "f16"), ("i1", "f64"),
                 ("ui16", "i8"), ("f64", "f32"), ("i32", "i32")):
    CASES.append((f"%0 = stablehlo.convert %a : ({{T}}) -> tensor<9x{dst}>", src, (9,), 1,
                  ("convert", dst)))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_specialized_kernels_match_general_evaluators(case):
    body, elem, shape, arity, result = CASES[case]
    if isinstance(result, tuple) and result[0] == "i1":  # TOTALORDER compares
        result, pairs, numbers = "i1", result[1] == "zeros", result[1] == "numbers"
        payloads = pairs
    else:
        pairs, numbers, payloads = result == "zeros", False, False
    wide = result == "wide"
    result = None if pairs or wide else result
    t = _t(shape, elem)
    if isinstance(result, tuple):
        r = _t(shape, result[1])
    elif result == "i1":
        r = _t(shape, "i1")
    elif result is not None:
        r = f"tensor<{result}x{elem}>"
    else:
        r = t
    line = body.format(T=t, R=r, E=elem)
    params = ", ".join(f"%{n}: {t}" for n in "ab"[:arity])
    text = f"func.func @main({params}) -> {r} {{\n  {line}\n  func.return %0 : {r}\n}}\n"
    rng = np.random.default_rng(case)
    args = [_data(rng, shape, elem) for _ in range(arity)]
    if wide:  # over- and underflowing exponents too
        args = [(args[0].astype(np.float64) * 40).astype(args[0].dtype)]
    if pairs and args[0].dtype.kind == "f":  # every pairing of -0, +0, <0, >0, NaN
        pool = np.array([-0.0, 0.0, -1.5, 2.0, np.nan], args[0].dtype)
        args = [rng.choice(pool, shape).astype(args[0].dtype) for _ in range(2)]
        if shape:
            args[0][:25], args[1][:25] = np.repeat(pool, 5), np.tile(pool, 5)
        if payloads and elem == "f32":  # NaNs of both signs, other payloads, signaling
            nans = np.array([0xFFC00000, 0x7F800001, 0x7FC00001, 0xFF812345], np.uint32)
            args[0][25:29], args[1][25:29] = nans.view(np.float32), nans[::-1].view(np.float32)
    if numbers:  # no NaN: equal values, both zeros, infinities
        pool = np.array([-0.0, 0.0, -1.5, 2.0, np.inf, -np.inf, 1e-40], args[0].dtype)
        args = [rng.choice(pool, shape).astype(args[0].dtype) for _ in range(2)]
        args[0][:5] = args[1][:5]
    with np.errstate(all="ignore"):
        fast, fast_kernels = _run(text, args, True)[0], _run(text, args, True)[1]
        plain, plain_kernels = _run(text, args, False)[0], _run(text, args, False)[1]
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()
    assert fast_kernels != plain_kernels  # the specialized kernel was bound


DYNAMIC_SLICE = """
func.func @main(%x: tensor<7x5xf32>, %i: tensor<i32>, %j: tensor<i64>) -> tensor<{M}x{N}xf32> {{
  %0 = stablehlo.dynamic_slice %x, %i, %j, sizes = [{M}, {N}] : (tensor<7x5xf32>, tensor<i32>, tensor<i64>) -> tensor<{M}x{N}xf32>
  func.return %0 : tensor<{M}x{N}xf32>
}}
"""


@pytest.mark.parametrize("i,j", [(0, 0), (4, 3), (-5, 9), (100, -1), (2, 2)])
@pytest.mark.parametrize("m,n", [(3, 2), (7, 2), (3, 5), (7, 5)])  # whole dims: fixed slices
def test_specialized_dynamic_slice_clamps_like_the_general_one(i, j, m, n):
    x = _data(np.random.default_rng(0), (7, 5), "f32")
    args = [x, np.array(i, np.int32), np.array(j, np.int64)]
    text = DYNAMIC_SLICE.format(M=m, N=n)
    fast = _run(text, args, True)[0]
    plain = _run(text, args, False)[0]
    assert fast.shape == (m, n)
    assert fast.tobytes() == plain.tobytes()
    assert fast.flags.c_contiguous


DYNAMIC_UPDATE_SLICE = """
func.func @main(%x: tensor<7x5x{E}>, %u: tensor<3x{K}x{E}>, %i: tensor<i32>, %j: tensor<{J}>) -> tensor<7x5x{E}> {{
  %0 = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<7x5x{E}>, tensor<3x{K}x{E}>, tensor<i32>, tensor<{J}>) -> tensor<7x5x{E}>
  func.return %0 : tensor<7x5x{E}>
}}
"""


@pytest.mark.parametrize("i,j", [(0, 0), (4, 3), (-5, 9), (100, -1), (2, 2)])
@pytest.mark.parametrize("elem,k,jtype", [("f32", 2, "i64"), ("i8", 0, "ui8"), ("i1", 5, "i16"),
                                          ("f16", 1, "ui64")])
def test_specialized_dynamic_update_slice_clamps_like_the_general_one(i, j, elem, k, jtype):
    rng = np.random.default_rng(1)
    text = DYNAMIC_UPDATE_SLICE.format(E=elem, K=k, J=jtype)
    x, u = _data(rng, (7, 5), elem), _data(rng, (3, k), elem)
    jdtype = {"i64": np.int64, "ui8": np.uint8, "i16": np.int16, "ui64": np.uint64}[jtype]
    j = max(j, 0) if jdtype in (np.uint8, np.uint64) else j
    args = [x, u, np.array(i, np.int32), np.array(j, jdtype)]
    fast, fast_kernels = _run(text, args, True)
    plain, plain_kernels = _run(text, args, False)
    assert fast.tobytes() == plain.tobytes() and fast.dtype == plain.dtype
    assert fast.flags.c_contiguous and fast.flags.writeable
    chosen = [getattr(f, "__qualname__", "").startswith("_dynamic_update_slice") for f in fast_kernels]
    assert any(chosen) == (jtype != "ui64")  # ui64 indices: the general path
    assert x.tobytes() == _data(np.random.default_rng(1), (7, 5), elem).tobytes()  # not written


def test_dynamic_types_keep_the_general_path_except_elementwise():
    """Kernels built for static shapes (transpose) are not bound for dynamic ones; an
    elementwise op's are (test_specialize_dynamic.py)."""
    text = """
func.func @main(%a: tensor<?x2xf32>, %b: tensor<?x2xf32>) -> tensor<2x?xf32> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<?x2xf32>) -> tensor<2x?xf32>
  %1 = stablehlo.add %a, %b : tensor<?x2xf32>
  func.return %0 : tensor<2x?xf32>
}
"""
    module = parse_source(text)
    transpose, add = module.functions()[0].regions[0].entry.operations[:2]
    assert specialize.bind_specialized(transpose, transpose.opdef,
                                       {"permutation": [1, 0]}) is None
    assert specialize.bind_specialized(add, add.opdef, {}) is not None


DOTS = [  # (lhs shape, rhs shape, lhs batch, rhs batch, lhs contract, rhs contract)
    ((64, 128), (128, 10), [], [], [1], [0]),
    ((128, 64), (10, 128), [], [], [0], [1]),
    ((3, 5, 4, 6), (6, 3, 4, 7), [0], [1], [3, 2], [0, 2]),
    ((2, 0, 16), (2, 16, 3), [0], [0], [2], [1]),
    ((4, 20), (20,), [], [], [1], [0]),
]


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("case", range(len(DOTS)))
def test_specialized_dot_general_matches_the_general_path(elem, case):
    ls, rs, lb, rb, lc, rc = DOTS[case]
    lf = [d for d in range(len(ls)) if d not in lb + lc]
    rf = [d for d in range(len(rs)) if d not in rb + rc]
    out = tuple([ls[d] for d in lb] + [ls[d] for d in lf] + [rs[d] for d in rf])
    batching = f"batching_dims = {lb} x {rb}, " if lb else ""
    text = f"""
func.func @main(%a: {_t(ls, elem)}, %b: {_t(rs, elem)}) -> {_t(out, elem)} {{
  %0 = stablehlo.dot_general %a, %b, {batching}contracting_dims = {lc} x {rc} : ({_t(ls, elem)}, {_t(rs, elem)}) -> {_t(out, elem)}
  func.return %0 : {_t(out, elem)}
}}
"""
    rng = np.random.default_rng(case)
    args = [_data(rng, ls, elem), _data(rng, rs, elem)]
    fast, fast_kernels = _run(text, args, True)
    plain, plain_kernels = _run(text, args, False)
    assert fast.shape == plain.shape == out and fast.dtype == plain.dtype
    assert fast.tobytes() == plain.tobytes()
    assert fast_kernels != plain_kernels


@pytest.mark.parametrize("elem", ["f32", "f64", "f16"])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("nan", [False, True, "one"])
@pytest.mark.parametrize("size", [3000, (1 << 16) + 3])  # NaN scan: argmax, then a reduce
def test_extremum_sign_bits_match_general_evaluator(op: str, elem: str, nan: bool | str,
                                                    size: int) -> None:
    """maximum/minimum's sign-bit pass (no NaN in the result) and its NaN fallback (many
    NaNs, or a single one last), on every pairing of signed zeros, infinities and numbers,
    and as a ReLU against a broadcast +0."""
    t = _t((size,), elem)
    text = (f"func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}) {{\n"
            f"  %z = stablehlo.constant dense<0.0> : tensor<{elem}>\n"
            f"  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<{elem}>) -> {t}\n"
            f"  %0 = stablehlo.{op} %a, %b : {t}\n"
            f"  %1 = stablehlo.{op} %a, %zb : {t}\n"
            f"  func.return %0, %1 : {t}, {t}\n}}\n")
    rng = np.random.default_rng(3 + (nan is True))
    pool = [-0.0, 0.0, -1.5, 2.0, np.inf, -np.inf, 1e-3, -7.0] + ([np.nan, -np.nan]
                                                                   if nan is True else [])
    args = [rng.choice(np.array(pool, ELEMS[elem]), size) for _ in range(2)]
    if nan == "one":
        args[0][-1] = np.nan
    got = _run(text, [a.copy() for a in args], True)
    want = _run(text, [a.copy() for a in args], False)
    for g, w in zip(got[:2], want[:2], strict=True):
        assert g.dtype == w.dtype
        assert np.array_equal(g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}"))
    kernel = "_extremum" if elem == "f16" else "_signed_extremum"  # f16: specialize_half
    assert any(getattr(k, "__qualname__", "").startswith(kernel) for k in got[2])


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("size", [0, 1, 4, 64, 65, 300, 4095, 4096])
@pytest.mark.parametrize("zero", [False, True])
def test_small_extremum_without_zeros_is_numpys(op: str, elem: str, size: int,
                                                zero: bool) -> None:
    """Below 4096 elements a result with no zero is numpy's own: NaNs of both signs,
    infinities and subnormals with no zero among the operands, or one zero pair, give the
    general evaluator's bits; empty tensors too."""
    t = _t((size,), elem)
    text = (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.{op} %a, %b : {t}\n  func.return %0 : {t}\n}}\n")
    rng = np.random.default_rng(size)
    pool = np.array([-1.5, 2.0, np.inf, -np.inf, 1e-45, -1e-45, np.nan, -np.nan, 3.0],
                    ELEMS[elem])
    args = [rng.choice(pool, size) for _ in range(2)]
    if zero and size:
        args[0][-1], args[1][-1] = -0.0, 0.0
    got = _run(text, [a.copy() for a in args], True)
    want = _run(text, [a.copy() for a in args], False)
    assert got[0].dtype == want[0].dtype and got[0].shape == want[0].shape
    assert np.array_equal(got[0].view(f"u{got[0].itemsize}"), want[0].view(f"u{want[0].itemsize}"))


def _misaligned(x: np.ndarray, offset: int) -> np.ndarray:
    """A C-contiguous copy of x starting `offset` elements into a larger buffer."""
    buf = np.empty(x.size + offset, x.dtype)
    view = buf[offset:].reshape(x.shape)
    view[...] = x
    assert view.flags.c_contiguous
    return view


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize(("m", "k", "n"), [(1, 64, 256), (1, 16, 256), (64, 32, 128),
                                           (7, 300, 1), (1, 9, 1), (3, 0, 4), (0, 12, 5),
                                           (33, 65, 17), (128, 64, 32), (1, 64, 64),
                                           (1, 32, 64), (1, 100, 3), (1, 2, 1000)])
def test_plain_dot_reads_operands_in_place(elem: str, m: int, k: int, n: int) -> None:
    """The (m, k) x (k, n) dot kernel that hands C-contiguous operands to BLAS uncopied
    equals the general evaluator (which copies) bit for bit, at any alignment, with NaN,
    -0.0 and an all -0.0 product column in the data; a Fortran-ordered operand takes the
    copying kernel and equals the general evaluator given the same operand."""
    lt, rt, ot = _t((m, k), elem), _t((k, n), elem), _t((m, n), elem)
    text = (f"func.func @main(%a: {lt}, %b: {rt}) -> {ot} {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
            f"({lt}, {rt}) -> {ot}\n  func.return %0 : {ot}\n}}\n")
    rng = np.random.default_rng(m * 1000 + k + n)
    a, b = _data(rng, (m, k), elem), _data(rng, (k, n), elem)
    if a.size > 8:
        a.reshape(-1)[5:8] = -0.0
    if k > 8 and n > 1 and m > 0:  # an all -0.0 product column: the sum must be +0.0
        a[0, :] = np.where(np.isnan(a[0]), 1.0, a[0])
        b[:, 0] = -0.0
    want = _run(text, [a, b], False)[0]
    for args in ([a, b], [_misaligned(a, 1), _misaligned(b, 3)],
                 [_misaligned(a, 2), _misaligned(b, 1)]):
        got = _run(text, args, True)
        if k > 8:
            assert any(getattr(f, "__qualname__", "").startswith("_dot_general")
                       for f in got[-1])
        assert got[0].shape == want.shape and got[0].dtype == want.dtype
        assert np.array_equal(got[0].view(np.uint8), want.view(np.uint8))
    fortran = [np.asfortranarray(a), b]
    got, want = _run(text, fortran, True)[0], _run(text, fortran, False)[0]
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize(("m", "k", "n"), [(64, 10, 128), (128, 64, 32), (10, 64, 128),
                                           (1, 64, 256), (33, 65, 1), (1, 12, 1)])
@pytest.mark.parametrize(("lc", "rc"), [(0, 0), (1, 1), (0, 1)])
def test_transposed_dot_operands_read_in_place(elem: str, m: int, k: int, n: int, lc: int,
                                               rc: int) -> None:
    """Contracting an operand's first (lhs) or last (rhs) dimension, as a backward pass
    does: the permuted operand is a Fortran-ordered view, read in place when the copying
    kernel's copy would have its layout. Bitwise the general evaluator's, at any alignment,
    for C- and Fortran-ordered inputs."""
    lshape = (k, m) if lc == 0 else (m, k)
    rshape = (n, k) if rc == 1 else (k, n)
    lt, rt, ot = _t(lshape, elem), _t(rshape, elem), _t((m, n), elem)
    text = (f"func.func @main(%a: {lt}, %b: {rt}) -> {ot} {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [{lc}] x [{rc}] : "
            f"({lt}, {rt}) -> {ot}\n  func.return %0 : {ot}\n}}\n")
    rng = np.random.default_rng(m * 7 + k * 3 + n + lc * 11 + rc)
    a, b = _data(rng, lshape, elem), _data(rng, rshape, elem)
    for args in ([a, b], [_misaligned(a, 1), _misaligned(b, 2)],
                 [np.asfortranarray(a), b], [a, np.asfortranarray(b)]):
        got = _run(text, args, True)
        want = _run(text, args, False)[0]
        assert any(getattr(f, "__qualname__", "").startswith("_dot_general") for f in got[-1])
        assert got[0].shape == want.shape == (m, n) and got[0].dtype == want.dtype
        assert np.array_equal(got[0].view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("elem", ["f32", "f16", "i8", "ui16", "i1"])
@pytest.mark.parametrize("rank", [1, 3])
def test_scalar_broadcast_to_unit_shape_is_a_fresh_copy(elem: str, rank: int) -> None:
    """A 0-d value (array or numpy scalar; NaN with the sign bit set) broadcast to
    (1, ..., 1): the same bits as the general evaluator, in a fresh writeable array."""
    t = "tensor<" + "1x" * rank + elem + ">"
    text = (f"func.func @main(%a: tensor<{elem}>) -> {t} {{\n"
            f"  %0 = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<{elem}>) -> {t}\n"
            f"  func.return %0 : {t}\n}}\n")
    rng = np.random.default_rng(rank)
    values = list(_data(rng, (6,), elem))
    if elem.startswith("f"):
        values.append(-np.array(np.nan, ELEMS[elem]))
    for v in values:
        for arg in (np.array(v), v):
            got = _run(text, [arg], True)
            want = _run(text, [arg], False)
            assert got[0].shape == want[0].shape == (1,) * rank
            assert got[0].dtype == want[0].dtype and got[0].tobytes() == want[0].tobytes()
            assert got[0].flags.writeable and not np.shares_memory(got[0], np.asarray(arg))
            assert any(getattr(k, "__qualname__", "").startswith("_scalar_to_ones")
                       for k in got[-1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_row_times_a_matrix_is_the_same_by_dot_and_matmul(dtype: type) -> None:
    """The premise of the row kernel's np.dot (specialize_dot._dot_general's `plain`): for a
    (1, k) row and a C-ordered (k, n) matrix, np.dot and matmul make the same BLAS call."""
    rng = np.random.default_rng(0)
    for k in (2, 3, 16, 31, 64, 100, 256):
        for n in (2, 5, 64, 65, 257):
            a = (rng.standard_normal((1, k)) * 10.0 ** rng.integers(-5, 5)).astype(dtype)
            b = (rng.standard_normal((k, n)) * 10.0 ** rng.integers(-5, 5)).astype(dtype)
            assert np.dot(a, b).tobytes() == (a @ b).tobytes()


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("k,n", [(16, 256), (32, 128), (64, 256), (9, 2), (100, 3)])
def test_row_kernel_is_the_general_path(elem: str, k: int, n: int) -> None:
    """An RNN step's row times a C-ordered matrix (`row_plain`, np.dot tested first) and its
    other layouts (left to `plain`): the general path's bits, with and without the +0 that
    turns an all -0.0 sum into +0.0, for NaN, infinities, -0.0 and subnormals."""
    ls, rs = (1, k), (k, n)
    text = (f"func.func @main(%a: {_t(ls, elem)}, %b: {_t(rs, elem)}) -> {_t((1, n), elem)} "
            f"{{\n  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
            f"({_t(ls, elem)}, {_t(rs, elem)}) -> {_t((1, n), elem)}\n"
            f"  func.return %0 : {_t((1, n), elem)}\n}}\n")
    rng = np.random.default_rng(k * n)
    dtype = ELEMS[elem]
    first = [_data(rng, ls, elem), _data(rng, rs, elem)]
    kernel = _run(text, first, True)[-1][0]
    assert kernel.__qualname__.endswith("row_plain")
    tiny = np.finfo(dtype).smallest_subnormal
    for trial in range(12):
        a, b = _data(rng, ls, elem), _data(rng, rs, elem)
        a = np.roll(a, trial, axis=1)
        if trial % 4 == 1:  # all products -0.0 in every column
            a = -np.abs(rng.standard_normal(ls)).astype(dtype) * 0
            b = np.abs(b)
        elif trial % 4 == 2:
            a = a * tiny
        if trial % 3 == 1:
            b = np.asfortranarray(b)  # plain's Fortran case
        elif trial % 3 == 2:
            b = np.repeat(b, 2, axis=1)[:, ::2]  # strided: the general copy
        want = _run(text, [a, b], False)[0]
        with np.errstate(all="ignore"):
            got, raw = kernel(a, b), kernel(a, b, False)
        assert got.shape == want.shape == (1, n) and got.dtype == want.dtype
        assert got.tobytes() == want.tobytes()
        assert (raw + dtype(0)).tobytes() == want.tobytes()  # at most -0.0 differs
