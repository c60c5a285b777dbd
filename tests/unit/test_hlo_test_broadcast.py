"""`--hlo-test-broadcast`: NumPy broadcasting with bounded dimensions (upstream's
StablehloBroadcastLowering facts), and errors that leave the op unchanged."""

from __future__ import annotations

import pytest

from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import F32
from shlo_cli.passes import run_passes, take_emitted
from shlo_cli.passes.hlo_test_broadcast import broadcast_shape, tensor_type


def program(*types: str) -> str:
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    names = ", ".join(f"%a{i}" for i in range(len(types)))
    return (f"func.func @f({args}) -> !stablehlo.token {{\n"
            f'  %0 = "hlo_test_broadcast.numpy_broadcast"({names}) : ({", ".join(types)}) '
            f"-> !stablehlo.token\n  return %0 : !stablehlo.token\n}}")


def shape_of(*types: str) -> str:
    module = parse_source(program(*types), "t.mlir", allow_unregistered=True)
    op = module.functions()[0].regions[0].entry.operations[0]
    return str(tensor_type(broadcast_shape(op, op.operands), F32))


@pytest.mark.parametrize(("types", "expected"), [
    (("tensor<5xf32>", "tensor<10x1xf32>"), "tensor<10x5xf32>"),
    (("tensor<f32>", "tensor<2x3xf32>"), "tensor<2x3xf32>"),
    (("tensor<?x1xf32, #stablehlo.bounds<10, ?>>", "tensor<1x?xf32, #stablehlo.bounds<?, 7>>"),
     "tensor<?x?xf32, #stablehlo.bounds<10, 7>>"),
    (("tensor<1xf32>", "tensor<?xf32, #stablehlo.bounds<4>>"),
     "tensor<?xf32, #stablehlo.bounds<4>>"),
])
def test_broadcast_shape(types: tuple[str, ...], expected: str) -> None:
    assert shape_of(*types) == expected


def run(text: str) -> str:
    module = parse_source(text, "t.mlir", allow_unregistered=True)
    run_passes(module, ["hlo-test-broadcast"])
    return print_module(module)


def test_rewrites_to_custom_call_of_broadcast_operands() -> None:
    out = run(program("tensor<1xf32>", "tensor<?xf32, #stablehlo.bounds<4>>"))
    assert ("stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<1xf32>) -> "
            "tensor<4xf32>") in out
    assert "stablehlo.get_dimension_size %arg1, dim = 0" in out
    assert ("-> tensor<?xf32, #stablehlo.bounds<4>>\n    %3 = stablehlo.custom_call "
            "@numpy_broadcasted(%2, %arg1) {has_side_effect = true}") in out
    assert take_emitted() == []


@pytest.mark.parametrize(("types", "message"), [
    (("tensor<10xf32>", "tensor<5xf32>"), "incompatible shapes for broadcasting 10 and 5"),
    (("tensor<10xf32>", "tensor<?xf32, #stablehlo.bounds<10>>"),
     "cannot mix bounded and static dimensions in broadcast"),
    (("tensor<10xf32>", "!stablehlo.token"), "expected ranked tensor type for broadcast inputs"),
    ((), "requires at least one operand to broadcast"),
])
def test_errors_are_emitted_and_the_op_is_kept(types: tuple[str, ...], message: str) -> None:
    out = run(program(*types))
    assert '"hlo_test_broadcast.numpy_broadcast"' in out
    assert [d.message for d in take_emitted()] == [message]
