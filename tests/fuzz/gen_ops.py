"""Generators for the ops with structure: gather/scatter, convolution, batched dot_general,
reduce_window, dynamic slices, while/case, fft, rng_bit_generator, bit casts, complex parts.

Each takes (draw, st, shape, element) and returns a Program whose result type the shapes give.
Sums whose order is the implementation's (convolution, dot, scatter-add, reduce_window-add) use
`tame` values so any order gives the same bits; indices are drawn past the bounds too, since
clamping and skipping are where implementations go wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gen_common import (
    COMPLEX,
    FLOATS,
    INTS,
    Program,
    draw_array,
    function,
    identity,
    is_float,
    ttype,
)

Gen = Callable[[Any, Any, tuple[int, ...], str], Program]


def arr(values: list[int] | tuple[int, ...]) -> str:
    return "array<i64" + (": " + ", ".join(map(str, values)) if values else "") + ">"


def ilist(values: list[int] | tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


def indices(draw: Any, st: Any, shape: tuple[int, ...], bound: int) -> np.ndarray:
    """i32 indices, mostly in [0, bound], sometimes negative or far out."""
    n = int(np.prod(shape)) if shape else 1
    pool = st.one_of(st.integers(0, max(bound, 0)), st.sampled_from([-1, -5, 7, 100,
                                                                      2**31 - 1, -2**31]))
    values = draw(st.lists(pool, min_size=n, max_size=n))
    return np.array(values, dtype=np.int32).reshape(shape)


def _shape(draw: Any, st: Any, rank_min: int = 1, rank_max: int = 3) -> tuple[int, ...]:
    return tuple(draw(st.lists(st.integers(0, 3), min_size=rank_min, max_size=rank_max)))


def gather(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    shape = shape or (3,)
    rank = len(shape)
    index_map = draw(st.permutations(list(range(rank))))[:draw(st.integers(1, rank))]
    collapsed = sorted(draw(st.sets(st.sampled_from(range(rank)))))
    sizes = [draw(st.integers(0, min(d, 1))) if i in collapsed else draw(st.integers(0, d))
             for i, d in enumerate(shape)]
    k = draw(st.integers(0, 3))
    idx = indices(draw, st, (k, len(index_map)), max(shape))
    x = draw_array(draw, st, shape, element)
    out = (k,) + tuple(s for i, s in enumerate(sizes) if i not in collapsed)
    offset = list(range(1, len(out)))
    t, it, r = ttype(shape, element), ttype(idx.shape, "i32"), ttype(out, element)
    text = function([(shape, element), (idx.shape, "i32")], r, [
        f'%r = "stablehlo.gather"(%a0, %a1) {{dimension_numbers = #stablehlo.gather<'
        f'offset_dims = {ilist(offset)}, collapsed_slice_dims = {ilist(collapsed)}, '
        f'start_index_map = {ilist(index_map)}, index_vector_dim = 1>, '
        f'slice_sizes = {arr(sizes)}, indices_are_sorted = false}} : ({t}, {it}) -> {r}'])
    return Program("gather", text, [x, idx], element, None)


def scatter(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    """Add (integers: exact in any order), max/min, or replace with a single update."""
    shape = shape or (3,)
    rank = len(shape)
    kinds = ["replace", "maximum", "minimum"] + (["add"] if element in INTS else [])
    if element in COMPLEX:
        kinds = ["replace"]
    kind = draw(st.sampled_from(kinds))
    index_map = draw(st.permutations(list(range(rank))))[:draw(st.integers(1, rank))]
    inserted = sorted(draw(st.sets(st.sampled_from(range(rank)))))
    window = [min(d, 1) if i in inserted else draw(st.integers(0, d))
              for i, d in enumerate(shape)]
    inserted = [i for i in inserted if window[i] == 1]
    k = 1 if kind == "replace" else draw(st.integers(0, 3))
    idx = indices(draw, st, (k, len(index_map)), max(shape))
    upd_shape = (k,) + tuple(w for i, w in enumerate(window) if i not in inserted)
    x = draw_array(draw, st, shape, element)
    u = draw_array(draw, st, upd_shape, element)
    t, it, ut = ttype(shape, element), ttype(idx.shape, "i32"), ttype(upd_shape, element)
    s = ttype((), element)
    combine = ('"stablehlo.return"(%y)' if kind == "replace" else
               f'%z = "stablehlo.{kind}"(%x, %y) : ({s}, {s}) -> {s}\n    '
               '"stablehlo.return"(%z)')
    text = function([(shape, element), (idx.shape, "i32"), (upd_shape, element)], t, [
        '%r = "stablehlo.scatter"(%a0, %a1, %a2) ({', f'  ^bb0(%x: {s}, %y: {s}):',
        f'    {combine} : ({s}) -> ()',
        f'}}) {{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = '
        f'{ilist(list(range(1, len(upd_shape))))}, inserted_window_dims = {ilist(inserted)}, '
        f'scatter_dims_to_operand_dims = {ilist(index_map)}, index_vector_dim = 1>, '
        f'indices_are_sorted = false, unique_indices = false}} : ({t}, {it}, {ut}) -> {t}'])
    partial = False
    for row in idx:
        overlap = [max(0, min(int(row[index_map.index(d)]) + w, n) - max(int(row[
            index_map.index(d)]), 0)) if d in index_map else w
            for d, (w, n) in enumerate(zip(window, shape, strict=True))]
        if all(o > 0 for o in overlap) and overlap != window:
            partial = True
    flags = frozenset({"scatter-partial-window"}) if partial else frozenset()
    return Program(f"scatter_{kind}", text, [x, idx, u], element, None, flags)


def _window_out(size: int, window: int, stride: int, lo: int, hi: int, base: int,
                wdil: int) -> int:
    dilated = (size - 1) * base + 1 if size else 0
    padded = dilated + lo + hi
    span = (window - 1) * wdil + 1 if window else 0
    return (padded - span) // stride + 1 if padded >= span else 0


def convolution(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    spatial = draw(st.integers(1, 2))
    groups = draw(st.integers(1, 2))
    batch = draw(st.integers(0, 2))
    fin = groups * draw(st.integers(0, 2))
    fout = groups * draw(st.integers(0, 2))
    sizes = [draw(st.integers(0, 4)) for _ in range(spatial)]
    wins = [draw(st.integers(1, 3)) for _ in range(spatial)]  # upstream: positive
    strides = [draw(st.integers(1, 2)) for _ in range(spatial)]
    ldil = [draw(st.integers(1, 2)) for _ in range(spatial)]
    rdil = [draw(st.integers(1, 2)) for _ in range(spatial)]
    pads = [[draw(st.integers(-1, 2)), draw(st.integers(-1, 2))] for _ in range(spatial)]
    out = []
    for i in range(spatial):
        dilated = (sizes[i] - 1) * ldil[i] + 1 if sizes[i] else 0
        if dilated + sum(pads[i]) < 0:
            pads[i] = [0, 0]
        out.append(_window_out(sizes[i], wins[i], strides[i], *pads[i], ldil[i], rdil[i]))
    lhs = (batch, *sizes, fin)
    rhs = (*wins, fin // groups, fout)
    res = (batch, *out, fout)
    sp = ", ".join(str(i) for i in range(spatial))
    dims = f"[b, {sp}, f]x[{sp}, i, o]->[b, {sp}, f]"
    a = draw_array(draw, st, lhs, element, tame=True)
    b = draw_array(draw, st, rhs, element, tame=True)
    tl, tr, r = ttype(lhs, element), ttype(rhs, element), ttype(res, element)
    pad_text = ", ".join(f"[{lo}, {hi}]" for lo, hi in pads)
    text = function([(lhs, element), (rhs, element)], r, [
        f'%r = "stablehlo.convolution"(%a0, %a1) {{batch_group_count = 1 : i64, '
        f'dimension_numbers = #stablehlo.conv<{dims}>, feature_group_count = {groups} : i64, '
        f'window_strides = {arr(strides)}, padding = dense<[{pad_text}]> : '
        f'tensor<{spatial}x2xi64>, lhs_dilation = {arr(ldil)}, rhs_dilation = {arr(rdil)}}} '
        f': ({tl}, {tr}) -> {r}'])
    flags = frozenset()
    padded = any(lo > 0 or hi > 0 for lo, hi in pads) or any(d > 1 for d in ldil)
    if padded and b.dtype.kind in "fcV" and not np.all(np.isfinite(b.astype(np.complex128))):
        flags = frozenset({"conv-padding-times-inf"})
    return Program("convolution", text, [a, b], element, None, flags)


def dot_batched(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    b, m, k, n = (draw(st.integers(0, 3)) for _ in range(4))
    x = draw_array(draw, st, (b, m, k), element, tame=True)
    y = draw_array(draw, st, (b, k, n), element, tame=True)
    tx, ty, r = ttype(x.shape, element), ttype(y.shape, element), ttype((b, m, n), element)
    text = function([(x.shape, element), (y.shape, element)], r, [
        f'%r = "stablehlo.dot_general"(%a0, %a1) {{dot_dimension_numbers = #stablehlo.dot<'
        f'lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], '
        f'lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}} '
        f': ({tx}, {ty}) -> {r}'])
    return Program("dot_general_batched", text, [x, y], element, None)


def reduce_window(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    body = draw(st.sampled_from(["add", "maximum", "minimum"] if element not in COMPLEX
                                else ["add"]))
    rank = len(shape)
    win = [draw(st.integers(1, max(d, 1))) for d in shape]
    strides = [draw(st.integers(1, 2)) for _ in shape]
    bdil = [draw(st.integers(1, 2)) for _ in shape]
    wdil = [draw(st.integers(1, 2)) for _ in shape]
    pads = [[draw(st.integers(0, 1)), draw(st.integers(0, 1))] for _ in shape]
    out = tuple(_window_out(d, w, s, lo, hi, b, wd) for d, w, s, (lo, hi), b, wd
                in zip(shape, win, strides, pads, bdil, wdil, strict=True))
    x = draw_array(draw, st, shape, element, tame=body == "add")
    init = identity("add" if body == "add" else body, element)
    s, t, r = ttype((), element), ttype(shape, element), ttype(out, element)
    pad_text = ", ".join(f"[{lo}, {hi}]" for lo, hi in pads)
    pad_attr = f", padding = dense<[{pad_text}]> : tensor<{rank}x2xi64>" if rank else ""
    text = function([(shape, element), ((), element)], r, [
        '%r = "stablehlo.reduce_window"(%a0, %a1) ({', f'^bb0(%x: {s}, %y: {s}):',
        f'  %z = "stablehlo.{body}"(%x, %y) : ({s}, {s}) -> {s}',
        f'  "stablehlo.return"(%z) : ({s}) -> ()',
        f'}}) {{window_dimensions = {arr(win)}, window_strides = {arr(strides)}, '
        f'base_dilations = {arr(bdil)}, window_dilations = {arr(wdil)}{pad_attr}}} '
        f': ({t}, {s}) -> {r}'])
    return Program(f"reduce_window_{body}", text, [x, init], element, None)


def dynamic_slice(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    sizes = [draw(st.integers(0, d)) for d in shape]
    x = draw_array(draw, st, shape, element)
    starts = [indices(draw, st, (), d) for d in shape]
    t, r, i = ttype(shape, element), ttype(tuple(sizes), element), ttype((), "i32")
    names = "".join(f", %a{n + 1}" for n in range(len(shape)))
    text = function([(shape, element)] + [((), "i32")] * len(shape), r, [
        f'%r = "stablehlo.dynamic_slice"(%a0{names}) {{slice_sizes = {arr(sizes)}}} : '
        f'({", ".join([t] + [i] * len(shape))}) -> {r}'])
    return Program("dynamic_slice", text, [x, *starts], element, None)


def dynamic_update_slice(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    sizes = tuple(draw(st.integers(0, d)) for d in shape)
    x = draw_array(draw, st, shape, element)
    u = draw_array(draw, st, sizes, element)
    starts = [indices(draw, st, (), d) for d in shape]
    t, ut, i = ttype(shape, element), ttype(sizes, element), ttype((), "i32")
    names = "".join(f", %a{n + 2}" for n in range(len(shape)))
    text = function([(shape, element), (sizes, element)] + [((), "i32")] * len(shape), t, [
        f'%r = "stablehlo.dynamic_update_slice"(%a0, %a1{names}) : '
        f'({", ".join([t, ut] + [i] * len(shape))}) -> {t}'])
    return Program("dynamic_update_slice", text, [x, u, *starts], element, None)


def while_loop(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    """x := x op y, n times (n from the input, so 0 and negative counts happen)."""
    op = "add" if element not in ("i1",) else "xor"
    t, s = ttype(shape, element), ttype((), "i64")
    x = draw_array(draw, st, shape, element)
    y = draw_array(draw, st, shape, element)
    n = np.array(draw(st.integers(-2, 4)), np.int64)
    text = function([(shape, element), (shape, element), ((), "i64")], t, [
        f'%zero = "stablehlo.constant"() {{value = dense<0> : {s}}} : () -> {s}',
        '%w:2 = "stablehlo.while"(%zero, %a0) ({',
        f'^bb0(%i: {s}, %x: {t}):',
        f'  %c = "stablehlo.compare"(%i, %a2) {{comparison_direction = '
        f'#stablehlo<comparison_direction LT>}} : ({s}, {s}) -> tensor<i1>',
        '  "stablehlo.return"(%c) : (tensor<i1>) -> ()',
        '}, {',
        f'^bb0(%i: {s}, %x: {t}):',
        f'  %one = "stablehlo.constant"() {{value = dense<1> : {s}}} : () -> {s}',
        f'  %i2 = "stablehlo.add"(%i, %one) : ({s}, {s}) -> {s}',
        f'  %x2 = "stablehlo.{op}"(%x, %a1) : ({t}, {t}) -> {t}',
        f'  "stablehlo.return"(%i2, %x2) : ({s}, {t}) -> ()',
        f'}}) : ({s}, {t}) -> ({s}, {t})'], ret="%w#1")
    return Program("while", text, [x, y, n], element, None)


def case(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    """Three branches; an index out of [0, 3) takes the last one."""
    t = ttype(shape, element)
    x = draw_array(draw, st, shape, element)
    index = np.array(draw(st.sampled_from([0, 1, 2, 3, -1, 2**31 - 1, -2**31])), np.int32)
    negate = "negate" if element not in ("i1",) and not element.startswith("u") else "not"
    text = function([((), "i32"), (shape, element)], t, [
        '%r = "stablehlo.case"(%a0) ({',
        f'  "stablehlo.return"(%a1) : ({t}) -> ()',
        '}, {',
        f'  %n = "stablehlo.{negate}"(%a1) : ({t}) -> {t}',
        f'  "stablehlo.return"(%n) : ({t}) -> ()',
        '}, {',
        f'  %m = "stablehlo.multiply"(%a1, %a1) : ({t}, {t}) -> {t}',
        f'  "stablehlo.return"(%m) : ({t}) -> ()',
        f'}}) : (tensor<i32>) -> {t}'])
    return Program("case", text, [index, x], element, None)


def fft(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    kind = draw(st.sampled_from(["FFT", "IFFT", "RFFT", "IRFFT"]))
    real = "f64" if element in ("f64", "complex<f64>") else "f32"
    cplx = f"complex<{real}>"
    rank = len(shape) or 1
    shape = shape or (3,)
    nd = draw(st.integers(1, min(rank, 3)))
    lengths = list(shape[rank - nd:])
    if kind == "IRFFT":
        in_shape = shape[:rank - nd] + tuple(lengths[:-1]) + (lengths[-1] // 2 + 1,)
        src, dst, out = cplx, real, shape
    elif kind == "RFFT":
        in_shape, src, dst = shape, real, cplx
        out = shape[:-1] + (shape[-1] // 2 + 1 if shape[-1] else 0,)
    else:
        in_shape, src, dst, out = shape, cplx, cplx, shape
    x = draw_array(draw, st, in_shape, src, tame=True)
    t, r = ttype(in_shape, src), ttype(out, dst)
    text = function([(in_shape, src)], r, [
        f'%r = "stablehlo.fft"(%a0) {{fft_type = #stablehlo<fft_type {kind}>, '
        f'fft_length = {arr(lengths)}}} : ({t}) -> {r}'])
    return Program(f"fft_{kind}", text, [x], src, None)


def rng_bit_generator(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    algorithm = draw(st.sampled_from(["THREE_FRY", "PHILOX", "DEFAULT"]))
    state_len = 2 if algorithm == "THREE_FRY" else draw(st.sampled_from([2, 3]))
    out_element = draw(st.sampled_from(["ui32", "ui64", "ui8", "i32", "i64", "f32"]))
    state = np.array(draw(st.lists(st.integers(0, 2**64 - 1), min_size=state_len,
                                   max_size=state_len)), np.uint64)
    s, r = ttype((state_len,), "ui64"), ttype(shape, out_element)
    text = function([((state_len,), "ui64")], r, [
        f'%s, %r = "stablehlo.rng_bit_generator"(%a0) {{rng_algorithm = '
        f'#stablehlo<rng_algorithm {algorithm}>}} : ({s}) -> ({s}, {r})'])
    return Program(f"rng_bit_generator_{algorithm}", text, [state], out_element, None)


WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i8": 8, "i16": 16, "i32": 32,
         "i64": 64, "ui8": 8, "ui16": 16, "ui32": 32, "ui64": 64, "f8E4M3FN": 8, "f8E5M2": 8}


def bitcast_convert(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    if element not in WIDTH:
        element = "f32"
    same = [e for e, w in WIDTH.items() if w == WIDTH[element]]
    to = draw(st.sampled_from(same))
    x = draw_array(draw, st, shape, element)
    t, r = ttype(shape, element), ttype(shape, to)
    text = function([(shape, element)], r,
                    [f'%r = "stablehlo.bitcast_convert"(%a0) : ({t}) -> {r}'])
    return Program(f"bitcast_convert_to_{to}", text, [x], element, None)


def complex_parts(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    op = draw(st.sampled_from(["real", "imag", "complex"]))
    real = "f64" if element in ("f64", "complex<f64>") else "f32"
    cplx = f"complex<{real}>"
    if op == "complex":
        xs = [draw_array(draw, st, shape, real) for _ in range(2)]
        t, r = ttype(shape, real), ttype(shape, cplx)
        text = function([(shape, real)] * 2, r,
                        [f'%r = "stablehlo.complex"(%a0, %a1) : ({t}, {t}) -> {r}'])
        return Program(op, text, xs, real, None)
    x = draw_array(draw, st, shape, cplx)
    t, r = ttype(shape, cplx), ttype(shape, real)
    text = function([(shape, cplx)], r, [f'%r = "stablehlo.{op}"(%a0) : ({t}) -> {r}'])
    return Program(op, text, [x], cplx, None)


def reduce_precision(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    if element not in FLOATS:
        element = "f32"
    e, m = draw(st.integers(1, 11)), draw(st.integers(0, 52))
    x = draw_array(draw, st, shape, element)
    t = ttype(shape, element)
    text = function([(shape, element)], t, [
        f'%r = "stablehlo.reduce_precision"(%a0) {{exponent_bits = {e} : i32, '
        f'mantissa_bits = {m} : i32}} : ({t}) -> {t}'])
    return Program("reduce_precision", text, [x], element, None)


def argmax(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    """A variadic reduce: (value, index) pairs, the first index of the largest value."""
    if element in COMPLEX or element == "i1":
        element = "f32"
    shape = shape or (3,)
    dim = draw(st.integers(0, len(shape) - 1))
    x = draw_array(draw, st, shape, element)
    if is_float(element):  # NaN makes the order of the pairs matter
        x = np.where(np.isnan(x.astype(np.float64)), x.dtype.type(1), x)
    idx = np.broadcast_to(np.arange(shape[dim], dtype=np.int32).reshape(
        [-1 if i == dim else 1 for i in range(len(shape))]), shape).copy()
    init = identity("maximum", element)
    out = tuple(d for i, d in enumerate(shape) if i != dim)
    t, it = ttype(shape, element), ttype(shape, "i32")
    s, si = ttype((), element), ttype((), "i32")
    r, ri = ttype(out, element), ttype(out, "i32")
    kind = "FLOAT" if is_float(element) else ("UNSIGNED" if element.startswith("u")
                                              else "SIGNED")
    text = function([(shape, element), (shape, "i32"), ((), element), ((), "i32")], ri, [
        '%v, %r = "stablehlo.reduce"(%a0, %a1, %a2, %a3) ({',
        f'^bb0(%x: {s}, %i: {si}, %y: {s}, %j: {si}):',
        f'  %gt = "stablehlo.compare"(%x, %y) {{comparison_direction = '
        f'#stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type '
        f'{kind}>}} : ({s}, {s}) -> tensor<i1>',
        f'  %eq = "stablehlo.compare"(%x, %y) {{comparison_direction = '
        f'#stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type '
        f'{kind}>}} : ({s}, {s}) -> tensor<i1>',
        f'  %lt = "stablehlo.compare"(%i, %j) {{comparison_direction = '
        f'#stablehlo<comparison_direction LT>}} : ({si}, {si}) -> tensor<i1>',
        '  %tie = "stablehlo.and"(%eq, %lt) : (tensor<i1>, tensor<i1>) -> tensor<i1>',
        '  %take = "stablehlo.or"(%gt, %tie) : (tensor<i1>, tensor<i1>) -> tensor<i1>',
        f'  %m = "stablehlo.select"(%take, %x, %y) : (tensor<i1>, {s}, {s}) -> {s}',
        f'  %k = "stablehlo.select"(%take, %i, %j) : (tensor<i1>, {si}, {si}) -> {si}',
        f'  "stablehlo.return"(%m, %k) : ({s}, {si}) -> ()',
        f'}}) {{dimensions = array<i64: {dim}>}} : ({t}, {it}, {s}, {si}) -> ({r}, {ri})'])
    return Program("argmax", text, [x, idx, init, np.array(-1, np.int32)], element, None)


GENERATORS: dict[str, Gen] = {
    "gather": gather, "scatter": scatter, "convolution": convolution,
    "dot_general_batched": dot_batched, "reduce_window": reduce_window,
    "dynamic_slice": dynamic_slice, "dynamic_update_slice": dynamic_update_slice,
    "while": while_loop, "case": case, "fft": fft, "rng_bit_generator": rng_bit_generator,
    "bitcast_convert": bitcast_convert, "complex_parts": complex_parts,
    "reduce_precision": reduce_precision, "argmax": argmax,
}
