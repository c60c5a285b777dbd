"""A sigmoid spelled out, 1 / (1 + exp(-x)), as one kernel call (interpreter/sigmoid.py):
the four steps' bits in a generated loop (speculating or not), for the kernel's exact form
on any layout and its speculative form (whose kept guess is the exponential's of -x and
whose redo is the exponential's kernel of -x), with NaNs, signed zeros, infinities,
subnormals, overflowing and underflowing exponentials."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops
from test_speculate import _inputs

from shlo_cli.dialects import libm, libm_f32
from shlo_cli.interpreter import codegen, sigmoid

# h = sigmoid(x[i] + h) (the add of 1 on either side), 150 steps: speculate.EVERY and more
PROGRAM = """
func.func @main(%xs: tensor<150x1x{n}xf32>) -> tensor<1x{n}xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<1x{n}xf32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %i0, %h = %zero) : tensor<i32>, tensor<1x{n}xf32>
  cond {
    %c = stablehlo.constant dense<150> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %xs, %i, %z, %z, sizes = [1, 1, {n}] : (tensor<150x1x{n}xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x{n}xf32>
    %x = stablehlo.reshape %row : (tensor<1x1x{n}xf32>) -> tensor<1x{n}xf32>
    %a = stablehlo.multiply %x, %h : tensor<1x{n}xf32>
    %b = stablehlo.add %a, %x : tensor<1x{n}xf32>
    %m = stablehlo.negate %b : tensor<1x{n}xf32>
    %e = stablehlo.exponential %m : tensor<1x{n}xf32>
    %one = stablehlo.constant dense<1.0> : tensor<1x{n}xf32>
    %s = stablehlo.add {SUM} : tensor<1x{n}xf32>
    %num = stablehlo.constant dense<{NUM}> : tensor<1x{n}xf32>
    %hn = stablehlo.divide %num, %s : tensor<1x{n}xf32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %in = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %in, %hn : tensor<i32>, tensor<1x{n}xf32>
  }
  return %r#1 : tensor<1x{n}xf32>
}
"""


def _compared(text: str, n: int, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Runs `text` compiled and by the evaluator on the same inputs, asserts the same
    bits; the number of chains each compiled block had."""
    found: list[int] = []
    chains = sigmoid.sigmoid_chains

    def spy(*args: Any) -> Any:
        out = chains(*args)
        found.append(len(out))
        return out
    monkeypatch.setattr(codegen, "sigmoid_chains", spy)
    xs = _inputs(np.random.default_rng(n), (150, 1, n), 0.05)
    got, _ = run_loops(text, [xs], True, monkeypatch)
    want, _ = run_loops(text, [xs], False, monkeypatch)
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()
    return found


@pytest.mark.parametrize("n", [3, 40, 300])
@pytest.mark.parametrize("order", ["%one, %e", "%e, %one"])
def test_loop_with_a_sigmoid_chain_is_the_evaluator(n: int, order: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    text = PROGRAM.replace("{n}", str(n)).replace("{SUM}", order).replace("{NUM}", "1.0")
    assert 1 in _compared(text, n, monkeypatch)  # (one call for the four steps)


@pytest.mark.parametrize("added,divided", [("2.0", "1.0"), ("1.0", "2.0"), ("1.0", "-1.0")])
def test_chain_is_found_only_whole(added: str, divided: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """An add or a divide of something other than 1 is no sigmoid: the steps stay."""
    text = PROGRAM.replace("{n}", "8").replace("{SUM}", "%one, %e").replace(
        "dense<1.0> : tensor<1x8xf32>", f"dense<{added}> : tensor<1x8xf32>").replace(
        "{NUM}", divided)
    found = _compared(text, 8, monkeypatch)
    assert found and not any(found)


def _steps(x: np.ndarray, exp: Any, add_at: int) -> np.ndarray:
    """The four steps with full constants, one op at a time."""
    ones = np.ones(x.shape, np.float32)
    with np.errstate(all="ignore"):
        e = exp(np.negative(x))
        s = np.add(ones, e) if add_at == 0 else np.add(e, ones)
        return np.divide(ones, s)  # type: ignore[no-any-return]


@pytest.mark.parametrize("add_at", [0, 1])
@pytest.mark.parametrize("layout", ["row", "view", "transposed", "tiny"])
def test_kernel_forms_are_the_four_steps(add_at: int, layout: str) -> None:
    exp = libm.native_kernel(libm.exp, np.dtype(np.float32))
    shape = (1, 3) if layout == "tiny" else (4, 50)
    x = _inputs(np.random.default_rng(add_at), shape, 0.2)
    if layout == "view":
        x = np.repeat(x, 2, axis=1)[:, ::2]
    if layout == "transposed":
        x = np.ascontiguousarray(x.T).T
    ones = np.ones(x.shape, np.float32)
    ones.flags.writeable = False
    kernel = sigmoid.chain_kernel(exp, add_at, ones, ones)
    want = _steps(x, exp, add_at)
    kept: list[Any] = []
    with np.errstate(all="ignore"):
        for got in (kernel(x), kernel.unquieted(x), kernel.unquieted.speculative(kept, x)):
            assert got.tobytes() == want.tobytes() and got.strides == want.strides
    assert bool(kept) == (layout in ("row", "tiny"))  # (C-contiguous: the guess kept)
    for redo, held, guess in kept:
        assert held is x
        with np.errstate(all="ignore"):
            minus = exp.unquieted(np.negative(x))
            assert redo(held).tobytes() == minus.tobytes()
            assert guess.tobytes() == np.exp(np.negative(x.astype(np.float64))).tobytes()
            assert libm_f32.all_sure(kept)
