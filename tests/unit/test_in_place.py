"""dynamic_update_slice written into its operand (dialects/stablehlo/in_place.py with the
generated plans of interpreter/codegen.py and loopgen.py) only when nothing else can see the
array: a scan's stacked outputs updated in place give the bits of copying every step, and
the caller's arrays, values read after the update, aliases and values captured by nested
regions are never written."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import in_place, specialize_dynamic_slice
from shlo_cli.interpreter import codegen
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

SCAN = """
func.func @main(%xs: tensor<5x3xf32>, %ys0: tensor<5x1x3xf32>, %n: tensor<i32>) -> (tensor<5x1x3xf32>, tensor<5x1x3xf32>, tensor<5x1x3xf32>, tensor<1x3xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %h0 = stablehlo.constant dense<0.5> : tensor<1x3xf32>
  %r:6 = stablehlo.while(%i = %c0, %h = %h0, %ys = %ys0, %keep = %ys0, %zs = %ys0, %seen = %h0) : tensor<i32>, tensor<1x3xf32>, tensor<5x1x3xf32>, tensor<5x1x3xf32>, tensor<5x1x3xf32>, tensor<1x3xf32>
    cond {
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %z = stablehlo.constant dense<0> : tensor<i32>
      %x = stablehlo.dynamic_slice %xs, %i, %z, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %m = stablehlo.multiply %h, %x : tensor<1x3xf32>
      %h2 = stablehlo.tanh %m : tensor<1x3xf32>
      %u = stablehlo.reshape %h2 : (tensor<1x3xf32>) -> tensor<1x1x3xf32>
      %ys2 = stablehlo.dynamic_update_slice %ys, %u, %i, %z, %z : (tensor<5x1x3xf32>, tensor<1x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5x1x3xf32>
      %zs2 = stablehlo.dynamic_update_slice %zs, %u, %i, %z, %z : (tensor<5x1x3xf32>, tensor<1x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5x1x3xf32>
      %old = stablehlo.slice %zs [0:1, 0:1, 0:3] : (tensor<5x1x3xf32>) -> tensor<1x1x3xf32>
      %old2 = stablehlo.reshape %old : (tensor<1x1x3xf32>) -> tensor<1x3xf32>
      %s = "stablehlo.reduce"(%h2, %z) ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %e = stablehlo.slice %zs2 [0:1, 0:1, 0:1] : (tensor<5x1x3xf32>) -> tensor<1x1x1xf32>
          %ee = stablehlo.reshape %e : (tensor<1x1x1xf32>) -> tensor<f32>
          %ab = stablehlo.add %a, %b : tensor<f32>
          %abe = stablehlo.add %ab, %ee : tensor<f32>
          stablehlo.return %abe : tensor<f32>
      }) {dimensions = array<i64: 0, 1>} : (tensor<1x3xf32>, tensor<i32>) -> tensor<f32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %h2, %ys2, %keep, %zs2, %old2 : tensor<i32>, tensor<1x3xf32>, tensor<5x1x3xf32>, tensor<5x1x3xf32>, tensor<5x1x3xf32>, tensor<1x3xf32>
    }
  return %r#2, %r#3, %r#4, %r#5 : tensor<5x1x3xf32>, tensor<5x1x3xf32>, tensor<5x1x3xf32>, tensor<1x3xf32>
}
"""


def _run(args: list[np.ndarray], allowed: bool, monkeypatch: pytest.MonkeyPatch,
         spy: list[bool], inline: bool = False) -> list[np.ndarray]:
    """main's results; the kernels' in-place tests recorded in `spy` (with `inline`, the
    generated lines' own row writes may write in place too: specialize_dynamic_slice's
    `emit`, which `spy` does not see)."""
    original = specialize_dynamic_slice.writable_alone

    def watched(x: np.ndarray, seen: int) -> bool:
        alone = original(x, seen)
        spy.append(alone)
        return alone

    with monkeypatch.context() as m:
        m.setattr(specialize_dynamic_slice, "writable_alone", watched)
        if not inline:
            m.setattr(specialize_dynamic_slice, "INLINE_SOLE", -1)  # (never in the line)
        if not allowed:
            m.setattr(codegen, "_in_place", lambda *a: False)
        interpreter = Interpreter(parse_source(SCAN))
        main = interpreter.lookup_function("main")
        out = [interpreter.call(main, list(args)) for _ in range(2)][-1]
    return [np.array(o) for o in out]


@pytest.mark.parametrize("inline", [False, True])
@pytest.mark.parametrize("n", [0, 1, 3, 5, 7])
def test_scan_outputs_updated_in_place(n: int, inline: bool,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(n)
    xs = rng.standard_normal((5, 3)).astype(np.float32)
    xs[1, 2], xs[2, 0] = np.nan, -0.0
    ys0 = rng.standard_normal((5, 1, 3)).astype(np.float32)
    caller = ys0.copy()
    args = [xs, ys0, np.array(n, np.int32)]
    spy: list[bool] = []
    got = _run(args, True, monkeypatch, spy, inline)
    assert np.array_equal(ys0.view(np.uint32), caller.view(np.uint32))  # the caller's array
    want = _run(args, False, monkeypatch, [])
    for a, b in zip(got, want, strict=True):
        assert a.shape == b.shape and a.tobytes() == b.tobytes()
    # %ys from the second step on; never %zs (read after its update, and captured)
    assert spy.count(True) == (0 if inline else 2 * max(n - 1, 0))
    assert np.array_equal(got[1], ys0)  # %keep: the first %ys, never written


def test_only_a_sole_local_reference_counts() -> None:
    """The calibrated count: an array held by one local of the caller is writable; one
    also in a list, viewed, frozen or a view of another array is not."""
    assert in_place.SOLE != -1

    def seen(x: np.ndarray, *rest: object) -> bool:
        count = in_place._count(x)
        return in_place.writable_alone(x, count)

    def alone() -> bool:
        a = np.zeros(4)
        return seen(a, 0)

    def listed() -> bool:
        a = np.zeros(4)
        held = [a]
        result = seen(a, 0)
        return result or not held

    def viewed() -> bool:
        a = np.zeros(4)
        v = a[1:]
        result = seen(a, 0)
        return result or v is None

    def frozen() -> bool:
        a = np.zeros(4)
        a.flags.writeable = False
        return seen(a, 0)

    def view_of_another() -> bool:
        a = np.zeros(4)[1:]
        return seen(a, 0)

    assert alone()
    assert not listed() and not viewed() and not frozen() and not view_of_another()


ALIASED = """
func.func @main(%x: tensor<4xf32>, %u: tensor<1xf32>, %i: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  %c = stablehlo.convert %y : tensor<4xf32>
  %d = stablehlo.dynamic_update_slice %c, %u, %i : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
  %e = stablehlo.multiply %y, %y : tensor<4xf32>
  %two = stablehlo.constant dense<2.0> : tensor<4xf32>
  %z = stablehlo.multiply %x, %two : tensor<4xf32>
  %f = stablehlo.dynamic_update_slice %z, %u, %i : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
  return %d, %e, %f : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
"""


def test_a_value_with_two_names_is_not_updated_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """An identity convert names its operand's array anew: the update of the converted
    value (its last use) must not write the array the operand still reads after it; an
    unaliased temporary is updated in place."""
    x = np.array([1.0, -0.0, np.nan, 4.0], np.float32)
    u = np.array([9.0], np.float32)
    spy: list[bool] = []
    original = specialize_dynamic_slice.writable_alone

    def watched(a: np.ndarray, seen: int) -> bool:
        alone = original(a, seen)
        spy.append(alone)
        return alone

    monkeypatch.setattr(specialize_dynamic_slice, "writable_alone", watched)
    interpreter = Interpreter(parse_source(ALIASED))
    main = interpreter.lookup_function("main")
    d, e, f = interpreter.call(main, [x, u, np.int32(1)])
    y = x + x
    np.testing.assert_array_equal(e, y * y)
    np.testing.assert_array_equal(d, np.where(np.arange(4) == 1, 9.0, y).astype(np.float32))
    np.testing.assert_array_equal(f, np.where(np.arange(4) == 1, 9.0, y).astype(np.float32))
    assert spy == [True]  # %f's temporary only
