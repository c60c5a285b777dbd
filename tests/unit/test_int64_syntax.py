"""Integers of int64 attributes written in custom syntax (`dims = [...]`, `dim = N`,
`[a:b]`, `length = [...]`, ...) are read as MLIR's parseInteger<int64_t> reads them: a
value beyond int64 is `integer value too large` at that integer, from the fast and the
token-level readers alike; values up to the int64 limits, of any number of digits, are
read. (A fuzzed FFT with a length of 2^64 ended in an OverflowError when printed.)"""

from __future__ import annotations

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

N = "{n}"
STATEMENTS = {
    "transpose": f"%0 = stablehlo.transpose %a, dims = [{N}, 0] : (tensor<2x3xf32>) -> "
                 "tensor<3x2xf32>",
    "broadcast": f"%0 = stablehlo.broadcast_in_dim %a, dims = [0, {N}] : (tensor<2x3xf32>) "
                 "-> tensor<2x3x4xf32>",
    "fft": f"%0 = stablehlo.fft %c, type = FFT, length = [{N}] : (tensor<2xcomplex<f32>>) "
           "-> tensor<2xcomplex<f32>>",
    "iota": f"%0 = stablehlo.iota dim = {N} : tensor<2x3xf32>",
    "slice": f"%0 = stablehlo.slice %a [0:{N}, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>",
    "concatenate": f"%0 = stablehlo.concatenate %a, %a, dim = {N} : (tensor<2x3xf32>, "
                   "tensor<2x3xf32>) -> tensor<4x3xf32>",
    "dynamic_slice": f"%0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [1, {N}] : "
                     "(tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>",
    "reduce": f"%0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions "
              f"= [{N}] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>",
    "pad": f"%0 = stablehlo.pad %a, %z, low = [{N}, 0], high = [0, 0], interior = [0, 0] : "
           "(tensor<2x3xf32>, tensor<f32>) -> tensor<4x3xf32>",
}


def _program(statement: str) -> str:
    return ("func.func @main(%a: tensor<2x3xf32>, %c: tensor<2xcomplex<f32>>, %i: tensor<i32>,"
            " %z: tensor<f32>) {\n"
            f"  {statement}\n  return\n}}\n")


@pytest.mark.parametrize("name", list(STATEMENTS))
@pytest.mark.parametrize("value", [str(1 << 63), str(1 << 64), str(-(1 << 63) - 1),
                                   "1" + "0" * 30])
def test_beyond_int64_is_integer_value_too_large(name: str, value: str) -> None:
    statement = STATEMENTS[name].format(n=value)
    with pytest.raises(Diagnostic) as caught:
        parse_source(_program(statement))
    # MLIR's custom op parsers prefix it (checked with jaxlib)
    op_name = statement.split()[2].split("(")[0]
    assert caught.value.message == f"custom op '{op_name}' integer value too large"
    assert caught.value.col == 2 + statement.index(value) + 1  # (at the `-` of a negative)


@pytest.mark.parametrize("name", list(STATEMENTS))
@pytest.mark.parametrize("value", [str((1 << 63) - 1), str(-(1 << 63)), "0" * 25 + "1"])
def test_int64_limits_and_long_spellings_are_read(name: str, value: str) -> None:
    module = parse_source(_program(STATEMENTS[name].format(n=value)))
    op = module.body.operations[0].regions[0].entry.operations[0]
    numbers = [int(v) for attr in op.properties.values()
               for v in (attr.value if isinstance(attr.value, (list, tuple)) else [attr.value])
               if isinstance(v, int)]
    assert int(value) in numbers
