"""A scan's row write `ys[i] = y` takes the row itself: the reshape putting a unit
dimension in front of it is skipped (row_writes.py) and the update kernel assigns the row
(its `row_update` shape). Results are the general evaluator's bits, the clamped start
indices, the caller's arrays and the copying (not in place) kernel included."""

# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.dialects.stablehlo.specialize_dynamic_slice import _dynamic_update_slice
from shlo_cli.interpreter import codegen

SCAN = """
func.func @main(%xs: tensor<6x3x3xf32>, %h0: tensor<3x3xf32>, %ys0: tensor<7x3x3xf32>, %start: tensor<i32>) -> (tensor<3x3xf32>, tensor<7x3x3xf32>, tensor<7x3x3xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:4 = stablehlo.while(%i = %c0, %h = %h0, %ys = %ys0, %keep = %ys0) : tensor<i32>, tensor<3x3xf32>, tensor<7x3x3xf32>, tensor<7x3x3xf32>
  cond {
    %six = stablehlo.constant dense<6> : tensor<i32>
    %p = stablehlo.compare LT, %i, %six, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %xs, %i, %z, %z, sizes = [1, 3, 3] : (tensor<6x3x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x3x3xf32>
    %x = stablehlo.reshape %row : (tensor<1x3x3xf32>) -> tensor<3x3xf32>
    %m = stablehlo.multiply %h, %x : tensor<3x3xf32>
    %h2 = stablehlo.add %m, %x : tensor<3x3xf32>
    %u = MAKE
    %at = stablehlo.add %i, %start : tensor<i32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %u, %at, %z, %z : (tensor<7x3x3xf32>, tensor<1x3x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<7x3x3xf32>
    %keep2 = KEEP
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %h2, %ys2, %keep2 : tensor<i32>, tensor<3x3xf32>, tensor<7x3x3xf32>, tensor<7x3x3xf32>
  }
  return %r#1, %r#2, %r#3 : tensor<3x3xf32>, tensor<7x3x3xf32>, tensor<7x3x3xf32>
}
"""

MAKES = {
    "reshape": "stablehlo.reshape %h2 : (tensor<3x3xf32>) -> tensor<1x3x3xf32>",
    "broadcast": "stablehlo.broadcast_in_dim %h2, dims = [1, 2] : (tensor<3x3xf32>) -> tensor<1x3x3xf32>",
    # a transpose, not a reshape: must not be skipped
    "transposed": "stablehlo.broadcast_in_dim %h2, dims = [2, 1] : (tensor<3x3xf32>) -> tensor<1x3x3xf32>",
}
KEEPS = {  # %ys unread after its update (written in place), or read (copied)
    "in_place": "stablehlo.add %keep, %keep : tensor<7x3x3xf32>",
    "copied": "stablehlo.add %keep, %ys : tensor<7x3x3xf32>",
}
CALL = re.compile(r"\bw?f?_?K\d+\(")
LOOPS = re.compile(r"^ *(?:while True|for \w+ in range\(.*\)):$", re.M)


def _calls(sources: list[str]) -> int:
    return sum(len(CALL.findall(s)) for s in sources)


@pytest.mark.parametrize("make", sorted(MAKES))
@pytest.mark.parametrize("keep", sorted(KEEPS))
@pytest.mark.parametrize("start", [0, 1, -3, 4])
def test_row_writes_take_the_row(make: str, keep: str, start: int,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    text = SCAN.replace("MAKE", MAKES[make]).replace("KEEP", KEEPS[keep])
    rng = np.random.default_rng(start + 7)
    xs = rng.standard_normal((6, 3, 3)).astype(np.float32)
    xs[1, 0, 2], xs[2, 1, 0], xs[3, 2, 2], xs[4, 0, 0] = np.nan, -0.0, np.inf, 1e-40
    h0 = rng.standard_normal((3, 3)).astype(np.float32)
    ys0 = rng.standard_normal((7, 3, 3)).astype(np.float32)
    caller = ys0.copy()
    args = [xs, h0, ys0, np.array(start, np.int32)]
    got, sources = run_loops(text, args, True, monkeypatch)
    assert np.array_equal(ys0.view(np.uint32), caller.view(np.uint32))  # the caller's array
    want, _ = run_loops(text, args, False, monkeypatch)
    for a, b in zip(got, want, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.tobytes() == b.tobytes()
    with monkeypatch.context() as m:
        m.setattr(codegen, "skipped_reshapes", lambda *a: set())
        _, unskipped = run_loops(text, args, True, monkeypatch)
    loops = len(LOOPS.findall("".join(sources)))  # (copies of the body: a counted loop's)
    assert loops == len(LOOPS.findall("".join(unskipped))) >= 1
    assert _calls(sources) == _calls(unskipped) - (0 if make == "transposed" else loops)


def test_update_kernels_take_the_row() -> None:
    """Every variant of the row update kernel, given the row, does what it does given the
    reshaped row; an update of any other shape is still refused."""
    def general(*a: object) -> np.ndarray:
        raise AssertionError("not for these operands")

    kernel = _dynamic_update_slice((5, 2, 3), (1, 2, 3), general)
    assert kernel.row_update == (2, 3)  # type: ignore[attr-defined]
    rng = np.random.default_rng(3)
    row = rng.standard_normal((2, 3)).astype(np.float32)
    row[0, 1] = -0.0
    for start in (-1, 0, 2, 4, 9):
        starts = [np.int32(start), np.int32(0), np.int32(0)]
        x = rng.standard_normal((5, 2, 3)).astype(np.float32)
        want = kernel(x, row.reshape(1, 2, 3), *starts)
        assert want is not x
        for variant in (kernel, kernel.in_place):  # type: ignore[attr-defined]
            y = x.copy()
            assert variant(y, row, *starts).tobytes() == want.tobytes()
            frozen = x.copy()
            frozen.flags.writeable = False  # (in place: not writable, so copied)
            assert variant(frozen, row, *starts).tobytes() == want.tobytes()
            assert frozen.tobytes() == x.tobytes()
    with pytest.raises(AssertionError):
        kernel(x, row.reshape(3, 2), *starts)
    assert not hasattr(_dynamic_update_slice((5, 6), (2, 6), general), "row_update")
