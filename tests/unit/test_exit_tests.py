"""While loops whose condition bounds a counter and tests something else too (an early
exit, `(i < n) & (abs(h) < 100)`: interpreter/exit_tests.py, ranges.cond_bounds): the
generated loop counts with a `for` statement and tests the rest after each step, with the
evaluator's results bit for bit and type for type, whatever the entry values (negative
or at the type's edge, zero trips, NaN, -0.0, infinities), early exits included; a
disjunction, or a test that reads the counter, is not split."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir import limits
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

# lax.while_loop(cond, body, (i, h, ys)) as JAX exports it: the condition's `&` of the
# counter's bound and a test of the state, the bool conversion's `!= false` glue between;
# the body reads xs[i] (a negative i counted from the end) and writes h into ys[i].
LOOP = """
func.func @main(%xs: tensor<8xf32>, %i0: tensor<i32>, %h0: tensor<f32>, %p: tensor<f32>) -> (tensor<i32>, tensor<f32>, tensor<8xf32>) {{
  %z8 = stablehlo.constant dense<0.0> : tensor<8xf32>
  %r:3 = stablehlo.while(%i = %i0, %h = %h0, %ys = %z8) : tensor<i32>, tensor<f32>, tensor<8xf32>
    cond {{
      %n = stablehlo.constant dense<{n}> : tensor<i32>
      %lim = stablehlo.constant dense<{lim}> : tensor<f32>
      %f = stablehlo.constant dense<false> : tensor<i1>
      %b = stablehlo.compare {counter_test} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %a = stablehlo.abs %h : tensor<f32>
      %t = stablehlo.compare LT, %a, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %fb = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<i1>) -> tensor<i1>
      %bb = stablehlo.compare NE, %b, %fb, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %bc = stablehlo.convert %bb : tensor<i1>{extra}
      %c = stablehlo.{combine} {operands} : tensor<i1>
      stablehlo.return %c : tensor<i1>
    }} do {{
      %one = stablehlo.constant dense<1> : tensor<i32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %len = stablehlo.constant dense<8> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      %neg = stablehlo.compare LT, %i, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %in = stablehlo.add %i, %len : tensor<i32>
      %k = stablehlo.select %neg, %in, %i : tensor<i1>, tensor<i32>
      %x = stablehlo.dynamic_slice %xs, %k, sizes = [1] : (tensor<8xf32>, tensor<i32>) -> tensor<1xf32>
      %xr = stablehlo.reshape %x : (tensor<1xf32>) -> tensor<f32>
      %m = stablehlo.multiply %p, %h : tensor<f32>
      %s = stablehlo.add %m, %xr : tensor<f32>
      %h2 = stablehlo.tanh %s : tensor<f32>
      %y = stablehlo.multiply %h2, %p : tensor<f32>
      %y1 = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %ys2 = stablehlo.dynamic_update_slice %ys, %y1, %i : (tensor<8xf32>, tensor<1xf32>, tensor<i32>) -> tensor<8xf32>
      stablehlo.return %i2, %h2, %ys2 : tensor<i32>, tensor<f32>, tensor<8xf32>
    }}
  return %r#0, %r#1, %r#2 : tensor<i32>, tensor<f32>, tensor<8xf32>
}}
"""
# The counter's bound, an extra conjunct (another bound, a test reading the counter),
# how the conjuncts combine; whether the loop is counted.
FORMS = {
    "and": ("LT, %i, %n, SIGNED", "", "and", "%bc, %t", True),
    "flipped": ("GT, %n, %i, SIGNED", "", "and", "%t, %bc", True),
    "two_bounds": ("LE, %i, %n, SIGNED",
                   "\n      %m5 = stablehlo.constant dense<5> : tensor<i32>"
                   "\n      %b5 = stablehlo.compare LT, %i, %m5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>"
                   "\n      %t5 = stablehlo.and %t, %b5 : tensor<i1>", "and", "%bc, %t5", True),
    "bits": ("LT, %i, %n, SIGNED",  # (a test of a NaN's bits)
             "\n      %q = stablehlo.constant dense<2143289344> : tensor<i32>"
             "\n      %two = stablehlo.constant dense<2.0> : tensor<f32>"
             "\n      %h2 = stablehlo.multiply %h, %two : tensor<f32>"
             "\n      %hb = stablehlo.bitcast_convert %h2 : (tensor<f32>) -> tensor<i32>"
             "\n      %bq = stablehlo.compare NE, %hb, %q, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>"
             "\n      %t5 = stablehlo.and %t, %bq : tensor<i1>", "and", "%bc, %t5", True),
    "or": ("LT, %i, %n, SIGNED", "", "or", "%bc, %t", False),
    "reads_counter": ("LT, %i, %n, SIGNED",
                      "\n      %m5 = stablehlo.constant dense<5> : tensor<i32>"
                      "\n      %b5 = stablehlo.compare NE, %i, %m5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>"
                      "\n      %t5 = stablehlo.and %t, %b5 : tensor<i1>", "and", "%bc, %t5", False),
}
XS = np.array([0.5, -0.0, np.nan, 1e-45, -3.0, np.inf, 2.0, 0.25], np.float32)


def _program(form: str, n: int, lim: float) -> str:
    test, extra, combine, operands, _ = FORMS[form]
    return LOOP.format(n=n, lim=f"{lim:e}", counter_test=test, extra=extra,
                       combine=combine, operands=operands)


def _outcome(text: str, args: list[Any], compiled: bool, cap: int | None,
             monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[str]] | str:
    """The results and sources (as run_loops), or the error a run under `cap` ends with."""
    with limits.iteration_cap(cap):
        try:
            return run_loops(text, args, compiled, monkeypatch)
        except Diagnostic as error:
            return str(error)


def _same(got: list[Any], want: list[Any], context: Any) -> None:
    for a, b in zip(got, want, strict=True):
        assert type(a) is type(b), context
        assert np.asarray(a).dtype == np.asarray(b).dtype, context
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), context


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("n,lim", [(8, 100.0), (6, 0.9), (8, 0.3), (2147483647, 0.95)])
def test_early_exits_match_the_evaluator(form: str, n: int, lim: float,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs that end within 40 steps (the evaluator's, under a cap) compared with no cap
    set (the unchecked loops), the others under the cap (the checked loops)."""
    text = _program(form, n, lim)
    rng = np.random.default_rng(n)
    starts = [-9, -3, -1, 0, 1, 3, 5, 7, 8, 9]
    if n > 8:
        starts = [2147483640, 2147483646, 2147483647, -2147483648, 0]
    states = [0.0, -0.0, 0.5, -0.95, 150.0, np.nan, -np.inf, 1e-40]
    sources: list[str] = []
    capped = 0
    for i0 in starts:
        for h0 in rng.choice(states, 3, replace=False):
            for xs in (XS, rng.standard_normal(8).astype(np.float32)):
                p = np.float32(rng.choice([0.5, -1.25, 2.0]))
                args = [xs, np.int32(i0), np.float32(h0), p]
                cap = None if isinstance(_outcome(text, args, False, 40, monkeypatch),
                                         tuple) else 40
                capped += cap is not None
                got = _outcome(text, args, True, cap, monkeypatch)
                want = _outcome(text, args, False, cap, monkeypatch)
                context = (form, i0, h0, xs, p)
                assert isinstance(got, tuple) == isinstance(want, tuple), context
                if isinstance(got, tuple) and isinstance(want, tuple):
                    _same(got[0], want[0], context)
                    sources = got[1] or sources
                else:
                    assert got == want, context
    counted = FORMS[form][4]
    assert sources and ("for a0 in range(a0, stop):" in sources[0]) == counted
    assert ("        a0 += 1\n" in sources[0]) == counted
    assert capped < len(starts) * 6


def test_the_counted_loop_tests_only_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The counted version's step reads xs[i] from a list, unclamped, with no wrap test
    on the counter; its exit test is the state's test alone, the counter leaving one step
    on; its `for` statement's `else` leaves it at the range's end."""
    text = _program("and", 8, 0.9)
    args = [XS, np.int32(0), np.float32(0.0), np.float32(0.5)]
    _, sources = run_loops(text, args, True, monkeypatch)
    fast = sources[0].split("    if a0 >= 0:\n")[1].split("\n    while True:")[0]
    assert "stop = a0 + ((7 - a0) // 1 + 1) * 1" in fast
    assert fast.count("for a0 in range(a0, stop):") == 3  # (checked; unchecked, NaN retry)
    assert fast.count("a0 += 1\n") == 3 and fast.count("a0 = stop") == 3
    assert "2147483647" not in fast and " else (" not in fast and ".item(" not in fast
    assert re.search(r"= wf_L0\[a0\]", fast)
    tests = re.findall(r"\n( +)a1 = wf_s\d+\n\1(cf_s\d+) = abs\(a1\)\n\1(cf_s\d+) = \2 < "
                       r"cf_P\d+\n\1if not \3:\n\1    a0 \+= 1\n\1    break\n", fast)
    assert len(tests) == 3  # (the state's test alone: no `a0 < 8`, no `!= false`, no `&`)


def test_a_test_of_bits_is_made_after_each_step_redone(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    """An exit test that may see a NaN's payload (a bitcast's line reads the bits of a
    Python float) reads the step's values with their NaN redos made: the loop for runs
    with no checks is not run first without them (to test for NaN at its end)."""
    args = [XS, np.int32(0), np.float32(0.0), np.float32(0.5)]
    _, sources = run_loops(_program("bits", 8, 0.9), args, True, monkeypatch)
    fast = sources[0].split("    if a0 >= 0:\n")[1].split("\n    while True:")[0]
    assert fast.count("for a0 in range(a0, stop):") == 2 and "entry = " not in fast
    _, sources = run_loops(_program("and", 8, 0.9), args, True, monkeypatch)
    assert "entry = " in sources[0]


def test_an_early_exit_under_the_iteration_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checked copy counts steps against the cap up to the early exit, not beyond."""
    text = _program("and", 2147483647, 0.95)
    interpreter = Interpreter(parse_source(text))
    main = interpreter.lookup_function("main")

    def run(x: float) -> list[Any]:
        xs = np.full(8, x, np.float32)
        return interpreter.call(main, [xs, np.int32(0), np.float32(0), np.float32(0.5)])
    with np.errstate(all="ignore"):
        with limits.iteration_cap(1):
            i, h, _ = run(3.0)  # h = tanh(0.5 h + 3): past 0.95 at the first step
            assert int(i) == 1 and float(h) > 0.95
        with limits.iteration_cap(3), pytest.raises(Diagnostic) as info:
            run(0.0)  # h stays 0: no exit
        assert "while loop exceeded 3 iterations" in str(info.value)
