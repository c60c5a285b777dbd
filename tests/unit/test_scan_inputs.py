"""A scan's per-step input work batched before its loop (interpreter/scan_inputs.py): the
same results as the step-by-step evaluation, bit for bit (NaN, -0.0, infinities, indices the
slice clamps, shallow and BLAS dots, weights read transposed, the sequence along another
axis, a reversed scan, f64), loops that run no step or fewer steps than the sequence has,
and no batching where the index is not counted by the loop."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter import engine, licm
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def _scan(t: int, f: int, h: int, *, axis: int = 0, reverse: bool = False,
          transposed: bool = False, dtype: str = "f32", counted: bool = True) -> str:
    """A tanh RNN over `t` steps of `f` features (`n` steps run) with an elementwise scale
    of the input, in the chosen layout."""
    xs = f"{t}x1x{f}" if axis == 0 else f"1x{t}x{f}"
    w = f"{h}x{f}" if transposed else f"{f}x{h}"
    w_dims = "[1] x [1]" if transposed else "[1] x [0]"
    starts = "%idx, %z, %z" if axis == 0 else "%z, %idx, %z"
    index = (f"%last = stablehlo.constant dense<{t - 1}> : tensor<i32>\n"
             "    %idx = stablehlo.subtract %last, %i : tensor<i32>") if reverse else \
        "%idx = stablehlo.add %i, %z : tensor<i32>"
    step = "%one = stablehlo.constant dense<1> : tensor<i32>\n    %j = stablehlo.add %i, %one : tensor<i32>" \
        if counted else "%j = stablehlo.multiply %i, %i : tensor<i32>"
    e = dtype
    return f"""
func.func @main(%xs: tensor<{xs}x{e}>, %w: tensor<{w}x{e}>, %u: tensor<{h}x{h}x{e}>, %b: tensor<1x{h}x{e}>, %s: tensor<1x{f}x{e}>, %n: tensor<i32>, %i0: tensor<i32>) -> tensor<1x{h}x{e}> {{
  %h0 = stablehlo.constant dense<0.0> : tensor<1x{h}x{e}>
  %r:7 = stablehlo.while(%i = %i0, %hh = %h0, %x = %xs, %ww = %w, %uu = %u, %bb = %b, %ss = %s) : tensor<i32>, tensor<1x{h}x{e}>, tensor<{xs}x{e}>, tensor<{w}x{e}>, tensor<{h}x{h}x{e}>, tensor<1x{h}x{e}>, tensor<1x{f}x{e}>
  cond {{
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %z = stablehlo.constant dense<0> : tensor<i32>
    {index}
    %row = stablehlo.dynamic_slice %x, {starts}, sizes = [1, 1, {f}] : (tensor<{xs}x{e}>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x{f}x{e}>
    %v = stablehlo.reshape %row : (tensor<1x1x{f}x{e}>) -> tensor<1x{f}x{e}>
    %sc = stablehlo.multiply %v, %ss : tensor<1x{f}x{e}>
    %p = stablehlo.dot_general %sc, %ww, contracting_dims = {w_dims} : (tensor<1x{f}x{e}>, tensor<{w}x{e}>) -> tensor<1x{h}x{e}>
    %q = stablehlo.dot_general %hh, %uu, contracting_dims = [1] x [0] : (tensor<1x{h}x{e}>, tensor<{h}x{h}x{e}>) -> tensor<1x{h}x{e}>
    %a = stablehlo.add %p, %q : tensor<1x{h}x{e}>
    %a2 = stablehlo.add %a, %bb : tensor<1x{h}x{e}>
    %hn = stablehlo.tanh %a2 : tensor<1x{h}x{e}>
    {step}
    stablehlo.return %j, %hn, %x, %ww, %uu, %bb, %ss : tensor<i32>, tensor<1x{h}x{e}>, tensor<{xs}x{e}>, tensor<{w}x{e}>, tensor<{h}x{h}x{e}>, tensor<1x{h}x{e}>, tensor<1x{f}x{e}>
  }}
  return %r#1 : tensor<1x{h}x{e}>
}}
"""


def _inputs(t: int, f: int, h: int, steps: int, seed: int, *, axis: int = 0,
            transposed: bool = False, dtype: type = np.float32, start: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((t, 1, f) if axis == 0 else (1, t, f)).astype(dtype)
    flat = xs.reshape(-1)
    flat[rng.integers(0, flat.size, 3)] = [np.nan, -0.0, np.inf]
    w = (rng.standard_normal((h, f) if transposed else (f, h)) / f).astype(dtype)
    w.reshape(-1)[0] = -0.0
    u = (rng.standard_normal((h, h)) / h).astype(dtype)
    return [xs, w, u, rng.standard_normal((1, h)).astype(dtype),
            rng.standard_normal((1, f)).astype(dtype), np.array(steps, np.int32),
            np.array(start, np.int32)]


def _run(text: str, args: list[np.ndarray], batched: bool, compiled: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, list[str]]:
    with monkeypatch.context() as m:
        if not batched:
            m.setattr(licm, "batch_scan_inputs", lambda *a, **k: None)
        if not compiled:
            m.setattr(engine, "_compilable_loop", lambda op: False)
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            out = [interpreter.call(main, list(args)) for _ in range(2)][-1]
    names = [step.op.name for plan in interpreter._plans.values() for step in plan.steps]
    return np.asarray(out[0]), names


def _same(text: str, args: list[np.ndarray], compiled: bool,
          monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    got, names = _run(text, args, True, compiled, monkeypatch)
    want, plain = _run(text, args, False, compiled, monkeypatch)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    return names, plain


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("f,h", [(4, 3), (8, 32), (16, 32), (9, 2), (24, 64)])
@pytest.mark.parametrize("transposed", [False, True])
def test_batched_input_projection(f: int, h: int, transposed: bool, compiled: bool,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Shallow (f <= 8) and BLAS dots, the weight read in place or transposed: one dot
    product per step fewer, the same bits."""
    t = 12
    args = _inputs(t, f, h, t, f * h, transposed=transposed)
    names, plain = _same(_scan(t, f, h, transposed=transposed), args, compiled, monkeypatch)
    assert plain.count("stablehlo.dot_general") - names.count("stablehlo.dot_general") == 1
    assert "stablehlo.multiply" not in names


@pytest.mark.parametrize("steps,start", [(0, 0), (1, 0), (5, 0), (12, 3), (20, 0), (14, -2)])
@pytest.mark.parametrize("reverse", [False, True])
def test_steps_other_than_the_sequence(steps: int, start: int, reverse: bool,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Fewer steps than rows, none, more (the slice clamps its index), a negative start."""
    t = 12
    args = _inputs(t, 8, 16, steps, steps, start=start)
    _same(_scan(t, 8, 16, reverse=reverse), args, True, monkeypatch)
    args = _inputs(t, 16, 16, steps, steps + 1, start=start)
    _same(_scan(t, 16, 16, reverse=reverse), args, True, monkeypatch)


@pytest.mark.parametrize("f", [4, 16])
def test_sequence_along_another_axis_and_f64(f: int, monkeypatch: pytest.MonkeyPatch) -> None:
    t = 7
    args = _inputs(t, f, 5, t, 3, axis=1)
    names, plain = _same(_scan(t, f, 5, axis=1), args, True, monkeypatch)
    assert names.count("stablehlo.dot_general") < plain.count("stablehlo.dot_general")
    args = _inputs(t, f, 5, t, 4, dtype=np.float64)
    names, plain = _same(_scan(t, f, 5, dtype="f64"), args, True, monkeypatch)
    assert names.count("stablehlo.dot_general") < plain.count("stablehlo.dot_general")


def test_index_not_counted_by_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """An index the loop squares (not a counter): the steps may read a few rows of many, so
    nothing is batched."""
    args = _inputs(12, 8, 4, 100, 5, start=2)  # steps i = 2, 4, 16
    names, plain = _same(_scan(12, 8, 4, counted=False), args, True, monkeypatch)
    assert names == plain


def test_models_keep_their_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark's jax-exported recurrent models, batched and not."""
    import os
    import sys
    here = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "models")
    sys.path.insert(0, here)
    try:
        import defs  # type: ignore[import-not-found]
    finally:
        sys.path.remove(here)
    # (each with one op fewer per step: an input projection; the scalar RNN's u * x[i])
    fewer = {"simple_rnn": "stablehlo.dot_general", "gru": "stablehlo.dot_general",
             "bilstm": "stablehlo.dot_general", "rnn_scalar": "stablehlo.multiply"}
    for name, op in fewer.items():
        with open(os.path.join(here, f"{name}.mlir"), encoding="utf-8") as f:
            text = f.read()
        args = defs.inputs(name)
        got, names = _run(text, args, True, True, monkeypatch)
        want, plain = _run(text, args, False, True, monkeypatch)
        assert got.tobytes() == want.tobytes(), name
        assert names.count(op) < plain.count(op), name


def _vector_scan(t: int, f: int, h: int, batch: int, weight_first: bool = False) -> str:
    """A scan over (t, batch, f) inputs or, with batch 0, (t, f): each step's rows have no
    unit axis. `weight_first` (batch 0): W @ x with W of shape (h, f)."""
    xs, x = (f"{t}x{batch}x{f}", f"{batch}x{f}") if batch else (f"{t}x{f}", f"{f}")
    sizes, starts = ((f"[1, {batch}, {f}]", "%i, %z, %z") if batch else (f"[1, {f}]", "%i, %z"))
    hs = f"{batch}x{h}" if batch else f"{h}"
    lc = "[1]" if batch else "[0]"
    product = (f"%p = stablehlo.dot_general %e, %ww, contracting_dims = {lc} x [0] : (tensor<{x}xf32>, tensor<{f}x{h}xf32>) -> tensor<{hs}xf32>"
               if not weight_first else
               f"%wt = stablehlo.transpose %ww, dims = [1, 0] : (tensor<{f}x{h}xf32>) -> tensor<{h}x{f}xf32>\n    "
               f"%p = stablehlo.dot_general %wt, %e, contracting_dims = [1] x [0] : (tensor<{h}x{f}xf32>, tensor<{f}xf32>) -> tensor<{h}xf32>")
    return f"""
func.func @main(%xs: tensor<{xs}xf32>, %w: tensor<{f}x{h}xf32>, %u: tensor<{h}x{h}xf32>, %n: tensor<i32>) -> tensor<{hs}xf32> {{
  %h0 = stablehlo.constant dense<0.0> : tensor<{hs}xf32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:5 = stablehlo.while(%i = %c0, %hh = %h0, %x = %xs, %ww = %w, %uu = %u) : tensor<i32>, tensor<{hs}xf32>, tensor<{xs}xf32>, tensor<{f}x{h}xf32>, tensor<{h}x{h}xf32>
  cond {{
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %x, {starts}, sizes = {sizes} : (tensor<{xs}xf32>, {', '.join(['tensor<i32>'] * (3 if batch else 2))}) -> tensor<1x{x}xf32>
    %v = stablehlo.reshape %row : (tensor<1x{x}xf32>) -> tensor<{x}xf32>
    %e = stablehlo.exponential %v : tensor<{x}xf32>
    {product}
    %q = stablehlo.dot_general %hh, %uu, contracting_dims = {lc} x [0] : (tensor<{hs}xf32>, tensor<{h}x{h}xf32>) -> tensor<{hs}xf32>
    %a = stablehlo.add %p, %q : tensor<{hs}xf32>
    %hn = stablehlo.tanh %a : tensor<{hs}xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %hn, %x, %ww, %uu : tensor<i32>, tensor<{hs}xf32>, tensor<{xs}xf32>, tensor<{f}x{h}xf32>, tensor<{h}x{h}xf32>
  }}
  return %r#1 : tensor<{hs}xf32>
}}
"""


@pytest.mark.parametrize("f,h,batch", [(4, 3, 0), (16, 8, 0), (6, 5, 4), (12, 16, 3),
                                       (24, 40, 4), (12, 256, 4)])
def test_steps_without_a_unit_axis(f: int, h: int, batch: int,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A step's input of shape (f,) or (batch, f): the stacks add their own axis. Several
    rows per step (batch > 1) make the dot a BLAS product of several rows (gemm): one
    matmul of the stacks makes the same call per step."""
    t = 9
    rng = np.random.default_rng(f + h + batch)
    xs = rng.standard_normal((t, batch, f) if batch else (t, f)).astype(np.float32)
    xs.reshape(-1)[:3] = [np.nan, -0.0, 90.0]  # exp(90) overflows f32
    args = [xs, (rng.standard_normal((f, h)) / f).astype(np.float32),
            (rng.standard_normal((h, h)) / h).astype(np.float32), np.array(t, np.int32)]
    names, plain = _same(_vector_scan(t, f, h, batch), args, True, monkeypatch)
    assert "stablehlo.exponential" not in names
    assert plain.count("stablehlo.dot_general") - names.count("stablehlo.dot_general") == 1


@pytest.mark.parametrize("f,h", [(4, 3), (8, 16), (16, 8), (40, 24)])
def test_weight_times_step(f: int, h: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """W @ x_t (the weight read transposed, a Fortran-ordered view): the stacked x is the
    rhs, its sequence axis moved first; the same bits."""
    t = 9
    rng = np.random.default_rng(f * h)
    xs = rng.standard_normal((t, f)).astype(np.float32)
    xs.reshape(-1)[:3] = [np.nan, -0.0, 90.0]
    args = [xs, (rng.standard_normal((f, h)) / f).astype(np.float32),
            (rng.standard_normal((h, h)) / h).astype(np.float32), np.array(t, np.int32)]
    names, plain = _same(_vector_scan(t, f, h, 0, weight_first=True), args, True, monkeypatch)
    assert plain.count("stablehlo.dot_general") - names.count("stablehlo.dot_general") == 1


def _masked_scan(t: int, h: int, reverse: bool) -> str:
    """A Keras masked RNN step: the step's (1, 1) mask row `not`ed and reduced with `and`,
    broadcast to the state, picking the old state where the token is padding; integer
    tokens summed with a wrapping add and compared, and a float comparison (NaN in the
    inputs), feed the mask too."""
    index = (f"%last = stablehlo.constant dense<{t - 1}> : tensor<i32>\n"
             "    %idx = stablehlo.subtract %last, %i : tensor<i32>") if reverse else \
        "%idx = stablehlo.add %i, %z : tensor<i32>"
    return f"""
func.func @main(%m: tensor<{t}x1x1xi1>, %tok: tensor<{t}x1x3xi32>, %xs: tensor<{t}x1x{h}xf32>, %h0: tensor<1x{h}xf32>, %n: tensor<i32>) -> tensor<1x{h}xf32> {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:5 = stablehlo.while(%i = %c0, %hh = %h0, %mm = %m, %tt = %tok, %x = %xs) : tensor<i32>, tensor<1x{h}xf32>, tensor<{t}x1x1xi1>, tensor<{t}x1x3xi32>, tensor<{t}x1x{h}xf32>
  cond {{
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %z = stablehlo.constant dense<0> : tensor<i32>
    {index}
    %mr = stablehlo.dynamic_slice %mm, %idx, %z, %z, sizes = [1, 1, 1] : (tensor<{t}x1x1xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x1xi1>
    %mask = stablehlo.reshape %mr : (tensor<1x1x1xi1>) -> tensor<1x1xi1>
    %pad = stablehlo.not %mask : tensor<1x1xi1>
    %t1 = stablehlo.constant dense<true> : tensor<i1>
    %allpad = stablehlo.reduce(%pad init: %t1) applies stablehlo.and across dimensions = [1] : (tensor<1x1xi1>, tensor<i1>) -> tensor<1xi1>
    %tr = stablehlo.dynamic_slice %tt, %idx, %z, %z, sizes = [1, 1, 3] : (tensor<{t}x1x3xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x3xi32>
    %zi = stablehlo.constant dense<0> : tensor<i32>
    %sum = stablehlo.reduce(%tr init: %zi) applies stablehlo.add across dimensions = [2] : (tensor<1x1x3xi32>, tensor<i32>) -> tensor<1x1xi32>
    %lim = stablehlo.constant dense<0> : tensor<1x1xi32>
    %neg = stablehlo.compare LT, %sum, %lim, SIGNED : (tensor<1x1xi32>, tensor<1x1xi32>) -> tensor<1x1xi1>
    %negr = stablehlo.reshape %neg : (tensor<1x1xi1>) -> tensor<1xi1>
    %skip = stablehlo.xor %allpad, %negr : tensor<1xi1>
    %b1 = stablehlo.broadcast_in_dim %skip, dims = [0] : (tensor<1xi1>) -> tensor<1x1xi1>
    %keep = stablehlo.broadcast_in_dim %b1, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<1x{h}xi1>
    %xr = stablehlo.dynamic_slice %x, %idx, %z, %z, sizes = [1, 1, {h}] : (tensor<{t}x1x{h}xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x{h}xf32>
    %xv = stablehlo.reshape %xr : (tensor<1x1x{h}xf32>) -> tensor<1x{h}xf32>
    %zf = stablehlo.constant dense<0.0> : tensor<1x{h}xf32>
    %pos = stablehlo.compare GT, %xv, %zf, FLOAT : (tensor<1x{h}xf32>, tensor<1x{h}xf32>) -> tensor<1x{h}xi1>
    %s = stablehlo.add %hh, %xv : tensor<1x{h}xf32>
    %new = stablehlo.tanh %s : tensor<1x{h}xf32>
    %newer = stablehlo.select %pos, %new, %s : tensor<1x{h}xi1>, tensor<1x{h}xf32>
    %hn = stablehlo.select %keep, %hh, %newer : tensor<1x{h}xi1>, tensor<1x{h}xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %hn, %mm, %tt, %x : tensor<i32>, tensor<1x{h}xf32>, tensor<{t}x1x1xi1>, tensor<{t}x1x3xi32>, tensor<{t}x1x{h}xf32>
  }}
  return %r#1 : tensor<1x{h}xf32>
}}
"""


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("t,h,n", [(6, 4, 6), (9, 32, 9), (5, 3, 8), (4, 2, 0)])
def test_masked_scan_batches_its_mask(t: int, h: int, n: int, reverse: bool,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The mask chain (not, and-reduce, a wrapping integer sum and its comparison, xor,
    broadcasts, a float comparison) runs on the whole sequence: the body reads one
    (1, h) mask row per step, with the unbatched results bit for bit."""
    rng = np.random.default_rng(t * 10 + h + int(reverse))
    mask = rng.random((t, 1, 1)) < 0.6
    tokens = rng.integers(-2**31, 2**31 - 1, (t, 1, 3), dtype=np.int64).astype(np.int32)
    xs = rng.standard_normal((t, 1, h)).astype(np.float32)
    xs.reshape(-1)[rng.choice(t * h, max(1, t * h // 4), replace=False)] = np.nan
    xs.reshape(-1)[0] = -0.0
    args = [mask, tokens, xs, rng.standard_normal((1, h)).astype(np.float32),
            np.array(n, np.int32)]
    names, plain = _same(_masked_scan(t, h, reverse), args, True, monkeypatch)
    assert names.count("stablehlo.reduce") < plain.count("stablehlo.reduce")
    assert names.count("stablehlo.not") < plain.count("stablehlo.not")


def _scalar_scan(t: int, e: str, reverse: bool) -> str:
    """A scalar RNN: each step's 0-d input scaled, exponentiated and divided by loop
    invariants (all batched: the loop reads the result from a list), then the recurrence."""
    index = (f"%last = stablehlo.constant dense<{t - 1}> : tensor<i32>\n"
             "    %idx = stablehlo.subtract %last, %i : tensor<i32>") if reverse else \
        "%z = stablehlo.constant dense<0> : tensor<i32>\n    %idx = stablehlo.add %i, %z : tensor<i32>"
    return f"""
func.func @main(%xs: tensor<{t}x{e}>, %u: tensor<{e}>, %h0: tensor<{e}>, %n: tensor<i32>) -> tensor<{e}> {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %x = %xs) : tensor<i32>, tensor<{e}>, tensor<{t}x{e}>
  cond {{
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    {index}
    %e1 = stablehlo.dynamic_slice %x, %idx, sizes = [1] : (tensor<{t}x{e}>, tensor<i32>) -> tensor<1x{e}>
    %v = stablehlo.reshape %e1 : (tensor<1x{e}>) -> tensor<{e}>
    %a = stablehlo.multiply %v, %u : tensor<{e}>
    %b = stablehlo.exponential %a : tensor<{e}>
    %c = stablehlo.divide %b, %u : tensor<{e}>
    %s = stablehlo.add %h, %c : tensor<{e}>
    %hn = stablehlo.tanh %s : tensor<{e}>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %hn, %x : tensor<i32>, tensor<{e}>, tensor<{t}x{e}>
  }}
  return %r#1 : tensor<{e}>
}}
"""


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("e,dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("t,n", [(12, 12), (7, 3), (5, 9), (4, 0)])
def test_scalar_scan_inputs_are_batched(t: int, n: int, e: str, dtype: type, reverse: bool,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """0-d per-step values (a scalar RNN's u * x[i]) are batched too: the scalar loop reads
    them from a list, with the step-by-step bits (NaN, -0.0, infinities, subnormals,
    overflowing exponentials, a zero divisor)."""
    rng = np.random.default_rng(t * 7 + n + int(reverse))
    xs = (rng.standard_normal(t) * 40).astype(dtype)
    edge = np.array([np.nan, -0.0, np.inf, -np.inf, np.finfo(dtype).tiny / 3, 1e30], dtype)
    xs[: min(t, len(edge))] = edge[: min(t, len(edge))]
    for u in (0.75, -0.0, 3.0):
        args = [xs, np.array(u, dtype), np.array(0.25, dtype), np.array(n, np.int32)]
        names, plain = _same(_scalar_scan(t, e, reverse), args, True, monkeypatch)
        assert names.count("stablehlo.exponential") < plain.count("stablehlo.exponential")
