"""Straight-line callees planned inline at their call sites (interpreter/inline.py): the
same results as calling them, a callee inlined twice in one block, nested calls, callees
that keep their call (regions reading the callee's arguments, recursion), returned
arguments and values returned twice (identity copies), locations kept."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.interpreter import engine, loopgen
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

PROGRAM = """
func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %a = %x, %b = %x) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %u:2 = func.call @step(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %v:2 = func.call @step(%u#1, %u#0) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %w0 = func.call @keeps(%v#0) : (tensor<4xf32>) -> tensor<4xf32>
    %w = func.call @total(%w0) : (tensor<4xf32>) -> tensor<4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %w, %v#1 : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  %s = func.call @passes(%r#1, %r#2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s, %r#2 : tensor<4xf32>, tensor<4xf32>
}
func.func private @step(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = stablehlo.tanh %a : tensor<4xf32>
  %m = func.call @scale(%t, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = stablehlo.exponential %m : tensor<4xf32>
  return %m, %e : tensor<4xf32>, tensor<4xf32>
}
func.func private @scale(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %h = stablehlo.constant dense<0.5> : tensor<4xf32>
  %m = stablehlo.multiply %a, %h : tensor<4xf32>
  %s = stablehlo.add %m, %b : tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func private @keeps(%a: tensor<4xf32>) -> tensor<4xf32> {
  %p = stablehlo.constant dense<true> : tensor<i1>
  %r = "stablehlo.if"(%p) ({
    %n = stablehlo.cbrt %a : tensor<4xf32>
    stablehlo.return %n : tensor<4xf32>
  }, {
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @total(%a: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%a init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%p: tensor<f32>, %q: tensor<f32>) {
    %t = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %r = stablehlo.subtract %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @passes(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
"""


def _run(inline: bool, monkeypatch: pytest.MonkeyPatch,
         args: list[np.ndarray]) -> tuple[list[np.ndarray], list[str], Interpreter]:
    with monkeypatch.context() as m:
        if not inline:
            m.setattr(engine, "inline_calls", lambda ops, lookup: list(ops))
        module = parse_source(PROGRAM)
        before = print_module(module)
        interpreter = Interpreter(module)
        with np.errstate(all="ignore"):
            out = interpreter.call(interpreter.lookup_function("main"), args)
        assert print_module(module) == before
    names = [step.op.name for plan in interpreter._plans.values() for step in plan.steps]
    return [np.asarray(o) for o in out], names, interpreter


def test_inlined_calls_give_the_called_results(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    for trial in range(4):
        x = (rng.standard_normal(4) * 3).astype(np.float32)
        x[trial] = [np.nan, -0.0, np.inf, -np.inf][trial]
        args = [x, np.array(trial + 1, np.int32)]
        got, names, interpreter = _run(True, monkeypatch, args)
        want, plain, _ = _run(False, monkeypatch, args)
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    # @step (twice), @scale inside it, @total (a self-contained reduce body) and @passes
    # (it returns an argument: an identity copy) are inlined; so is @keeps, its conditional
    # copied with its regions (they read the callee's argument; cbrt is no op ifconvert.py
    # runs in both branches)
    assert names.count("func.call") == 0 and plain.count("func.call") == 6
    assert names.count("stablehlo.if") == 1
    assert names.count("stablehlo.optimization_barrier") == 1
    assert "stablehlo.reduce" in names
    assert names.count("stablehlo.tanh") == 2  # one copy per call site
    body = max(interpreter._plans.values(), key=lambda p: len(p.steps))
    tanh = [s.op for s in body.steps if s.op.name == "stablehlo.tanh"]
    assert tanh[0].results[0] is not tanh[1].results[0]
    assert all(op.location.line == PROGRAM.splitlines().index(
        "  %t = stablehlo.tanh %a : tensor<4xf32>") + 1 for op in tanh)


def test_recursion_keeps_its_call() -> None:
    text = """
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %y = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %y = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}
"""
    from shlo_cli.interpreter.inline import MAX_DEPTH, inline_calls

    module = parse_source(text)
    main = module.functions()[0]
    symbols = {f.attr("sym_name").value: f for f in module.functions()}
    ops = inline_calls(main.regions[0].blocks[0].operations[:-1], symbols.get)
    assert [op.name for op in ops] == ["func.call"] and MAX_DEPTH >= 1


def test_values_returned_twice_and_arguments_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan step's `return %h, %h` and a returned argument: each call result is its own
    value, equal to what the call gives."""
    text = """
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r:4 = func.call @step(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %s = stablehlo.add %r#1, %r#3 : tensor<3xf32>
  return %r#0, %s, %r#2, %r#3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func private @step(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %h = stablehlo.tanh %a : tensor<3xf32>
  return %h, %h, %b, %h : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
"""
    x = np.array([0.5, -0.0, np.nan], np.float32)
    y = np.array([1.0, 2.0, -3.0], np.float32)
    got, want = [], []
    for inline, out in ((True, got), (False, want)):
        with monkeypatch.context() as m:
            if not inline:
                m.setattr(engine, "inline_calls", lambda ops, lookup: list(ops))
            interpreter = Interpreter(parse_source(text))
            out += interpreter.call(interpreter.lookup_function("main"), [x, y])
        if inline:
            names = [s.op.name for plan in interpreter._plans.values() for s in plan.steps]
    assert "func.call" not in names and names.count("stablehlo.optimization_barrier") == 3
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert got[2].tobytes() == y.tobytes() and got[1].tobytes() == (got[0] * 2).tobytes()


BARRIER = """
func.func @main(%h0: tensor<1x4xf32>, %n: tensor<i32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<6x4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<6x4xf32>
  %r:5 = stablehlo.while(%i = %c0, %a = %h0, %b = %h0, %s = %z, %k = %n) : tensor<i32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<6x4xf32>, tensor<i32>
  cond {
    %t = stablehlo.compare LT, %i, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %t = stablehlo.tanh %a : tensor<1x4xf32>
    %u = stablehlo.add %t, %b : tensor<1x4xf32>
    %v = stablehlo.optimization_barrier %u : tensor<1x4xf32>
    %c1 = stablehlo.constant dense<0> : tensor<i32>
    %w = stablehlo.dynamic_update_slice %s, %v, %i, %c1 : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
    %b2 = stablehlo.dynamic_update_slice %v, %t, %c1, %c1 : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %u, %b2, %w, %k : tensor<i32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<6x4xf32>, tensor<i32>
  }
  return %r#1, %r#2, %r#3 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<6x4xf32>
}
"""


@pytest.mark.parametrize("steps", [0, 1, 2, 6])
def test_a_barrier_is_its_operand_renamed(steps: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """An optimization_barrier in a loop is no call but a second name for its operand
    (codegen's returns_operand): the same results as calling it, the value written in
    place through one name (a dynamic_update_slice of %v) and read through the other."""
    from shlo_cli.dialects.stablehlo import elementwise_misc

    h = np.array([[0.5, -0.0, np.nan, 3.0]], np.float32)
    args = [h, np.array(steps, np.int32)]
    runs, called = [], []
    real = loopgen.unquiet
    for renamed in (True, False):
        with monkeypatch.context() as m:
            if not renamed:
                m.delattr(elementwise_misc.optimization_barrier, "returns_operand")

            def seen(ns: dict[str, Any]) -> bool:
                called.append(elementwise_misc.optimization_barrier in ns.values())
                return real(ns)
            m.setattr(loopgen, "unquiet", seen)
            interpreter = Interpreter(parse_source(BARRIER))
            with np.errstate(all="ignore"):
                runs.append([np.asarray(o) for o in interpreter.call(
                    interpreter.lookup_function("main"), list(args))])
    for x, y in zip(*runs, strict=True):
        assert x.shape == y.shape and x.tobytes() == y.tobytes()
    assert called == [False, True]


NESTED_LOOP = """
func.func @main(%xs: tensor<5xi32>, %ys: tensor<5xi32>) -> tensor<i32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %c0) : tensor<i32>, tensor<i32>
  cond {
    %n = stablehlo.constant dense<5> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %a = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<5xi32>, tensor<i32>) -> tensor<1xi32>
    %b = stablehlo.dynamic_slice %ys, %i, sizes = [1] : (tensor<5xi32>, tensor<i32>) -> tensor<1xi32>
    %a0 = stablehlo.reshape %a : (tensor<1xi32>) -> tensor<i32>
    %b0 = stablehlo.reshape %b : (tensor<1xi32>) -> tensor<i32>
    %g = func.call @gcd(%a0, %b0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %acc2 = stablehlo.add %acc, %g : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %acc2 : tensor<i32>, tensor<i32>
  }
  return %r#1 : tensor<i32>
}
func.func private @gcd(%x: tensor<i32>, %y: tensor<i32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%u = %x, %v = %y) : tensor<i32>, tensor<i32>
  cond {
    %p = stablehlo.compare NE, %v, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %m = func.call @rem(%u, %v) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    stablehlo.return %v, %m : tensor<i32>, tensor<i32>
  }
  return %r#0 : tensor<i32>
}
func.func private @rem(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
  %r = func.call @{inner}(%a, %b) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
func.func private @plain(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
  %r = stablehlo.remainder %a, %b : tensor<i32>
  return %r : tensor<i32>
}
func.func private @again(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
  %r = func.call @rem(%a, %b) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
"""


@pytest.mark.parametrize("inner", ["plain", "again"])
def test_a_callee_whose_loop_reads_its_values(inner: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A callee holding a while loop whose regions read the callee's constant (a gcd per
    step of a fori_loop) is inlined with a copy of the loop, whose calls end two levels
    down; a loop whose calls recurse (@rem -> @again -> @rem) keeps the callee's call."""
    text = NESTED_LOOP.replace("{inner}", inner)
    xs = np.array([12, -18, 7, 0, 2147483647], np.int32)
    ys = np.array([18, 12, -21, 5, 3], np.int32)
    outs = []
    for inline in (True, False):
        with monkeypatch.context() as m:
            if not inline:
                m.setattr(engine, "inline_calls", lambda ops, lookup: list(ops))
            interpreter = Interpreter(parse_source(text))
            main = interpreter.lookup_function("main")
            if inner == "again":  # (never run: it recurses)
                from shlo_cli.interpreter.inline import inline_calls
                body = main.regions[0].blocks[0].operations[1].regions[1].blocks[0]
                ops = inline_calls(body.operations[:-1], interpreter._symbols.get)
                assert [op.name for op in ops].count("func.call") == 1
                return
            outs.append(np.asarray(interpreter.call(main, [xs, ys])[0]))
            names = [s.op.name for plan in interpreter._plans.values() for s in plan.steps]
        if inline:
            assert "stablehlo.while" in names and "func.call" not in [
                s.op.name for s in max(interpreter._plans.values(),
                                       key=lambda p: len(p.steps)).steps]
    assert outs[0].tobytes() == outs[1].tobytes() and int(outs[0]) == 6 - 6 + 7 + 5 + 1  # (C remainders)


def test_a_loop_is_copied_only_at_a_sole_call() -> None:
    """A callee whose loop would be copied keeps its call where the block calls it twice
    (one plan of the loop, compiled once), and is inlined where it calls it once."""
    from shlo_cli.interpreter.inline import inline_calls

    module = parse_source(NESTED_LOOP.replace("{inner}", "plain"))
    main = module.functions()[0]
    symbols = {f.attr("sym_name").value: f for f in module.functions()}
    body = main.regions[0].blocks[0].operations[1].regions[1].blocks[0].operations[:-1]
    once = [op.name for op in inline_calls(body, symbols.get)]
    assert "func.call" not in once and "stablehlo.while" in once
    call = next(op for op in body if op.name == "func.call")
    twice = [op.name for op in inline_calls([*body, call], symbols.get)]
    assert twice.count("func.call") == 2 and "stablehlo.while" not in twice
