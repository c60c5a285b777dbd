"""The regex fast paths of `ir.parse_fast` read statements exactly as the token-level parser
does: same ops, locations, names and printed text, and the same diagnostics where a
statement is malformed (the fast path must leave those to the full parser)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from shlo_cli.ir.diagnostics import Diagnostic, SourceFile
from shlo_cli.ir.parser import Parser, parse_source
from shlo_cli.ir.printer import print_module

T = "tensor<4xf32>"
HEAD = (f"func.func @f(%a: {T}, %b: {T}, %p: tensor<4xi1>, %m: tensor<2x2xf32>, "
        f"%n: tensor<2x2xf32>) -> {T} {{\n")


def _outcome(text: str, name: str = "t.mlir", line_offset: int = 0) -> Any:
    """What parsing `text` gives: the diagnostic, or ops with locations and both printings."""
    try:
        module = parse_source(text, name, line_offset=line_offset)
    except Diagnostic as d:
        return ("error", d.render(), [n.render() for n in d.notes])
    ops = [(op.name, op.location.line, op.location.col, str(op.location.attr),
            [r.name_hint for r in op.results], [str(r.type) for r in op.results],
            sorted(op.properties), sorted(op.attributes)) for op in module.op.walk()]
    try:
        printed = print_module(module, generic=True, debuginfo=True), print_module(module)
    except Exception as e:  # a printer failure is the same for both readers' modules
        printed = (type(e).__name__, str(e))
    return ops, printed


def _slow(text: str, monkeypatch: pytest.MonkeyPatch, name: str = "t.mlir",
          line_offset: int = 0) -> Any:
    """The outcome with every fast path off: statements, block arguments, dictionaries and
    types all read token by token."""
    from shlo_cli.ir import parse_types

    with monkeypatch.context() as m:
        m.setattr(parse_types, "plain_tensor", lambda text: None)
        m.setattr(parse_types, "plain_function", lambda text: None)
        m.setattr(Parser, "fast_operation", lambda self, start: None)
        m.setattr(Parser, "fast_statement", lambda self, head: None)
        m.setattr(Parser, "fast_generic_head", lambda self: None)
        m.setattr(Parser, "fast_generic_statement", lambda self, head: None)
        m.setattr(Parser, "fast_block_arguments", lambda self, block, pos: -1)
        m.setattr(Parser, "_parse_dict_by_text", Parser._parse_attr_dict_body)
        return _outcome(text, name, line_offset)


_F = "tensor<f32>"
_M = "tensor<2x2xf32>"
_RT = f"({T}, {_F}) -> {_F}"
_REDUCER = (f"({T}, {T}, {_F}, {_F}) -> ({_F}, {_F})\n   reducer(%x: {_F}, %y: {_F}) "
            f"(%z: {_F}, %w: {_F})  {{\n    %1 = stablehlo.add %x, %y : {_F}\n"
            f"    stablehlo.return %1, %z : {_F}, {_F}\n  }}")
_REDUCES = [
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0] : {_RT}",
    f"stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0] : {_RT}",
    f"%0 = stablehlo.reduce( %a  init :%s ) applies  stablehlo.maximum across  dimensions=[ 0 ]"
    f" : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0] : {_RT}"
    f' loc("r":1:2)',
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.foo across dimensions = [0] : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0x0] : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = "
    f"[9223372036854775808] : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [-1] : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [] : {_RT}",
    f"%0:2 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0] : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s), applies stablehlo.add across dimensions = [0] : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add // c\n across dimensions = [0] "
    f": {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0] "
    f"{{x = 1 : i32}} : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0] : "
    f"({T}, tensor<f64>) -> {_F}",
    f"%0 = stablehlo.reduce(%a init: %q) applies stablehlo.add across dimensions = [0] : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %a#0) applies stablehlo.add across dimensions = [0] : {_RT}",
    f"%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0] : "
    f"({T}) -> {_F}",
    f"%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : {_REDUCER}",
    f"stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : {_REDUCER}",
    f"%0 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : {_REDUCER}",
    f"%0:3 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : {_REDUCER}",
    "%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : "
    + _REDUCER.replace("%w:", "%x:"),
    "%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : "
    + _REDUCER.replace("%w:", "%a:"),
    "%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : "
    + _REDUCER.replace(f"%w: {_F}", f'%w: {_F} loc("w":1:1)'),
    "%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : "
    + _REDUCER.replace("reducer", "reduce"),
    "%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : "
    + _REDUCER.replace("%1, %z", "%1, %9"),
    "%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : "
    + _REDUCER.replace("  {", " // c\n {"),
    "%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : "
    + _REDUCER.replace(f"(%z: {_F}, %w: {_F})", f"(%z: {_F})"),
    "%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : "
    + _REDUCER.replace(f"%z: {_F}", "%z: tensor<*xf32>"),
    "%0:2 = stablehlo.reduce(%a init: %s), (%b init: %s) across dimensions = [0] : "
    + _REDUCER.replace("  }", "  }}"),
]

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
    f"%0 = stablehlo.slice %a [0:2, 1:4:2] : ({T}) -> tensor<2xf32>\n  return %a : {T}",
    "%0 = stablehlo.dot_general %m, %n, batching_dims = [0] x [0], contracting_dims = [1] x "
    f"[1] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>\n  return %a : {T}",
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
    # stablehlo.slice: decimal ranges, a stride of 1 when none is written.
    *(f"%0 = stablehlo.slice %a {r} : ({T}) -> tensor<2xf32>\n  return %a : {T}"
      for r in ("[0:2]", "[0:4:2]", "[ 1 : 3 ]", "[-1:2]", "[0x1:2]", "[- 1:2]", "[0:1:2:3]",
                "[0:2,]", "[]", "[0:2] {x = 1 : i32}", "[0:2] {start_indices = 1 : i32}",
                "[0:2 // c\n]", "[1.0:2]", "[0:2], [1:2]", "[0:2]]")),
    f"%0 = stablehlo.slice %a#1 [0:2] : ({T}) -> tensor<2xf32>\n  return %a : {T}",
    f"%0 = stablehlo.slice %a [0:2] : (tensor<4xf64>) -> tensor<2xf32>\n  return %a : {T}",
    f"%0 = stablehlo.slice %a [0:2] : ({T}, {T}) -> tensor<2xf32>\n  return %a : {T}",
    f"%0 = stablehlo.slice %a [0:2] : {T}\n  return %a : {T}",
    f"%0 = stablehlo.slice %b2 [0:2] : ({T}) -> tensor<2xf32>\n  %b2 = stablehlo.add %a, %b"
    f" : {T}\n  return %a : {T}",
    # stablehlo.reduce, compact and with a reducer region (`register_fast_op_parser`).
    *(f"%s = stablehlo.constant dense<0.0> : tensor<f32>\n  {r}\n  return %a : {T}"
      for r in _REDUCES),
    # stablehlo.dot_general without precision or algorithm.
    *(f"%0 = stablehlo.dot_general %m, %n, {d} : ({_M}, {_M}) -> {_M}\n  return %a : {T}"
      for d in ("contracting_dims = [1] x [0]", "batching_dims = [] x [], contracting_dims = "
                "[1] x [0]", "contracting_dims=[1]x[0]", "contracting_dims = [1] x [0], "
                "precision = [DEFAULT, DEFAULT]", "contracting_dims = [1] x [0] {x = 1 : i32}",
                "contracting_dims = [0x1] x [0]", "contracting_dims = [1] y [0]",
                "contracting_dims = [9223372036854775808] x [0]", "contracting_dims = [1] x [0],",
                "batching_dims = [0] x [0] contracting_dims = [1] x [0]",
                "contracting_dims = [1] x [0] // c\n")),
    f"%0 = stablehlo.dot_general %m, %a, contracting_dims = [1] x [0] : ({_M}, {_M}) -> {_M}"
    f"\n  return %a : {T}",
    f"%0 = stablehlo.dot_general %m, %n contracting_dims = [1] x [0] : ({_M}, {_M}) -> {_M}"
    f"\n  return %a : {T}",
    # Type texts read for the first time (`parse_types.plain_tensor`), some no types at all.
    *(f"%0 = stablehlo.convert %a : ({T}) -> {t}\n  return %a : {T}"
      for t in ("tensor<4xfoo>", "tensor<4xcomplex<index>>", "tensor<4xcomplex<f8E5M2>>",
                "tensor<4xi16777216>", "tensor<4xi16777215>", "tensor<4xnone>",
                "tensor<?x4xcomplex<i8>>", "tensor<4xtuple>", "tensor<4xtensor>",
                "tensor<4xvector>", "tensor<04x0xui3>", "tensor<4xcomplex>", "tensor<4xx1>",
                "tensor<4xf8E4M3FNx>", "tensor<4xsi7>")),
    f"%0:2 = call @g(%a) : ({T}) -> (tensor<4xf16>, tensor<4xbad>)\n  return %a : {T}",
    f"%0:2 = call @g(%a) : ({T}) -> (tensor<4xf16>, tensor<4xi7>) -> {T}\n  return %a : {T}",
    f"%0 = call @g(%a) : (tensor<4xcomplex<si4>>) -> tensor<3xcomplex<f64>>\n  return %a : {T}",
    # Block arguments and dictionaries the token-level reader reads once per text.
    *(f'%0 = "stablehlo.reduce"(%a, %b) <{{dimensions = array<i64: 0>}}> ({{\n'
      f"  ^bb0({args}):\n    stablehlo.return %x : tensor<f32>\n  }}) : ({T}, {T}) -> {T}\n"
      f"  return %0 : {T}"
      for args in ("%x: tensor<f32>, %y: tensor<f32>", "%x: tensor<f32>, %x: tensor<f32>",
                   "%a: tensor<f32>, %y: tensor<f32>", "%x: tensor<f32> loc(\"q\":1:2)",
                   "%x: tensor<f32>, %y: tensor<f64>", "%x : tensor<f32> , %y:tensor<f32>",
                   "%x#0: tensor<f32>", "%x: tensor<f32>,",
                   "%x: tensor<f32>, %y: tensor<f32>)::(",
                   "%x: tensor<f32>, %y: tensor<f32>) // c\n :(",
                   "%x: tensor<f32>, %y: tensor<f32>) :(",
                   "%x: tensor<f32>, %y: tensor<f32>):%z = stablehlo.add %x, %y : tensor<f32>\n(",
                   "%x: tensor<f32>, %y: tensor<f32>):}) : (tensor<4xf32>) -> tensor<f32>\n(")),
    f'stablehlo.custom_call @f(%a) {{api_version = 2 : i32, backend_config = "{{}}", x = [1]}}'
    f" : ({T}) -> ()\n  return %a : {T}",
    f'stablehlo.custom_call @f(%a) {{x = #stablehlo<bad>}} : ({T}) -> ()\n  return %a : {T}',
    f'stablehlo.custom_call @f(%a) {{x = [1, {{y}}] : ({T}) -> ()\n  return %a : {T}',
    # Trailing locations, read after a fast statement when the next head is reached.
    f"%0 = stablehlo.add %a, %b : {T}\n  loc(\"x\":1:2)\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : {T} // c\n loc(\"x\":1:2) loc(\"y\":1:2)\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : {T} loc(#bad)\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : {T} loc(\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : {T} loc\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : {T} loc.x\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : {T}\n  %1 = loc(\"x\":1:2)\n  return %0 : {T}",
    f"loc(\"x\":1:2)\n  return %a : {T}",
    f"return %a : {T} loc(\"r\":1:2)",
    "return loc(\"r\":1:2)",
    "return",
    f"return %a : {T} // end",
    f"%0 = stablehlo.add %a, %b : {T}\n  return %0 : {T}\n  ^bb1:\n  return %a : {T}",
    f"%0 = stablehlo.add %a, %b : {T}\n  ^bb1:\n  return %a : {T}",
    # Comments between statements, holding what would be code outside them.
    f"%0 = stablehlo.add %a, %b : {T}\n  // }}\n  return %0 : {T}",
    f"// %0 = stablehlo.add %a, %b : {T}\n  %0 = stablehlo.add %a, %b : {T}\n"
    f"  // %0 = stablehlo.add %a, %b : {T}\n  return %0 : {T}",
    f"%0 = stablehlo.add %a, %b : {T} // loc(\"x\":1:2)\n  return %0 : {T} // }}",
    f"%0 = stablehlo.add %a, %b : {T}\n  // c }}\n  // %1 = }}\n//\n  return %0 : {T}\n//}}",
    # (followed by what no statement head matches, nor a `}`)
    f"%0 = stablehlo.add %a, %b : {T}\n  // }}\n"
    f'  %1 = "stablehlo.add"(%a, %b) : ({T}, {T}) -> {T}\n  return %1 : {T}',
    f"%0 = stablehlo.add %a, %b : {T}\n  // %2 = stablehlo.add %a, %b : {T}\n"
    f'  %1 = "stablehlo.add"(%a, %b) : ({T}, {T}) -> {T}\n  return %1 : {T}',
    f"%0 = stablehlo.add %a, %b : {T}\n  // }} loc(\"x\":1:2)\n  ^bb1:\n  return %a : {T}",
    f"%0 = stablehlo.add %a, %b : {T} // loc(\"x\":1:2)\n  %%1 = stablehlo.add %a, %b : {T}"
    f"\n  return %0 : {T}",
    # What follows a statement, as the token-level parser checks it.
    f"%0 = stablehlo.select %p, %a, %b : tensor<4xi1>, {T} // c\n  , {T}\n  return %0 : {T}",
    f"%0 = stablehlo.convert %a : ({T}) -> tensor<4xi32> -> {T}\n  return %a : {T}",
    f"%0 = stablehlo.convert %a : ({T}) -> tensor<4xi32> // c\n -> {T}\n  return %a : {T}",
    f"%0 = stablehlo.convert %a : ({T}) -> tensor<4xi32> - {T}\n  return %a : {T}",
    f"return %a : {T} {{x}}",
    f"return %a : {T} // c\n {{x}}",
    "return {x}",
    "return %",
    f"return %a : {T} {{-# x #-}}",
    # Generic-form heads: `"name"(operands)` read by regex only for a registered op with
    # plainly defined operands.
    f'%0 = "stablehlo.add"(%a, %b) : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.add"( %a ,%b ) : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.add"(%a, // c\n %b) : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.add"(%a, %1) : ({T}, {T}) -> {T}\n  %1 = stablehlo.add %a, %b : {T}\n'
    f"  return %0 : {T}",
    f'%0 = "stablehlo.add"(%a, %zz) : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.add"(%a, %a#1) : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.add"(%a, %b) : ({T}, {T}) -> tensor<4xf64>\n  return %a : {T}',
    f'%0 = "stablehlo.add"(%a, %b, %p) : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.add"(%a) {{x = 1}} : ({T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.nope"(%a) : ({T}) -> {T}\n  return %0 : {T}',
    f'%0 = "nodialect.op"(%a) : ({T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.\\61dd"(%a, %b) : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.add"(%a, %b)[^bb1] : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'"stablehlo.add"(%a, %b : ({T}, {T}) -> {T}\n  return %a : {T}',
    f'%0:2 = "stablehlo.add"(%a, %b) : ({T}, {T}) -> {T}\n  return %a : {T}',
    # Generic-form statements read from their head by `fast_generic_statement`.
    *(f'{head}"stablehlo.reduce"(%a, %b) <{{dimensions = array<i64: 0>}}> ({{\n'
      f"  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    stablehlo.return %x : tensor<f32>\n"
      f"  }}) : ({T}, {T}) -> {tail}\n  return %a : {T}"
      for head in ("%0 = ", "%0:1 = ", "%0:2 = ", "", "%a = ", "%0 =\n ", "%0 = // c\n ",
                   "%0:01 = ", "%0:99999 = ")
      for tail in ("tensor<f32>", "tensor<f32> loc(\"x\":1:2)", "tensor<f32> loc(\"x\":1:2) "
                   "loc(\"y\":1:2)", "(tensor<f32>, tensor<f32>)", "tensor<f32> -> f32",
                   "tensor<f32> {x}", "tensor<f32> loc(")),
    f'%0 = "stablehlo.add"(%a, %b) {{x = 1 : i32}} : ({T}, {T}) -> {T} loc("a":1:1)\n'
    f'  %1:2 = "stablehlo.sort"(%0, %a) <{{dimension = 0 : i64}}> ({{\n'
    f"  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %z: tensor<f32>, %w: tensor<f32>):\n"
    f'    %c = "stablehlo.compare"(%x, %y) <{{comparison_direction = #stablehlo<comparison_'
    f'direction LT>}}> : (tensor<f32>, tensor<f32>) -> tensor<i1>\n'
    f"    stablehlo.return %c : tensor<i1>\n  }}) : ({T}, {T}) -> ({T}, {T})\n"
    f"  return %1#1 : {T}",
    f'%0:2 = "stablehlo.add"(%a, %b) : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.add"(%a, %0) : ({T}, {T}) -> {T}\n  return %0 : {T}',
    f'%0 = "stablehlo.add"(%a, %b) ({{\n  ^bb0:\n  %0 = stablehlo.add %a, %b : {T}\n'
    f"  stablehlo.return %0 : {T}\n  }}) : ({T}, {T}) -> {T}\n  return %0 : {T}",
    f'%0 = "stablehlo.add"(%a, %b) ({{\n  stablehlo.return %zz : {T}\n  }}) : ({T}, {T}) -> {T}'
    f"\n  return %0 : {T}",
    f'%0 = "stablehlo.add"(%a, %b) ({{\n  stablehlo.return %9 : {T}\n  }}) : ({T}, {T}) -> {T}'
    f"\n  %9 = stablehlo.add %a, %b : {T}\n  return %0 : {T}",
    f'%0 = "check.expect_eq_const"(%a) {{value = dense<1.0> : {T}}} : ({T}) -> ()\n'
    f"  return %a : {T}",
    f'"stablehlo.custom_call"(%a) {{call_target_name = "f"}} : ({T}) -> ()\n  return %a : {T}',
    # A generic op's tail read by regex around its region (`_generic_tail`), and where that
    # reading hands over to the token-level reader.
    *(f'%0 = "stablehlo.reduce"(%a, %b) {props}({{\n'
      f"  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    stablehlo.return %x : tensor<f32>\n"
      f"  }}{rest}\n  return %a : {T}"
      for props in ("<{dimensions = array<i64: 0>}> ", "<{dimensions = array<i64: 0>} // c\n> ",
                    "<{x = \"}\", dimensions = array<i64: 0>}> ", "<{-# x #-}> ",
                    "<{dimensions = array<i64: 0>}>", "< {dimensions = array<i64: 0>} > ",
                    "<{unique = true}> ", "<{}> ")
      for rest in (f") : ({T}, {T}) -> tensor<f32>", f") {{x = 1 : i32}} : ({T}, {T}) -> {T}",
                   f", {{\n  }}) : ({T}, {T}) -> {T}", f") : ({T}, tensor<4xf64>) -> {T}",
                   f") : ({T}) -> {T}", f") : ({T}, {T}) -> {T} -> {T}", ") :: ()",
                   f") // c\n : ({T}, {T}) -> {T}")),
    f'%0 = "stablehlo.add"(%a, %b)  : ({T}, {T}) -> {T}\n  %1 = "stablehlo.add"(%0, %0) : '
    f"({T}, {T}) -> {T}\n  return %1 : {T}",
]


@pytest.mark.parametrize("body", BODIES)
def test_fast_paths_agree_with_the_token_parser(body: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    text = HEAD + "  " + body + "\n}\n"
    slow = _slow(text, monkeypatch)
    assert _outcome(text) == slow
    assert _outcome(text) == slow  # again, with every cache filled


@pytest.mark.parametrize("body", BODIES[:13])
def test_fast_paths_read_the_common_statements(body: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain statements above are all taken by a fast parser once their types are
    cached, so the agreement test really compares two readers."""
    text = HEAD + "  " + body + "\n}\n"
    module = parse_source(text)
    expected = sorted(op.name for op in module.op.walk())[1:]  # not the implicit module
    taken: list[str] = []
    real = Parser.fast_statement

    def spy(self: Parser, head: Any) -> Any:
        found = real(self, head)
        if found is not None:
            taken.append(found[0].name)
        return found

    monkeypatch.setattr(Parser, "fast_statement", spy)
    parse_source(text)
    assert sorted(taken) == expected


def test_reduce_statements_are_built_by_their_fast_parser(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Both spellings of stablehlo.reduce are built by the fast op parser (so the agreement
    tests above compare two readers)."""
    from shlo_cli.dialects.stablehlo import reduce
    from shlo_cli.ir.parse_fast import FAST_OP_PARSERS

    taken: list[str] = []
    real = reduce._fast_reduce

    def spy(*args: Any) -> Any:
        found = real(*args)
        taken.append("built" if found is not None else "left")
        return found

    for body in (_REDUCES[0], _REDUCES[17]):
        text = (HEAD + f"  %s = stablehlo.constant dense<0.0> : tensor<f32>\n  {body}\n"
                f"  return %a : {T}\n}}\n")
        parse_source(text)
        with monkeypatch.context() as m:
            m.setitem(FAST_OP_PARSERS, "stablehlo.reduce", spy)
            from shlo_cli.ir.parse_caches import clear_parse_caches

            clear_parse_caches()
            parse_source(text)
        clear_parse_caches()  # (the spy is no longer remembered as the op's fast parser)
    assert taken == ["built", "built"]


def test_generic_statements_are_read_from_their_heads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A generic-form statement with a registered op, plain operands and a new result name
    is taken by `fast_generic_statement` (so the agreement tests compare two readers)."""
    text = HEAD + "  " + BODIES[-1] + "\n}\n"
    taken: list[str] = []
    real = Parser.fast_generic_statement

    def spy(self: Parser, head: Any) -> Any:
        found = real(self, head)
        if found is not None:
            taken.append(found[0].name)
        return found

    monkeypatch.setattr(Parser, "fast_generic_statement", spy)
    parse_source(text)
    assert taken == ["stablehlo.add", "stablehlo.add"]


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


# Programs in the corpus' usual spelling: every fast path (module and function heads,
# constants with plain and hex-string literals, calls with result groups, Format ops,
# custom_call, compare, concatenate, return) and the token-level forms around them.
PROGRAMS = [
    "".join([
        'module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas '
        '= 1 : i32} {\n',
        '  func.func public @main() -> (tensor<2x3xi1> {jax.result_info '
        '= "", mhlo.layout_mode = "default"}) {\n',
        '    %0:2 = call @inputs() : () -> (tensor<2x3xi1>, tensor<2x3xi1>)\n',
        '    %1 = stablehlo.and %0#0, %0#1 : tensor<2x3xi1>\n',
        '    %2 = stablehlo.concatenate %0#0, %1, dim = 0 : (tensor<2x3xi1>, '
        'tensor<2x3xi1>) -> tensor<4x3xi1>\n',
        '    stablehlo.custom_call @check.expect_eq(%1, %0#1) {has_side_effect '
        '= true} : (tensor<2x3xi1>, tensor<2x3xi1>) -> ()\n',
        '    return %1 : tensor<2x3xi1>\n',
        '  }\n',
        '  func.func private @inputs() -> (tensor<2x3xi1> {mhlo.layout_mode '
        '= "default"}, tensor<2x3xi1> {mhlo.layout_mode = "default"}) {\n',
        '    %c = stablehlo.constant dense<true> : tensor<2x3xi1>\n',
        '    %c_0 = stablehlo.constant dense<[[true, false, true], [false, '
        'true, false]]> : tensor<2x3xi1>\n',
        '    return %c, %c_0 : tensor<2x3xi1>, tensor<2x3xi1>\n',
        '  }\n',
        '}\n',
    ]),
    "".join([
        'module {\n',
        '  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xi1> {\n',
        '    %cst = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>\n',
        '    %cst_0 = stablehlo.constant dense<1.500000e+00> : tensor<2xf32>\n',
        '    %0 = stablehlo.multiply %arg0, %cst : tensor<2xf32>\n',
        '    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<2xf32>) '
        '-> tensor<2xf32>\n',
        '    %2 = stablehlo.compare GT, %1, %cst_0, FLOAT : (tensor<2xf32>, '
        'tensor<2xf32>) -> tensor<2xi1>\n',
        '    %3 = stablehlo.select %2, %arg0, %arg1 : tensor<2xi1>, tensor<2xf32>\n',
        '    %4 = "stablehlo.reduce"(%3, %cst_0) <{dimensions = array<i64: 0>}> ({\n',
        '    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n',
        '      %5 = stablehlo.add %a, %b : tensor<f32>\n',
        '      stablehlo.return %5 : tensor<f32>\n',
        '    }) : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n',
        '    return %2 : tensor<2xi1>\n',
        '  }\n',
        '}\n',
    ]),
]

_TOKEN_START = re.compile(r"[%@^#!\"A-Za-z0-9_(){}\[\]<>,:=\-]+|\S")


def _agree(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    slow = _slow(text, monkeypatch)
    assert _outcome(text) == slow, text


@pytest.mark.parametrize("program", PROGRAMS)
def test_fast_paths_agree_on_every_truncation(program: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut the program after every token (and inside some): every prefix gives the fast
    paths' parser the same module or the same diagnostic as the token-level parser."""
    parse_source(program)  # the types and heads cached, so the fast paths do run
    cuts = sorted({m.end() for m in _TOKEN_START.finditer(program)}
                  | {m.start() + 1 for m in _TOKEN_START.finditer(program)})
    for cut in cuts:
        _agree(program[:cut], monkeypatch)


@pytest.mark.parametrize("program", PROGRAMS)
def test_fast_paths_agree_on_every_mutated_character(program: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Replace each character in turn (cycling through characters that matter to the
    grammar): the same module or the same diagnostic either way."""
    parse_source(program)
    replacements = " %:,=<>{}()x0\"#\n/@-1."
    for i in range(len(program)):
        char = replacements[i % len(replacements)]
        if program[i] != char:
            _agree(program[:i] + char + program[i + 1:], monkeypatch)
        _agree(program[:i] + program[i + 1:], monkeypatch)  # and the character deleted


def _balanced_end_by_characters(src: str, start: int, open_ch: str, close_ch: str) -> int:
    """The character-by-character scan `Parser._balanced_end` replaced (the reference)."""
    depth = 0
    i = start
    while i < len(src):
        c = src[i]
        if c == '"':
            i += 1
            while i < len(src) and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
        elif c == "-" and i + 1 < len(src) and src[i + 1] == ">":
            i += 1
        elif c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def test_balanced_end_matches_the_character_scan() -> None:
    import random

    rng = random.Random(7)
    alphabet = '<>{}()"\\-x ,:'
    texts = ['<a, "b>c", d->e>', '<"\\">"> x', '<"open', '<a<b>c>>', '<\\', '<"a\\', "<->>",
             '{a = "}", b = {c}}', "(x -> (y))"]
    texts += ["<" + "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
              for _ in range(3000)]
    for text in texts:
        for open_ch, close_ch in (("<", ">"), ("{", "}"), ("(", ")")):
            src = open_ch + text[1:]
            expected = _balanced_end_by_characters(src, 0, open_ch, close_ch)
            parser = Parser(SourceFile("t", src))
            try:
                got = parser._balanced_end(0, open_ch, close_ch)
            except Diagnostic:
                got = -1
            assert got == expected, (src, open_ch)


_FUNC = f"func.func @g(%x: {T}) -> {T} {{\n  return %x : {T}\n}}"

MODULES = [
    # A trailing location after an op with a region, read by the block parser after the
    # fast-read head and body, and what may follow it.
    f'{_FUNC} loc("f":1:1)\n{_FUNC.replace("@g", "@h")}\n',
    f'{_FUNC}\n// c\nloc("f":1:1)\n',
    f'{_FUNC} loc("f":1:1) loc("g":1:1)\n',
    f"{_FUNC} loc(\n",
    f'module {{\n{_FUNC} loc("f":1:1)\n}} loc("m":2:2)\n',
    f'module @m {{\n{_FUNC}\n  loc("f":1:1)\n}}\n',
    f'module {{\n  loc("f":1:1)\n{_FUNC}\n}}\n',
    # What follows the `}` ending a fast-read op's last region (read from the offset after
    # it, with no token lexed there): ops, comments, stray text, the end of the input.
    f"{_FUNC}// c\n{_FUNC.replace('@g', '@h')}// d",
    f"{_FUNC}}}\n",
    f"{_FUNC} ?\n",
    f"{_FUNC}\n}}",
    "module {}\nmodule {\n}// e\n",
    f"module {{\nmodule {{\n{_FUNC}}}}}\n",
    f"module {{\n{_FUNC}}} {_FUNC}\n",
    f"module @m {{\n{_FUNC}\n{_FUNC.replace('@g', '@h')}%x\n}}\n",
    "func.func @e() {}\nfunc.func @e2() {\n} loc(unknown)",
    f'{_FUNC} "x"',
    # Redefinitions, forward references and result groups across fast statements.
    f"{HEAD}  %0 = stablehlo.add %a, %b : {T}\n  %0 = stablehlo.add %a, %b : {T}\n"
    f"  return %0 : {T}\n}}\n",
    f"{HEAD}  %0 = stablehlo.add %1, %b : {T}\n  %1 = stablehlo.add %a, %b : {T}\n"
    f"  return %0 : {T}\n}}\n",
    f"{HEAD}  %0:2 = call @g2(%a) : ({T}) -> ({T}, {T})\n  %1 = stablehlo.add %0#1, %0#0 : {T}"
    f"\n  %2 = stablehlo.add %0, %0#2 : {T}\n  return %1 : {T}\n}}\n",
    f'{HEAD}  %0 = "stablehlo.add"(%a, %b) : ({T}, {T}) -> {T}\n'
    f"  %1 = stablehlo.add %0, %0 : {T}\n  return %1 : {T}\n}}\n",
]


@pytest.mark.parametrize("text", MODULES)
def test_fast_paths_agree_on_whole_modules(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _outcome(text)  # the types and heads cached, so the fast paths do run
    _agree(text, monkeypatch)


_Q = "!quant.uniform<i8:f32, 0.5:-128>"
QUANTIZED = [
    f"%0 = stablehlo.uniform_quantize %a : ({T}) -> tensor<4x{_Q}>\n"
    f"  %1 = stablehlo.uniform_dequantize %0 : (tensor<4x{_Q}>) -> {T}\n  return %1 : {T}",
    f"%0 = stablehlo.uniform_quantize %a : ({T}) -> tensor<4x{_Q.replace(', ', ',  ')}>\n"
    f"  return %a : {T}",
    f"%0 = stablehlo.uniform_quantize %a : ({T}) -> tensor<4x!quant.uniform<i8:f32, 1e300:0>>"
    f"\n  return %a : {T}",
    f"%0 = stablehlo.uniform_quantize %a : ({T}) -> tensor<4x!quant.uniform<i8:f32, 0.5>>x\n"
    f"  return %a : {T}",
    f"%0 = stablehlo.uniform_quantize %a : ({T}) -> tensor<4x!quant.uniform<i8<-8:7>:f32, 0.5>>"
    f"\n  return %a : {T}",
    f"%0 = stablehlo.uniform_quantize %a : ({T}) -> tensor<4x!quant.uniform<i8:f32:0, "
    f"{{0.5:1, 0.25:2, 1.0:0, 2.0:3}}>>\n  return %a : {T}",
]


@pytest.mark.parametrize("body", QUANTIZED)
def test_quantized_tensor_types_read_once_per_text(body: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A quantized tensor type looked up by its text gives what reading it in full gives,
    the same diagnostics included; with a type alias defined it is always read in full."""
    from shlo_cli.ir import parse_types

    for text in (HEAD + "  " + body + "\n}\n",
                 "!quant.uniform = f32\n" + HEAD + "  " + body + "\n}\n"):
        with monkeypatch.context() as m:
            m.setattr(Parser, "_quantized_tensor_type", Parser._parse_tensor_type)
            expected = _outcome(text)
        parse_types._QUANT_TENSOR_CACHE.clear()
        assert _outcome(text) == expected
        assert _outcome(text) == expected  # from the cache


@pytest.mark.parametrize("gap", [" " * 100_000, "\n  " * 30_000, "  // x }\n" * 20_000,
                                 "\n" + "\t \r\n" * 20_000 + "//"])
def test_a_statement_head_fails_in_linear_time(gap: str) -> None:
    """The next-statement regex backtracks in time linear in the whitespace and comments
    it skipped (a nested `(\\s+)*` used to try every split of a run: 2^n steps)."""
    import time

    from shlo_cli.ir.parse_fast import STATEMENT

    start = time.perf_counter()
    assert STATEMENT.match(gap + '"stablehlo.\\61dd"') is None
    generic = STATEMENT.match(gap + '"stablehlo.add"')
    if gap.endswith("//"):  # the comment runs on over the head
        assert generic is None
    else:
        assert generic is not None and generic.group(7) == "stablehlo.add"
    assert STATEMENT.match(gap + "^bb0") is None
    text = f'{HEAD}  %0 = stablehlo.add %a, %b : {T}\n{gap}\n  return %0 : {T}\n}}\n'
    _outcome(text)
    assert time.perf_counter() - start < 10


_CONFORMANCE = Path(os.environ.get("SHLO_CONFORMANCE",
                                   Path(__file__).resolve().parents[3] / "shared" / "conformance"))
CORPORA = [_CONFORMANCE / "testdata", Path("/tmp/hidden/testdata")]


@pytest.mark.parametrize("folder", CORPORA, ids=["testdata", "hidden"])
def test_fast_paths_agree_on_the_corpus(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every chunk of every corpus file reads the same with the fast paths on (from empty
    caches, then with them filled) and off: the same ops, locations, printed text (generic
    with locations, and pretty) or the same diagnostic."""
    from shlo_cli.commands.common import split_chunks
    from shlo_cli.ir.parse_caches import clear_parse_caches

    files = sorted(folder.rglob("*.mlir")) if folder.is_dir() else []
    if not files:
        pytest.skip(f"no corpus at {folder}")
    for path in files:
        text = path.read_text(encoding="utf-8")
        for chunk in split_chunks(text, "// -----" in text):
            clear_parse_caches()
            cold = _outcome(chunk.text, str(path), chunk.line_offset)
            slow = _slow(chunk.text, monkeypatch, str(path), chunk.line_offset)
            assert cold == slow, f"{path}:{chunk.line_offset}"
            assert _outcome(chunk.text, str(path), chunk.line_offset) == slow, path


@pytest.mark.parametrize("body", ["a" * 200_000, "-" * 200_000, '"' + "a" * 200_000,
                                  "- " * 100_000, '"\\' * 100_000, "x\n" * 100_000])
def test_balanced_end_fails_in_linear_time(body: str) -> None:
    """A bracket left open before a long tail is reported without a search restarting at
    every offset of the tail."""
    import time

    start = time.perf_counter()
    for open_ch, close_ch in (("<", ">"), ("{", "}"), ("(", ")")):
        with pytest.raises(Diagnostic):
            Parser(SourceFile("t", open_ch + body))._balanced_end(0, open_ch, close_ch)
    assert time.perf_counter() - start < 5


def test_skipped_text_is_read_as_runs_and_comments_read_whole() -> None:
    """The possessive `SKIP` (whitespace and comments, never given back) matches where and
    as the form reading each whitespace run and each comment whole matches, in the
    statement-head and token regexes, on random mixes of blanks, comments and tokens."""
    import random

    from shlo_cli.ir import lexer, parse_fast

    whole = r"(?:[ \t\r\n]+(?![ \t\r\n])|//[^\n]*(?![^\n]))*"
    pieces = [" ", "\t", "\r", "\n", "\n  ", "//", "// x", "// a // b", "/", "\v", "\f", "a",
              "%x", "%0:2", "= ", "}", '"s.t"', "loc", "func.return", "#", "^bb0", "{-#"]
    pairs = [(regex, re.compile(regex.pattern.replace(lexer.SKIP, whole, 1), regex.flags))
             for regex in (parse_fast.STATEMENT, lexer._TOKEN)]
    rng = random.Random(7)
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(8)))
        for fast, reference in pairs:
            for pos in {0, len(text) // 2}:
                got, want = fast.match(text, pos), reference.match(text, pos)
                assert (got is None) == (want is None), text
                if got is not None and want is not None:
                    assert (got.span(), got.groups(), got.lastindex) == (
                        want.span(), want.groups(), want.lastindex), text


def test_same_types_is_the_plain_comparison() -> None:
    """`same_types` (an index loop) says what comparing the value types to the list says,
    for equal and unequal lengths, identical and merely equal types."""
    import random

    from shlo_cli.ir.core import Value
    from shlo_cli.ir.parse_fast import same_types
    from shlo_cli.ir.types import F32, I32, TensorType

    kinds = [TensorType((4,), F32), TensorType((4,), F32), TensorType((4,), I32), F32]
    rng = random.Random(3)
    for _ in range(2000):
        values = [Value(rng.choice(kinds), None, i) for i in range(rng.randrange(4))]
        types = [rng.choice(kinds) for _ in range(rng.randrange(4))]
        expected = [v.type for v in values] == types
        assert same_types(values, types) is expected
        assert same_types(values, tuple(types)) is expected


GENERIC_TYPES = [
    f"({T}, {T}) -> {T}",
    f"({T}, {T}) -> ({T})",
    f"({T},{T})->{T}",
    f"({T}, {T}) -> tensor<4xi32>",
    f"({T}, tensor<4xf64>) -> {T}",
    f"({T}, {T}) -> ({T}) -> {T}",
    f"({T}, {T}) // c\n -> {T}",
    f"({T}) -> {T}",
    f"({T}, {T}) -> tensor<4x!quant.uniform<i8:f32, 0.5>>",
    f"({T}, {T}) -> tensor<4xfoo>",
    f"({T}, {T}) {T}",
]


@pytest.mark.parametrize("ftype", GENERIC_TYPES)
def test_generic_op_types_read_by_regex_as_by_tokens(ftype: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A generic op's function type read by the fast paths' regex (`cached_function`, and
    `function_type` after `_generic_tail`'s) gives the op, or the diagnostic, that reading
    it token by token gives."""
    from shlo_cli.ir import parse_fast, parse_generic

    text = f'{HEAD}  %0 = "stablehlo.add"(%a, %b) : {ftype}\n  return %a : {T}\n}}\n'
    _outcome(text)  # the types cached
    with monkeypatch.context() as m:
        m.setattr(parse_generic, "cached_function", lambda src, pos: None)
        m.setattr(parse_fast, "function_type", lambda text: None)
        expected = _outcome(text)
    assert _outcome(text) == expected


def test_build_operation_makes_what_the_constructor_makes() -> None:
    """`Parser.build_operation` (by `new_operation`) gives the fields `Operation(...)` gives."""
    from shlo_cli.ir.attributes import StringAttr
    from shlo_cli.ir.core import Block, Location, Operation, Region
    from shlo_cli.ir.registry import lookup
    from shlo_cli.ir.types import F32

    parser = Parser(SourceFile("t", ""))
    location = Location("t", 1, 1)
    opdef = lookup("func.func")
    for operands, results, props, attrs, regions, successors in [
            ([], [], {}, {}, [], None), ([], [F32, F32], {}, {"a": StringAttr("x")}, [], []),
            ([], [F32], {"sym_name": StringAttr("f")}, {}, [Region([Block()])], [Block()])]:
        built = parser.build_operation("func.func", opdef, list(operands), list(results),
                                       dict(props), dict(attrs), list(regions), successors,
                                       location)
        regions = [Region([Block()]) for _ in regions]  # (a region has one parent)
        made = Operation("func.func", list(operands), list(results), dict(props), dict(attrs),
                         list(regions), successors, location, opdef)
        for field in Operation.__slots__:
            a, b = getattr(built, field), getattr(made, field)
            if field == "results":
                assert [(v.type, v.index, v.name_hint, v.use_order) for v in a] == [
                    (v.type, v.index, v.name_hint, v.use_order) for v in b]
                assert all(v.owner is built for v in a) and all(v.owner is made for v in b)
            elif field == "regions":
                assert len(a) == len(b) and all(r.parent is built for r in a)
            else:
                assert a == b, field


_HEADERS = ["()", "( )", "(\f)", "(, %a: tensor<f32>)", "(%a: tensor<f32>, )", "(%a: tensor<f32>)",
            "(\n  %a: tensor<f32>)", "(,)"]
_RESULTS = ["", " -> ()", " -> ( )", " -> (, tensor<f32>)", " -> (tensor<f32>, )",
            " -> (tensor<f32>)", " -> (,)"]


@pytest.mark.parametrize("results", _RESULTS)
@pytest.mark.parametrize("arguments", _HEADERS)
def test_func_header_lists_as_the_token_level_reader(arguments: str, results: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A header's argument and result lists read by the fast header reader only when blank
    or well-formed: a list starting with a comma is the token-level reader's error (it was
    read as an empty list)."""
    body = "  return\n" if not results.strip(" ->()") else \
        "  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n  return %0 : tensor<f32>\n"
    text = f"func.func @f{arguments}{results} {{\n{body}}}\n"
    fast = _outcome(text)
    from shlo_cli.dialects import func

    monkeypatch.setattr(func, "_fast_header", lambda p, pos=None: None)
    assert fast == _slow(text, monkeypatch)


_MODULE_HEADS = ["module @m attributes {a = 1 : i32} {\n", "module @m attributes {a = 2 : i32} {\n",
                 "module @m {\n", "module @n {\n", "module {\n", "module  {\n",
                 "module attributes {b = true} {\n", "module @m attributes {a = 1 : i32}{\n",
                 "module @m attributes {a = 1 : i32} {", "module @m attributes {a = 1 : i32} {-#\n",
                 "module @m attributes {a = 1 : i32} loc(unknown) {\n",
                 "module @m attributes {a = 1 : i32, a = 1 : i32} {\n",
                 'module @"m n" {\n', "module @m attributes {sym_name = \"x\"} {\n",
                 "%0 = module @m {\n", "module @m attributes {a = 1 : i32} // c\n {\n"]


@pytest.mark.parametrize("head", _MODULE_HEADS)
def test_module_heads_read_once_per_text_as_by_tokens(head: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A module head looked up by its text (read before, by this or another head text) gives
    the token-level reader's op or diagnostic; each op gets dictionaries of its own."""
    from shlo_cli.ir.parse_caches import clear_parse_caches

    body = f"  func.func @f(%a: {T}) -> {T} {{\n    return %a : {T}\n  }}\n}}\n"
    text = head + body
    slow = _slow(text, monkeypatch)
    clear_parse_caches()
    for other in _MODULE_HEADS:  # every head text cached (the ones that read fast)
        _outcome(other + body)
        _outcome(other + body)
    for _ in range(2):
        assert _outcome(text) == slow
    if slow[0] != "error":
        first, second = parse_source(text), parse_source(text)
        assert first.op.attributes is not second.op.attributes
        assert first.op.properties is not second.op.properties
