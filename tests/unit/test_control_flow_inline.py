"""`-inline`: calls (also inside while/if regions and inside callees) are replaced by the
callee's body; the result re-parses and computes what the original computed."""

# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np

from shlo_cli.check_dialect.custom_call_targets import register_custom_call_target
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.core import Module
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes


@register_custom_call_target("test.control_flow_inline.less")
def _less(lhs: np.ndarray, rhs: np.ndarray, *, op: object, ctx: object) -> list[np.ndarray]:
    return [np.less(lhs, rhs)]


PROGRAM = """
func.func @main(%a: tensor<i64>, %b: tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>) {
  %0:2 = call @pair(%a, %b) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  %1 = "stablehlo.if"(%pred) ({
    %2 = func.call @twice(%0#1) : (tensor<i64>) -> tensor<i64>
    stablehlo.return %2 : tensor<i64>
  }, {
    stablehlo.return %a : tensor<i64>
  }) : (tensor<i1>) -> tensor<i64>
  %3 = call @kept(%a) {no_inline} : (tensor<i64>) -> tensor<i64>
  return %0#0, %1, %3 : tensor<i64>, tensor<i64>, tensor<i64>
}
func.func private @pair(%x: tensor<i64>, %y: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %0 = call @twice(%x) : (tensor<i64>) -> tensor<i64>
  return %y, %0 : tensor<i64>, tensor<i64>
}
func.func private @twice(%x: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.add %x, %x : tensor<i64>
  return %0 : tensor<i64>
}
func.func private @kept(%x: tensor<i64>) -> tensor<i64> {
  return %x : tensor<i64>
}
func.func private @unused(%x: tensor<i64>) -> tensor<i64> {
  return %x : tensor<i64>
}
"""


def _program(pred: bool) -> str:
    return PROGRAM.replace("%pred", "%a_pred").replace(
        "  %0:2 = call", f"  %a_pred = arith.constant dense<{str(pred).lower()}> : tensor<i1>\n  %0:2 = call")


def _evaluate(module: Module) -> list[int]:
    interpreter = Interpreter(module)
    args = [np.array(3, dtype=np.int64), np.array(5, dtype=np.int64)]
    return [int(r) for r in interpreter.call(interpreter.lookup_function("main"), args)]


def _inlined(text: str) -> str:
    module = parse_source(text)
    run_passes(module, ["inline"])
    return print_module(module)


def test_inline_removes_calls_and_dead_private_functions() -> None:
    out = _inlined(_program(True))
    assert "call @pair" not in out and "call @twice" not in out
    assert "call @kept(%arg0)" in out
    assert "@pair(" not in out and "@twice(" not in out and "@unused(" not in out
    assert "func.func private @kept(" in out
    assert print_module(parse_source(out)) == out


def test_inlined_program_computes_the_same_results() -> None:
    for pred in (True, False):
        original = _evaluate(parse_source(_program(pred)))
        inlined = _evaluate(parse_source(_inlined(_program(pred))))
        assert inlined == original
    assert _evaluate(parse_source(_program(True))) == [5, 12, 3]


def test_inline_into_while_body_keeps_loop_semantics() -> None:
    text = """
    func.func @main(%n: tensor<i64>, %one: tensor<i64>) -> tensor<i64> {
      %0:2 = stablehlo.while(%i = %one, %acc = %one) : tensor<i64>, tensor<i64>
      cond {
        %c = func.call @below(%i, %n) : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %d = func.call @dbl(%acc) : (tensor<i64>) -> tensor<i64>
        %j = stablehlo.add %i, %one : tensor<i64>
        stablehlo.return %j, %d : tensor<i64>, tensor<i64>
      }
      func.return %0#1 : tensor<i64>
    }
    func.func private @dbl(%x: tensor<i64>) -> tensor<i64> {
      %0 = stablehlo.add %x, %x : tensor<i64>
      func.return %0 : tensor<i64>
    }
    func.func private @below(%x: tensor<i64>, %y: tensor<i64>) -> tensor<i1> {
      %0 = stablehlo.custom_call @test.control_flow_inline.less(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i1>
      func.return %0 : tensor<i1>
    }
    """
    out = _inlined(text)
    assert "call" not in out.replace("custom_call", "")
    module = parse_source(out)
    interpreter = Interpreter(module)
    (result,) = interpreter.call(interpreter.lookup_function("main"),
                                 [np.array(11, dtype=np.int64), np.array(1, dtype=np.int64)])
    assert int(result) == 2 ** 10


RECURSIVE = """
func.func private @fact(%n: tensor<i32>) -> tensor<i32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %c = stablehlo.compare LE, %n, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %r = "stablehlo.if"(%c) ({
    stablehlo.return %one : tensor<i32>
  }, {
    %m = stablehlo.subtract %n, %one : tensor<i32>
    %f = func.call @fact(%m) : (tensor<i32>) -> tensor<i32>
    %p = stablehlo.multiply %n, %f : tensor<i32>
    stablehlo.return %p : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  return %r : tensor<i32>
}
func.func private @ping(%x: tensor<i32>) -> tensor<i32> {
  %0 = call @pong(%x) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func private @pong(%x: tensor<i32>) -> tensor<i32> {
  %0 = call @ping(%x) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func @main(%a: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %f = call @fact(%a) : (tensor<i32>) -> tensor<i32>
  %p = call @ping(%a) : (tensor<i32>) -> tensor<i32>
  return %f, %p : tensor<i32>, tensor<i32>
}
"""


def test_self_recursive_callees_are_not_inlined() -> None:
    """MLIR's Inliner::shouldInline leaves a self-recursive target alone (its body was
    unrolled once into the caller) and an A->B->A cycle's calls; main still inlines @ping
    once (its history stops the second round)."""
    out = _inlined(RECURSIVE)
    main = out[out.index("func.func @main"):]
    assert "call @fact(%arg0)" in main
    assert "stablehlo.if" not in main
    assert "func.func private @fact(" in out
    ping = out[out.index("func.func private @ping"):out.index("func.func private @pong")]
    assert "call @pong(%arg0)" in ping  # pong calls ping back: not inlined into ping


CANONICALIZED = """
func.func private @callee(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.abs %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %c1 = stablehlo.constant dense<1.0> : tensor<f32>
  %unused = stablehlo.add %arg0, %c1 : tensor<f32>
  %c2 = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = func.call @callee(%arg0) : (tensor<f32>) -> tensor<f32>
  %1 = stablehlo.add %0, %c2 : tensor<f32>
  return %1 : tensor<f32>
}
"""


def test_inline_canonicalizes_as_the_inliner_pipeline_does() -> None:
    """MLIR's InlinerPass runs its default pipeline (`canonicalize`) on the functions it
    inlines into: the dead add goes and the two equal constants become one."""
    out = _inlined(CANONICALIZED)
    assert out.count("stablehlo.constant") == 1 and out.count("stablehlo.add") == 1
    assert "call @callee" not in out and "@callee(" not in out
