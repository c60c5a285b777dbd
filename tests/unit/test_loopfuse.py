"""Independent loops of one trip count planned as one loop (interpreter/loopfuse.py): the
results of running them one after the other, bit for bit (a bidirectional recurrence, three
loops, ops between them reading the first loop's results, no steps at all); loops that
differ in length, start or step, read each other's results, or have effects stay apart."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter import engine, licm
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _scan(name: str, start: str, bound: str, step: str, backward: bool, h0: str,
          extra: str = "") -> str:
    """A scan over %xs (8x1x4) with h = tanh(h * w + x[i]) (x[7 - i] when `backward`),
    writing each h to row i of a 8x1x4 output."""
    index = "%i" if not backward else "%j"
    reverse = """
      %seven = stablehlo.constant dense<7> : tensor<i32>
      %j = stablehlo.subtract %seven, %i : tensor<i32>""" if backward else ""
    return f"""
  %{name}:3 = stablehlo.while(%i = {start}, %h = {h0}, %ys = %ys0) : tensor<i32>, tensor<1x4xf32>, tensor<8x1x4xf32>
  cond {{
    %p = stablehlo.compare LT, %i, {bound}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{{reverse}
    %z = stablehlo.constant dense<0> : tensor<i32>
    %xr = stablehlo.dynamic_slice %xs, {index}, %z, %z, sizes = [1, 1, 4] : (tensor<8x1x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x4xf32>
    %x = stablehlo.reshape %xr : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
    %hw = stablehlo.multiply %h, %w : tensor<1x4xf32>
    %s = stablehlo.add %hw, %x : tensor<1x4xf32>
    %e = stablehlo.exponential %s : tensor<1x4xf32>
    %t = stablehlo.tanh %e : tensor<1x4xf32>{extra}
    %t3 = stablehlo.reshape %t : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %t3, {index}, %z, %z : (tensor<8x1x4xf32>, tensor<1x1x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x1x4xf32>
    %i2 = stablehlo.add %i, {step} : tensor<i32>
    stablehlo.return %i2, %t, %ys2 : tensor<i32>, tensor<1x4xf32>, tensor<8x1x4xf32>
  }}"""


def _program(loops: list[str], between: str = "") -> str:
    results = ", ".join(f"%{chr(97 + k)}#1, %{chr(97 + k)}#2" for k in range(len(loops)))
    types = ", ".join(["tensor<1x4xf32>, tensor<8x1x4xf32>"] * len(loops))
    body = loops[0] + between + "".join(loops[1:])
    return f"""
func.func @main(%xs: tensor<8x1x4xf32>, %w: tensor<1x4xf32>, %h0: tensor<1x4xf32>, %n: tensor<i32>) -> ({types}) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %c8 = stablehlo.constant dense<8> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %ys0 = stablehlo.constant dense<0.0> : tensor<8x1x4xf32>{body}
  return {results} : {types}
}}
"""


def _run(text: str, args: list[np.ndarray], fuse: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[list[np.ndarray], int]:
    """The results and the number of while ops the entry function's plan runs."""
    with monkeypatch.context() as m:
        if not fuse:
            m.setattr(engine, "fuse_loops", lambda ops, lookup: ops)
        module = parse_source(text)
        before = print_module(module)
        interpreter = Interpreter(module)
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            out = [interpreter.call(main, [a.copy() for a in args]) for _ in range(2)][-1]
        assert print_module(module) == before  # the program itself is not rewritten
        ops, _ = interpreter._block_ops(main.regions[0].entry)
    return [np.asarray(o) for o in out], sum(op.name == "stablehlo.while" for op in ops)


def _args(seed: int, n: int = 8) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((8, 1, 4)).astype(np.float32)
    xs.reshape(-1)[:4] = [np.nan, -0.0, np.inf, 1e-40]
    return [xs, rng.standard_normal((1, 4)).astype(np.float32),
            rng.standard_normal((1, 4)).astype(np.float32), np.array(n, np.int32)]


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


FUSED = {
    # a bidirectional recurrence: the same bound, start and step (constants or values)
    "bidirectional": [_scan("a", "%c0", "%c8", "%c1", False, "%h0"),
                      _scan("b", "%c0", "%c8", "%c1", True, "%h0")],
    "bound_from_argument": [_scan("a", "%c0", "%n", "%c1", False, "%h0"),
                            _scan("b", "%c0", "%n", "%one", True, "%h0")],
    "three": [_scan("a", "%c0", "%c8", "%c1", False, "%h0"),
              _scan("b", "%c0", "%c8", "%c1", True, "%h0"),
              _scan("c", "%c0", "%c8", "%c1", False, "%w")],
}


@pytest.mark.parametrize("name", sorted(FUSED))
@pytest.mark.parametrize("n", [8, 3, 0])
def test_fused_loops_give_the_same_bits(name: str, n: int,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    if name != "bound_from_argument" and n != 8:
        pytest.skip("the bound is a constant")
    monkeypatch.setattr(licm, "batch_scan_inputs", lambda *a, **k: None)
    text = _program(FUSED[name])
    args = _args(n, n)
    got, loops = _run(text, args, True, monkeypatch)
    want, plain = _run(text, args, False, monkeypatch)
    _same(got, want)
    assert plain == len(FUSED[name]) and loops == 1


def test_ops_between_reading_the_first_loop_run_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """An op between the loops reading the first loop's result runs after the fused loop;
    one the second loop reads runs before it."""
    between = """
  %r = stablehlo.reshape %a#1 : (tensor<1x4xf32>) -> tensor<4xf32>
  %h1 = stablehlo.negate %h0 : tensor<1x4xf32>"""
    loops = [_scan("a", "%c0", "%c8", "%c1", False, "%h0"),
             _scan("b", "%c0", "%c8", "%c1", True, "%h1")]
    text = _program(loops, between)
    got, fused = _run(text, _args(3), True, monkeypatch)
    want, _ = _run(text, _args(3), False, monkeypatch)
    _same(got, want)
    assert fused == 1


APART = {
    "other_bound": [_scan("a", "%c0", "%c8", "%c1", False, "%h0"),
                    _scan("b", "%c0", "%n", "%c1", True, "%h0")],
    "other_start": [_scan("a", "%c0", "%c8", "%c1", False, "%h0"),
                    _scan("b", "%c1", "%c8", "%c1", True, "%h0")],
    "other_step": [_scan("a", "%c0", "%c8", "%c1", False, "%h0"),
                   _scan("b", "%c0", "%c8", "%c2", True, "%h0")],
    # the second loop starts from the first's final state
    "dependent": [_scan("a", "%c0", "%c8", "%c1", False, "%h0"),
                  _scan("b", "%c0", "%c8", "%c1", True, "%a#1")],
    # a body with an effect: its steps may not interleave with another loop's
    "effect": [_scan("a", "%c0", "%c8", "%c1", False, "%h0", """
    stablehlo.custom_call @check.expect_almost_eq(%t, %t) {has_side_effect = true} : (tensor<1x4xf32>, tensor<1x4xf32>) -> ()"""),
               _scan("b", "%c0", "%c8", "%c1", True, "%h0")],
}


@pytest.mark.parametrize("name", sorted(APART))
def test_loops_kept_apart(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _program(APART[name])
    args = _args(7, 5)
    got, loops = _run(text, args, True, monkeypatch)
    want, _ = _run(text, args, False, monkeypatch)
    _same(got, want)
    assert loops == 2


def test_effect_between_reading_the_first_loop_keeps_them_apart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An effect reading the first loop's result may not move past the second loop."""
    between = """
  stablehlo.custom_call @check.expect_almost_eq(%a#1, %a#1) {has_side_effect = true} : (tensor<1x4xf32>, tensor<1x4xf32>) -> ()"""
    loops = [_scan("a", "%c0", "%c8", "%c1", False, "%h0"),
             _scan("b", "%c0", "%c8", "%c1", True, "%h0")]
    _, loops_run = _run(_program(loops, between), _args(1), True, monkeypatch)
    assert loops_run == 2
