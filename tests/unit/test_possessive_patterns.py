"""The parser's regexes with possessive runs (`lexer.possessive`, Python 3.11) match exactly
what their greedy forms (with the lookaheads that checked a run was read whole, as on older
Pythons) match: same span and groups, on random texts made of the pieces statements are
made of, at every offset."""

from __future__ import annotations

import random
import re
import sys
import types
from typing import Any

import pytest

from shlo_cli.ir import lexer, regex_programs, registry
from shlo_cli.ir.parser import parse_source

pytestmark = pytest.mark.skipif(not lexer.POSSESSIVE, reason="possessive runs: Python 3.11")

# The fragments as written before they were possessive, (possessive form, greedy form): each
# must be in use as it is here (a changed fragment is no longer replaced by its greedy form,
# and `test_every_form_is_in_use` fails).
_FORMS = [
    (r"tensor<(?:(?:[0-9]++|\?)x)*+(?:[A-Za-z][A-Za-z0-9]*+|complex<[a-z0-9]++>)>",
     r"tensor<(?:(?:[0-9]+|\?)x)*(?:[A-Za-z][A-Za-z0-9]*|complex<[a-z0-9]+>)>"),
    (r"%[A-Za-z0-9_$.\-]++(?:#[0-9]++)?+(?!#)",
     r"%[A-Za-z0-9_$.\-]+(?![A-Za-z0-9_$.\-])(?:#[0-9]+(?![0-9]))?(?!#)"),
    (r"%[A-Za-z0-9_$.\-]++(?!#)", r"%[A-Za-z0-9_$.\-]+(?![A-Za-z0-9_$.\-#])"),
    (r"@[A-Za-z_][A-Za-z0-9_$.\-]*+", r"@[A-Za-z_][A-Za-z0-9_$.\-]*(?![A-Za-z0-9_$.\-])"),
    (r"[A-Za-z_][A-Za-z0-9_$.]*+", r"[A-Za-z_][A-Za-z0-9_$.]*(?![A-Za-z0-9_$.])"),
    (r"[ \t\r\n]*+(?://[^\n]*+[ \t\r\n]*+)*+",
     r"(?:[ \t\r\n]+(?![ \t\r\n])|//[^\n]*(?![^\n]))*"),
]

_PIECES = [
    "%a", "%arg0", "%0", "%12", "#1", "#", "#x", "%x#2", "%x#2#", "%r:2", ":3", "%-", "%.",
    "tensor<", "4x", "?x", "x", "20x", "f32", "i1", "ui8", "complex<f64>", "complex<", ">",
    "<", ",", ", ", " ", "  ", "\n", "\t", ":", "::", "=", " = ", "@f", "@", "@_g.1", "(", ")",
    " -> ", "->", "-", "{", "}", "[", "]", "stablehlo.add", "return", '"', '"x"', '"a\\"b"',
    "1", "-2", "0x1F", "1.5e3", "1234567890123456789012", " : i32", "true", "false",
    "// c\n", "//", "^bb0", "dims", "private", "attributes", "a = 1 : i64", "k = \"v\"", "dense<",
]

_TYPICAL = [
    "%3 = stablehlo.add %1, %2 : tensor<4xf32>\n",
    "  %r:2 = stablehlo.foo %a#1, %b : (tensor<2x?xf32>, tensor<complex<f64>>) -> tensor<i1>",
    '  func.func private @f(%arg0: tensor<3xf64> {a = "x"}) -> (tensor<3xf64> {b = 1 : i32}) {',
    "  return %0, %1 : tensor<f32>, tensor<4xi32>\n  }",
    '  %0 = "stablehlo.add"(%a, %b) <{x = true}> : (tensor<f32>, tensor<f32>) -> tensor<f32>',
    "^bb1(%x: tensor<f32>, %y: tensor<2xi64>):\n  %c = stablehlo.constant dense<1> : tensor<i64>",
    "%5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2xf32>) -> tensor<2x3xf32>",
    "%4 = call @g(%1) {k = true} : (tensor<f32>) -> (tensor<f32>, tensor<1x2xf32>)",
]


def greedy(pattern: str) -> str:
    """`pattern` with its possessive parts in their greedy forms: the `_FORMS` replaced, and the
    `+` dropped after every `*`, `+`, `?` or `}` quantifier (outside character classes)."""
    for new, old in _FORMS:
        pattern = pattern.replace(new, old)
    out = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern.startswith("]", i + 1) or pattern.startswith("^]", i + 1):
                out.append(pattern[i:i + 2])
                i += 2
                continue
        elif c == "+" and out and out[-1] in ("*", "+", "?", "}") and not (
                out[-1] == "?" and len(out) > 1 and out[-2] == "("):
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _all_patterns() -> list[tuple[str, int]]:
    """Every pattern compiled through `regex_programs` with a possessive part, lazy ones and
    each op's compiled format included."""
    registry.ensure_loaded()
    parse_source("func.func @f() {\n  return\n}\n")
    for module in list(sys.modules.values()):
        if not module.__name__.startswith("shlo_cli"):
            continue
        for value in list(vars(module).values()):
            items = value.values() if isinstance(value, dict) else (
                value if isinstance(value, tuple) else (value,))
            for item in list(items):
                if isinstance(item, lexer._LazyPattern):
                    item.pattern  # noqa: B018  (compiles it)
    for opdef in registry.all_ops().values():
        resolver = getattr(opdef.syntax, "fast_parser", None)
        if isinstance(resolver, types.MethodType):
            resolver()
    return sorted((p, f) for p, f in regex_programs.requested()
                  if re.search(r"[*+?}]\+", p))


_PATTERNS = _all_patterns()


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = list(_TYPICAL)
    for _ in range(400):
        texts.append("".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 12))))
    for text in _TYPICAL:  # typical statements with one character dropped, doubled or changed
        for _ in range(60):
            i = rng.randrange(len(text))
            edit = rng.choice(["", text[i] * 2, rng.choice(" ,:%#<>x0a-(){}\n")])
            texts.append(text[:i] + edit + text[i + 1:])
    return texts


def _differences(fast: re.Pattern[str], slow: re.Pattern[str], seed: int) -> list[Any]:
    """The (text, offset) pairs where the two patterns match differently."""
    found = []
    for text in _texts(seed):
        for pos in range(len(text) + 1):
            a, b = fast.match(text, pos), slow.match(text, pos)
            if (a and (a.span(), a.groups())) != (b and (b.span(), b.groups())):
                found.append((text, pos))
    return found


def test_every_form_is_in_use() -> None:
    found = "\n".join(p for p, _ in _PATTERNS)
    for possessive_form, _ in _FORMS:
        assert possessive_form in found
    assert r"(%[A-Za-z0-9_$.\-]++(?:\#[0-9]++)?+)" in found  # the lexer's value token
    assert "(?>" not in found  # (an atomic group has no greedy form here)
    assert len(_PATTERNS) >= 40


@pytest.mark.parametrize(("pattern", "flags"), _PATTERNS)
def test_possessive_pattern_matches_as_its_greedy_form(pattern: str, flags: int) -> None:
    slow = re.compile(greedy(pattern), flags)
    assert slow.pattern != pattern
    assert _differences(re.compile(pattern, flags), slow, len(pattern)) == []


@pytest.mark.parametrize(("right", "wrong"), [
    (lexer.VALUE, lexer.VALUE.replace("(?!#)", "")),  # `%a#1#` read as `%a#1`
    (lexer.TENSOR, lexer.TENSOR.replace("(?:[A-Za-z]", "(?>[A-Za-z]")),  # complex never tried
    (lexer.TENSOR, lexer.TENSOR.replace(r"x)*+", r"x)?+")),  # one dimension at most
])
def test_a_wrong_possessive_form_is_caught(right: str, wrong: str) -> None:
    """The comparison fails on a possessive form whose matches are not the greedy form's."""
    assert wrong != right
    assert _differences(re.compile(wrong), re.compile(greedy(right)), 7)


def test_greedy_forms_are_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """On Python 3.10 `possessive` gives the greedy text (what `greedy` makes of it)."""
    monkeypatch.setattr(lexer, "POSSESSIVE", False)
    for pattern in (lexer.TENSOR, r"(?:%[a-z]++)?+[0-9]{1,18}+(?:, x)*+"):
        assert lexer.possessive(pattern) == greedy(pattern)
        assert "++" not in lexer.possessive(pattern)
