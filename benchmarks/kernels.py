"""Kernel throughput through the real interpreter (issue 3).

Each elementwise op runs as a one-op program on 1M-element tensors via the Python API
(`shlo_cli.interpret`, which binds and runs the engine's plan), and is compared with the plain
numpy operation on the same arrays in the same process: the ratio is the interpreter's
overhead, comparable across machines (a fixed per-call cost, printed too, plus what the spec
asks beyond numpy: exponential runs in double and rounds once, f32 -> i32 saturates). A
10,000-iteration `while` of scalar ops measures the per-op dispatch cost against the same
loop in plain Python on numpy 0-d arrays.
"""

from __future__ import annotations

import cProfile
import pstats
from collections.abc import Callable

import numpy as np
from common import interleaved

import shlo_cli
from shlo_cli.ir.parser import parse_source

N = 1 << 20  # elements per tensor
REPEAT = 20  # calls per measurement
ITERATIONS = 10_000
WHILE_OPS_PER_ITERATION = 4  # compare in cond; add, multiply, add in the body

# (label, op text, operand count, element type, result element type, numpy baseline)
CASES: list[tuple[str, str, int, str, str, Callable[..., np.ndarray]]] = [
    ("add f32", "stablehlo.add {0}, {1} : {t}", 2, "f32", "f32", np.add),
    ("add i32", "stablehlo.add {0}, {1} : {t}", 2, "i32", "i32", np.add),
    ("multiply f32", "stablehlo.multiply {0}, {1} : {t}", 2, "f32", "f32", np.multiply),
    ("multiply i32", "stablehlo.multiply {0}, {1} : {t}", 2, "i32", "i32", np.multiply),
    # numpy's fmod is a per-element libm call; the interpreter's f32 remainder is exact
    # whole-array arithmetic (dialects/stablehlo/float_remainder.py)
    ("remainder f32", "stablehlo.remainder {0}, {1} : {t}", 2, "f32", "f32", np.fmod),
    ("exponential f32", "stablehlo.exponential {0} : {t}", 1, "f32", "f32", np.exp),
    ("compare LT f32", "stablehlo.compare LT, {0}, {1} : ({t}, {t}) -> {r}", 2, "f32", "i1",
     np.less),
    ("compare LT i32", "stablehlo.compare LT, {0}, {1} : ({t}, {t}) -> {r}", 2, "i32", "i1",
     np.less),
    ("convert f32->i32", "stablehlo.convert {0} : ({t}) -> {r}", 1, "f32", "i32",
     lambda a: a.astype(np.int32)),
    ("convert i32->f32", "stablehlo.convert {0} : ({t}) -> {r}", 1, "i32", "f32",
     lambda a: a.astype(np.float32)),
]

WHILE_PROGRAM = f"""
func.func @main() -> (tensor<i32>, tensor<f32>) {{
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %limit = stablehlo.constant dense<{ITERATIONS}> : tensor<i32>
  %x0 = stablehlo.constant dense<1.0> : tensor<f32>
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %onef = stablehlo.constant dense<1.0> : tensor<f32>
  %i, %x = stablehlo.while(%ai = %zero, %ax = %x0) : tensor<i32>, tensor<f32>
  cond {{
    %lt = stablehlo.compare LT, %ai, %limit : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }} do {{
    %next = stablehlo.add %ai, %one : tensor<i32>
    %scaled = stablehlo.multiply %ax, %half : tensor<f32>
    %shifted = stablehlo.add %scaled, %onef : tensor<f32>
    stablehlo.return %next, %shifted : tensor<i32>, tensor<f32>
  }}
  func.return %i, %x : tensor<i32>, tensor<f32>
}}
"""


def _program(op_text: str, arity: int, element: str, result: str, size: int | None = None
             ) -> str:
    size = N if size is None else size
    t, r = f"tensor<{size}x{element}>", f"tensor<{size}x{result}>"
    names = [f"%a{i}" for i in range(arity)]
    params = ", ".join(f"{n}: {t}" for n in names)
    body = op_text.format(*names, t=t, r=r)
    return (f"func.func @main({params}) -> {r} {{\n  %0 = {body}\n"
            f"  func.return %0 : {r}\n}}\n")


def _inputs(element: str, arity: int, rng: np.random.Generator) -> list[np.ndarray]:
    if element == "f32":
        return [rng.uniform(-10, 10, N).astype(np.float32) for _ in range(arity)]
    return [rng.integers(-1000, 1000, N, dtype=np.int32) for _ in range(arity)]


def _repeat(fn: Callable[[], object]) -> Callable[[], None]:
    """`fn` run REPEAT times per measurement (one call of a fast op is too short to time)."""
    def run() -> None:
        for _ in range(REPEAT):
            fn()
    return run


def elementwise(rounds: int = 5) -> None:
    """Print elements/s of each op through the interpreter and its ratio to numpy's."""
    rng = np.random.default_rng(0)
    print(f"elementwise kernels on {N:,}-element tensors (best of {rounds} interleaved rounds):")
    print(f"  {'op':<18}{'interpreter':>16}{'numpy':>16}{'ratio':>8}")
    for label, op_text, arity, element, result, baseline in CASES:
        module = parse_source(_program(op_text, arity, element, result), "<bench>")
        args = _inputs(element, arity, rng)
        [ours] = shlo_cli.interpret(module, *args)
        # exp is computed in double and rounded once (as upstream), numpy's f32 exp may
        # differ in the last place; the others must agree exactly.
        assert np.allclose(ours, baseline(*args), rtol=1e-6, atol=0), label
        t_ours, t_np = interleaved([_repeat(lambda m=module, a=args: shlo_cli.interpret(m, *a)),
                                    _repeat(lambda b=baseline, a=args: b(*a))], rounds)
        t_ours, t_np = t_ours / REPEAT, t_np / REPEAT
        print(f"  {label:<18}{N / t_ours / 1e6:>11,.1f} M/s{N / t_np / 1e6:>11,.1f} M/s"
              f"{t_ours / t_np:>7.2f}x")


def call_overhead(rounds: int = 5) -> None:
    """Print the fixed cost of one `shlo_cli.interpret` call (a 1-element add): what the
    ratios above add to numpy's time on top of the kernel itself."""
    module = parse_source(_program(CASES[0][1], 2, "f32", "f32", size=1), "<one>")
    one = np.ones(1, np.float32)
    calls = 1000

    def run() -> None:
        for _ in range(calls):
            shlo_cli.interpret(module, one, one)

    seconds = interleaved([run], rounds)[0] / calls
    print(f"  fixed cost of one interpret() call (1-element add: verify, plan, argument "
          f"checks): {seconds * 1e6:.0f} us")


def _python_while() -> tuple[np.ndarray, np.ndarray]:
    """The same loop in plain Python on numpy 0-d arrays (what any per-op dispatch costs)."""
    i, x = np.array(0, np.int32), np.array(1.0, np.float32)
    one, limit = np.array(1, np.int32), np.array(ITERATIONS, np.int32)
    half, onef = np.array(0.5, np.float32), np.array(1.0, np.float32)
    while np.less(i, limit):
        i = np.add(i, one)
        x = np.add(np.multiply(x, half), onef)
    return i, x


def while_loop(rounds: int = 3, profile: bool = False) -> None:
    """Print iterations/s and ops/s of the scalar `while` loop and its ratio to Python's."""
    module = parse_source(WHILE_PROGRAM, "<bench-while>")
    i, x = shlo_cli.interpret(module)
    assert int(i) == ITERATIONS and float(x) == float(_python_while()[1])
    if profile:
        profiler = cProfile.Profile()
        profiler.runcall(shlo_cli.interpret, module)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    t_ours, t_py = interleaved([lambda: shlo_cli.interpret(module), _python_while], rounds)
    ops = ITERATIONS * WHILE_OPS_PER_ITERATION
    print(f"while loop, {ITERATIONS:,} iterations x {WHILE_OPS_PER_ITERATION} scalar ops "
          f"(best of {rounds}):")
    print(f"  interpreter: {t_ours:.3f} s, {ITERATIONS / t_ours:,.0f} iterations/s, "
          f"{ops / t_ours:,.0f} ops/s")
    print(f"  plain Python on numpy 0-d arrays: {t_py:.3f} s, {ITERATIONS / t_py:,.0f} "
          f"iterations/s, {ops / t_py:,.0f} ops/s; ratio {t_ours / t_py:.2f}x")


def run(profile: bool = False) -> None:
    elementwise()
    call_overhead()
    while_loop(profile=profile)
