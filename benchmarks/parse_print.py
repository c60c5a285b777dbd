"""Parser and printer throughput over the conformance `testdata` folder (in-process).

Reports ops/s for parsing (text -> IR) and printing (IR -> text), each also as a ratio
against a baseline measured in the same process on the same text: one pass of a plain `re`
tokenizer over every file (the least any tokenizing parser has to do), so the ratio is
comparable across machines. Files whose ops are not parseable yet are counted and skipped.
"""

from __future__ import annotations

import cProfile
import glob
import os
import pstats
import re

from common import interleaved

from shlo_cli.commands.common import split_chunks
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

_BASELINE_TOKEN = re.compile(
    r'\s+|//[^\n]*|"[^"\\]*(?:\\.[^"\\]*)*"|[%^@#!]?[A-Za-z0-9_$.\-]+|->|.', re.S)
GOAL_OPS_PER_SECOND = 30_000


def load_chunks(folder: str) -> list[tuple[str, str, int]]:
    """(name, text, line offset) of every chunk of every `.mlir` file in `folder`."""
    chunks = []
    for path in sorted(glob.glob(os.path.join(folder, "**", "*.mlir"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for chunk in split_chunks(text, "// -----" in text):
            chunks.append((path, chunk.text, chunk.line_offset))
    return chunks


def parseable(chunks: list[tuple[str, str, int]]) -> tuple[list, list, int]:
    """The chunks that parse now, their modules, and how many were skipped."""
    good, modules, skipped = [], [], 0
    for name, text, offset in chunks:
        try:
            modules.append(parse_source(text, name, line_offset=offset))
            good.append((name, text, offset))
        except Diagnostic:
            skipped += 1
    return good, modules, skipped


def run(root: str, profile: bool = False) -> None:
    folder = os.path.join(root, "testdata")
    if not os.path.isdir(folder):
        print(f"parser/printer: skipped (no {folder})")
        return
    chunks, modules, skipped = parseable(load_chunks(folder))
    ops = sum(sum(1 for _ in m.op.walk()) - 1 for m in modules)
    size = sum(len(t) for _, t, _ in chunks)
    print(f"corpus: {len(chunks)} chunks, {ops} ops, {size / 1e6:.1f} MB "
          f"({skipped} chunks skipped: custom syntax not registered)")

    def tokenize() -> None:
        for _, text, _ in chunks:
            for _ in _BASELINE_TOKEN.finditer(text):
                pass

    def parse_all() -> None:
        for name, text, offset in chunks:
            parse_source(text, name, line_offset=offset)

    def print_all() -> None:
        for m in modules:
            print_module(m)

    if profile:
        cProfile.runctx("parse_all()", globals(), locals(), "/tmp/shlo-parse.prof")
        pstats.Stats("/tmp/shlo-parse.prof").sort_stats("tottime").print_stats(25)
        cProfile.runctx("print_all()", globals(), locals(), "/tmp/shlo-print.prof")
        pstats.Stats("/tmp/shlo-print.prof").sort_stats("tottime").print_stats(25)
    # Interleaved rounds, best of each: a busy machine disturbs all three alike.
    base, parse_time, print_time = interleaved([tokenize, parse_all, print_all], 5)
    parse_rate = ops / parse_time
    print(f"baseline re tokenizer: {base:.3f} s ({ops / base:,.0f} ops/s equivalent)")
    verdict = "met" if parse_rate >= GOAL_OPS_PER_SECOND else "NOT met"
    print(f"parse: {parse_time:.3f} s, {parse_rate:,.0f} ops/s, "
          f"{parse_time / base:.2f}x the baseline tokenizer time "
          f"(goal {GOAL_OPS_PER_SECOND:,} ops/s: {verdict})")
    print(f"print: {print_time:.3f} s, {ops / print_time:,.0f} ops/s, "
          f"{print_time / base:.2f}x the baseline tokenizer time")
