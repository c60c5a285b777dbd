"""Patterns built from saved regex programs are the patterns `re.compile` makes."""

from __future__ import annotations

import glob
import marshal
import os
import re
from pathlib import Path

import pytest

from shlo_cli import regex_programs_build
from shlo_cli.ir import regex_programs

_CONFORMANCE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared",
                            "conformance", "testdata")


def _sample_texts() -> list[str]:
    """Lines of real programs and a program in generic form."""
    texts = []
    for path in sorted(glob.glob(os.path.join(_CONFORMANCE, "*.mlir")))[::60]:
        with open(path, encoding="utf-8") as f:
            texts.extend(line[:2000] + "\n" for line in f)
    texts.append('func.func @f(%a: tensor<2xf32> {x = "y"}) -> tensor<2xf32> {\n'
                 '  %0 = "stablehlo.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> '
                 "tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n// -----\n")
    return texts


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> dict:
    regex_programs_build._import_everything()
    regex_programs_build._compile_lazy_patterns()
    regex_programs_build._build_fast_parsers()
    path = str(tmp_path_factory.mktemp("programs") / "table.marshal")
    assert regex_programs_build.write_table(path) > 30
    with open(path, "rb") as f:
        key, programs = marshal.loads(f.read())
    assert key == regex_programs.engine_key()
    return programs


def test_saved_programs_match_like_re_compile(table: dict,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regex_programs, "_TABLE", table)
    texts = _sample_texts()
    matched = 0
    for (pattern, flags), _ in table.items():
        ours, theirs = regex_programs.compile(pattern, flags), re.compile(pattern, flags)
        assert ours is not theirs
        assert (ours.pattern, ours.flags, ours.groups, ours.groupindex) == \
            (theirs.pattern, theirs.flags, theirs.groups, theirs.groupindex)
        for text in texts:
            for pos in {0, text.find("=") + 1, text.find("%"), text.find("(")}:
                a, b = ours.match(text, max(pos, 0)), theirs.match(text, max(pos, 0))
                assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), \
                    (pattern, text, pos)
                matched += a is not None
    assert matched > 1000  # the samples exercise the patterns


def test_a_table_from_another_python_is_not_used(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pattern = r"(a+)(b)"
    wrong = regex_programs.program(r"(x)")  # a program that would match something else
    path = tmp_path / "table.marshal"
    path.write_bytes(marshal.dumps((("another python", 0, 4), {(pattern, 0): wrong})))
    monkeypatch.setattr(regex_programs, "table_path", lambda: str(path))
    monkeypatch.setattr(regex_programs, "_TABLE", None)
    assert regex_programs.compile(pattern).match("aab").groups() == ("aa", "b")


def test_no_table_or_an_unreadable_one_compiles_anew(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "table.marshal"
    monkeypatch.setattr(regex_programs, "table_path", lambda: str(path))
    for content in (None, b"not marshal"):
        if content is not None:
            path.write_bytes(content)
        monkeypatch.setattr(regex_programs, "_TABLE", None)
        assert regex_programs.compile(r"x(\d+)").match("x12").group(1) == "12"


def test_a_program_the_engine_refuses_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    flags, _, groups, groupindex, indexgroup = regex_programs.program(r"(q)")
    broken = (flags, b"\x01\x00", groups, groupindex, indexgroup)
    monkeypatch.setattr(regex_programs, "_TABLE", {(r"(q)", 0): broken})
    assert regex_programs.compile(r"(q)").match("q").group(1) == "q"


def test_escape_and_flags_are_re_s_own() -> None:
    """Modules name flags and escape text without importing `re`: the same values."""
    text = "".join(chr(c) for c in range(600)) + "tensor<2x?xf32> (a|b) [x]{1,2} $^.*+\\"
    assert regex_programs.escape(text) == re.escape(text)
    assert (regex_programs.IGNORECASE, regex_programs.MULTILINE, regex_programs.DOTALL,
            regex_programs.VERBOSE) == (re.IGNORECASE, re.MULTILINE, re.DOTALL, re.VERBOSE)
