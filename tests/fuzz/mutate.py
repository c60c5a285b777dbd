"""Mutation fuzzing of upstream's .mlir files: parse, verify, print, opt and interpret.

Each case takes one `// -----` chunk of a file under the conformance folder, applies 1-3
mutations (tokens deleted, duplicated, swapped or replaced; numbers, shapes, element types
and attribute names replaced; lines deleted or duplicated) and runs it through every stage
in-process with a per-stage time limit: parse, verify, print (custom and generic), reparse,
serialize to a portable artifact for a random target and deserialize it (and a corrupted
copy of it), one random registered pass, interpret. Anything but a pass or a diagnostic is
a failure.

    python tests/fuzz/mutate.py --cases 10000 --seed 1 [CONFORMANCE_DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

# One BLAS thread per fuzz process: the case limit is CPU time, and idle BLAS threads spinning
# on an oversubscribed machine would bill it for work nobody did.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import Tally, run_case  # noqa: E402

DEFAULT_CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance"

TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[%@#!^][\w.$#-]+|0x[0-9a-fA-F]+'
                   r'|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|[A-Za-z_][\w.$-]*|->|\S')
NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|0x[0-9a-fA-F]+")
DIMS = re.compile(r"(?<=[<x])\d+(?=x)")
ELEMENT = re.compile(r"\b(?:f16|bf16|f32|f64|i1|i4|i8|i16|i32|i64|ui8|ui16|ui32|ui64"
                     r"|f8E4M3FN|f8E5M2|complex<f32>|complex<f64>|index)\b")
ATTR_NAME = re.compile(r"\b[a-z_]+(?= = )")

NUMBERS = ["0", "-1", "1", "2", "3", "-0.0", "1e39", "0x7FC00000", "0xFFFFFFFF", "nan",
           "9223372036854775807", "-9223372036854775808", "18446744073709551616",
           "4294967295", "100000", "1e-46", "0.5", "65536", "-2", "7"]
DIM_VALUES = ["0", "1", "2", "3", "5", "7", "16", "1000000000", "99999999999", "?"]
ELEMENTS = ["f16", "bf16", "f32", "f64", "i1", "i4", "i8", "i32", "i64", "ui8", "ui32", "ui64",
            "f8E4M3FN", "complex<f32>", "complex<f64>", "index", "tensor<f32>", "!stablehlo.token"]
ATTR_NAMES = ["dimensions", "dims", "broadcast_dimensions", "comparison_direction", "slice_sizes",
              "window_dimensions", "padding", "edge_padding_low", "iota_dimension", "start_indices",
              "limit_indices", "strides", "permutation", "dimension", "is_stable", "precision"]

# Passes that refuse to run without an option: the option text each case gives them.
PASS_OPTIONS = {"stablehlo-compatibility-expander": ["target=1.0.0", "target=1.4.0"],
                "vhlo-to-version": ["target=current", "target=minimum", "target=1.0.0"]}


def pass_names() -> list[str]:
    """Every pass `stablehlo-opt` offers (each case runs one, with its default options or one
    of PASS_OPTIONS)."""
    from shlo_cli.passes import PASSES

    return sorted(PASSES.names())


def pass_request(name: str, rng: random.Random) -> str | tuple[str, str]:
    return (name, rng.choice(PASS_OPTIONS[name])) if name in PASS_OPTIONS else name


def load_corpus(folder: Path) -> list[tuple[str, str]]:
    """(name, chunk text) for every `// -----` chunk of every .mlir file under `folder`."""
    chunks = []
    for path in sorted(folder.rglob("*.mlir")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for index, chunk in enumerate(re.split(r"^// -----.*$", text, flags=re.M)):
            if "func.func" in chunk or "module" in chunk:
                chunks.append((f"{path.relative_to(folder)}#{index}", chunk))
    return chunks


def mutate(text: str, rng: random.Random) -> str:
    """One random mutation of `text`."""
    kind = rng.choice(["delete", "duplicate", "swap", "replace", "number", "number", "dims",
                       "dims", "element", "element", "attr", "line_delete", "line_dup"])
    if kind in ("number", "dims", "element", "attr"):
        pattern = {"number": NUMBER, "dims": DIMS, "element": ELEMENT, "attr": ATTR_NAME}[kind]
        values = {"number": NUMBERS, "dims": DIM_VALUES, "element": ELEMENTS,
                  "attr": ATTR_NAMES}[kind]
        found = list(pattern.finditer(text))
        if found:
            m = rng.choice(found)
            return text[:m.start()] + rng.choice(values) + text[m.end():]
        kind = "replace"
    if kind in ("line_delete", "line_dup"):
        lines = text.split("\n")
        if len(lines) > 1:
            i = rng.randrange(len(lines))
            if kind == "line_delete":
                del lines[i]
            else:
                lines.insert(i, lines[i])
            return "\n".join(lines)
        kind = "delete"
    tokens = list(TOKEN.finditer(text))
    if not tokens:
        return text
    m = rng.choice(tokens)
    if kind == "delete":
        return text[:m.start()] + text[m.end():]
    if kind == "duplicate":
        return text[:m.end()] + " " + m.group() + text[m.end():]
    other = rng.choice(tokens)
    if kind == "swap" and other.start() != m.start():
        a, b = sorted((m, other), key=lambda t: t.start())
        if a.end() <= b.start():
            return (text[:a.start()] + b.group() + text[a.end():b.start()] + a.group()
                    + text[b.end():])
    return text[:m.start()] + other.group() + text[m.end():]


def zero_inputs(func: Any) -> list[np.ndarray]:
    """Inputs for the entry function: ones of each (static-ized) input type."""
    from shlo_cli.ir.types import TensorType, UnsupportedTypeError, numpy_dtype

    arrays = []
    for t in func.attr("function_type").value.inputs:
        shape = tuple(1 if d < 0 else d for d in t.shape) if isinstance(t, TensorType) else ()
        try:
            dtype = numpy_dtype(t.element) if isinstance(t, TensorType) else np.float32
        except UnsupportedTypeError:
            dtype = np.float32  # the interpreter reports the mismatch
        if int(np.prod(shape)) * np.dtype(dtype).itemsize > 64 << 20:
            shape = tuple(min(d, 1) for d in shape)  # too big to pass: the signature check fails
        arrays.append(np.ones(shape, dtype))
    return arrays


TARGETS = ["current", "minimum", "1.0.0", "1.4.0", "1.8.0"]


def corrupt(data: bytes, rng: random.Random) -> bytes:
    """1-3 byte changes of a portable artifact: a byte replaced, deleted or the tail cut."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if not out:
            break
        i = rng.randrange(len(out))
        kind = rng.choice(["set", "set", "delete", "truncate"])
        if kind == "set":
            out[i] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        elif kind == "delete":
            del out[i]
        else:
            del out[i:]
    return bytes(out)


def check_case(text: str, pass_name: str | tuple[str, str], tally: Tally, seconds: float,
               portable: tuple[str, int] | None = None) -> str:
    """All stages on one program; returns the worst outcome (and adds it to `tally`).
    `portable` = (target, seed): also serialize the printed program for that target,
    deserialize it, and deserialize a corrupted copy of the artifact (seeded)."""
    from shlo_cli.interpreter.engine import EvaluationError, entry_function
    from shlo_cli.interpreter.run import InterpretOptions, arrays_as_arguments, evaluate
    from shlo_cli.ir.diagnostics import Diagnostic, ShloError
    from shlo_cli.ir.parser import parse_source
    from shlo_cli.ir.printer import print_module
    from shlo_cli.ir.verifier import verify_module
    from shlo_cli.passes import run_passes

    def front() -> Any:
        module = parse_source(text, "fuzz.mlir")
        verify_module(module)
        printed = print_module(module)
        print_module(module, generic=True)
        reparsed = parse_source(printed, "printed.mlir")
        verify_module(reparsed)
        run_passes(reparsed, [pass_name], verify_module)
        print_module(reparsed)
        return module

    def round_trip(printed: str) -> None:
        from shlo_cli.formats.portable import deserialize, serialize

        assert portable is not None
        target, seed = portable
        data = serialize(parse_source(printed, "printed.mlir"), target)
        verify_module(deserialize(data, "artifact.mlirbc"))
        try:
            verify_module(deserialize(corrupt(data, random.Random(seed)), "bad.mlirbc"))
        except (Diagnostic, ShloError):
            pass  # a refused corrupt artifact is the expected outcome

    outcome, detail, module = run_case(front, seconds)
    if outcome == "pass" and portable is not None:
        # Its own stage: a program the target cannot express is a diagnostic here, and the
        # pass and the interpreter still run.
        printed = print_module(module)
        stage, stage_detail, _ = run_case(lambda: round_trip(printed), seconds)
        if stage in ("internal", "hang", "oom"):
            tally.add(stage, stage_detail, _signature(stage_detail) if stage == "internal"
                      else "")
            return stage
    if outcome == "pass" and module.functions():
        def interpret() -> Any:
            options = InterpretOptions(memory_limit=64 << 20, max_iterations=10000)
            arguments = None
            try:
                func = entry_function(module)
            except Exception:  # noqa: BLE001 - evaluate reports it as a diagnostic
                func = None
            if func is not None:
                try:
                    arguments = arrays_as_arguments(func, zero_inputs(func))
                except EvaluationError as e:  # what the API reports as a Diagnostic
                    raise Diagnostic(str(e)) from None
            devnull = open(os.devnull, "w")  # noqa: SIM115 - interpreter.print output
            try:
                return evaluate(module, arguments, options, stdout=devnull)
            finally:
                devnull.close()

        outcome, detail, _ = run_case(interpret, seconds)
    if outcome == "diagnostic" and "evaluat" not in detail:
        pass
    tally.add(outcome, detail, _signature(detail) if outcome == "internal" else "")
    return outcome


def _signature(detail: str) -> str:
    first = detail.splitlines()[0] if detail else ""
    return re.sub(r"\d+", "N", first)[:160]


def run(cases: int, seed: int, folder: Path, seconds: float = 5.0,
        verbose: bool = False, dump: list[int] | None = None) -> Tally:
    """Run `cases` mutated programs; `dump` lists case numbers to print instead of running."""
    corpus = load_corpus(folder)
    rng = random.Random(seed)
    tally = Tally()
    passes = pass_names()
    for index in range(cases):
        name, chunk = rng.choice(corpus)
        text = chunk
        for _ in range(rng.randint(1, 3)):
            text = mutate(text, rng)
        pass_name = pass_request(rng.choice(passes), rng)
        portable = (rng.choice(TARGETS), rng.randrange(2**32))
        if dump is not None:
            if index in dump:
                print(f"// case {index} from {name}, pass --{pass_name}, portable {portable}"
                      f"\n{text}")
            continue
        outcome = check_case(text, pass_name, tally, seconds, portable)
        if verbose and outcome in ("internal", "hang", "oom"):
            print(f"case {index} ({name}, seed {seed}): {outcome}: "
                  f"{tally.examples[outcome][-1][:300]}", file=sys.stderr)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=os.environ.get("CONFORMANCE",
                                                                     str(DEFAULT_CONFORMANCE)))
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0, help="time limit per stage")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--dump", type=int, action="append",
                        help="print case N's program instead of running (repeatable)")
    ns = parser.parse_args()
    start = time.monotonic()
    if ns.dump:
        run(max(ns.dump) + 1, ns.seed, Path(ns.folder), dump=ns.dump)
        return 0
    tally = run(ns.cases, ns.seed, Path(ns.folder), ns.seconds, ns.verbose)
    print(tally.summary(f"mutation fuzz (seed {ns.seed})"))
    print(f"  {time.monotonic() - start:.0f}s")
    return 1 if tally.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
