"""Control flow and call-like ops: upstream assembly (print, re-parse) and evaluation."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.check_dialect.custom_call_targets import register_custom_call_target
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


@register_custom_call_target("test.control_flow.less")
def _less(lhs: np.ndarray, rhs: np.ndarray, *, op: object, ctx: object) -> list[np.ndarray]:
    """A comparison reachable without depending on `stablehlo.compare`."""
    return [np.less(lhs, rhs)]


def _print(text: str) -> str:
    return print_module(parse_source(text))


def _round_trip(text: str) -> str:
    """Print once, then check the printed text re-parses to the same text."""
    once = _print(text)
    assert _print(once) == once
    return once


def _run(text: str, *args: np.ndarray, name: str = "main") -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function(name), list(args))


def _i64(x: int) -> np.ndarray:
    return np.array(x, dtype=np.int64)


# ---- while ---------------------------------------------------------------------------------

SUM_LOOP = """
func.func @main(%n: tensor<i64>, %one: tensor<i64>, %zero: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %r0, %r1 = stablehlo.while(%i = %zero, %sum = %zero) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.custom_call @test.control_flow.less(%i, %n) : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s = stablehlo.add %sum, %i : tensor<i64>
    %j = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %j, %s : tensor<i64>, tensor<i64>
  }
  func.return %r0, %r1 : tensor<i64>, tensor<i64>
}
"""


def test_while_prints_iter_args_and_cond_on_its_own_line() -> None:
    out = _round_trip(SUM_LOOP)
    assert ("    %0:2 = stablehlo.while(%iterArg = %arg2, %iterArg_0 = %arg2) : "
            "tensor<i64>, tensor<i64>\n    cond {\n") in out
    assert "\n    } do {\n      %1 = stablehlo.add %iterArg_0, %iterArg : tensor<i64>\n" in out
    assert "      stablehlo.return %2, %1 : tensor<i64>, tensor<i64>\n    }\n" in out


def test_while_without_operands_and_generic_form() -> None:
    text = """
    func.func @f() {
      "stablehlo.while"() ({
        %0 = "stablehlo.custom_call"() {call_target_name = "t"} : () -> tensor<i1>
        "stablehlo.return"(%0) : (tensor<i1>) -> ()
      }, {
        "stablehlo.return"() : () -> ()
      }) : () -> ()
      func.return
    }
    """
    out = _round_trip(text)
    assert "    stablehlo.while()\n    cond {\n" in out
    assert "    } do {\n      stablehlo.return \n    }\n" in out


def test_while_attributes_use_the_keyword_form() -> None:
    text = SUM_LOOP.replace(": tensor<i64>, tensor<i64>\n  cond",
                            ": tensor<i64>, tensor<i64> attributes {foo = 1 : i32}\n  cond")
    assert "tensor<i64>, tensor<i64> attributes {foo = 1 : i32}\n    cond {" in _round_trip(text)


def test_while_sums_ten_thousand_iterations() -> None:
    # Speed is measured by `make bench` (benchmarks/), not asserted here.
    count, total = _run(SUM_LOOP, _i64(10_000), _i64(1), _i64(0))
    assert int(count) == 10_000 and int(total) == sum(range(10_000))


def test_while_that_never_runs_returns_its_operands() -> None:
    count, total = _run(SUM_LOOP, _i64(0), _i64(1), _i64(5))
    assert int(count) == 5 and int(total) == 5


# ---- if / case ---------------------------------------------------------------------------

IF = """
func.func @main(%pred: tensor<i1>, %a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
  %0 = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%a) : (tensor<2xi64>) -> ()
  }, {
    %1 = stablehlo.add %b, %b : tensor<2xi64>
    "stablehlo.return"(%1) : (tensor<2xi64>) -> ()
  }) : (tensor<i1>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}
"""


def test_if_prints_generic_form_with_pretty_returns() -> None:
    out = _round_trip(IF)
    assert '    %0 = "stablehlo.if"(%arg0) ({\n      stablehlo.return %arg1 : tensor<2xi64>\n' in out
    assert "    }, {\n      %1 = stablehlo.add %arg2, %arg2 : tensor<2xi64>\n" in out
    assert "    }) : (tensor<i1>) -> tensor<2xi64>\n" in out


@pytest.mark.parametrize("pred, expected", [(True, [1, 2]), (False, [6, 8])])
def test_if_runs_the_selected_branch(pred: bool, expected: list[int]) -> None:
    (out,) = _run(IF, np.array(pred), np.array([1, 2]), np.array([3, 4]))
    assert out.tolist() == expected


CASE = """
func.func @main(%index: tensor<i32>, %a: tensor<i64>, %b: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %r0, %r1 = "stablehlo.case"(%index) ({
    stablehlo.return %a, %a : tensor<i64>, tensor<i64>
  }, {
    stablehlo.return %b, %b : tensor<i64>, tensor<i64>
  }) : (tensor<i32>) -> (tensor<i64>, tensor<i64>)
  func.return %r0, %r1 : tensor<i64>, tensor<i64>
}
"""


@pytest.mark.parametrize("index, expected", [(0, 10), (1, 20), (-1, 20), (2, 20), (7, 20)])
def test_case_out_of_range_index_runs_the_last_branch(index: int, expected: int) -> None:
    results = _run(CASE, np.array(index, dtype=np.int32), _i64(10), _i64(20))
    assert [int(r) for r in results] == [expected, expected]


def test_case_round_trips() -> None:
    assert '%0:2 = "stablehlo.case"(%arg0) ({' in _round_trip(CASE)


# ---- return / optimization_barrier ----------------------------------------------------------


def test_optimization_barrier_forms_and_identity() -> None:
    text = """
    func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      "stablehlo.optimization_barrier"() : () -> ()
      %0 = "stablehlo.optimization_barrier"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      %1:2 = "stablehlo.optimization_barrier"(%a, %0) {x} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      "stablehlo.return"(%1#0, %1#1) : (tensor<4xf32>, tensor<4xf32>) -> ()
    }
    """
    out = _round_trip(text)
    assert "    stablehlo.optimization_barrier()\n" in out
    assert "    %0 = stablehlo.optimization_barrier %arg0 : tensor<4xf32>\n" in out
    assert ("    %1:2 = stablehlo.optimization_barrier {x} %arg0, %0 : "
            "tensor<4xf32>, tensor<4xf32>\n") in out
    assert "    stablehlo.return %1#0, %1#1 : tensor<4xf32>, tensor<4xf32>\n" in out
    a = np.arange(4, dtype=np.float32)
    r0, r1 = _run(text, a)
    assert r0.tolist() == a.tolist() and r1.tolist() == a.tolist()


def test_return_prints_attributes_before_types() -> None:
    text = """
    func.func @main(%a: tensor<i32>) -> tensor<i32> {
      "stablehlo.return"(%a) {note = "x"} : (tensor<i32>) -> ()
    }
    """
    assert '    stablehlo.return %arg0 {note = "x"} : tensor<i32>\n' in _round_trip(text)


# ---- composite ---------------------------------------------------------------------------

COMPOSITE = """
func.func @add_n.impl(%arg0: tensor<i64>, %arg1: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
  func.return %0 : tensor<i64>
}

func.func @main(%a: tensor<i64>, %b: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.composite "my.add" %a, %b {
    composite_attributes = { n = 2 : i64 },
    decomposition = @add_n.impl, version = 1 : i32
  } : (tensor<i64>, tensor<i64>) -> tensor<i64>
  func.return %0 : tensor<i64>
}
"""


def test_composite_runs_its_decomposition() -> None:
    (out,) = _run(COMPOSITE, _i64(40), _i64(2))
    assert int(out) == 42


def test_composite_prints_sorted_attributes_and_elides_defaults() -> None:
    out = _round_trip(COMPOSITE)
    assert ('%0 = stablehlo.composite "my.add" %arg0, %arg1 {composite_attributes = {n = 2 : i64}, '
            "decomposition = @add_n.impl, version = 1 : i32} : "
            "(tensor<i64>, tensor<i64>) -> tensor<i64>\n") in out
    generic = """
    func.func @f() {
      "stablehlo.composite"() {name = "foo", decomposition = @f, composite_attributes = {},
                               version = 0 : i32} : () -> ()
      func.return
    }
    """
    assert '    stablehlo.composite "foo" {decomposition = @f} : () -> ()\n' in _round_trip(generic)


# ---- custom_call -------------------------------------------------------------------------

CUSTOM_CALLS = """
func.func @f(%arg0: tensor<3x4xf32>) {
  %1 = "stablehlo.custom_call"(%arg0, %arg0) {backend_config = "bar", call_target_name = "foo", has_side_effect = true} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3xf32>
  %2 = "stablehlo.custom_call"(%arg0, %arg0) {backend_config = "bar", call_target_name = "foo-not-id", has_side_effect = true} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3xf32>
  "stablehlo.custom_call"() {api_version = 4 : i32, backend_config = {foo = 42 : i32}, call_target_name = "foo"} : () -> ()
  "stablehlo.custom_call"() {api_version = 1 : i32, call_target_name = "foo", has_side_effect = false, called_computations = [], output_operand_aliases = []} : () -> ()
  %3:2 = "stablehlo.custom_call"(%arg0) {call_target_name = "foo", called_computations = [@f], operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>]} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, !stablehlo.token)
  func.return
}
"""


def test_custom_call_prints_target_as_symbol_and_elides_defaults() -> None:
    out = _round_trip(CUSTOM_CALLS)
    assert ('    %0 = stablehlo.custom_call @foo(%arg0, %arg0) {backend_config = "bar", '
            "has_side_effect = true} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3xf32>\n"
            ) in out
    assert '    %1 = stablehlo.custom_call @"foo-not-id"(%arg0, %arg0) {backend_config' in out
    assert ("    stablehlo.custom_call @foo() {api_version = 4 : i32, "
            "backend_config = {foo = 42 : i32}} : () -> ()\n") in out
    assert "    stablehlo.custom_call @foo() : () -> ()\n" in out
    assert "%2:2 = stablehlo.custom_call @foo(%arg0) {called_computations = [@f], " in out
    assert "output_operand_aliases = [#stablehlo.output_operand_alias<" in out


def test_custom_call_target_must_be_a_symbol() -> None:
    text = CUSTOM_CALLS.replace(
        '"stablehlo.custom_call"(%arg0, %arg0) {backend_config = "bar", call_target_name = "foo",',
        'stablehlo.custom_call "test"(%arg0, %arg0) {backend_config = "bar",')
    with pytest.raises(Diagnostic) as info:
        parse_source(text)
    assert "expected valid '@'-identifier for symbol name" in info.value.render()


def test_custom_call_dispatches_on_target_and_names_unknown_ones() -> None:
    text = """
    func.func @main(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi1> {
      %0 = stablehlo.custom_call @test.control_flow.less(%a, %b) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
      func.return %0 : tensor<2xi1>
    }
    """
    (out,) = _run(text, np.array([1, 5]), np.array([3, 3]))
    assert out.tolist() == [True, False]
    with pytest.raises(Diagnostic) as info:
        _run(text.replace("test.control_flow.less", "no.such.target"),
             np.array([1, 5]), np.array([3, 3]))
    assert "no.such.target" in info.value.render()


# ---- arith.constant --------------------------------------------------------------------------


def test_arith_constant_names_and_values() -> None:
    text = """
    func.func @main() -> (tensor<i32>, i32, i1, f32) {
      %0 = arith.constant dense<-1> : tensor<i32>
      %1 = arith.constant -7 : i32
      %2 = arith.constant true
      %3 = arith.constant 1.5 : f32
      func.return %0, %1, %2, %3 : tensor<i32>, i32, i1, f32
    }
    """
    out = _round_trip(text)
    assert "    %cst = arith.constant dense<-1> : tensor<i32>\n" in out
    assert "    %c-7_i32 = arith.constant -7 : i32\n" in out
    assert "    %true = arith.constant true\n" in out
    assert "    %cst_0 = arith.constant 1.500000e+00 : f32\n" in out
    values = _run(text)
    assert [v.dtype for v in values] == [np.int32, np.int32, np.bool_, np.float32]
    assert [v.tolist() for v in values] == [-1, -7, True, 1.5]


def test_legalize_composite_to_call_keeps_results() -> None:
    from shlo_cli.passes import run_passes

    module = parse_source(COMPOSITE)
    run_passes(module, ["stablehlo-legalize-composite-to-call"])
    out = print_module(module)
    assert ("    %0 = call @add_n.impl(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>\n"
            "    return %0 : tensor<i64>\n") in out
    (result,) = _run(out, _i64(40), _i64(2))
    assert int(result) == 42
