"""The op verifier: MLIR's structural checks and wording, run by every front end."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from shlo_cli.commands.main import cli
from shlo_cli.commands.opt import opt
from shlo_cli.commands.translate import translate
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.verifier import verify_module


def verify(text: str) -> Diagnostic | None:
    try:
        verify_module(parse_source(text, "t.mlir"))
    except Diagnostic as d:
        return d
    return None


VALID = """
func.func @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @main() -> tensor<2xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  %r = func.call @helper(%c) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
"""


def test_a_valid_program_passes() -> None:
    assert verify(VALID) is None


CASES = [
    ("return_count",
     "func.func @f(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n"
     "  func.return %a : tensor<2xf32>\n}\n",
     2, "'func.return' op has 1 operands, but enclosing function (@f) returns 2"),
    ("return_type",
     "func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
     "  func.return %a : tensor<2xf32>\n}\n",
     2, "type of return operand 0 ('tensor<2xf32>') doesn't match function "
        "result type ('tensor<3xf32>') in function @f"),
    ("undefined_callee",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = func.call @foo(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
     "  func.return %0 : tensor<2xf32>\n}\n",
     2, "'func.call' op '@foo' does not reference a valid function"),
    ("call_operand_type",
     "func.func @g(%a: tensor<3xf32>) -> tensor<2xf32> {\n"
     "  %0 = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
     "  func.return %0 : tensor<2xf32>\n}\n"
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = func.call @g(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
     "  func.return %0 : tensor<2xf32>\n}\n",
     6, "'func.call' op operand type mismatch: expected operand type tensor<3xf32>, but "
        "provided tensor<2xf32> for operand number 0"),
    ("no_terminator",
     "func.func @f(%a: tensor<2xf32>) {\n"
     "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n}\n",
     2, "block with no terminator, has \"stablehlo.add\""),
    ("terminator_not_last",
     "func.func @f(%a: tensor<2xf32>) {\n"
     "  func.return\n"
     "  func.return\n}\n",
     2, "'func.return' op must be the last operation in the parent block"),
    ("return_outside_func",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.map\"(%a) ({\n"
     "  ^bb0(%x: tensor<f32>):\n"
     "    func.return %x : tensor<f32>\n"
     "  }) {dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2xf32>\n"
     "  func.return %0 : tensor<2xf32>\n}\n",
     4, "'func.return' op expects parent op 'func.func'"),
    ("op_verifier",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.reshape\"(%a) : (tensor<2xf32>) -> tensor<3xf32>\n"
     "  func.return %a : tensor<2xf32>\n}\n",
     2, "number of output elements (3) doesn't match expected number of elements (2)"),
    ("region_count",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.map\"(%a) {dimensions = array<i64: 0>}\n"
     "    : (tensor<2xf32>) -> tensor<2xf32>\n"
     "  func.return %0 : tensor<2xf32>\n}\n",
     2, "'stablehlo.map' op requires one region"),
    ("use_before_definition",
     "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
     "  %0 = stablehlo.add %1, %a : tensor<f32>\n"
     "  %1 = stablehlo.add %a, %a : tensor<f32>\n"
     "  func.return %0 : tensor<f32>\n}\n",
     2, "operand #0 does not dominate this use"),
    ("operand_count",
     "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
     "  %0 = \"stablehlo.add\"(%a) : (tensor<f32>) -> tensor<f32>\n"
     "  func.return %0 : tensor<f32>\n}\n",
     2, "'stablehlo.add' op expected 2 operands, but found 1"),
    ("one_result",
     "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
     "  %0:2 = \"stablehlo.abs\"(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)\n"
     "  func.return %0#0 : tensor<f32>\n}\n",
     2, "'stablehlo.abs' op requires one result"),
    ("zero_results",
     "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
     "  %0 = \"check.expect_eq\"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
     "  func.return %0 : tensor<f32>\n}\n",
     2, "'check.expect_eq' op requires zero results"),
    ("two_results",
     "func.func @f(%a: tensor<2xui64>) -> tensor<2xui64> {\n"
     "  %0 = \"stablehlo.rng_bit_generator\"(%a) {rng_algorithm = #stablehlo<rng_algorithm "
     "DEFAULT>} : (tensor<2xui64>) -> tensor<2xui64>\n"
     "  func.return %0 : tensor<2xui64>\n}\n",
     2, "'stablehlo.rng_bit_generator' op expected 2 results, but found 1"),
    ("required_attribute",
     "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
     "  %0 = \"stablehlo.reduce_precision\"(%a) {exponent_bits = 5 : i32}"
     " : (tensor<4xf32>) -> tensor<4xf32>\n"
     "  func.return %0 : tensor<4xf32>\n}\n",
     2, "'stablehlo.reduce_precision' op requires attribute 'mantissa_bits'"),
    ("reduce_precision_shape",
     "func.func @f(%a: tensor<3xf32>) -> tensor<4xf32> {\n"
     "  %0 = \"stablehlo.reduce_precision\"(%a) {exponent_bits = 5 : i32, mantissa_bits = 2 : i32}"
     " : (tensor<3xf32>) -> tensor<4xf32>\n"
     "  func.return %0 : tensor<4xf32>\n}\n",
     2, "'stablehlo.reduce_precision' op requires compatible types for all operands and results"),
    ("public_declaration", "func.func @g()\n",
     1, "'func.func' op symbol declaration cannot have public visibility"),
    ("unknown_op_of_known_dialect",
     "func.func @f(%a: tensor<2xf32>) {\n"
     "  \"stablehlo.frobnicate\"(%a) : (tensor<2xf32>) -> ()\n"
     "  func.return\n}\n",
     2, "unregistered operation 'stablehlo.frobnicate' found in dialect ('stablehlo') that "
        "does not allow unknown operations"),
]


@pytest.mark.parametrize(("name", "text", "line", "message"), CASES, ids=[c[0] for c in CASES])
def test_errors_use_mlir_wording_at_the_op(name: str, text: str, line: int,
                                           message: str) -> None:
    diag = verify(text)
    assert diag is not None
    assert diag.line == line
    assert message in diag.message
    rendered = diag.render().split("\n")
    assert rendered[0].startswith(f"t.mlir:{line}:")
    assert rendered[1] == text.split("\n")[line - 1]


def test_nested_ops_are_verified_after_their_parent() -> None:
    """MLIR checks an op's own invariants before the ops in its regions."""
    text = ("func.func @f(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n"
            "  %0 = \"stablehlo.map\"(%a) ({\n"
            "  ^bb0(%x: tensor<f32>):\n"
            "    \"stablehlo.frobnicate\"() : () -> ()\n"
            "    stablehlo.return %x : tensor<f32>\n"
            "  }) {dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2xf32>\n"
            "  func.return %0 : tensor<2xf32>\n}\n")
    diag = verify(text)
    assert diag is not None and diag.line == 4  # the map body, before the func.return


def test_symbol_uses_are_checked_after_everything_else() -> None:
    text = ("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = func.call @missing(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
            "  func.return %0 : tensor<2xf32>\n}\n"
            "func.func @g(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
            "  func.return %a : tensor<2xf32>\n}\n")
    diag = verify(text)
    assert diag is not None and diag.line == 6


def test_split_chunks_keep_file_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(VALID + "// -----\n"
                    "func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
                    "  func.return %a : tensor<2xf32>\n}\n")
    line = VALID.count("\n") + 3
    result = CliRunner().invoke(opt, [str(path), "-split-input-file"])
    assert result.exit_code == 1
    assert f"t.mlir:{line}:3: error: type of return operand 0" in result.output


@pytest.mark.parametrize("front_end", ["opt", "translate", "parse", "verify"])
def test_every_front_end_verifies(tmp_path: Path, front_end: str) -> None:
    path = tmp_path / "t.mlir"
    path.write_text("func.func @main() -> (tensor<2xf32>, tensor<2xf32>) {\n"
                    "  %0 = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
                    "  func.return %0 : tensor<2xf32>\n}\n")
    command, args = {"opt": (opt, []), "translate": (translate, ["--interpret"]),
                     "parse": (cli, ["parse"]), "verify": (cli, ["verify"])}[front_end]
    result = CliRunner().invoke(command, [*args, str(path)])
    assert result.exit_code == 1
    assert "t.mlir:3:3: error: 'func.return' op has 1 operands, but enclosing function " \
           "(@main) returns 2" in result.output


def test_shlo_verify_is_silent_on_success(tmp_path: Path) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(VALID)
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 0
    assert result.output == ""


def test_tensor_cast_round_trips_and_checks_compatibility(tmp_path: Path) -> None:
    path = tmp_path / "t.mlir"
    path.write_text("func.func @f(%a: tensor<4xi32>) -> tensor<?xi32> {\n"
                    "  %0 = tensor.cast %a : tensor<4xi32> to tensor<?xi32>\n"
                    "  func.return %0 : tensor<?xi32>\n}\n")
    result = CliRunner().invoke(opt, [str(path)])
    assert result.exit_code == 0
    assert "tensor.cast %arg0 : tensor<4xi32> to tensor<?xi32>" in result.output
    diag = verify("func.func @f(%a: tensor<4xi32>) -> tensor<?xf32> {\n"
                  "  %0 = tensor.cast %a : tensor<4xi32> to tensor<?xf32>\n"
                  "  func.return %0 : tensor<?xf32>\n}\n")
    assert diag is not None and "are cast incompatible" in diag.message


def test_a_verifier_that_raises_is_reported_at_the_op(monkeypatch: pytest.MonkeyPatch) -> None:
    from shlo_cli.ir import registry, verifier

    def broken(op: object) -> None:
        raise KeyError("fft_length")

    monkeypatch.delenv(verifier.DEBUG_ENV, raising=False)
    monkeypatch.setattr(registry.lookup("stablehlo.add"), "verify", broken)
    d = verify(VALID)
    assert d is not None
    text = d.render()
    assert text.startswith("t.mlir:3:8: error: 'stablehlo.add' op could not be verified: "
                           "its verifier raised KeyError ('fft_length')"), text
    assert "bug in shlo" in text
    monkeypatch.setenv(verifier.DEBUG_ENV, "1")
    with pytest.raises(KeyError):
        verify_module(parse_source(VALID, "t.mlir"))


NESTED_CALLS = """
module {
  func.func @main(%a: tensor<f32>) -> tensor<f32> {
    return %a : tensor<f32>
  }
  func.func private @outer(%a: tensor<f32>) -> tensor<f32> {
    return %a : tensor<f32>
  }
  module @inner {
    func.func @g(%a: tensor<f32>) -> tensor<f32> {
      %0 = func.call @CALLEE(%a) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
    func.func private @h(%a: tensor<f32>) -> tensor<f32> {
      return %a : tensor<f32>
    }
  }
}
"""


def test_a_call_resolves_in_the_nearest_symbol_table() -> None:
    """MLIR's lookupNearestSymbolFrom: a call inside a nested module names that module's
    function (the outer module's functions are not visible there)."""
    assert verify(NESTED_CALLS.replace("CALLEE", "h")) is None
    d = verify(NESTED_CALLS.replace("CALLEE", "outer"))
    assert d is not None and "'@outer' does not reference a valid function" in str(d)
