"""A scan's row reads `xs[i]` of a sequence from outside the loop, at a counter known to
stay in bounds, are plain indexing once the sequence's layout is checked before the loop
(codegen._indexed_rows); sequences of another layout (views) and counters not known to be
in bounds keep the row kernel. Results are the row kernel's bits."""

# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from loop_helpers import run_with_sources

from shlo_cli.interpreter import codegen

SCAN = """
func.func @main(%xs: tensor<6x1x4xf32>, %h0: tensor<1x4xf32>, %ys0: tensor<6x1x4xf32>, %n: tensor<i32>) -> (tensor<1x4xf32>, tensor<6x1x4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %ys = %ys0) : tensor<i32>, tensor<1x4xf32>, tensor<6x1x4xf32>
  cond {
    %p = stablehlo.compare LT, %i, LIMIT, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %xs, %i, %z, %z, sizes = [1, 1, 4] : (tensor<6x1x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x4xf32>
    %x = stablehlo.reshape %row : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
    %m = stablehlo.multiply %h, %x : tensor<1x4xf32>
    %s = stablehlo.add %m, %x : tensor<1x4xf32>
    %h2 = stablehlo.tanh %s : tensor<1x4xf32>
    %u = stablehlo.reshape %x : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %u, %i, %z, %z : (tensor<6x1x4xf32>, tensor<1x1x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<6x1x4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %h2, %ys2 : tensor<i32>, tensor<1x4xf32>, tensor<6x1x4xf32>
  }
  return %r#1, %r#2 : tensor<1x4xf32>, tensor<6x1x4xf32>
}
"""

SIX = "%six = stablehlo.constant dense<6> : tensor<i32>\n    "


def _run(text: str, args: list[np.ndarray], indexed: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[list[np.ndarray], str]:
    with monkeypatch.context() as m:
        if not indexed:
            m.setattr(codegen, "_indexed_rows", lambda *a: None)
        out, source = run_with_sources(text, args, m)
    return [np.asarray(o) for o in out], source


def _laid_out(xs: np.ndarray, layout: str) -> np.ndarray:
    """xs's values in `layout`: its own, a strided view, or C-contiguous with another
    stride for its unit dimension (a time-major transpose of a batch-major sequence)."""
    if layout == "view":  # (the same values, another layout: the row kernel's own way)
        wide = np.zeros((6, 1, 8), np.float32)
        wide[:, :, ::2] = xs
        return wide[:, :, ::2]
    if layout == "unit_strides":
        moved = xs.transpose(1, 0, 2).copy().transpose(1, 0, 2)
        assert moved.flags.c_contiguous and moved.strides != xs.strides
        return moved
    return xs


@pytest.mark.parametrize("layout", ["contiguous", "view", "read_only", "unit_strides"])
@pytest.mark.parametrize("limit", ["constant", "argument"])
def test_row_reads_by_indexing(layout: str, limit: str,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    text = (SCAN.replace("LIMIT", "%six").replace("    %p = stablehlo.compare", "    " + SIX
                                                   + "%p = stablehlo.compare")
            if limit == "constant" else SCAN.replace("LIMIT", "%n"))
    rng = np.random.default_rng(len(layout))
    xs = rng.standard_normal((6, 1, 4)).astype(np.float32)
    xs[2, 0, 1], xs[4, 0, 3], xs[5, 0, 0] = np.nan, -0.0, np.inf
    args = [xs, rng.standard_normal((1, 4)).astype(np.float32),
            np.zeros((6, 1, 4), np.float32), np.array(6, np.int32)]
    args[0] = _laid_out(xs, layout)
    if layout == "read_only":
        args[0].flags.writeable = False
    got, fast = _run(text, args, True, monkeypatch)
    want, slow = _run(text, args, False, monkeypatch)
    assert ".rows_of(" not in slow
    assert (".rows_of(" in fast) == (limit == "constant")
    for g, w in zip(got, want, strict=True):
        assert g.tobytes() == w.tobytes()
    assert got[1].tobytes() == xs.tobytes()  # every row read as it is


def test_rows_of_accepts_only_the_row_kernels_own_fast_layout() -> None:
    """`rows_of(x)` is x exactly where the row kernel would return x[i] itself: C strides
    of the static shape, writeable; a C-contiguous x of other unit-dimension strides is
    re-strided; views, frozen arrays and other shapes are None."""
    from shlo_cli.dialects.stablehlo import specialize

    kernel = specialize._dynamic_slice((1, 1, 4), (6, 1, 4), 4)
    row = kernel.row
    assert row.top == 5
    x = np.arange(24, dtype=np.float32).reshape(6, 1, 4)
    assert row.rows_of(x) is x
    for i in range(6):
        assert row(x, i, 0, 0) is not None and np.shares_memory(row(x, i, 0, 0), x[i])
    wide = np.zeros((6, 1, 8), np.float32)
    frozen = x.copy()
    frozen.flags.writeable = False
    for other in (wide[:, :, ::2], frozen, x.reshape(6, 4), x.tolist()):
        assert row.rows_of(other) is None
    moved = x.transpose(1, 0, 2).copy().transpose(1, 0, 2)  # strides (16, 96, 4)
    rows = row.rows_of(moved)  # re-strided: its rows are the row kernel's, as views
    assert rows is not None and rows is not moved and np.shares_memory(rows, moved)
    for i in range(6):
        assert rows[i].strides == row(moved, i, 0, 0).strides
        assert rows[i].tobytes() == row(moved, i, 0, 0).tobytes() == x[i].tobytes()


def _carried(text: str) -> str:
    """SCAN with the sequence carried through the loop, passed on unchanged (a Keras GRU's
    scan): the body reads the carried value."""
    return (text.replace("(%i = %c0, %h = %h0, %ys = %ys0) : tensor<i32>, tensor<1x4xf32>, tensor<6x1x4xf32>",
                         "(%i = %c0, %h = %h0, %ys = %ys0, %xc = %xs) : tensor<i32>, tensor<1x4xf32>, tensor<6x1x4xf32>, tensor<6x1x4xf32>")
            .replace("%r:3", "%r:4").replace("dynamic_slice %xs", "dynamic_slice %xc")
            .replace("return %j, %h2, %ys2 : tensor<i32>, tensor<1x4xf32>, tensor<6x1x4xf32>",
                     "return %j, %h2, %ys2, %xc : tensor<i32>, tensor<1x4xf32>, tensor<6x1x4xf32>, tensor<6x1x4xf32>"))


@pytest.mark.parametrize("layout", ["contiguous", "view", "unit_strides"])
def test_carried_unchanged_sequence_reads_by_indexing(layout: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A sequence the loop carries and passes on unchanged is read like one from outside
    it: its layout checked once per loop (in the loop whose counter is known in bounds),
    the row kernel's bits."""
    text = _carried(SCAN.replace("LIMIT", "%six").replace(
        "    %p = stablehlo.compare", "    " + SIX + "%p = stablehlo.compare"))
    rng = np.random.default_rng(7)
    xs = rng.standard_normal((6, 1, 4)).astype(np.float32)
    xs[1, 0, 2], xs[3, 0, 0], xs[5, 0, 1] = np.nan, -0.0, 1e-42
    args = [xs, rng.standard_normal((1, 4)).astype(np.float32),
            np.zeros((6, 1, 4), np.float32), np.array(6, np.int32)]
    args[0] = _laid_out(xs, layout)
    got, fast = _run(text, args, True, monkeypatch)
    want, slow = _run(text, args, False, monkeypatch)
    assert ".rows_of(a" in fast and ".rows_of(" not in slow
    for g, w in zip(got, want, strict=True):
        assert g.tobytes() == w.tobytes()
    assert got[1].tobytes() == xs.tobytes()
