"""Parser and printer throughput over the conformance `testdata` folder (in-process).

Ops are counted as every operation of every parsed chunk except the top-level
`builtin.module` (explicit or implicit): func.func, func.return, stablehlo.constant, ... each
count once, nested ops included. Parse time is `parse_source` on each chunk (lexing, types,
attributes, SSA resolution, IR construction; no verification), every chunk of the corpus in
one round that starts from empty parser caches (`ir.parse_caches`: type, dictionary and
header texts read before), as one fresh process reading the corpus would; print time is
`print_module`.

Most of the corpus' bytes are `dense<...>` literal bodies (8 of its 10.6 MB), so the parse is
also reported split: the time `ir.dense.parse_dense` takes on the same literal bodies
(timed on its own, in the same rounds) and the rest, the op-statement rate the goal is about.
Each time is also a ratio against a baseline measured in the same process on the same text:
one pass of a plain `re` tokenizer over every file (the least any tokenizing parser has to
do), so the ratio is comparable across machines. Chunks that do not parse are skipped.
"""

from __future__ import annotations

import cProfile
import glob
import os
import pstats
import re

from common import interleaved

from shlo_cli.commands.common import split_chunks
from shlo_cli.ir import parse_attributes
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parse_caches import clear_parse_caches
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

_BASELINE_TOKEN = re.compile(
    r'\s+|//[^\n]*|"[^"\\]*(?:\\.[^"\\]*)*"|[%^@#!]?[A-Za-z0-9_$.\-]+|->|.', re.S)
GOAL_OPS_PER_SECOND = 90_000  # op statements/s, dense literal decoding excluded


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


def dense_literals(chunks: list[tuple[str, str, int]]) -> list[tuple[str, object]]:
    """(body, type) of every `dense<...>` literal the parser decodes in a round over `chunks`
    that starts from empty parser caches, as each timed round does (a literal the caches
    let a round skip is not decoded there, so its time is not subtracted either)."""
    seen: list[tuple[str, object]] = []
    clear_parse_caches()
    decode = parse_attributes.parse_dense

    def record(body: str, type: object) -> object:
        seen.append((body, type))
        return decode(body, type)  # type: ignore[arg-type]

    parse_attributes.parse_dense = record  # type: ignore[assignment]
    try:
        for name, text, offset in chunks:
            parse_source(text, name, line_offset=offset)
    finally:
        parse_attributes.parse_dense = decode
    return seen


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

    literals = dense_literals(chunks)
    decode = parse_attributes.parse_dense

    def decode_dense() -> None:
        for body, type in literals:
            decode(body, type)  # type: ignore[arg-type]

    def tokenize() -> None:
        for _, text, _ in chunks:
            for _ in _BASELINE_TOKEN.finditer(text):
                pass

    def parse_all() -> None:
        clear_parse_caches()  # a round reads every text afresh, as a new process would
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
    base, parse_time, dense_time, print_time = interleaved(
        [tokenize, parse_all, decode_dense, print_all], 5)
    statements = parse_time - dense_time
    rate = ops / statements
    print(f"baseline re tokenizer: {base:.3f} s ({ops / base:,.0f} ops/s equivalent)")
    print(f"parse: {parse_time:.3f} s, {ops / parse_time:,.0f} ops/s, "
          f"{parse_time / base:.2f}x the baseline tokenizer time")
    verdict = "met" if rate >= GOAL_OPS_PER_SECOND else "NOT met"
    print(f"  dense literal decoding ({len(literals)} literals, "
          f"{sum(len(b) for b, _ in literals) / 1e6:.1f} MB): {dense_time:.3f} s; "
          f"op statements: {statements:.3f} s, {rate:,.0f} ops/s "
          f"(goal {GOAL_OPS_PER_SECOND:,} ops/s: {verdict})")
    print(f"print: {print_time:.3f} s, {ops / print_time:,.0f} ops/s, "
          f"{print_time / base:.2f}x the baseline tokenizer time")
