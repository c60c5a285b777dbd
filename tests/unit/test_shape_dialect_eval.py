"""The shape dialect's evaluators on the opaque types and on bad extents: `!shape.shape`
results hold the extent list (it was reshaped to a 0-d array: an internal error), negative
or incompatible extents are a diagnostic."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic

BROADCAST = """func.func @main(%a: tensor<4xindex>, %b: tensor<4xindex>) -> {result} {{
  %0 = shape.broadcast %a, %b : tensor<4xindex>, tensor<4xindex> -> {result}
  return %0 : {result}
}}"""


@pytest.mark.parametrize("result", ["!shape.shape", "tensor<4xindex>", "tensor<?xindex>"])
def test_broadcast_result_kinds(result: str) -> None:
    a, b = np.array([1, 2, 3, 4]), np.array([5, 1, 3, 1])
    (got,) = shlo_cli.interpret(BROADCAST.format(result=result), a, b)
    assert np.asarray(got).reshape(-1).tolist() == [5, 2, 3, 4]


@pytest.mark.parametrize(("b", "message"), [([1, -5, 3, 1], "negative extent"),
                                           ([2, 3, 3, 1], "do not broadcast")])
def test_bad_extents_are_a_diagnostic(b: list[int], message: str) -> None:
    with pytest.raises(Diagnostic, match=message) as info:
        shlo_cli.interpret(BROADCAST.format(result="!shape.shape"), np.array([1, 2, 3, 4]),
                           np.array(b))
    assert "internal error" not in str(info.value)


def test_extents_that_do_not_fit_the_result_type() -> None:
    text = BROADCAST.format(result="tensor<3xindex>")
    with pytest.raises(Diagnostic) as info:
        shlo_cli.interpret(text, np.array([1, 2, 3, 4]), np.array([1, 2, 3, 4]))
    assert "internal error" not in str(info.value)
