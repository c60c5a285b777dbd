"""`ir.lexer.lazy_regex`: a module-level pattern compiled on first use behaves as the
compiled pattern (methods and `groups`), and compiles once."""

from __future__ import annotations

import re

from shlo_cli.ir.lexer import lazy_regex


def test_lazy_pattern_matches_like_the_compiled_one(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *a: calls.append(a) or real(*a))
    pattern = lazy_regex(r"(a+)(b)?")
    assert calls == []  # nothing compiled yet
    m = pattern.match("aab")
    assert m is not None and m.groups() == ("aa", "b")
    assert pattern.groups == 2 and pattern.fullmatch("ab") and not pattern.search("xyz")
    assert [x.group(1) for x in pattern.finditer("ab-aa")] == ["a", "aa"]
    assert len(calls) == 1
