"""Empty IR list fields are one shared empty tuple (`ir.core.EMPTY`): a parsed module holds no
empty list (each was an object the garbage collector tracked and freed), and code that
builds or extends IR still gets lists of its own."""

from __future__ import annotations

import gc

from shlo_cli.ir.core import EMPTY, Block, Operation
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import F32, TensorType

TEXT = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  %0 = stablehlo.add %a, %c : tensor<2xf32>
  %1 = "stablehlo.add"(%0, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = stablehlo.reduce(%1 init: %c) applies stablehlo.add across dimensions = []
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %2 : tensor<2xf32>
}
func.func private @empty() {
^bb0:
  func.return
}
"""


def _fields(module_op: Operation) -> list[object]:
    out: list[object] = []
    for op in module_op.walk():
        out += [op.operands, op.results, op.regions, op.successors]
        for region in op.regions:
            for block in region.blocks:
                out += [block.arguments, block.arg_locations]
    return out


def test_a_parsed_module_holds_no_empty_list() -> None:
    module = parse_source(TEXT, "t.mlir")
    fields = _fields(module.op)
    assert not [f for f in fields if isinstance(f, list) and not f]
    assert any(f is EMPTY for f in fields)
    # and it reads and prints as before
    assert print_module(parse_source(print_module(module), "t.mlir")) == print_module(module)


def test_no_empty_list_is_left_for_the_collector() -> None:
    gc.collect()
    module = parse_source(TEXT, "t.mlir")
    ids = {id(f) for f in _fields(module.op)}
    assert not [o for o in gc.get_objects() if type(o) is list and not o and id(o) in ids]


def test_blocks_without_arguments_get_their_own_lists_when_extended() -> None:
    t = TensorType((2,), F32)
    first, second = Block(), Block()
    assert not first.arguments and not first.arg_locations
    value = first.add_argument(t, "%x")
    assert first.arguments == [value] and first.arg_locations == [None]
    assert isinstance(first.arguments, list) and isinstance(first.arg_locations, list)
    assert not second.arguments and not second.arg_locations and second.arguments is EMPTY
    first.add_argument(t)
    assert [v.index for v in first.arguments] == [0, 1]
    # a block whose argument list was replaced (a pass) still takes new arguments
    third = Block()
    third.arguments = [value]
    third.add_argument(t)
    assert len(third.arguments) == 2 and third.arg_locations == [None]


def test_ops_without_operands_or_results() -> None:
    op = Operation("func.return")
    assert op.operands is EMPTY and op.results is EMPTY and not op.regions
    op.operands = [*op.operands, *Operation("x", result_types=[F32]).results]  # replaced whole
    assert len(op.operands) == 1
