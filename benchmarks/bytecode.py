"""Bytecode reader and writer throughput, against the text parser and printer on the same
modules (in-process, CPU time, best of interleaved rounds).

Two corpora: the conformance `testdata` programs (written as bytecode first), and the
upstream VHLO portable artifacts (`vhlo/*.mlir.bc`, read as shipped). Ratios below 1 mean
bytecode is faster than text.
"""

from __future__ import annotations

import glob
import os

from common import cpu_time, interleaved
from parse_print import load_chunks, parseable

from shlo_cli.formats import read_bytecode, write_bytecode
from shlo_cli.formats.bytecode.reader import bytecode_header
from shlo_cli.formats.portable import deserialize, serialize
from shlo_cli.ir.diagnostics import Diagnostic, ShloError
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _compare(label: str, modules: list, blobs: list[bytes], texts: list[str],
             headers: list[tuple[int, str]], ops: int) -> None:
    def parse_all() -> None:
        for text in texts:
            parse_source(text, "bench")

    def print_all() -> None:
        for m in modules:
            print_module(m)

    def print_located_all() -> None:  # what the bytecode carries: every op's location
        for m in modules:
            print_module(m, debuginfo=True)

    def read_all() -> None:
        for data in blobs:
            read_bytecode(data, "bench")

    def write_all() -> None:
        for m, (version, producer) in zip(modules, headers, strict=True):
            write_bytecode(m, version, producer)

    parse_t, print_t, located_t, read_t, write_t = interleaved(
        [parse_all, print_all, print_located_all, read_all, write_all], 3)
    size_text = sum(len(t.encode()) for t in texts)
    size_bc = sum(len(b) for b in blobs)
    print(f"{label}: {len(modules)} modules, {ops} ops; text {size_text / 1e6:.2f} MB, "
          f"bytecode {size_bc / 1e6:.2f} MB ({size_bc / size_text:.2f}x)")
    print(f"  read bytecode {read_t:.3f} s ({ops / read_t:,.0f} ops/s) vs parse text "
          f"{parse_t:.3f} s: {read_t / parse_t:.2f}x the parse time (goal <= 1)")
    print(f"  write bytecode {write_t:.3f} s ({ops / write_t:,.0f} ops/s) vs print text "
          f"{print_t:.3f} s: {write_t / print_t:.2f}x the print time (goal <= 1)")
    print(f"    the text without locations carries less than the bytecode; printed with them "
          f"(-mlir-print-debuginfo) it takes {located_t:.3f} s: write is "
          f"{write_t / located_t:.2f}x that")


def _serialize_line(texts: list[str], rounds: int = 2) -> None:
    """The portable-artifact path both ways. What `stablehlo-translate --serialize
    --target=current` does after parsing (legalize to VHLO, version it, write bytecode),
    against printing the same programs as text; and what `--deserialize` does with those
    artifacts (read bytecode, upgrade VHLO, legalize back to StableHLO), against parsing the
    same programs' text. The read/write lines above time the bytecode reader and writer alone,
    on the StableHLO module as parsed (`stablehlo-opt -emit-bytecode`); serializing rewrites
    the module, so each round parses fresh copies (untimed)."""
    kept = []
    for text in texts:  # the programs that serialize (the others fail with a diagnostic)
        try:
            serialize(parse_source(text, "bench"), "current")
        except (Diagnostic, ShloError):
            continue
        kept.append(text)
    printed = [parse_source(text, "bench") for text in kept]
    serialize_t = print_t = float("inf")
    for _ in range(rounds):
        fresh = [parse_source(text, "bench") for text in kept]
        serialize_t = min(serialize_t, cpu_time(
            lambda fresh=fresh: [serialize(m, "current") for m in fresh]))
        print_t = min(print_t, cpu_time(lambda: [print_module(m) for m in printed]))
    print(f"  serialize (StableHLO -> VHLO -> bytecode, --serialize --target=current) of the "
          f"{len(kept)} that serialize: {serialize_t:.3f} s vs print text {print_t:.3f} s: "
          f"{serialize_t / print_t:.2f}x the print time")
    artifacts = [serialize(parse_source(text, "bench"), "current") for text in kept]

    def deserialize_all() -> None:
        for data in artifacts:
            deserialize(data, "bench")

    def parse_all() -> None:
        for text in kept:
            parse_source(text, "bench")

    deserialize_t, parse_t = interleaved([deserialize_all, parse_all], rounds)
    print(f"  deserialize (bytecode -> VHLO -> StableHLO, --deserialize) of those artifacts: "
          f"{deserialize_t:.3f} s vs parse text {parse_t:.3f} s: "
          f"{deserialize_t / parse_t:.2f}x the parse time")


def run(root: str, profile: bool = False) -> None:
    del profile
    folder = os.path.join(root, "testdata")
    if os.path.isdir(folder):
        chunks, modules, _ = parseable(load_chunks(folder))
        texts = [text for _, text, _ in chunks]
        blobs = [write_bytecode(m) for m in modules]
        ops = sum(sum(1 for _ in m.op.walk()) - 1 for m in modules)
        _compare("testdata", modules, blobs, texts, [(6, "bench")] * len(modules), ops)
        _serialize_line(texts)
    else:
        print(f"bytecode testdata: skipped (no {folder})")
    files = sorted(glob.glob(os.path.join(root, "vhlo", "*.mlir.bc")))
    blobs, modules, headers = [], [], []
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        try:
            modules.append(read_bytecode(data, path))
        except Diagnostic:
            continue
        blobs.append(data)
        headers.append(bytecode_header(data) or (6, ""))
    if not modules:
        print("bytecode vhlo: skipped (no readable artifacts)")
        return
    texts = [print_module(m, generic=True) for m in modules]
    ops = sum(sum(1 for _ in m.op.walk()) - 1 for m in modules)
    _compare("vhlo artifacts", modules, blobs, texts, headers, ops)
