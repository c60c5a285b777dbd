"""More generators: select_and_scatter, map, the dynamic-shape ops (shapes as constants),
get_dimension_size, multi-operand sort, tuples and optimization_barrier, chlo's unary math
and top_k. Same contract as gen_ops: (draw, st, shape, element) -> Program.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gen_common import (
    COMPLEX,
    FLOATS,
    Program,
    draw_array,
    function,
    identity,
    is_float,
    ttype,
)
from gen_ops import Gen, arr


def _const(name: str, values: list[int]) -> str:
    t = f"tensor<{len(values)}xi64>"
    return (f'{name} = "stablehlo.constant"() {{value = dense<[{", ".join(map(str, values))}]>'
            f' : {t}}} : () -> {t}') if values else (
        f'{name} = "stablehlo.constant"() {{value = dense<> : tensor<0xi64>}} '
        f': () -> tensor<0xi64>')


def select_and_scatter(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    if element in COMPLEX or element == "i1":
        element = "f32"
    shape = shape or (2,)
    win = [draw(st.integers(1, max(d, 1))) for d in shape]
    strides = [draw(st.integers(1, 2)) for _ in shape]
    pads = [[draw(st.integers(0, 1)), draw(st.integers(0, 1))] for _ in shape]
    out = tuple((d + lo + hi - w) // s + 1 if d + lo + hi >= w else 0
                for d, w, s, (lo, hi) in zip(shape, win, strides, pads, strict=True))
    x = draw_array(draw, st, shape, element)
    if is_float(element):  # GE with NaN makes the pick depend on the scan order
        x = np.where(np.isnan(x.astype(np.float64)), x.dtype.type(2), x)
    src = draw_array(draw, st, out, element, tame=True)
    init = identity("add", element)
    s, t, r = ttype((), element), ttype(shape, element), ttype(out, element)
    kind = "FLOAT" if is_float(element) else ("UNSIGNED" if element.startswith("u")
                                              else "SIGNED")
    pad_text = ", ".join(f"[{lo}, {hi}]" for lo, hi in pads)
    text = function([(shape, element), (out, element), ((), element)], t, [
        '%r = "stablehlo.select_and_scatter"(%a0, %a1, %a2) ({',
        f'^bb0(%x: {s}, %y: {s}):',
        f'  %c = "stablehlo.compare"(%x, %y) {{comparison_direction = '
        f'#stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type '
        f'{kind}>}} : ({s}, {s}) -> tensor<i1>',
        '  "stablehlo.return"(%c) : (tensor<i1>) -> ()',
        '}, {', f'^bb0(%x: {s}, %y: {s}):',
        f'  %z = "stablehlo.add"(%x, %y) : ({s}, {s}) -> {s}',
        f'  "stablehlo.return"(%z) : ({s}) -> ()',
        f'}}) {{window_dimensions = {arr(win)}, window_strides = {arr(strides)}, '
        f'padding = dense<[{pad_text}]> : tensor<{len(shape)}x2xi64>}} '
        f': ({t}, {r}, {s}) -> {t}'])
    return Program("select_and_scatter", text, [x, src, init], element, None)


def map_op(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    body = "add" if element != "i1" else "or"
    xs = [draw_array(draw, st, shape, element) for _ in range(2)]
    s, t = ttype((), element), ttype(shape, element)
    text = function([(shape, element)] * 2, t, [
        '%r = "stablehlo.map"(%a0, %a1) ({', f'^bb0(%x: {s}, %y: {s}):',
        f'  %z = "stablehlo.{body}"(%x, %y) : ({s}, {s}) -> {s}',
        f'  "stablehlo.return"(%z) : ({s}) -> ()',
        f'}}) {{dimensions = {arr(list(range(len(shape))))}}} : ({t}, {t}) -> {t}'])
    return Program("map", text, xs, element, None)


def dynamic_shape_ops(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    """The dynamic ops with their shape operands as constants (what XLA compiles)."""
    op = draw(st.sampled_from(["dynamic_broadcast_in_dim", "dynamic_reshape", "dynamic_iota",
                               "dynamic_pad", "real_dynamic_slice"]))
    x = draw_array(draw, st, shape, element)
    t = ttype(shape, element)
    rank = len(shape)
    if op == "dynamic_broadcast_in_dim":
        out = (draw(st.integers(0, 3)),) + shape
        return Program(op, function([(shape, element)], ttype(out, element), [
            _const("%s", list(out)),
            f'%r = "stablehlo.dynamic_broadcast_in_dim"(%a0, %s) {{broadcast_dimensions = '
            f'{arr(list(range(1, rank + 1)))}}} : ({t}, tensor<{rank + 1}xi64>) -> '
            f'{ttype(out, element)}']), [x], element, None)
    if op == "dynamic_reshape":
        n = int(np.prod(shape)) if shape else 1
        out = (n,) if draw(st.booleans()) else (1, n)
        return Program(op, function([(shape, element)], ttype(out, element), [
            _const("%s", list(out)),
            f'%r = "stablehlo.dynamic_reshape"(%a0, %s) : ({t}, tensor<{len(out)}xi64>) -> '
            f'{ttype(out, element)}']), [x], element, None)
    if op == "dynamic_iota":
        if element == "i1" or element in COMPLEX:
            element = "i32"
        out = shape or (3,)
        r = ttype(out, element)
        return Program(op, function([], r, [
            _const("%s", list(out)),
            f'%r = "stablehlo.dynamic_iota"(%s) {{iota_dimension = {len(out) - 1} : i64}} '
            f': (tensor<{len(out)}xi64>) -> {r}']), [], element, None)
    if op == "dynamic_pad":
        lo = [draw(st.integers(0, 2)) for _ in shape]
        hi = [draw(st.integers(0, 2)) for _ in shape]
        inner = [draw(st.integers(0, 1)) for _ in shape]
        out = tuple(a + b + d + max(d - 1, 0) * i
                    for a, b, d, i in zip(lo, hi, shape, inner, strict=True))
        pv = draw_array(draw, st, (), element)
        it = f"tensor<{rank}xi64>"
        return Program(op, function([(shape, element), ((), element)], ttype(out, element), [
            _const("%lo", lo), _const("%hi", hi), _const("%in", inner),
            f'%r = "stablehlo.dynamic_pad"(%a0, %a1, %lo, %hi, %in) : ({t}, '
            f'{ttype((), element)}, {it}, {it}, {it}) -> {ttype(out, element)}']),
            [x, pv], element, None)
    starts = [draw(st.integers(0, d)) for d in shape]
    limits = [draw(st.integers(s, d)) for s, d in zip(starts, shape, strict=True)]
    strides = [draw(st.integers(1, 3)) for _ in shape]
    out = tuple(-(-(lim - s) // k) for s, lim, k in zip(starts, limits, strides, strict=True))
    it = f"tensor<{rank}xi64>"
    return Program("real_dynamic_slice", function([(shape, element)], ttype(out, element), [
        _const("%b", starts), _const("%e", limits), _const("%k", strides),
        f'%r = "stablehlo.real_dynamic_slice"(%a0, %b, %e, %k) : ({t}, {it}, {it}, {it}) -> '
        f'{ttype(out, element)}']), [x], element, None)


def get_dimension_size(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    shape = shape or (0,)
    dim = draw(st.integers(0, len(shape) - 1))
    x = draw_array(draw, st, shape, element)
    t = ttype(shape, element)
    text = function([(shape, element)], "tensor<i32>", [
        f'%r = "stablehlo.get_dimension_size"(%a0) {{dimension = {dim} : i64}} : ({t}) -> '
        'tensor<i32>'])
    return Program("get_dimension_size", text, [x], element, None)


def sort_pairs(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    """Keys and an iota payload, stable: the payload is the stable argsort."""
    if element in COMPLEX:
        element = "f32"
    shape = shape or (4,)
    dim = draw(st.integers(0, len(shape) - 1))
    direction = draw(st.sampled_from(["LT", "GT"]))
    x = draw_array(draw, st, shape, element)
    if is_float(element):  # NaN is unordered under LT/GT: the spec leaves the order open
        x = np.where(np.isnan(x.astype(np.float64)), x.dtype.type(0), x)
    idx = np.broadcast_to(np.arange(shape[dim], dtype=np.int32).reshape(
        [-1 if i == dim else 1 for i in range(len(shape))]), shape).copy()
    kind = "FLOAT" if is_float(element) else ("UNSIGNED" if element.startswith("u")
                                              or element == "i1" else "SIGNED")
    s, t, it = ttype((), element), ttype(shape, element), ttype(shape, "i32")
    text = function([(shape, element), (shape, "i32")], it, [
        '%k, %r = "stablehlo.sort"(%a0, %a1) ({',
        f'^bb0(%x: {s}, %y: {s}, %i: tensor<i32>, %j: tensor<i32>):',
        f'  %c = "stablehlo.compare"(%x, %y) {{comparison_direction = '
        f'#stablehlo<comparison_direction {direction}>, compare_type = '
        f'#stablehlo<comparison_type {kind}>}} : ({s}, {s}) -> tensor<i1>',
        '  "stablehlo.return"(%c) : (tensor<i1>) -> ()',
        f'}}) {{dimension = {dim} : i64, is_stable = true}} : ({t}, {it}) -> ({t}, {it})'])
    return Program("sort_pairs", text, [x, idx], element, None)


def tuple_barrier(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    x = draw_array(draw, st, shape, element)
    y = draw_array(draw, st, shape, element)
    t = ttype(shape, element)
    text = function([(shape, element)] * 2, t, [
        f'%b:2 = "stablehlo.optimization_barrier"(%a0, %a1) : ({t}, {t}) -> ({t}, {t})',
        f'%p = "stablehlo.tuple"(%b#1, %b#0) : ({t}, {t}) -> tuple<{t}, {t}>',
        f'%r = "stablehlo.get_tuple_element"(%p) {{index = 0 : i32}} : (tuple<{t}, {t}>) -> {t}'])
    return Program("tuple_barrier", text, [x, y], element, None)


CHLO_UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan",
              "lgamma", "digamma", "erf", "erfc", "erf_inv", "bessel_i1e", "is_inf",
              "is_neg_inf", "is_pos_inf", "square", "conj"]
REAL_ONLY = {"lgamma", "digamma", "erf", "erfc", "erf_inv", "bessel_i1e", "is_inf",
             "is_neg_inf", "is_pos_inf"}


def chlo_unary(op: str) -> Gen:
    def gen(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
        return _chlo_unary(draw, st, shape, element, op)
    return gen


def _chlo_unary(draw: Any, st: Any, shape: tuple[int, ...], element: str, op: str) -> Program:
    if op == "conj" or (element in COMPLEX and op not in REAL_ONLY):
        element = element if element in COMPLEX else "complex<f32>"
    elif element not in FLOATS:
        element = draw(st.sampled_from(FLOATS))
    out = "i1" if op.startswith("is_") else element
    x = draw_array(draw, st, shape, element)
    t, r = ttype(shape, element), ttype(shape, out)
    text = function([(shape, element)], r, [f'%r = "chlo.{op}"(%a0) : ({t}) -> {r}'])
    return Program(f"chlo_{op}", text, [x], element, None)


def top_k(draw: Any, st: Any, shape: tuple[int, ...], element: str) -> Program:
    if element in COMPLEX or element == "i1":
        element = "f32"
    shape = shape or (4,)
    k = draw(st.integers(0, shape[-1]))
    x = draw_array(draw, st, shape, element)
    if is_float(element):
        x = np.where(np.isnan(x.astype(np.float64)), x.dtype.type(0), x)
    out = shape[:-1] + (k,)
    t, r, ri = ttype(shape, element), ttype(out, element), ttype(out, "i32")
    text = function([(shape, element)], r, [
        f'%r, %i = "chlo.top_k"(%a0) {{k = {k} : i64}} : ({t}) -> ({r}, {ri})'])
    return Program("chlo_top_k", text, [x], element, None)


GENERATORS2: dict[str, Gen] = {
    "select_and_scatter": select_and_scatter, "map": map_op,
    "dynamic_shape_ops": dynamic_shape_ops, "get_dimension_size": get_dimension_size,
    "sort_pairs": sort_pairs, "tuple_barrier": tuple_barrier, "chlo_top_k": top_k,
    **{f"chlo_{op}": chlo_unary(op) for op in CHLO_UNARY},
}
