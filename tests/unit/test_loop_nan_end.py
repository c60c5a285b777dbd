"""A counted loop on Python floats tests its carried floats for NaN once, at its end,
where every NaN that can reach its results reaches them as one (loopgen._nan_carriers):
a NaN at the end runs the steps again from the entry values, with the per-step redos that
pick numpy's NaN. The results are the evaluator's bit for bit, whatever NaNs (signs,
payloads) the inputs hold, whether a NaN stays to the end or is dropped on the way."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from loop_helpers import run_loops, run_with_sources


def _counted(carried: str, types: str, returned: str) -> str:
    """main(%xs: 16 x f32, then the carried values' entries) -> (their results): a
    16-step counted loop over `carried` (`%name = %entry, ...` of `types`), its body (one
    step's ops, `%one` defined) left open."""
    entries = ", ".join(f"{c.split(' = ')[1]}: tensor<{t}>"
                        for c, t in zip(carried.split(", "), types.split(", "), strict=True))
    results = ", ".join(f"tensor<{t}>" for t in types.split(", "))
    return f"""
func.func @main(%xs: tensor<16xf32>, {entries}) -> ({returned}) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:{1 + len(types.split(", "))} = stablehlo.while(%i = %c0, {carried}) : tensor<i32>, {results}
    cond {{
      %n = stablehlo.constant dense<16> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }} do {{
      %one = stablehlo.constant dense<1> : tensor<i32>
"""


# Two carried floats, one fed by the other; a NaN in h2 is dropped (select on h2 != h2);
# two NaNs meet in `%b` (numpy keeps the first one; Python's float addition, before the
# interpreter specializes it, the second)
LOOP = _counted("%h1 = %h10, %h2 = %h20", "f32, f32",
                "tensor<i32>, tensor<f32>, tensor<f32>") + """\
      %half = stablehlo.constant dense<0.5> : tensor<f32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %x1 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<16xf32>, tensor<i32>) -> tensor<1xf32>
      %x = stablehlo.reshape %x1 : (tensor<1xf32>) -> tensor<f32>
      %a = stablehlo.multiply %h1, %half : tensor<f32>
      %b = stablehlo.add %a, %x : tensor<f32>
      %c = stablehlo.subtract %b, %h2 : tensor<f32>
      %t = stablehlo.multiply %c, %c : tensor<f32>
      %d = stablehlo.multiply %x, %h2 : tensor<f32>
      %e = stablehlo.add %d, %t : tensor<f32>
      %nan = stablehlo.compare NE, %e, %e : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %f = stablehlo.select %nan, %zero, %e : tensor<i1>, tensor<f32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %c, %f : tensor<i32>, tensor<f32>, tensor<f32>
    }
  return %r#0, %r#1, %r#2 : tensor<i32>, tensor<f32>, tensor<f32>
}
"""

_NANS = [np.float32(np.nan), -np.float32(np.nan),
         np.array([0x7FC12345], np.uint32).view(np.float32)[0],
         np.array([0xFF800001], np.uint32).view(np.float32)[0]]  # (a signalling one)


@pytest.mark.parametrize("seed", range(6))
def test_a_nan_anywhere_gives_the_evaluators_bits(seed: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    xs = (rng.standard_normal(16) * 2).astype(np.float32)
    picks = rng.choice(16, 4, replace=False)
    xs[picks[0]] = _NANS[seed % 4]
    xs[picks[1]] = [np.inf, -np.inf, -0.0, 1e-45][seed % 4]
    if seed >= 4:  # no NaN in: the loop's own (inf - inf), or none
        xs[picks[0]] = np.inf
    for h1, h2 in [(np.float32(0.25), np.float32(-0.0)), (_NANS[(seed + 2) % 4], np.float32(1)),
                   (np.float32(1), _NANS[(seed + 1) % 4])]:
        args = [xs, np.asarray(h1), np.asarray(h2)]
        got, sources = run_loops(LOOP, args, True, monkeypatch)
        want, _ = run_loops(LOOP, args, False, monkeypatch)
        for a, b in zip(got, want, strict=True):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (seed, h1, h2)
    # the unchecked copy tests both carried floats once, at the end
    assert "if a1 != a1 or a2 != a2:" in sources[0] and "= entry" in sources[0]


def test_nans_meeting_in_a_first_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two NaNs meet in the loop's first steps ever (Python's float addition keeps the
    second, numpy's the first): the NaN at the end runs the steps again, with the redos."""
    for first, second in [(0, 1), (1, 2), (2, 3), (3, 0)]:
        xs = np.ones(16, np.float32)
        xs[0], xs[1] = _NANS[first], _NANS[second]
        args = [xs, np.asarray(np.float32(0)), np.asarray(np.float32(1))]
        with monkeypatch.context() as m:
            got, sources = run_with_sources(LOOP, args, m)
        want, _ = run_loops(LOOP, args, False, monkeypatch)
        assert "if a1 != a1 or a2 != a2:" in sources
        for a, b in zip(got, want, strict=True):
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (first, second)


# A scan writing each step's value (NaN possible) into its output vector, the carry
# dropping NaNs: a NaN written stays in the vector only.
SCAN = _counted("%h = %h0, %ys = %ys0", "f32, 16xf32", "tensor<f32>, tensor<16xf32>") + """\
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %x1 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<16xf32>, tensor<i32>) -> tensor<1xf32>
      %x = stablehlo.reshape %x1 : (tensor<1xf32>) -> tensor<f32>
      %a = stablehlo.add %h, %x : tensor<f32>
      %nan = stablehlo.compare NE, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %h2 = stablehlo.select %nan, %zero, %a : tensor<i1>, tensor<f32>
      %y = stablehlo.reshape %a : (tensor<f32>) -> tensor<1xf32>
      %ys2 = stablehlo.dynamic_update_slice %ys, %y, %i : (tensor<16xf32>, tensor<1xf32>, tensor<i32>) -> tensor<16xf32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %h2, %ys2 : tensor<i32>, tensor<f32>, tensor<16xf32>
    }
  return %r#1, %r#2 : tensor<f32>, tensor<16xf32>
}
"""


def test_a_nan_written_to_the_output_vector(monkeypatch: pytest.MonkeyPatch) -> None:
    """NaNs meeting in a first run, written to the scan's output vector and dropped from
    its carry: the vector's test at the end runs the steps again."""
    for first, second in [(0, 1), (1, 2), (2, 3), (3, 0)]:
        xs = np.ones(16, np.float32)
        xs[0], xs[1] = _NANS[first], _NANS[second]
        h0 = _NANS[(first + 2) % 4]
        args = [xs, np.asarray(h0), np.zeros(16, np.float32)]
        with monkeypatch.context() as m:
            got, sources = run_with_sources(SCAN, args, m)
        want, _ = run_loops(SCAN, args, False, monkeypatch)
        assert "_HASNAN(a2)" in sources and "a2_m[" in sources
        for a, b in zip(got, want, strict=True):
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (first, second)


# x ** h overflows on some steps (inf, not NaN) and only feeds a compare that counts them:
# a line's NaN stand-in for the overflow would count none, at the end or per step
POWER = _counted("%h = %h0, %k = %k0", "f32, f32", "tensor<f32>, tensor<f32>") + """\
      %big = stablehlo.constant dense<1.0e+30> : tensor<f32>
      %add1 = stablehlo.constant dense<1.0> : tensor<f32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %x1 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<16xf32>, tensor<i32>) -> tensor<1xf32>
      %x = stablehlo.reshape %x1 : (tensor<1xf32>) -> tensor<f32>
      %p = stablehlo.power %x, %h : tensor<f32>
      %huge = stablehlo.compare GT, %p, %big : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %inc = stablehlo.select %huge, %add1, %zero : tensor<i1>, tensor<f32>
      %k2 = stablehlo.add %k, %inc : tensor<f32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %h, %k2 : tensor<i32>, tensor<f32>, tensor<f32>
    }
  return %r#1, %r#2 : tensor<f32>, tensor<f32>
}
"""


@pytest.mark.parametrize("h", [40.0, 400.0, 3.0])
def test_overflowing_powers_count(h: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """Powers that overflow double (400), f32 only (40) or neither (3) are counted as the
    evaluator counts them."""
    xs = np.array([2, 10, -10, 0.5, 1e10, -3, 7, 1, 0, -0.0, 5, 9, 20, 3, 100, -7], np.float32)
    args = [xs, np.asarray(np.float32(h)), np.asarray(np.float32(0))]
    got, _ = run_loops(POWER, args, True, monkeypatch)
    want, _ = run_loops(POWER, args, False, monkeypatch)
    assert float(want[1]) > 0 or h == 3.0
    for a, b in zip(got, want, strict=True):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), h
