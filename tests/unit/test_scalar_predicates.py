"""Selects on a broadcast one-element predicate read it as 0-d (interpreter/
scalar_predicates.py): a masked scan, a select outside loops and a 0-d flag give the
bits of the plans without the rewrite (NaN payloads, -0.0, all-true and all-false masks);
a predicate of several elements, or a broadcast read elsewhere too, stays as it was."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.interpreter.scalar_predicates import scalar_predicates
from shlo_cli.ir.parser import parse_source

MASKED_SCAN = """
func.func @main(%xs: tensor<6x1x4xf32>, %mask: tensor<6x1xi1>, %h0: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<6x1x4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c6 = stablehlo.constant dense<6> : tensor<i32>
  %ys0 = stablehlo.constant dense<0.0> : tensor<6x1x4xf32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %ys = %ys0) : tensor<i32>, tensor<1x4xf32>, tensor<6x1x4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %c6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %xr = stablehlo.dynamic_slice %xs, %i, %z, %z, sizes = [1, 1, 4] : (tensor<6x1x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x4xf32>
    %x = stablehlo.reshape %xr : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
    %s = stablehlo.add %h, %x : tensor<1x4xf32>
    %t = stablehlo.tanh %s : tensor<1x4xf32>
    %m = stablehlo.dynamic_slice %mask, %i, %z, sizes = [1, 1] : (tensor<6x1xi1>, tensor<i32>, tensor<i32>) -> tensor<1x1xi1>
    %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<1x4xi1>
    %h2 = stablehlo.select %mb, %t, %h : tensor<1x4xi1>, tensor<1x4xf32>
    %h3 = stablehlo.reshape %h2 : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %h3, %i, %z, %z : (tensor<6x1x4xf32>, tensor<1x1x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<6x1x4xf32>
    %i2 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i2, %h2, %ys2 : tensor<i32>, tensor<1x4xf32>, tensor<6x1x4xf32>
  }
  return %r#1, %r#2 : tensor<1x4xf32>, tensor<6x1x4xf32>
}
"""

STRAIGHT = """
func.func @main(%f: tensor<{flag}i1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> ({results}) {{
  %fb = stablehlo.broadcast_in_dim %f, dims = [{dims}] : (tensor<{flag}i1>) -> tensor<2x3xi1>
  %s = stablehlo.select %fb, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  %t = stablehlo.select %fb, %b, %a : tensor<2x3xi1>, tensor<2x3xf32>
  return {returned} : {results}
}}
"""


def _run(text: str, args: list[np.ndarray], rewrite: bool,
         monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    with monkeypatch.context() as patch:
        if not rewrite:
            patch.setattr(engine, "scalar_predicates", lambda ops, kept: ops)
        it = Interpreter(parse_source(text))
        fn = it.lookup_function("main")
        return [np.asarray(r) for r in it.call(fn, args)]


def _same_bits(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()


def _specials(shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    specials = [np.float32(-0.0), np.inf, -np.inf, np.float32(0.0),
                np.array(0x7FC12345, np.uint32).view(np.float32)]  # a NaN with a payload
    flat = x.reshape(-1)
    count = min(len(specials), flat.size - 1)
    flat[:count] = specials[:count]
    return x


@pytest.mark.parametrize("mask", [[1, 0, 1, 1, 0, 1], [0] * 6, [1] * 6, [0, 1, 0, 0, 1, 1]])
def test_a_masked_scan_keeps_its_bits(mask: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    args = [_specials((6, 1, 4), 1), np.array(mask, bool).reshape(6, 1), _specials((1, 4), 2)]
    expected = _run(MASKED_SCAN, args, False, monkeypatch)
    _same_bits(_run(MASKED_SCAN, args, True, monkeypatch), expected)
    # the state is the last step's where the mask holds, else the one before
    h = args[2]
    for step in range(6):
        if mask[step]:
            h = np.tanh((h + args[0][step]).astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(expected[0], h, rtol=1e-6)


@pytest.mark.parametrize(("flag", "dims"), [("1x", "0"), ("1x1x", "0, 1"), ("", "")])
@pytest.mark.parametrize("value", [True, False])
def test_a_one_element_flag_picks_a_whole_operand(flag: str, dims: str, value: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    results, returned = "tensor<2x3xf32>, tensor<2x3xf32>", "%s, %t"
    text = STRAIGHT.format(flag=flag, dims=dims, results=results, returned=returned)
    shape = tuple(int(d) for d in flag.split("x")[:-1])
    args = [np.full(shape, value), _specials((2, 3), 3), _specials((2, 3), 4)]
    got = _run(text, args, True, monkeypatch)
    _same_bits(got, _run(text, args, False, monkeypatch))
    _same_bits(got, [args[1], args[2]] if value else [args[2], args[1]])


def _block_ops(text: str) -> list:
    module = parse_source(text)
    return list(module.body.operations[0].regions[0].blocks[0].operations[:-1])


def test_the_rewrite_selects_on_a_0d_flag_and_drops_the_broadcast() -> None:
    text = STRAIGHT.format(flag="1x1x", dims="0, 1", results="tensor<2x3xf32>", returned="%s")
    ops = _block_ops(text)
    rewritten = scalar_predicates(ops, [ops[1].results[0]])
    names = [op.name for op in rewritten]
    assert names == ["stablehlo.reshape", "stablehlo.select", "stablehlo.select"]
    assert all(op.operands[0].type.shape == () for op in rewritten[1:])
    assert rewritten[1].results[0] is ops[1].results[0]  # the select's own value


def test_kept_a_flag_of_several_elements_and_a_broadcast_read_elsewhere(
        monkeypatch: pytest.MonkeyPatch) -> None:
    several = STRAIGHT.format(flag="3x", dims="1", results="tensor<2x3xf32>", returned="%s")
    ops = _block_ops(several)
    assert scalar_predicates(ops, []) == ops
    returned = STRAIGHT.format(flag="1x", dims="0", results="tensor<2x3xf32>, tensor<2x3xi1>",
                               returned="%s, %fb")
    ops = _block_ops(returned)
    kept = [op.name for op in scalar_predicates(ops, [ops[0].results[0]])]
    assert kept.count("stablehlo.broadcast_in_dim") == 1
    args = [np.array([True]), _specials((2, 3), 5), _specials((2, 3), 6)]
    got = _run(returned, args, True, monkeypatch)
    _same_bits(got, _run(returned, args, False, monkeypatch))
    assert got[1].all() and got[1].shape == (2, 3)
