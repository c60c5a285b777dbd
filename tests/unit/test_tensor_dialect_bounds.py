"""tensor.extract / tensor.insert / tensor.dim with an index out of bounds: a located
diagnostic (it was an IndexError, or silently the wrong element for a negative index)."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic

EXTRACT = """func.func @main(%t: tensor<3x3xi64>) -> i64 {{
  %a = arith.constant {i} : index
  %b = arith.constant 1 : index
  %0 = tensor.extract %t[%a, %b] : tensor<3x3xi64>
  return %0 : i64
}}"""

INSERT = """func.func @main(%t: tensor<3xi64>, %x: i64) -> tensor<3xi64> {{
  %a = arith.constant {i} : index
  %0 = tensor.insert %x into %t[%a] : tensor<3xi64>
  return %0 : tensor<3xi64>
}}"""

DIM = """func.func @main(%t: tensor<3x2xi64>) -> index {{
  %a = arith.constant {i} : index
  %0 = tensor.dim %t, %a : tensor<3x2xi64>
  return %0 : index
}}"""


@pytest.mark.parametrize("i", [100000, 3, -1])
def test_out_of_bounds_is_a_diagnostic(i: int) -> None:
    t = np.arange(9, dtype=np.int64).reshape(3, 3)
    for text, args, message in (
            (EXTRACT.format(i=i), (t,), r"index \[.*\] is out of bounds of a tensor"),
            (INSERT.format(i=i), (np.zeros(3, np.int64), np.int64(5)),
             r"index \[.*\] is out of bounds of a tensor"),
            (DIM.format(i=i if i != 3 else 2), (np.zeros((3, 2), np.int64),),
             "is out of range for a tensor of rank 2")):
        with pytest.raises(Diagnostic, match=message) as info:
            shlo_cli.interpret(text, *args)
        assert "internal error" not in str(info.value)


def test_in_bounds_still_works() -> None:
    t = np.arange(9, dtype=np.int64).reshape(3, 3)
    assert int(shlo_cli.interpret(EXTRACT.format(i=2), t)[0]) == 7
    got = shlo_cli.interpret(INSERT.format(i=2), np.zeros(3, np.int64), np.int64(5))[0]
    assert got.tolist() == [0, 0, 5]
    assert int(shlo_cli.interpret(DIM.format(i=1), np.zeros((3, 2), np.int64))[0]) == 2
