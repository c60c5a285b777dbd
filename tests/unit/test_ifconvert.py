"""Small conditionals planned as their branches and selects (interpreter/ifconvert.py): the
same results as running the case/if kernels, bit for bit and type for type (NaN payloads,
signalling NaNs, -0.0, infinities, out-of-range case indices), inside generated loops and
out of them, through inlined callees; and what is not converted."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.interpreter import engine, inline
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.interpreter.ifconvert import drop_unread, if_convert
from shlo_cli.ir.parser import parse_source

# A scan whose step is a lax.cond in a callee (a case on convert(pred) whose branches read
# the callee's arguments), a three-way switch on a clamped index, an `if` with two results
# (one an outer value as it is), and a vector cond.
PROGRAM = """
func.func @main(%xs: tensor<6xf32>, %p: tensor<3xf32>, %h0: tensor<f32>, %ks: tensor<6xi32>, %v0: tensor<4xf32>) -> (tensor<f32>, tensor<i32>, tensor<f32>, tensor<4xf32>, tensor<f32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:5 = stablehlo.while(%i = %c0, %h = %h0, %n = %c0, %g = %h0, %v = %v0) : tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<4xf32>
    cond {
      %c6 = stablehlo.constant dense<6> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<6xf32>, tensor<i32>) -> tensor<1xf32>
      %x = stablehlo.reshape %x0 : (tensor<1xf32>) -> tensor<f32>
      %h2 = func.call @step(%p, %h, %x) : (tensor<3xf32>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %k0 = stablehlo.dynamic_slice %ks, %i, sizes = [1] : (tensor<6xi32>, tensor<i32>) -> tensor<1xi32>
      %k = stablehlo.reshape %k0 : (tensor<1xi32>) -> tensor<i32>
      %s:2 = "stablehlo.case"(%k) ({
        %a = stablehlo.add %g, %x : tensor<f32>
        stablehlo.return %a, %n : tensor<f32>, tensor<i32>
      }, {
        %m = stablehlo.multiply %g, %x : tensor<f32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %n1 = stablehlo.add %n, %one : tensor<i32>
        stablehlo.return %m, %n1 : tensor<f32>, tensor<i32>
      }, {
        %d = stablehlo.divide %x, %g : tensor<f32>
        %t = stablehlo.tanh %d : tensor<f32>
        %two = stablehlo.constant dense<2> : tensor<i32>
        %n2 = stablehlo.multiply %n, %two : tensor<i32>
        stablehlo.return %t, %n2 : tensor<f32>, tensor<i32>
      }) : (tensor<i32>) -> (tensor<f32>, tensor<i32>)
      %neg = stablehlo.compare LT, %x, %h, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %w = "stablehlo.if"(%neg) ({
        %xb = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<4xf32>
        %vm = stablehlo.multiply %v, %xb : tensor<4xf32>
        stablehlo.return %vm : tensor<4xf32>
      }, {
        %vn = stablehlo.negate %v : tensor<4xf32>
        stablehlo.return %vn : tensor<4xf32>
      }) : (tensor<i1>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %s#1, %s#0, %w : tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<4xf32>
    }
  %top:2 = "stablehlo.if"(%r#0) ({
    stablehlo.return %h0, %r#1 : tensor<f32>, tensor<f32>
  }, {
    %e = stablehlo.exponential %h0 : tensor<f32>
    stablehlo.return %e, %h0 : tensor<f32>, tensor<f32>
  }) : (tensor<i1>) -> (tensor<f32>, tensor<f32>)
  return %r#1, %r#2, %r#3, %r#4, %top#1 : tensor<f32>, tensor<i32>, tensor<f32>, tensor<4xf32>, tensor<f32>
}
func.func private @step(%p: tensor<3xf32>, %h: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %gt = stablehlo.compare GT, %x, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %ix = stablehlo.convert %gt : (tensor<i1>) -> tensor<i32>
  %r = "stablehlo.case"(%ix) ({
    %p1 = stablehlo.slice %p [1:2] : (tensor<3xf32>) -> tensor<1xf32>
    %w1 = stablehlo.reshape %p1 : (tensor<1xf32>) -> tensor<f32>
    %m = stablehlo.multiply %h, %w1 : tensor<f32>
    %s = stablehlo.subtract %m, %x : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }, {
    %p0 = stablehlo.slice %p [0:1] : (tensor<3xf32>) -> tensor<1xf32>
    %w0 = stablehlo.reshape %p0 : (tensor<1xf32>) -> tensor<f32>
    %m = stablehlo.multiply %w0, %h : tensor<f32>
    %a = stablehlo.add %m, %x : tensor<f32>
    %t = stablehlo.tanh %a : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  return %r : tensor<f32>
}
"""
# (`%r#0` as an i1 would not verify: the top-level if reads a compare instead)
PROGRAM = PROGRAM.replace('"stablehlo.if"(%r#0)', '"stablehlo.if"(%top_p)').replace(
    "  %top:2 =", "  %top_z = stablehlo.constant dense<3> : tensor<i32>\n"
    "  %top_p = stablehlo.compare GT, %r#2, %top_z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "  %top:2 =")


def _f32(bits: int) -> np.float32:
    return np.array(bits, np.uint32).view(np.float32)[()]


F32 = [0.0, -0.0, 0.5, -1.25, np.inf, -np.inf, np.nan, 1e-45, -3e-39, 3e38, 7.0, -2.0]
F32 = [np.float32(v) for v in F32] + [_f32(0x7FA00001), _f32(0xFFC12345), _f32(0x7F800001)]


def _run(args: list[Any], converted: bool, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    planned: list[str] = []

    def spy(ops: Any) -> list[Any]:
        out = if_convert(ops)
        planned.extend(op.name for op in out)
        return out
    with monkeypatch.context() as m:
        m.setattr(engine, "if_convert", spy)
        if not converted:  # the case/if kernels, the evaluator's loop
            m.setattr(engine, "if_convert", lambda ops: list(ops))
            m.setattr(inline, "if_convert", lambda ops: list(ops))
            m.setattr(engine, "_compilable_loop", lambda op: False)
        interpreter = Interpreter(parse_source(PROGRAM))
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            out = [interpreter.call(main, list(args)) for _ in range(2)][-1]
    if converted:  # all of them but the 4xf32 if (its branches run inline: branches.py)
        assert "stablehlo.select" in planned
        assert {n for n in planned if n in ("stablehlo.case", "stablehlo.if")} == {"stablehlo.if"}
    return out


@pytest.mark.parametrize("seed", range(16))
def test_converted_conditionals_match_the_kernels(seed: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)

    def pick(n: int) -> np.ndarray:
        return np.array([F32[int(k)] for k in rng.integers(len(F32), size=n)], np.float32)

    ks = rng.integers(-2, 5, size=6).astype(np.int32)  # out of range: the last branch
    args = [pick(6), pick(3), np.array(pick(1)[0]), ks, pick(4)]
    got = _run(args, True, monkeypatch)
    want = _run(args, False, monkeypatch)
    for a, b in zip(got, want, strict=True):
        assert type(a) is type(b)
        assert np.asarray(a).dtype == np.asarray(b).dtype
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


def _ops(text: str) -> list[Any]:
    return parse_source(text).functions()[0].regions[0].blocks[0].operations[:-1]


def test_conversion_keeps_only_small_pure_branches() -> None:
    """Integer division may fail on zero, a custom call may have effects, a large tensor
    costs in the branch not taken: those conditionals stay."""
    template = """
func.func @main(%p: tensor<i1>, %a: tensor<{t}>, %b: tensor<{t}>) -> tensor<{t}> {{
  %r = "stablehlo.if"(%p) ({{
    %d = {op} : tensor<{t}>
    stablehlo.return %d : tensor<{t}>
  }}, {{
    stablehlo.return %b : tensor<{t}>
  }}) : (tensor<i1>) -> tensor<{t}>
  return %r : tensor<{t}>
}}
"""
    kept = {
        "stablehlo.divide %a, %b": "i32",
        "stablehlo.add %a, %b": "1000xf32",
        '"stablehlo.custom_call"(%a) {call_target_name = "x"} : (tensor<f32>) -> tensor<f32>\n    %u = stablehlo.add %d, %d': "f32",
    }
    for op, t in kept.items():
        text = template.format(op=op, t=t)
        ops = _ops(text)
        assert [o.name for o in if_convert(ops)] == [o.name for o in ops]
    converted = if_convert(_ops(template.format(op="stablehlo.divide %a, %b", t="f32")))
    assert [o.name for o in converted] == ["stablehlo.divide", "stablehlo.select"]


def test_unread_pure_ops_are_dropped() -> None:
    """What nothing reads goes (a converted case's index conversion); ops with effects,
    values read by a nested region or the terminator stay."""
    text = """
func.func @main(%a: tensor<f32>, %b: tensor<i1>) -> tensor<f32> {
  %unread = stablehlo.add %a, %a : tensor<f32>
  %index = stablehlo.convert %b : (tensor<i1>) -> tensor<i32>
  %effect = "stablehlo.custom_call"(%a) {call_target_name = "x", has_side_effect = true} : (tensor<f32>) -> tensor<f32>
  %inner = stablehlo.multiply %a, %a : tensor<f32>
  %r = "stablehlo.if"(%b) ({
    %n = stablehlo.cbrt %inner : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }, {
    stablehlo.return %a : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  %out = stablehlo.subtract %r, %a : tensor<f32>
  return %out : tensor<f32>
}
"""
    block = parse_source(text).functions()[0].regions[0].blocks[0]
    kept = drop_unread(block.operations[:-1], block.operations[-1].operands)
    assert [o.name for o in kept] == ["stablehlo.custom_call", "stablehlo.multiply",
                                      "stablehlo.if", "stablehlo.subtract"]


def test_array_branches_keep_the_conditional() -> None:
    """Both sides of a conditional run once converted: not for array results, whose
    branches a generated function runs inline (branches.py), the one taken alone."""
    template = """
func.func @main(%p: tensor<i1>, %a: tensor<64xf32>) -> tensor<64xf32> {{
  %r = "stablehlo.if"(%p) ({{
    {ops}
    stablehlo.return %t3 : tensor<64xf32>
  }}, {{
    {ops}
    stablehlo.return %t3 : tensor<64xf32>
  }}) : (tensor<i1>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}}
"""
    costly = ("%t1 = stablehlo.tanh %a : tensor<64xf32>\n    %t2 = stablehlo.exponential %t1 : tensor<64xf32>\n"
              "    %t3 = stablehlo.log %t2 : tensor<64xf32>")
    cheap = ("%t1 = stablehlo.add %a, %a : tensor<64xf32>\n    %t2 = stablehlo.tanh %t1 : tensor<64xf32>\n"
             "    %t3 = stablehlo.multiply %t2, %a : tensor<64xf32>")
    assert [o.name for o in if_convert(_ops(template.format(ops=costly)))] == ["stablehlo.if"]
    assert [o.name for o in if_convert(_ops(template.format(ops=cheap)))] == ["stablehlo.if"]
