"""Generated well-typed StableHLO programs, interpreted, and compared with XLA when jax is there.

`hypothesis` draws an op (elementwise unary/binary, compare, select, clamp, reductions, shape
ops, dot_general, convert, iota...), a dtype and shapes (rank 0-3, dims 0-3, so empty and 0-d
tensors are common) and inputs rich in edge values (signed zeros, NaN, inf, subnormals, integer
extremes). The program is interpreted in-process; an exception that is not a diagnostic, a
result of the wrong shape/dtype, a hang or a MemoryError is a failure. With jax installed the
same op runs on XLA CPU and every disagreement is listed by (op, dtype); the known, documented
deviations of XLA from the spec (xla_compare.DEVIATIONS, each with its reason) are counted
apart.

    python tests/fuzz/generate.py --programs 2000 --seed 1
"""

from __future__ import annotations

import argparse
import collections
import os
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
import opt_check  # noqa: E402
from gen_common import (  # noqa: E402
    ALL,
    COMPLEX,
    FLOATS,
    INTS,
    Program,
    draw_array,
    function,
    identity,
    is_float,
    np_dtype,
    ttype,
)
from gen_ops import GENERATORS as _GENERATORS1  # noqa: E402
from gen_ops2 import GENERATORS2  # noqa: E402
from harness import Tally, run_case  # noqa: E402

UNARY = {  # op -> element types it accepts
    "abs": FLOATS + INTS[:3] + COMPLEX, "negate": FLOATS + INTS + COMPLEX,
    "exponential": FLOATS + COMPLEX, "log": FLOATS + COMPLEX, "sqrt": FLOATS + COMPLEX,
    "rsqrt": FLOATS + COMPLEX, "tanh": FLOATS + COMPLEX, "sine": FLOATS + COMPLEX,
    "cosine": FLOATS + COMPLEX, "floor": FLOATS, "ceil": FLOATS, "sign": FLOATS + INTS[:3],
    "not": INTS + ["i1"], "logistic": FLOATS, "exponential_minus_one": FLOATS + COMPLEX,
    "log_plus_one": FLOATS + COMPLEX, "cbrt": FLOATS, "round_nearest_even": FLOATS,
    "round_nearest_afz": FLOATS, "popcnt": INTS, "count_leading_zeros": INTS,
    "is_finite": FLOATS, "tan": FLOATS + COMPLEX,
}
BINARY = {
    "add": ALL, "subtract": FLOATS + INTS + COMPLEX, "multiply": ALL, "divide": FLOATS + COMPLEX,
    "maximum": FLOATS + INTS + ["i1"], "minimum": FLOATS + INTS + ["i1"],
    "power": FLOATS + COMPLEX, "remainder": FLOATS, "and": INTS + ["i1"], "or": INTS + ["i1"],
    "xor": INTS + ["i1"], "atan2": FLOATS, "shift_left": INTS,
    "shift_right_logical": INTS, "shift_right_arithmetic": INTS,
}
GENERATORS = {**_GENERATORS1, **GENERATORS2}
DIRECTIONS = ["EQ", "NE", "LT", "LE", "GT", "GE"]
STRUCTURED = ["compare", "select", "clamp", "reduce_add", "reduce_max", "reduce_min",
              "transpose", "reverse", "broadcast_in_dim", "reshape", "slice", "concatenate",
              "pad", "convert", "dot_general", "iota", "reduce_window_max", "sort",
              *GENERATORS]

def program_strategy() -> Any:
    from hypothesis import strategies as st

    shapes = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)

    @st.composite
    def build(draw: Any) -> Program:
        op = draw(st.sampled_from(sorted(UNARY) + sorted(BINARY) + STRUCTURED))
        shape = draw(shapes)
        if op in UNARY:
            element = draw(st.sampled_from(UNARY[op]))
            rel = "i1" if op == "is_finite" else element
            if op == "abs" and element in COMPLEX:  # |z| is real
                rel = element[8:-1]
            t, r = ttype(shape, element), ttype(shape, rel)
            x = draw_array(draw, st, shape, element)
            text = function([(shape, element)], r,
                            [f'%r = "stablehlo.{op}"(%a0) : ({t}) -> {r}'])
            return Program(op, text, [x], element, None)
        if op in BINARY:
            element = draw(st.sampled_from(BINARY[op]))
            t = ttype(shape, element)
            xs = [draw_array(draw, st, shape, element) for _ in range(2)]
            text = function([(shape, element)] * 2, t,
                            [f'%r = "stablehlo.{op}"(%a0, %a1) : ({t}, {t}) -> {t}'])
            return Program(op, text, xs, element, None)
        element = draw(st.sampled_from([e for e in ALL if not (
            op in ("reduce_max", "reduce_min", "reduce_window_max", "sort", "clamp")
            and e in COMPLEX)]))
        return structured(draw, st, op, shape, element)

    return build()


def structured(draw: Any, st: Any, op: str, shape: tuple[int, ...], element: str) -> Program:
    if op in GENERATORS:
        if op in ("convolution", "dot_general_batched") and element == "i1":
            element = "i8"
        return GENERATORS[op](draw, st, shape, element)
    t = ttype(shape, element)
    x = draw_array(draw, st, shape, element)
    rank = len(shape)
    if op == "compare":
        d = draw(st.sampled_from(DIRECTIONS))
        kind = "FLOAT" if is_float(element) else ("UNSIGNED" if element.startswith("u")
                                                  or element == "i1" else "SIGNED")
        if element in COMPLEX:
            d, kind = draw(st.sampled_from(["EQ", "NE"])), "FLOAT"
        y = draw_array(draw, st, shape, element)
        r = ttype(shape, "i1")
        text = function([(shape, element)] * 2, r, [
            f'%r = "stablehlo.compare"(%a0, %a1) {{comparison_direction = '
            f'#stablehlo<comparison_direction {d}>, compare_type = '
            f'#stablehlo<comparison_type {kind}>}} : ({t}, {t}) -> {r}'])
        return Program(f"compare_{d}", text, [x, y], element, None)
    if op == "select":
        p = draw_array(draw, st, shape, "i1")
        y = draw_array(draw, st, shape, element)
        pt = ttype(shape, "i1")
        text = function([(shape, "i1"), (shape, element), (shape, element)], t, [
            f'%r = "stablehlo.select"(%a0, %a1, %a2) : ({pt}, {t}, {t}) -> {t}'])
        return Program(op, text, [p, x, y], element, None)
    if op == "clamp":
        lo, hi = draw_array(draw, st, shape, element), draw_array(draw, st, shape, element)
        text = function([(shape, element)] * 3, t, [
            f'%r = "stablehlo.clamp"(%a0, %a1, %a2) : ({t}, {t}, {t}) -> {t}'])
        return Program(op, text, [lo, x, hi], element, None)
    if op.startswith("reduce_") and op != "reduce_window_max":
        body = {"reduce_add": "add", "reduce_max": "maximum", "reduce_min": "minimum"}[op[:10]
                                                                                     if False
                                                                                     else op]
        dims = sorted(draw(st.sets(st.integers(0, max(rank - 1, 0)), max_size=rank))) \
            if rank else []
        out_shape = tuple(s for i, s in enumerate(shape) if i not in dims)
        r = ttype(out_shape, element)
        s = ttype((), element)
        init = identity(body, element)
        text = function([(shape, element), ((), element)], r, [
            '%r = "stablehlo.reduce"(%a0, %a1) ({', f'^bb0(%x: {s}, %y: {s}):',
            f'  %z = "stablehlo.{body}"(%x, %y) : ({s}, {s}) -> {s}',
            f'  "stablehlo.return"(%z) : ({s}) -> ()',
            f'}}) {{dimensions = array<i64{": " if dims else ""}{", ".join(map(str, dims))}>}}'
            f' : ({t}, {s}) -> {r}'])
        return Program(op, text, [x, init], element, None)
    if op == "reduce_window_max":
        win = tuple(draw(st.integers(1, max(d, 1))) if d else 1 for d in shape)
        out_shape = tuple(max(d - w + 1, 0) for d, w in zip(shape, win, strict=True))
        s = ttype((), element)
        r = ttype(out_shape, element)
        init = identity("maximum", element)
        text = function([(shape, element), ((), element)], r, [
            '%r = "stablehlo.reduce_window"(%a0, %a1) ({', f'^bb0(%x: {s}, %y: {s}):',
            f'  %z = "stablehlo.maximum"(%x, %y) : ({s}, {s}) -> {s}',
            f'  "stablehlo.return"(%z) : ({s}) -> ()',
            f'}}) {{window_dimensions = array<i64{": " if rank else ""}'
            f'{", ".join(map(str, win))}>}} : ({t}, {s}) -> {r}'])
        return Program(op, text, [x, init], element, None)
    if op == "transpose":
        perm = draw(st.permutations(list(range(rank)))) if rank else []
        r = ttype(tuple(shape[p] for p in perm), element)
        text = function([(shape, element)], r, [
            f'%r = "stablehlo.transpose"(%a0) {{permutation = array<i64'
            f'{": " if rank else ""}{", ".join(map(str, perm))}>}} : ({t}) -> {r}'])
        return Program(op, text, [x], element, None)
    if op == "reverse":
        dims = sorted(draw(st.sets(st.integers(0, max(rank - 1, 0)), max_size=rank))) \
            if rank else []
        text = function([(shape, element)], t, [
            f'%r = "stablehlo.reverse"(%a0) {{dimensions = array<i64'
            f'{": " if dims else ""}{", ".join(map(str, dims))}>}} : ({t}) -> {t}'])
        return Program(op, text, [x], element, None)
    if op == "broadcast_in_dim":
        out = (draw(st.integers(0, 3)),) + tuple(shape)
        r = ttype(out, element)
        dims = list(range(1, rank + 1))
        text = function([(shape, element)], r, [
            f'%r = "stablehlo.broadcast_in_dim"(%a0) {{broadcast_dimensions = array<i64'
            f'{": " if dims else ""}{", ".join(map(str, dims))}>}} : ({t}) -> {r}'])
        return Program(op, text, [x], element, None)
    if op == "reshape":
        n = int(np.prod(shape)) if shape else 1
        out = (n,) if draw(st.booleans()) else ((1, n) if n else (0, 2))
        r = ttype(out, element)
        text = function([(shape, element)], r, [f'%r = "stablehlo.reshape"(%a0) : ({t}) -> {r}'])
        return Program(op, text, [x], element, None)
    if op == "slice":
        starts = [draw(st.integers(0, d)) for d in shape]
        limits = [draw(st.integers(s, d)) for s, d in zip(starts, shape, strict=True)]
        strides = [draw(st.integers(1, 3)) for _ in shape]
        out = tuple(-(-(lim - s) // k) for s, lim, k in zip(starts, limits, strides, strict=True))
        r = ttype(out, element)

        def arr(v: list[int]) -> str:
            return "array<i64" + (": " + ", ".join(map(str, v)) if v else "") + ">"
        text = function([(shape, element)], r, [
            f'%r = "stablehlo.slice"(%a0) {{start_indices = {arr(starts)}, limit_indices = '
            f'{arr(limits)}, strides = {arr(strides)}}} : ({t}) -> {r}'])
        return Program(op, text, [x], element, None)
    if op == "concatenate" and rank:
        y = draw_array(draw, st, shape, element)
        dim = draw(st.integers(0, rank - 1))
        out = tuple(d * 2 if i == dim else d for i, d in enumerate(shape))
        r = ttype(out, element)
        text = function([(shape, element)] * 2, r, [
            f'%r = "stablehlo.concatenate"(%a0, %a1) {{dimension = {dim} : i64}} '
            f': ({t}, {t}) -> {r}'])
        return Program(op, text, [x, y], element, None)
    if op == "pad":
        lo = [draw(st.integers(-min(d, 1), 2)) for d in shape]
        hi = [draw(st.integers(-min(d, 1), 2)) for d in shape]
        inner = [draw(st.integers(0, 1)) for _ in shape]
        out = tuple(a + b + d + max(d - 1, 0) * i
                    for a, b, d, i in zip(lo, hi, shape, inner, strict=True))
        if any(o < 0 for o in out):  # the spec refuses a negative result dimension
            lo = hi = [0] * rank
            out = tuple(d + max(d - 1, 0) * i for d, i in zip(shape, inner, strict=True))
        r = ttype(out, element)
        s = ttype((), element)
        pv = draw_array(draw, st, (), element)

        def arr(v: list[int]) -> str:
            return "array<i64" + (": " + ", ".join(map(str, v)) if v else "") + ">"
        text = function([(shape, element), ((), element)], r, [
            f'%r = "stablehlo.pad"(%a0, %a1) {{edge_padding_low = {arr(lo)}, edge_padding_high'
            f' = {arr(hi)}, interior_padding = {arr(inner)}}} : ({t}, {s}) -> {r}'])
        return Program(op, text, [x, pv], element, None)
    if op == "convert":
        to = draw(st.sampled_from(ALL))
        r = ttype(shape, to)
        text = function([(shape, element)], r, [f'%r = "stablehlo.convert"(%a0) : ({t}) -> {r}'])
        return Program(f"convert_to_{to}", text, [x], element, None)
    if op == "dot_general" and element not in ("i1",):
        m, k, n = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 3))
        a, b = draw_array(draw, st, (m, k), element), draw_array(draw, st, (k, n), element)
        ta, tb, r = ttype((m, k), element), ttype((k, n), element), ttype((m, n), element)
        text = function([((m, k), element), ((k, n), element)], r, [
            f'%r = "stablehlo.dot_general"(%a0, %a1) {{dot_dimension_numbers = '
            f'#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>'
            f'}} : ({ta}, {tb}) -> {r}'])
        return Program(op, text, [a, b], element, None)
    if op == "sort" and rank:
        dim = draw(st.integers(0, rank - 1))
        s = ttype((), element)
        kind = "FLOAT" if is_float(element) else ("UNSIGNED" if element.startswith("u")
                                                  or element == "i1" else "SIGNED")
        text = function([(shape, element)], t, [
            '%r = "stablehlo.sort"(%a0) ({', f'^bb0(%x: {s}, %y: {s}):',
            f'  %z = "stablehlo.compare"(%x, %y) {{comparison_direction = '
            f'#stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type '
            f'{kind}>}} : ({s}, {s}) -> tensor<i1>',
            '  "stablehlo.return"(%z) : (tensor<i1>) -> ()',
            f'}}) {{dimension = {dim} : i64, is_stable = true}} : ({t}) -> {t}'])
        return Program(op, text, [x], element, None)
    # iota (also the fallback for ops that need rank >= 1 or a numeric type); not i1
    if element == "i1":
        element = "i8"
    if not rank:
        shape = (3,)
    t = ttype(shape, element)
    text = function([], t, [f'%r = "stablehlo.iota"() {{iota_dimension = 0 : i64}} : () -> {t}'])
    return Program("iota", text, [], element, None)


def run(programs: int, seed: int, seconds: float = 10.0, compare: bool = True,
        verbose: bool = False, optimize: bool = True,
        ) -> tuple[Tally, collections.Counter, collections.Counter]:
    """Generate and interpret `programs` programs; returns (tally, disagreements, deviations).
    Miscompiles (`optimize`: a pass changed a constant program's result) are counted among
    the disagreements, under `op/element --pass`."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    import shlo_cli

    xla = None
    if compare:
        try:
            from xla_compare import XlaReference
            xla = XlaReference()
        except ImportError:
            xla = None
    tally = Tally()
    disagreements: collections.Counter = collections.Counter()
    deviations: collections.Counter = collections.Counter()
    miscompiles = disagreements
    examples: dict[str, str] = {}

    @hseed(seed)
    @settings(max_examples=programs, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(program_strategy())
    def one(program: Program) -> None:
        outcome, detail, value = run_case(
            lambda: shlo_cli.interpret(program.text, *program.inputs, memory_limit=256 << 20,
                                       max_iterations=100000), seconds)
        if outcome == "pass":
            problem = _check_result(program, value)
            if problem:
                outcome, detail = "internal", problem
        if outcome == "pass" and optimize:
            # The same program with constant inputs through one pass: an exception there is
            # an internal error, a different result a miscompile (listed with the bugs).
            pass_name = opt_check.pass_for(program)
            stage, stage_detail, problem = run_case(
                lambda: opt_check.check(program, value[0], pass_name), seconds)
            if stage == "pass" and problem.startswith("deviation "):
                deviations[f"{program.op}/{program.element} --{pass_name}: "
                           f"{problem.split(' ', 1)[1]}"] += 1
            elif stage == "pass" and problem:
                key = f"{program.op}/{program.element} --{pass_name}"
                miscompiles[key] += 1
                if verbose and miscompiles[key] == 1:
                    print(f"MISCOMPILE {key}: {problem}\n{program.text}\n"
                          f"inputs={program.inputs!r}", file=sys.stderr)
            elif stage == "diagnostic":
                stage, stage_detail = "internal", f"--{pass_name}: {stage_detail}"
            if stage != "pass":
                outcome, detail = stage, f"--{pass_name}: {stage_detail}"
        tally.add(outcome, detail, f"{program.op}/{program.element}: {detail[:100]}"
                  if outcome != "pass" and outcome != "diagnostic" else "")
        if verbose and outcome == "diagnostic":
            print(f"diagnostic: {detail.splitlines()[0]}\n{program.text}", file=sys.stderr)
        if verbose and outcome in ("internal", "hang", "oom"):
            print(f"{outcome}: {detail}\n{program.text}\n{program.inputs}", file=sys.stderr)
        if outcome == "pass" and xla is not None:
            verdict = xla.compare(program, value[0])
            if verdict is not None:
                kind, note = verdict
                key = f"{program.op}/{program.element}"
                if kind == "deviation":
                    deviations[f"{key}: {note}"] += 1
                else:
                    disagreements[key] += 1
                    if key not in examples:
                        examples[key] = f"{note}\n{program.text}\ninputs={program.inputs!r}"
                        if verbose:
                            print(f"DISAGREE {key}: {examples[key]}", file=sys.stderr)

    one()
    tally.examples["disagreement"] = list(examples.values())
    return tally, disagreements, deviations


def _check_result(program: Program, value: Any) -> str:
    """The result must be one array of the declared type."""
    from shlo_cli.ir.parser import parse_source

    if len(value) != 1:
        return f"expected 1 result, got {len(value)}"
    func = parse_source(program.text, "gen.mlir").functions()[0]
    expected = func.attr("function_type").value.results[0]
    got = np.asarray(value[0])
    if tuple(got.shape) != tuple(expected.shape):
        return f"result shape {got.shape} for {expected}"
    if got.dtype != np_dtype(str(expected.element)):
        return f"result dtype {got.dtype} for {expected}"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-xla", action="store_true", help="skip the XLA comparison")
    parser.add_argument("-v", "--verbose", action="store_true")
    ns = parser.parse_args()
    start = time.monotonic()
    tally, disagreements, deviations = run(ns.programs, ns.seed, compare=not ns.no_xla,
                                           verbose=ns.verbose)
    print(tally.summary(f"generated programs (seed {ns.seed})"))
    print(f"  XLA disagreements: {sum(disagreements.values())} "
          f"(documented deviations: {sum(deviations.values())})")
    for key, count in disagreements.most_common():
        print(f"    {count:4d}x {key}")
    for key, count in deviations.most_common(30):
        print(f"    deviation {count:4d}x {key}")
    if deviations:
        from xla_compare import DEVIATIONS
        used = sorted({key.split(": ")[1] for key in deviations})
        print("  documented deviations seen:")
        for name in used:
            print(f"    {name}: {DEVIATIONS.get(name, '(not documented: a bug)')}")
    print(f"  {time.monotonic() - start:.0f}s")
    return 1 if tally.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
