"""The regex fast paths of `ir.parse_fast` read statements exactly as the token-level parser
does: same ops, locations, names and printed text, and the same diagnostics where a
statement is malformed (the fast path must leave those to the full parser)."""

from __future__ import annotations

from typing import Any

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import Parser, parse_source
from shlo_cli.ir.printer import print_module

T = "tensor<4xf32>"
HEAD = f"func.func @f(%a: {T}, %b: {T}, %p: tensor<4xi1>) -> {T} {{\n"


def _outcome(text: str) -> Any:
    """What parsing `text` gives: the diagnostic, or ops with locations and both printings."""
    try:
        module = parse_source(text, "t.mlir")
    except Diagnostic as d:
        return ("error", d.render(), [n.render() for n in d.notes])
    ops = [(op.name, op.location.line, op.location.col, str(op.location.attr),
            [r.name_hint for r in op.results], [str(r.type) for r in op.results],
            sorted(op.properties), sorted(op.attributes)) for op in module.op.walk()]
    return ops, print_module(module, generic=True, debuginfo=True), print_module(module)


def _slow(text: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as m:
        m.setattr(Parser, "fast_operation", lambda self, start: None)
        return _outcome(text)


BODIES = [
    # Plain statements every fast parser reads.
    f"%0 = stablehlo.add %a, %b : {T}\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : ({T}, {T}) -> {T}\n  return %0 : {T}",
    f"%0 = stablehlo.convert %a : ({T}) -> tensor<4xi32>\n  return %a : {T}",
    f"%0 = stablehlo.select %p, %a, %b : tensor<4xi1>, {T}\n  return %0 : {T}",
    f"%0 = stablehlo.broadcast_in_dim %a, dims = [0] : ({T}) -> tensor<2x4xf32>\n"
    f"  return %a : {T}",
    f"%0 = stablehlo.compare  LT, %a, %b,  FLOAT : ({T}, {T}) -> tensor<4xi1>\n"
    f"  return %a : {T}",
    f"%0 = stablehlo.concatenate %a, %b, dim = 0 : ({T}, {T}) -> tensor<8xf32>\n"
    f"  return %a : {T}",
    f"%c = stablehlo.constant dense<1.0> : {T}\n  return %c : {T}",
    f"stablehlo.custom_call @check.eq(%a, %b) {{has_side_effect = true}} : ({T}, {T}) -> ()\n"
    f"  return %a : {T}",
    f"%0:2 = call @g(%a) : ({T}) -> ({T}, {T})\n  return %0#1 : {T}",
    f"%0 = stablehlo.add %a, %b : {T} loc(\"x.py\":3:4)\n  return %0 : {T}",
    # Statements the fast paths must leave to the full parser (with its diagnostics).
    f"%0 = stablehlo.add %a, // comment\n %b : {T}\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : tensor<4xf64>\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %zz : {T}\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %1 : {T}\n  %1 = stablehlo.add %a, %b : {T}\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : {T}\n  %0 = stablehlo.add %a, %b : {T}\n  return %0 : {T}",
    f"%0:2 = stablehlo.add %a, %b : {T}\n  return %a : {T}",
    f"%0 = stablehlo.add %a, %b {{x = 1 : i32}} : {T}\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b, %a : {T}\n  return %0 : {T}",
    f"%0 = stablehlo.select %p, %a, %b : tensor<4xi1>, {T}, {T}\n  return %0 : {T}",
    f"%0 = stablehlo.broadcast_in_dim %a, dims = [0.5] : ({T}) -> tensor<2x4xf32>\n"
    f"  return %a : {T}",
    f"%0 = stablehlo.broadcast_in_dim %a, dims = [0] : ({T}) -> tensor<2x4xf32> -> {T}\n"
    f"  return %a : {T}",
    f"%0 = stablehlo.compare  XX, %a, %b : ({T}, {T}) -> tensor<4xi1>\n  return %a : {T}",
    f"%0 = stablehlo.concatenate %a, %b, dim = 0x1 : ({T}, {T}) -> tensor<8xf32>\n"
    f"  return %a : {T}",
    f"%c = stablehlo.constant dense<[1.0, 2.0]> : {T}\n  return %c : {T}",
    f"%c:2 = stablehlo.constant dense<1.0> : {T}\n  return %a : {T}",
    f"return %a, %b : {T}",
    f"return %a : {T}, {T}",
    f"return %a : {T} {{x}}",
    f"return %a : {T}, tensor<*xf32>",
    f"%0 = call @g(%a) : ({T}) -> ({T}, {T})\n  return %0 : {T}",
    f"%0 = call @g(%a) : (tensor<4xi1>) -> {T}\n  return %0 : {T}",
]


@pytest.mark.parametrize("body", BODIES)
def test_fast_paths_agree_with_the_token_parser(body: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    text = HEAD + "  " + body + "\n}\n"
    slow = _slow(text, monkeypatch)
    assert _outcome(text) == slow
    assert _outcome(text) == slow  # again, with every cache filled


@pytest.mark.parametrize("body", BODIES[:11])
def test_fast_paths_read_the_common_statements(body: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain statements above are all taken by a fast parser once their types are
    cached, so the agreement test really compares two readers."""
    text = HEAD + "  " + body + "\n}\n"
    module = parse_source(text)
    expected = [op.name for op in module.op.walk()][2:]  # not the module and the function
    taken: list[str] = []
    real = Parser.fast_operation

    def spy(self: Parser, start: Any) -> Any:
        op = real(self, start)
        if op is not None:
            taken.append(op.name)
        return op

    monkeypatch.setattr(Parser, "fast_operation", spy)
    parse_source(text)
    assert taken == expected


@pytest.mark.parametrize("statement", [
    f"%0:18446744073709551616 = stablehlo.add %a, %b : {T}",
    f"%0:100000000 = stablehlo.add %a, %b : ({T}, {T}) -> {T}",
    f"%0:18446744073709551616 = call @f(%a, %b, %p) : ({T}, {T}, tensor<4xi1>) -> {T}",
])
def test_a_huge_result_group_is_refused_before_anything_is_sized_by_it(
        statement: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`%r:N` comes from the text: it is compared with the op's result count before any list
    or loop is sized by it (a mutated N of 2^64 used to hang, or overflow in the slow path)."""
    text = HEAD + f"  {statement}\n  return %a : {T}\n}}\n"
    for outcome in (_outcome(text), _slow(text, monkeypatch)):
        assert outcome[0] == "error"
        assert "results but was provided" in outcome[1]
