"""Layout tests decided while generating code (interpreter/layouts.py): a slice of a
C-contiguous value is its view or the kernel's copy as the static shapes say, a splat's
0-d operand goes to a C-contiguous value untested, a sigmoid's guess is written out, and
a ufunc's result goes into the buffer of a temporary that dies there only when nothing
else reads that buffer. The generated loop's bits are the evaluator's and those of the
same loop without the facts, on inputs with NaNs, signed zeros, infinities, subnormals."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import itertools
import re
from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops
from test_speculate import _inputs

from shlo_cli.dialects import libm, libm_f32
from shlo_cli.interpreter import codegen, layouts, sigmoid


def _scan(steps: int, row: str, state: str, carried: list[tuple[str, str, str]],
          body: str) -> str:
    """main(%xs: steps x `row`, %h0: `state`) -> the carried values: a loop over the rows
    %x of xs whose `body` lines define each carried (name, type, next value) value's next
    one (%h starts as %h0, the others as zeros)."""
    types = [t for _, t, _ in carried]
    inits = "".join(f"  %{n}0 = stablehlo.constant dense<0.0> : {t}\n"
                    for n, t, _ in carried if n != "h")
    pairs = ", ".join(f"%{n} = %{n}0" for n, _, _ in carried)
    joined = ", ".join(types)
    sizes = row.replace("x", ", ")
    return f"""
func.func @main(%xs: tensor<{steps}x{row}xf32>, %h0: {state}) -> ({joined}) {{
  %i0 = stablehlo.constant dense<0> : tensor<i32>
{inits}  %r:{len(carried) + 1} = stablehlo.while(%i = %i0, {pairs}) : tensor<i32>, {joined}
  cond {{
    %n = stablehlo.constant dense<{steps}> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }} do {{
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %xs, %i, %z, %z, sizes = [1, {sizes}] : (tensor<{steps}x{row}xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x{row}xf32>
    %x = stablehlo.reshape %row : (tensor<1x{row}xf32>) -> tensor<{row}xf32>
{body}    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, {", ".join(v for _, _, v in carried)} : tensor<i32>, {joined}
  }}
  return {", ".join(f"%r#{k + 1}" for k in range(len(carried)))} : {joined}
}}
"""


# A GRU-like cell on a 1x4 state: a 1x12 temporary %t read by three slices and then, for
# the last time, by a multiply (its buffer is the slices' memory: not reusable); %v,
# returned, read last by an add (not reusable: kept); a sigmoid of a slice; 1 - z (a
# splat) read twice (reusable at its second read only); dying temporaries the next ufunc
# reuses; a tanh bounds the state. Every step's state is returned (a NaN input stays in
# its lane of the state: the specials come late, in two of the four lanes).
PROGRAM = _scan(150, "1x12", "tensor<1x4xf32>", [
    ("h", "tensor<1x4xf32>", "%hn"), ("last", "tensor<1x4xf32>", "%v"),
    ("ys", "tensor<150x1x4xf32>", "%ys2")], """    %hh = stablehlo.concatenate %h, %h, %h, dim = 1 : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x12xf32>
    %t = stablehlo.add %x, %hh : tensor<1x12xf32>
    %zp = stablehlo.slice %t [0:1, 0:4] : (tensor<1x12xf32>) -> tensor<1x4xf32>
    %rp = stablehlo.slice %t [0:1, 4:8] : (tensor<1x12xf32>) -> tensor<1x4xf32>
    %cp = stablehlo.slice %t [0:1, 8:12] : (tensor<1x12xf32>) -> tensor<1x4xf32>
    %u = stablehlo.multiply %t, %x : tensor<1x12xf32>
    %x4 = stablehlo.slice %x [0:1, 4:8] : (tensor<1x12xf32>) -> tensor<1x4xf32>
    %ut = stablehlo.slice %u [0:1, 4:8] : (tensor<1x12xf32>) -> tensor<1x4xf32>
    %us = stablehlo.slice %u [0:1, 8:12] : (tensor<1x12xf32>) -> tensor<1x4xf32>
    %v = stablehlo.multiply %h, %x4 : tensor<1x4xf32>
    %w = stablehlo.add %v, %h : tensor<1x4xf32>
    %m = stablehlo.negate %zp : tensor<1x4xf32>
    %e = stablehlo.exponential %m : tensor<1x4xf32>
    %one = stablehlo.constant dense<1.0> : tensor<1x4xf32>
    %s = stablehlo.add %one, %e : tensor<1x4xf32>
    %zg = stablehlo.divide %one, %s : tensor<1x4xf32>
    %om = stablehlo.subtract %one, %zg : tensor<1x4xf32>
    %a = stablehlo.multiply %om, %h : tensor<1x4xf32>
    %a2 = stablehlo.add %a, %om : tensor<1x4xf32>
    %c = stablehlo.tanh %cp : tensor<1x4xf32>
    %b = stablehlo.multiply %zg, %c : tensor<1x4xf32>
    %b2 = stablehlo.add %b, %rp : tensor<1x4xf32>
    %b3 = stablehlo.add %b2, %us : tensor<1x4xf32>
    %b4 = stablehlo.add %b3, %ut : tensor<1x4xf32>
    %b5 = stablehlo.add %b4, %w : tensor<1x4xf32>
    %hs = stablehlo.add %a2, %b5 : tensor<1x4xf32>
    %hn = stablehlo.tanh %hs : tensor<1x4xf32>
    %y = stablehlo.reshape %hn : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %y, %i, %z, %z : (tensor<150x1x4xf32>, tensor<1x1x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<150x1x4xf32>
""")



def _no_facts(*args: Any) -> None:
    return None


def _run(text: str, args: list[np.ndarray], monkeypatch: pytest.MonkeyPatch
         ) -> tuple[list[Any], str]:
    """The compiled program's results (second call) and every generated source (the
    speculating loop's too)."""
    sources: list[str] = []
    original = codegen.Source.compile

    def spy(self: codegen.Source, *a: Any, **k: Any) -> Any:
        sources.append("\n".join(self.src))
        return original(self, *a, **k)
    with monkeypatch.context() as m:
        m.setattr(codegen.Source, "compile", spy)
        got, _ = run_loops(text, args, True, m)
    return got, "\n".join(sources)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cell_is_the_evaluators_with_and_without_the_facts(seed: int,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    xs = _inputs(rng, (150, 1, 12), 0.0, (1e-3, 0.1, 1.0, 3.0))
    xs[3, 0, ::3], xs[9, 0, 1::3] = -0.0, 1e-42
    xs[141:145, 0, [0, 1, 4, 9]] = np.nan, np.inf, -np.inf, np.nan  # (state lanes 0 and 1)
    h0 = np.array([[0.5, -0.0, 1e-42, -2.0]], np.float32)
    args = [xs, h0]
    got, source = _run(PROGRAM, args, monkeypatch)
    want, _ = run_loops(PROGRAM, args, False, monkeypatch)
    monkeypatch.setattr(codegen, "Layouts", _no_facts)
    plain, plain_source = _run(PROGRAM, args, monkeypatch)
    for g, w, q in zip(got, want, plain, strict=True):
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes() == np.asarray(q).tobytes()
    assert "G.append" in source  # (a speculating loop)
    for test in ("(_f := ", ".flags.c_contiguous"):  # (a slice's, a splat's layout test)
        assert test not in source and test in plain_source
    assert re.search(r"_g = \w+\.astype\(_F64\); \w+N\(_g, _g\)", source)  # (the sigmoid)
    calls = [m.group(1).split(", ") for m in re.finditer(r"= \w+K\d+\(([\w, ]*)\)$", source, re.M)]
    reuses = [a for a in calls if len(a) == 3 and re.fullmatch(r"\w+v\d+", a[2]) and a[2] in a[:2]]
    assert len(reuses) >= 4  # (%a, %b, %b2, %a2 in each loop form)

@pytest.mark.parametrize("rank", [1, 2, 3, 4])
def test_window_keeps_contiguous_is_numpys_flag(rank: int) -> None:
    rng = np.random.default_rng(rank)
    for _ in range(400):
        shape = tuple(int(d) for d in rng.integers(1, 5, rank))
        window = []
        for d in shape:
            start = int(rng.integers(0, d))
            stop = int(rng.integers(start, d + 1))
            window.append(slice(start, stop, int(rng.integers(1, 3))))
        for source in (np.empty(shape, np.float32), _unit_strided(shape)):
            view = source[tuple(window)]
            assert layouts.window_keeps_contiguous(shape, window, view.shape) == view.flags.c_contiguous


def _unit_strided(shape: tuple[int, ...]) -> np.ndarray:
    """A C-contiguous array of `shape` whose unit dimensions have strides of their own."""
    x = np.empty(shape, np.float32)
    units = [d for d, n in enumerate(shape) if n == 1]
    if units:
        order = units + [d for d in range(len(shape)) if d not in units]
        x = np.empty([shape[d] for d in order], np.float32).transpose(np.argsort(order))
    assert x.flags.c_contiguous and x.shape == shape
    return x


def test_row_like() -> None:
    from shlo_cli.ir.parser import parse_source

    module = parse_source("""
func.func @main(%a: tensor<1x16xf32>, %b: tensor<16xf32>, %c: tensor<2x16xf32>, %d: tensor<f32>, %e: tensor<1x0xf32>, %f: tensor<1x1x1xf32>) -> tensor<f32> {
  return %d : tensor<f32>
}""")
    args = module.body.operations[0].regions[0].blocks[0].arguments
    assert [layouts.row_like(v) for v in args] == [True, True, False, False, False, True]


@pytest.mark.parametrize("add_at", [0, 1])
def test_written_sigmoid_is_the_speculative_kernels(add_at: int) -> None:
    """The written-out line's result and kept guess are `chained`'s, bit for bit."""
    exp = libm.native_kernel(libm.exp, np.dtype(np.float32))
    x = _inputs(np.random.default_rng(add_at), (1, 64), 0.2)
    ones = np.ones(x.shape, np.float32)
    ones.flags.writeable = False
    kernel = sigmoid.chain_kernel(exp, add_at, ones, ones).contiguous
    form = kernel.unquieted.speculative
    ns: dict[str, Any] = {"x": x}
    body = form.written("    ", "y", "x", "K", ns)
    exec(f"def f(G):\n{body}\n    return y\n", ns)  # noqa: S102
    kept: list[Any] = []
    want_kept: list[Any] = []
    with np.errstate(all="ignore"):
        got = ns["f"](kept)
        want = form(want_kept, x)
        assert got.tobytes() == want.tobytes() and got.strides == want.strides
        assert kernel(x).tobytes() == want.tobytes()
    for (redo, held, guess), (want_redo, want_held, want_guess) in itertools.zip_longest(
            kept, want_kept):
        assert held is x is want_held and guess.tobytes() == want_guess.tobytes()
        with np.errstate(all="ignore"):
            assert redo(x).tobytes() == want_redo(x).tobytes()
    assert libm_f32.all_sure(kept) == libm_f32.all_sure(want_kept)


WINDOWS = _scan(5, "2x6", "tensor<1x6xf32>", [
    ("h", "tensor<1x6xf32>", "%hn"), ("bl", "tensor<2x2xf32>", "%b"),
    ("cl", "tensor<1x3xf32>", "%c")], """    %a = stablehlo.slice %x [0:1, 0:6] : (tensor<2x6xf32>) -> tensor<1x6xf32>
    %b = stablehlo.slice %x [0:2, 1:3] : (tensor<2x6xf32>) -> tensor<2x2xf32>
    %c = stablehlo.slice %x [0:1, 0:6:2] : (tensor<2x6xf32>) -> tensor<1x3xf32>
    %hh = stablehlo.broadcast_in_dim %h, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<2x6xf32>
    %s = stablehlo.add %x, %hh : tensor<2x6xf32>
    %d = stablehlo.slice %s [1:2, 0:6] : (tensor<2x6xf32>) -> tensor<1x6xf32>
    %e = stablehlo.add %a, %d : tensor<1x6xf32>
    %hn = stablehlo.add %h, %e : tensor<1x6xf32>
""")


def test_slice_windows_decided_by_their_strides(monkeypatch: pytest.MonkeyPatch) -> None:
    """Slices of a (2, 6) row of a sequence (C-contiguous): the first row is a view, a
    column window and a strided one are the kernel's copies, each decided while
    generating; a slice of a ufunc's (2, 6) result (a layout numpy picks from its
    operands') keeps its test. The evaluator's bits."""
    xs = _inputs(np.random.default_rng(5), (5, 2, 6), 0.2)
    args = [xs, np.array([[0.5, -0.0, 1e-42, -2.0, np.inf, 1.0]], np.float32)]
    got, source = _run(WINDOWS, args, monkeypatch)
    want, _ = run_loops(WINDOWS, args, False, monkeypatch)
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes()
    views = re.findall(r"= (\w+)v\d+\[\1K\d+W\]$", source, re.M)
    copies = re.findall(r"= (\w+)K\d+\(\1v\d+\)$", source, re.M)
    tested = re.findall(r"\(_f := ", source)
    assert views and len(copies) == 2 * len(views) and len(tested) == len(views)
