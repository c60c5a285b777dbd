"""The legalizations of ops HLO does not have (`--legalize_*`) against the interpreter's
direct evaluation of the original ops, on random shapes, equations and index layouts."""
# ruff: noqa: E501  (MLIR test programs keep their long lines)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes.expanders import load_all


def _t(shape: tuple[int, ...], element: str = "f32") -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def _run(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), args)


def _check(text: str, flag: str, op: str, args: list[np.ndarray], exact: bool = False) -> str:
    direct = _run(text, args)
    module = parse_source(text)
    load_all()[flag].run(module)
    verify_module(module)
    printed = print_module(module)
    assert op not in printed
    for got, want in zip(_run(printed, args), direct, strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        if exact:
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    return printed


EINSUMS = [("ijk,ikm->ijm", (3, 4, 5), (3, 5, 6)), ("ab,bc->ac", (2, 3), (3, 4)),
           ("ab,cd->dbca", (2, 3), (4, 5)), ("abc,c->ab", (2, 3, 4), (4,)),
           ("ij,ij->", (2, 3), (2, 3)), ("ij,jk", (2, 3), (3, 4)),
           ("...ij,...jk->...ik", (5, 2, 3), (5, 3, 4)), ("bij,k->bk", (2, 3, 4), (5,)),
           ("i,i->i", (3,), (3,)), ("ba,ab->a", (2, 3), (3, 2)),
           ("...a,a...->...", (2, 3), (3, 2)), ("zb,ba", (4, 3), (3, 2)),
           ("bhqd,bhkd->bhqk", (2, 3, 4, 5), (2, 3, 6, 5))]


@pytest.mark.parametrize("equation,lhs,rhs", EINSUMS)
def test_einsum(equation: str, lhs: tuple[int, ...], rhs: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(equation))
    x, y = rng.standard_normal(lhs).astype(np.float32), rng.standard_normal(rhs).astype(np.float32)
    out = np.einsum(equation, x, y).shape
    text = f"""func.func @main(%a: {_t(lhs)}, %b: {_t(rhs)}) -> {_t(out)} {{
  %0 = stablehlo.einsum %a, %b, config = "{equation}" : ({_t(lhs)}, {_t(rhs)}) -> {_t(out)}
  return %0 : {_t(out)}
}}"""
    printed = _check(text, "legalize_einsum", "stablehlo.einsum", [x, y])
    assert "stablehlo.dot_general" in printed


def test_unary_einsum_then_einsum() -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    text = f"""func.func @main(%a: {_t((3, 4), "i32")}) -> {_t((4,), "i32")} {{
  %0 = "stablehlo.unary_einsum"(%a) {{einsum_config = "ab->b"}} : ({_t((3, 4), "i32")}) -> {_t((4,), "i32")}
  return %0 : {_t((4,), "i32")}
}}"""
    printed = _check(text, "legalize_unary_einsum", "unary_einsum", [x], exact=True)
    assert 'config = ",ab->b"' in printed
    module = parse_source(printed)
    load_all()["legalize_einsum"].run(module)
    np.testing.assert_array_equal(_run(print_module(module), [x])[0], x.sum(axis=0))


SELECTS = [((5, 1, 5), (2,), 0, 0), ((4, 6, 3), (2, 5), 1, 0), ((2, 6, 3), (2, 5), 1, 1),
           ((2, 3, 7, 4), (2, 3, 2), 2, 2), ((3, 4), (5,), -1, 0), ((2, 5), (2, 3), -1, -1),
           ((4,), (), 0, 0), ((3, 2, 4), (3, 2, 2, 2), 2, 2)]


@pytest.mark.parametrize("operand,index,dim,batch_dims", SELECTS)
def test_torch_index_select(operand: tuple[int, ...], index: tuple[int, ...], dim: int,
                            batch_dims: int) -> None:
    rng = np.random.default_rng(sum(operand) + len(index))
    x = rng.standard_normal(operand).astype(np.float32)
    # Out-of-range indices too: gather clamps them, as the op's evaluation does.
    i = rng.integers(-2, operand[dim] + 2, index).astype(np.int32)
    d = dim % len(operand)
    b = batch_dims % len(index) if index else 0
    result = operand[:d] + index[b:] + operand[d + 1:]
    text = f"""func.func @main(%a: {_t(operand)}, %i: {_t(index, "i32")}) -> {_t(result)} {{
  %0 = "stablehlo.torch_index_select"(%a, %i) {{dim = {dim} : i64, batch_dims = {batch_dims} : i64}} : ({_t(operand)}, {_t(index, "i32")}) -> {_t(result)}
  return %0 : {_t(result)}
}}"""
    printed = _check(text, "legalize_torch_index_select", "torch_index_select", [x, i],
                     exact=True)
    assert "stablehlo.gather" in printed


def test_broadcast_dot_and_create_token() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.arange(3, dtype=np.float32)
    text = f"""func.func @main(%a: {_t((2, 3))}, %b: {_t((3,))}) -> ({_t((4, 2, 3))}, {_t((2,))}, !stablehlo.token) {{
  %0 = "stablehlo.broadcast"(%a) {{broadcast_sizes = array<i64: 4>}} : ({_t((2, 3))}) -> {_t((4, 2, 3))}
  %1 = stablehlo.dot %a, %b : ({_t((2, 3))}, {_t((3,))}) -> {_t((2,))}
  %2 = "stablehlo.create_token"() : () -> !stablehlo.token
  return %0, %1, %2 : {_t((4, 2, 3))}, {_t((2,))}, !stablehlo.token
}}"""
    module = parse_source(text)
    for flag in ("legalize_broadcast", "legalize_dot", "legalize_create_token"):
        load_all()[flag].run(module)
    verify_module(module)
    printed = print_module(module)
    for gone in ("stablehlo.broadcast %", "stablehlo.dot %", "create_token"):
        assert gone not in printed
    broadcast, dot, _ = _run(printed, [x, y])
    np.testing.assert_array_equal(broadcast, np.broadcast_to(x, (4, 2, 3)))
    np.testing.assert_array_equal(dot, x @ y)
