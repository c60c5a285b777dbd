"""scalar_writes.py: a loop's per-step output element written from a Python scalar (the
update kernel's `write_element`: dynamic_update_slice or scatter), against the general
evaluator bit for bit: floats at the edges (NaN, a signalling NaN, the infinities, -0.0,
subnormals, values that round), integers at their type's edges, bools; start indices that
clamp or leave the vector; a stack that something else still holds (written into a
copy)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.dialects.stablehlo import specialize_dynamic_slice

# Each step computes %h2 from the carried %h and the element %x of %xs (a Python scalar
# computed in the loop) and writes it (or %w) to %ys at %i + %shift: made a one-element
# vector by {maker}, the {update} (a dynamic_update_slice clamps its start), or a scatter.
SCAN = """
func.func @main(%xs: tensor<8x{t}>, %h0: tensor<{t}>, %ys0: tensor<8x{t}>, %shift: tensor<i32>) -> (tensor<{t}>, tensor<8x{t}>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %ys = %ys0) : tensor<i32>, tensor<{t}>, tensor<8x{t}>
    cond {{
      %c8 = stablehlo.constant dense<8> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<8x{t}>, tensor<i32>) -> tensor<1x{t}>
      %x = stablehlo.reshape %x0 : (tensor<1x{t}>) -> tensor<{t}>
      {step}
      {maker}      %at = stablehlo.add %i, %shift : tensor<i32>
      {update}
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %ys2 : tensor<i32>, tensor<{t}>, tensor<8x{t}>
    }}
  return %r#1, %r#2 : tensor<{t}>, tensor<8x{t}>
}}
"""
STEPS = {"f32": "%h2 = stablehlo.multiply %h, %x : tensor<f32>",
         "f64": "%h2 = stablehlo.add %h, %x : tensor<f64>",
         "i32": "%h2 = stablehlo.multiply %h, %x : tensor<i32>",
         "ui8": "%h2 = stablehlo.add %h, %x : tensor<ui8>",
         "i1": "%h2 = stablehlo.xor %h, %x : tensor<i1>",
         # a select passing on the element or the carried value as they came in (a
         # signalling NaN's bit, lost converting to a Python float: not written from one)
         "f32 select": "%p = stablehlo.compare GT, %x, %h, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n      %w = stablehlo.select %p, %x, %h : tensor<i1>, tensor<f32>\n      %h2 = stablehlo.add %h, %x : tensor<f32>"}
DTYPES = {"f32": np.float32, "f32 select": np.float32, "f64": np.float64, "i32": np.int32, "ui8": np.uint8, "i1": np.bool_}
UPDATE = "%ys2 = stablehlo.dynamic_update_slice %ys, %b, %at : (tensor<8x{t}>, tensor<1x{t}>, tensor<i32>) -> tensor<8x{t}>"
# a fori_loop's ys.at[t].set(h): a scatter at a one-element index vector (out of bounds:
# no update)
SCATTER = """%iv = stablehlo.broadcast_in_dim %at, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %ys2 = "stablehlo.scatter"(%ys, %iv, {w}) <{{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}}> ({{
      ^bb0(%o: tensor<{t}>, %n: tensor<{t}>):
        stablehlo.return %n : tensor<{t}>
      }}) : (tensor<8x{t}>, tensor<1xi32>, tensor<{t}>) -> tensor<8x{t}>"""
MAKERS = {"broadcast": "%b = stablehlo.broadcast_in_dim {w}, dims = [] : (tensor<{t}>) -> tensor<1x{t}>\n      ",
          "reshape": "%b = stablehlo.reshape {w} : (tensor<{t}>) -> tensor<1x{t}>\n      ",
          "scatter": ""}


def _values(t: str, rng: np.random.Generator) -> np.ndarray:
    dtype = np.dtype(DTYPES[t])
    if t == "i1":
        return rng.integers(0, 2, 8).astype(bool)
    if dtype.kind == "f":
        edges = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-40, 2.2e-308, 0.1,
                 1.5, -3.0, 3.4e38, 1e300, 1.0000001, 7.0]
        with np.errstate(over="ignore"):
            out = np.array([edges[int(k)] for k in rng.integers(len(edges), size=9)]
                           ).astype(dtype)
        signalling = np.array(0x7FA00001 if dtype == np.float32 else 0x7FF4000000000001,
                              np.uint32 if dtype == np.float32 else np.uint64).view(dtype)
        out[out == 7.0] = signalling  # (a signalling NaN among them)
        return out[:8]
    info = np.iinfo(dtype)
    edges = [info.min, -1, 0, 1, 2, 3, 255, 65537, info.max]
    return np.array([int(np.clip(edges[int(k)], info.min, info.max))
                     for k in rng.integers(len(edges), size=8)], dtype)


@pytest.mark.parametrize("maker", list(MAKERS))
@pytest.mark.parametrize("t", list(STEPS))
def test_written_elements(t: str, maker: str, monkeypatch: pytest.MonkeyPatch) -> None:
    e, w = t.split()[0], "%w" if t == "f32 select" else "%h2"
    text = SCAN.format(t=e, step=STEPS[t], maker=MAKERS[maker].format(t=e, w=w),
                       update=(SCATTER if maker == "scatter" else UPDATE).format(t=e, w=w))
    source = ""
    for seed in range(8):
        rng = np.random.default_rng(seed)
        for shift in (0, -3, 2):
            args = [_values(t, rng), _values(t, rng)[0][()], _values(t, rng),
                    np.array(shift, np.int32)]
            inputs = [np.array(a, copy=True) for a in args]
            got, sources = run_loops(text, args, True, monkeypatch)
            for a, b in zip(args, inputs, strict=True):  # (the caller's stack is not written)
                assert np.asarray(a).tobytes() == b.tobytes()
            want, _ = run_loops(text, args, False, monkeypatch)
            source = "".join(sources)
            for x, y in zip(got, want, strict=True):
                x, y = np.asarray(x), np.asarray(y)
                assert x.dtype == y.dtype and x.shape == y.shape, (t, seed, shift)
                assert x.tobytes() == y.tobytes(), (t, seed, shift, x, y)
    # the update takes the Python scalar: no one-element array is made per step
    body = source[source.index("while True"):]
    assert ("_N" in body.split("return")[0]) == (t == "f32 select"), body
    if t != "f32 select":  # (assigned through the vector's item view)
        assert "a2_m = _VIEW(a2)" in source and "a2_m[" in body


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int16", "int32", "int64",
                                   "uint8", "uint16", "uint32", "uint64", "bool"])
def test_item_view_assigns_as_numpy_does(dtype: str) -> None:
    """An owned vector's item view (scalar_writes.item_view) stores a Python scalar as
    numpy's item assignment does: floats (NaNs of every sign and payload, infinities,
    -0.0, subnormals, doubles that round) through the same C cast, ints and bools."""
    from shlo_cli.interpreter.scalar_writes import item_view

    rng = np.random.default_rng(len(dtype))
    dt = np.dtype(dtype)
    if dt.kind == "f":
        bits = rng.integers(0, 2**64, 200, dtype=np.uint64)
        values = bits.view(np.float64).tolist() + [float(np.float32(np.nan)), -np.inf, -0.0,
                                                   1e-45, 3.5e38, 1e-310, 0.1]
        values += [float(v) for v in bits[:50].astype(np.uint32).view(np.float32)]
    elif dt.kind == "b":
        values = [True, False] * 10
    else:
        info = np.iinfo(dt)
        values = [int(v) for v in rng.integers(info.min, info.max, 200, dtype=dt,
                                               endpoint=True)] + [int(info.min), int(info.max)]
    want = np.zeros(len(values), dt)
    got = np.zeros(len(values), dt)
    view = item_view(got)
    assert isinstance(view, memoryview)
    with np.errstate(all="ignore"):
        for k, v in enumerate(values):
            want[k] = v
            view[k] = v
    assert got.tobytes() == want.tobytes()
    assert not isinstance(item_view(np.zeros(4, np.float16)), memoryview)  # (not held)


def test_write_element_falls_back_when_shared() -> None:
    """The kernel's own `write_element`: into the stack itself when only the caller's local
    holds it, into a copy (the stack unchanged) when something else does; start clamped."""
    kernel = specialize_dynamic_slice._dynamic_update_slice((4,), (1,), lambda *a: None)
    write = kernel.in_place.write_element  # type: ignore[attr-defined]
    shared = np.zeros(4, np.float32)
    keep = shared
    out = write(shared, float(np.float32(0.1)), 9)
    assert out is not keep and keep.tolist() == [0.0] * 4
    assert out.tobytes() == np.array([0, 0, 0, np.float32(0.1)], np.float32).tobytes()

    def alone() -> np.ndarray:
        ys = np.zeros(4, np.float32)
        ys = write(ys, -0.0, -2)
        return ys
    got = alone()
    assert got.tobytes() == np.array([-0.0, 0, 0, 0], np.float32).tobytes()
