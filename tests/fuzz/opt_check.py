"""Passes against the interpreter: a generated program with its inputs made constants, run
through one semantics-preserving pass, must give what the interpreter gave on the original.

With constant inputs the folders see every value (NaN, -0, infinities, integer extremes, empty
and 0-d tensors), so a folder that disagrees with the op's evaluator shows up. Results must
match bit for bit (NaNs as a class), within the inexact ops' tolerance.
"""

from __future__ import annotations

import json
import re
import zlib

import numpy as np
from gen_common import Program
from xla_compare import _close

OPT_PASSES = ["canonicalize", "stablehlo-aggressive-simplification",
              "stablehlo-aggressive-folder", "cse", "stablehlo-target-independent-optimization",
              "chlo-legalize-to-stablehlo", "stablehlo-complex-math-expander",
              "stablehlo-compatibility-expander{target=1.0.0}"]


def pass_for(program: Program) -> str:
    return OPT_PASSES[zlib.crc32(program.text.encode()) % len(OPT_PASSES)]


def _literal(array: np.ndarray) -> str:
    if array.dtype == np.bool_:
        return json.dumps(array.tolist())
    return '"0x' + np.ascontiguousarray(array).tobytes().hex().upper() + '"'


def constant_program(program: Program) -> str:
    """`program` with no arguments: each input a `stablehlo.constant` of its value."""
    lines = program.text.split("\n")
    header = re.match(r"func\.func @main\((.*)\) -> (.*) \{$", lines[0])
    assert header is not None, lines[0]
    params = re.findall(r"(%a\d+): (tensor<.*?>)(?=, %a|$)", header.group(1))
    consts = [f'  {name} = "stablehlo.constant"() {{value = dense<{_literal(np.asarray(x))}> : '
              f"{t}}} : () -> {t}" for (name, t), x in zip(params, program.inputs, strict=True)]
    return "\n".join([f"func.func @main() -> {header.group(2)} {{", *consts, *lines[1:]])


# Passes that apply upstream's add(X, 0) -> X (see xla_compare.DEVIATIONS).
ADD_ZERO_PASSES = {"stablehlo-aggressive-simplification",
                   "stablehlo-target-independent-optimization"}


def zero_signs_only(got: np.ndarray, ours: np.ndarray) -> bool:
    """Whether the two results differ, and only where both are zeros of opposite sign."""
    try:
        wide = np.complex128 if np.iscomplexobj(ours) else np.float64
        a, b = got.astype(wide).reshape(-1), ours.astype(wide).reshape(-1)
    except (TypeError, ValueError):
        return False
    parts = [(a.real, b.real), (a.imag, b.imag)] if wide is np.complex128 else [(a, b)]
    differ = np.zeros(a.shape, bool)
    for x, y in parts:
        same = ((x == y) & (np.signbit(x) == np.signbit(y))) | (np.isnan(x) & np.isnan(y))
        differ |= ~same
        if not np.all((x[~same] == 0) & (y[~same] == 0)):
            return False
    return bool(differ.any())


def check(program: Program, ours: np.ndarray, pass_name: str) -> str:
    """'' when the optimized constant program gives `ours`; 'deviation NAME' when it differs
    only as a documented upstream pass behaviour does; else what differs."""
    import shlo_cli
    from shlo_cli.ir.parser import parse_source
    from shlo_cli.ir.printer import print_module
    from shlo_cli.ir.verifier import verify_module
    from shlo_cli.passes import run_passes

    module = parse_source(constant_program(program), "opt.mlir")
    verify_module(module)
    name, _, options = pass_name.partition("{")
    run_passes(module, [(name, options.rstrip("}"))], verify_module)
    text = print_module(module)
    (got,) = shlo_cli.interpret(text, memory_limit=256 << 20, max_iterations=100000)
    got, ours = np.asarray(got), np.asarray(ours)
    if got.shape != ours.shape or got.dtype != ours.dtype:
        return f"--{pass_name}: {got.dtype}{got.shape} vs interpreted {ours.dtype}{ours.shape}"
    if got.size == 0 or bool(np.all(_close(got, ours, program.op))):
        return ""
    if pass_name in ADD_ZERO_PASSES and zero_signs_only(got, ours):
        return "deviation upstream-add-zero"
    bad = np.flatnonzero(~_close(got, ours, program.op))
    i = int(bad[0])
    return (f"--{pass_name}: element {i}: optimized {got.reshape(-1)[i]!r} vs interpreted "
            f"{ours.reshape(-1)[i]!r} ({bad.size} of {got.size} differ)")
