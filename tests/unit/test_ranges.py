"""Integer ranges in generated loops (interpreter/ranges.py): the versioned loop (counters
known from the condition and the entry values) gives the evaluator's results bit for bit
and type for type, whatever the entry values (negative, equal or not, at the type's edges:
the general version runs, wrap-around included), and the facts themselves are right."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import itertools
import re
import time
from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir import limits
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

# A fori_loop as JAX writes it: the while's index i, the step's own index j (stepped alike),
# x[j] with a negative j counted from the end, a product of the index that may wrap.
LOOP = """
func.func @main(%xs: tensor<8xf32>, %i0: tensor<{t}>, %j0: tensor<{t}>, %h0: tensor<f32>, %a0: tensor<{t}>) -> (tensor<{t}>, tensor<{t}>, tensor<f32>, tensor<{t}>) {{
  %r:4 = stablehlo.while(%i = %i0, %j = %j0, %h = %h0, %a = %a0) : tensor<{t}>, tensor<{t}>, tensor<f32>, tensor<{t}>
    cond {{
      %c = stablehlo.constant dense<{bound}> : tensor<{t}>
      %p = stablehlo.compare {direction}, {cond_operands}, {compare_type} : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }} do {{
      %s = stablehlo.constant dense<{step}> : tensor<{t}>
      %zero = stablehlo.constant dense<0> : tensor<{t}>
      %len = stablehlo.constant dense<8> : tensor<{t}>
      %i2 = stablehlo.add %i, %s : tensor<{t}>
      %j2 = stablehlo.add %s, %j : tensor<{t}>
      %neg = stablehlo.compare LT, %j, %zero, {compare_type} : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
      %jn = stablehlo.add %j, %len : tensor<{t}>
      %k = stablehlo.select %neg, %jn, %j : tensor<i1>, tensor<{t}>
      %x = stablehlo.dynamic_slice %xs, %k, sizes = [1] : (tensor<8xf32>, tensor<{t}>) -> tensor<1xf32>
      %xr = stablehlo.reshape %x : (tensor<1xf32>) -> tensor<f32>
      %m = stablehlo.multiply %h, %xr : tensor<f32>
      %h2 = stablehlo.add %m, %xr : tensor<f32>
      %jj = stablehlo.multiply %j, %i : tensor<{t}>
      %a2 = stablehlo.subtract %a, %jj : tensor<{t}>
      stablehlo.return %i2, %j2, %h2, %a2 : tensor<{t}>, tensor<{t}>, tensor<f32>, tensor<{t}>
    }}
  return %r#0, %r#1, %r#2, %r#3 : tensor<{t}>, tensor<{t}>, tensor<f32>, tensor<{t}>
}}
"""


def _program(t: str, bound: int, step: int, direction: str, flipped: bool) -> str:
    unsigned = t.startswith("ui")
    return LOOP.format(t=t, bound=bound, step=step, direction=direction,
                       cond_operands="%c, %i" if flipped else "%i, %c",
                       compare_type="UNSIGNED" if unsigned else "SIGNED")


def _run(text: str, args: list[Any], compiled: bool, monkeypatch: pytest.MonkeyPatch
         ) -> tuple[list[Any], list[str]]:
    return run_loops(text, args, compiled, monkeypatch)


CASES = [  # type, bound, step, direction, flipped (bound first), whether `a0 >= 0` is tested
    ("i32", 6, 1, "LT", False, True),
    ("i32", 5, 1, "GT", True, True),       # 5 > i
    ("i32", 2147483647, 1, "LT", False, True),
    ("i8", 127, 1, "LT", False, True),
    ("i8", 127, 7, "LT", False, False),    # 126 + 7 wraps: no lower bound
    ("i8", 3, -1, "GT", False, False),     # counting down: the duplicates only
    ("ui8", 250, 3, "LT", False, False),   # (unsigned: at least 0 anyway)
    ("i64", 4, 2, "LE", False, True),
]
_HOLDS = {"LT": lambda a, b: a < b, "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b}


def _stops(i: int, case: tuple[Any, ...], dtype: np.dtype) -> bool:
    """Whether the loop from index i ends within 300 steps (wrapping as the type does)."""
    _, bound, step, direction, flipped, _ = case
    for _ in range(300):
        if not (_HOLDS[direction](bound, i) if flipped else _HOLDS[direction](i, bound)):
            return True
        i = int(np.array(i + step).astype(dtype)) if dtype.kind == "u" else \
            int(np.array(i + step, np.int64).astype(dtype))
    return False


@pytest.mark.parametrize("case", CASES)
def test_versioned_loops_match_the_evaluator(case: tuple[Any, ...],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    t, bound, step, direction, flipped, lower = case
    text = _program(t, bound, step, direction, flipped)
    dtype = np.dtype({"i32": np.int32, "i8": np.int8, "ui8": np.uint8, "i64": np.int64}[t])
    info = np.iinfo(dtype)
    near = [info.min, info.min + 1, -9, -8, -3, -1, 0, 1, 2, 5, 100, 119, 126,
            bound - 2 * abs(step), bound - 1, bound, info.max - 1, info.max]
    entries = sorted({v for v in near if info.min <= v <= info.max})
    rng = np.random.default_rng(len(entries))
    xs = np.array([0.5, -0.0, np.nan, 1e-45, -3.0, np.inf, 2.0, 0.25], np.float32)
    pairs = [(i, j) for i, j in itertools.product(entries, entries) if _stops(i, case, dtype)]
    assert len(pairs) > 10
    for k in rng.choice(len(pairs), min(len(pairs), 30), replace=False):
        i0, j0 = pairs[k]
        for j in (i0, j0):  # equal entry values (the fast version), and not
            args = [xs, np.array(i0, dtype), np.array(j, dtype), np.float32(0.75),
                    np.array(int(rng.integers(info.min, info.max, endpoint=True)), dtype)]
            got, sources = _run(text, args, True, monkeypatch)
            want, _ = _run(text, args, False, monkeypatch)
            for a, b in zip(got, want, strict=True):
                assert type(a) is type(b), (i0, j)
                assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (i0, j)
    assert sources and "    if a1 == a0" in sources[0]
    assert ("a0 >= 0:" in sources[0]) == lower


def test_the_fast_version_drops_the_index_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """`i < 6` from 0: no wrap tests on the index, no negative-index select, no clamp."""
    text = _program("i32", 6, 1, "LT", False)
    args = [np.arange(8, dtype=np.float32), np.int32(0), np.int32(0), np.float32(1),
            np.int32(3)]
    _, sources = _run(text, args, True, monkeypatch)
    fast = sources[0].split("if a1 == a0 and a0 >= 0:")[1].split("\n    while True:")[0]
    assert "stop = a0 + ((5 - a0) // 1 + 1) * 1" in fast  # counted: no condition,
    assert fast.count("for a0 in range(a0, stop):") == 3  # (checked; not: NaN tested at the end)
    assert "a0 + " not in fast.split("for a0 in range")[1]  # the `for` steps the counter
    fast = fast.split(" != ")[0].split("for a0 in range")[1]  # (the step, before its NaN redo)
    assert re.search(r"wf_L0 = (\w+)\.tolist\(\) if 4 \* \(\(5 - a0\) // 1 \+ 1\) "
                     r">= \1\.size else _Items\(\1\)", sources[0])  # (6 steps at most)
    assert "L0[a0]" in fast and " else " not in fast  # (selects, clamps)
    assert fast.count("2147483647") == 1  # a - j * i: a is not bounded


def test_a_counter_stepped_by_a_carried_value_is_not_versioned(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Only constant steps: `i + a` keeps its wrap test and no entry test is made."""
    text = _program("i32", 6, 1, "LT", False).replace("%i2 = stablehlo.add %i, %s",
                                                      "%i2 = stablehlo.add %i, %a")
    args = [np.arange(8, dtype=np.float32), np.int32(0), np.int32(0), np.float32(1),
            np.int32(-2)]
    got, sources = _run(text, args, True, monkeypatch)
    want, _ = _run(text, args, False, monkeypatch)
    assert "if a1 == a0" not in sources[0]
    for a, b in zip(got, want, strict=True):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


SCAN_OUT = """
func.func @main(%xs: tensor<6x1x3xf32>, %i0: tensor<i32>, %n: tensor<i32>) -> (tensor<i32>, tensor<6x1x3xf32>) {
  %out0 = stablehlo.constant dense<0.0> : tensor<6x1x3xf32>
  %r:3 = stablehlo.while(%i = %i0, %x = %xs, %out = %out0) : tensor<i32>, tensor<6x1x3xf32>, tensor<6x1x3xf32>
    cond {
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %z = stablehlo.constant dense<0> : tensor<i32>
      %row = stablehlo.dynamic_slice %x, %i, %z, %z, sizes = [1, 1, 3] : (tensor<6x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x3xf32>
      %e = stablehlo.exponential %row : tensor<1x1x3xf32>
      %o = stablehlo.dynamic_update_slice %out, %e, %i, %z, %z : (tensor<6x1x3xf32>, tensor<1x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<6x1x3xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %x, %o : tensor<i32>, tensor<6x1x3xf32>, tensor<6x1x3xf32>
    }
  return %r#0, %r#2 : tensor<i32>, tensor<6x1x3xf32>
}
"""


@pytest.mark.parametrize("i0,n", [(0, 6), (0, 9), (-3, 4), (5, 6), (4, 2)])
def test_a_scan_writing_rows_at_its_counter(i0: int, n: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The output row write (dynamic_update_slice) takes the counter as a Python int: the
    counter stays one (a counted loop), with the evaluator's results, clamped writes
    included."""
    xs = np.arange(18, dtype=np.float32).reshape(6, 1, 3) - 7.5
    args = [xs, np.int32(i0), np.int32(n)]
    got, sources = _run(SCAN_OUT, args, True, monkeypatch)
    want, _ = _run(SCAN_OUT, args, False, monkeypatch)
    for a, b in zip(got, want, strict=True):
        assert type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()
    assert "a0 = int(a0)" in sources[0] and re.search(r"K\d+\(a2, \w+, a0, ", sources[0])


# x[2 - i] with JAX's negative-index select, on bf16 (whose element reads are not fused into
# Python reads; f16 for contrast): the select's pick is known (2 - i >= 0) but its result
# goes to the numpy dynamic_slice. Found by tests/fuzz/loops.py: the pick's predicate was dropped as unread, and
# the select still read it (KeyError from the frame).
PICKED_TO_NUMPY = """
func.func @main(%x: tensor<3x{e}>, %i0: tensor<i32>) -> (tensor<i32>, tensor<{e}>) {{
  %z = stablehlo.constant dense<0.0> : tensor<{e}>
  %r:3 = stablehlo.while(%i = %i0, %acc = %z, %xs = %x) : tensor<i32>, tensor<{e}>, tensor<3x{e}>
  cond {{
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %m = stablehlo.subtract %c2, %i : tensor<i32>
    %neg = stablehlo.compare LT, %m, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %w = stablehlo.add %m, %c3 : tensor<i32>
    %idx = stablehlo.select %neg, %w, %m : tensor<i1>, tensor<i32>
    %s = stablehlo.dynamic_slice %xs, %idx, sizes = [1] : (tensor<3x{e}>, tensor<i32>) -> tensor<1x{e}>
    %v = stablehlo.reshape %s : (tensor<1x{e}>) -> tensor<{e}>
    %a = stablehlo.add %acc, %v : tensor<{e}>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %a, %xs : tensor<i32>, tensor<{e}>, tensor<3x{e}>
  }}
  return %r#0, %r#1 : tensor<i32>, tensor<{e}>
}}
"""


@pytest.mark.parametrize("element", ["bf16", "f16"])
@pytest.mark.parametrize("i0", [0, 1, 2, 3, -2])
def test_a_known_pick_read_by_numpy(element: str, i0: int,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import ml_dtypes

    dtype = ml_dtypes.bfloat16 if element == "bf16" else np.float16
    text = PICKED_TO_NUMPY.format(e=element)
    args = [np.array([1.0, 2.0, 4.0], dtype), np.array(i0, np.int32)]
    fast, sources = _run(text, args, True, monkeypatch)
    slow, _ = _run(text, args, False, monkeypatch)
    assert any("if a0 >= 0" in s for s in sources)  # the versioned loop ran
    for a, b in zip(fast, slow, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_a_bound_read_from_outside_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The versioned loop's own condition reads an enclosing value (the bound, a function
    argument): it is read at the loop's entry for that version too."""
    text = _program("i32", 6, 1, "LT", False).replace(
        "      %c = stablehlo.constant dense<6> : tensor<i32>\n", "").replace(
        "%a0: tensor<i32>)", "%a0: tensor<i32>, %c: tensor<i32>)")
    xs = np.array([0.5, -0.0, np.nan, 1e-45, -3.0, np.inf, 2.0, 0.25], np.float32)
    for i0, j0, n in [(0, 0, 6), (2, 2, 100), (-3, -3, 4), (1, 0, 5), (7, 7, 3)]:
        args = [xs, np.int32(i0), np.int32(j0), np.float32(0.75), np.int32(-4), np.int32(n)]
        got, sources = _run(text, args, True, monkeypatch)
        want, _ = _run(text, args, False, monkeypatch)
        for a, b in zip(got, want, strict=True):
            assert type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()
    assert "    if a1 == a0" in sources[0]


def test_a_counted_loop_checks_the_cap_and_the_deadline(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """The counted loop's copy for runs that set checks counts its steps against the
    iteration cap and stops at the deadline, as the general loop does."""
    text = _program("i32", 2147483647, 1, "LT", False)
    _, sources = _run(text, [np.arange(8, dtype=np.float32), np.int32(2147483640),
                             np.int32(2147483640), np.float32(1), np.int32(3)], True,
                      monkeypatch)
    assert "for a0 in range(a0, stop):" in sources[0]
    interpreter = Interpreter(parse_source(text))
    main = interpreter.lookup_function("main")

    def run(i0: int) -> list[Any]:
        return interpreter.call(main, [np.arange(8, dtype=np.float32), np.int32(i0),
                                       np.int32(i0), np.float32(1), np.int32(3)])
    with np.errstate(all="ignore"):
        with limits.iteration_cap(7):
            assert int(run(2147483640)[0]) == 2147483647  # seven steps: the cap
        with limits.iteration_cap(6), pytest.raises(Diagnostic) as info:
            run(2147483640)
        assert "while loop exceeded 6 iterations" in str(info.value)
        interpreter.deadline, interpreter.time_limit = time.monotonic() + 0.05, 0.05
        with pytest.raises(Diagnostic) as info:
            run(0)  # 2**31 steps
    assert "timed out after 0.05 s" in str(info.value)


COUNTING = """
func.func @main(%i0: tensor<i32>, %x: tensor<f32>) -> (tensor<i32>, tensor<f32>) {
  %r:2 = stablehlo.while(%i = %i0, %h = %x) : tensor<i32>, tensor<f32>
    cond {
      %c = stablehlo.constant dense<7> : tensor<i32>
      %p = stablehlo.compare LT, %i, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %h : tensor<i32>, tensor<f32>
    }
  return %r#0, %r#1 : tensor<i32>, tensor<f32>
}
"""


@pytest.mark.parametrize("i0", [-2, 0, 3, 7, 9])
def test_a_loop_that_only_counts(i0: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A counted loop whose steps do nothing but count: its `for` statements' bodies are
    empty statements."""
    args = [np.int32(i0), np.float32(-0.0)]
    got, sources = _run(COUNTING, args, True, monkeypatch)
    want, _ = _run(COUNTING, args, False, monkeypatch)
    assert "for a0 in range(a0, stop):" in sources[0]
    for a, b in zip(got, want, strict=True):
        assert type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()
