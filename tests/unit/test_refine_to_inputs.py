"""Dynamically shaped entry functions (jax symbolic-shape exports) run refined to the shapes
of each call through the Python API: same bits as the dynamic path, one refinement per shape
signature, the original module untouched, the dynamic path whenever refinement fails, and
static programs never pay for it."""

# ruff: noqa: E501  (MLIR test programs keep their one-statement lines)

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import shlo_cli
from shlo_cli import api
from shlo_cli.interpreter.run import evaluate
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes.refine_to_inputs import DEFAULT_LIMIT, fully_static, refine_to_types

# relu(x @ w + b) of a batch `?`: dot_general, dynamic_broadcast_in_dim from the batch size.
MLP = """func.func @main(%x: tensor<?x4xf32>, %w: tensor<4x3xf32>) -> tensor<?x3xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c3 = stablehlo.constant dense<3> : tensor<1xi32>
  %s = stablehlo.concatenate %n1, %c3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %b = stablehlo.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %bb = stablehlo.dynamic_broadcast_in_dim %b, %s, dims = [1] : (tensor<3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  %1 = stablehlo.add %0, %bb : tensor<?x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zz = stablehlo.dynamic_broadcast_in_dim %z, %s, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x3xf32>
  %2 = stablehlo.maximum %1, %zz : tensor<?x3xf32>
  return %2 : tensor<?x3xf32>
}
"""

# A jax-style helper taking a dimension value, called with two different values: refinable
# only after inlining (refined in place it would need two incompatible refinements).
HELPER = """func.func @main(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %0 = call @scaled(%n, %x) : (tensor<i32>, tensor<?xf32>) -> tensor<?xf32>
  %c = stablehlo.constant dense<7> : tensor<i32>
  %1 = call @scaled(%c, %0) : (tensor<i32>, tensor<?xf32>) -> tensor<?xf32>
  %s = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %2 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
  return %1, %2 : tensor<?xf32>, tensor<?xi32>
}
func.func private @scaled(%d: tensor<i32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %f = stablehlo.convert %d : (tensor<i32>) -> tensor<f32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %s = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %fb = stablehlo.dynamic_broadcast_in_dim %f, %s, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
  %y = stablehlo.multiply %x, %fb : tensor<?xf32>
  return %y : tensor<?xf32>
}
"""

# A composite whose decomposition keeps `?` types: refined as a call of its decomposition
# (refining only the call site would break the composite's contract).
COMPOSITE = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.composite "my.double" %x {decomposition = @my.double.impl} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func private @my.double.impl(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""

# jax's cumsum along a symbolic dimension: a reduce_window whose window is an operand.
CUMSUM = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %w = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %nm1 = stablehlo.subtract %n, %c1 : tensor<i32>
  %lo = stablehlo.reshape %nm1 : (tensor<i32>) -> tensor<1xi32>
  %zero = stablehlo.constant dense<0> : tensor<1xi32>
  %p = stablehlo.concatenate %lo, %zero, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %pad = stablehlo.reshape %p : (tensor<2xi32>) -> tensor<1x2xi32>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %z, %w, %one, %one, %one, %pad) {api_version = 2 : i32, called_computations = [@sum]} : (tensor<?xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
"""

# A reshape to a fixed size: for another size the refinement does not verify, and the
# dynamic path reports the error at run time.
RESHAPE = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = stablehlo.constant dense<[5]> : tensor<1xi32>
  %0 = stablehlo.dynamic_reshape %x, %c : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""

# A custom call of the user's whose result size nothing tells: it stays `?`.
OPAQUE = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.custom_call @test.refine.halve(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = stablehlo.add %0, %0 : tensor<?xf32>
  return %1 : tensor<?xf32>
}
"""

# jax's check of a symbolic-shape constraint (`b >= 4`).
ASSERTION = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %c4 = stablehlo.constant dense<4> : tensor<i32>
  %ok = stablehlo.compare GE, %n, %c4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "Expected b >= 4, got b = {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %0 = stablehlo.add %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""

STATIC = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""


def _unrefined(monkeypatch: pytest.MonkeyPatch, source: str, *inputs: Any) -> list[np.ndarray]:
    """The dynamic path's results: the same program with refinement switched off."""
    with monkeypatch.context() as m:
        m.setattr(api.Program, "_refine", lambda self, module, types: None)
        return shlo_cli.parse(source)(*inputs)


def _same_bits(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def _refined_for(program: shlo_cli.Program, *shapes: tuple[int, ...]) -> Any:
    """The cached refinement of `program` for argument shapes (None: it fell back)."""
    cache = program._refined
    assert cache is not None
    for key, refined in cache._cache.items():
        if tuple(t.shape for t in key) == shapes:
            return refined
    raise AssertionError(f"no refinement for {shapes}")


@pytest.mark.parametrize("batch", [1, 5, 0])
def test_mlp_refined_matches_dynamic(monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    program = shlo_cli.parse(MLP)
    ours = program.main(x, w)
    assert _refined_for(program, (batch, 4), (4, 3)) is not None  # it ran refined
    _same_bits(ours, _unrefined(monkeypatch, MLP, x, w))
    np.testing.assert_allclose(ours[0], np.maximum(x @ w + [0.5, -1.0, 2.0], 0), rtol=1e-5)


def test_helper_with_dimension_argument_is_inlined(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.arange(6, dtype=np.float32) - 2.5
    program = shlo_cli.parse(HELPER)
    ours = program(x)
    refined = _refined_for(program, (6,))
    assert refined is not None and fully_static(refined)
    _same_bits(ours, _unrefined(monkeypatch, HELPER, x))
    assert ours[0].tolist() == (x * 6 * 7).tolist() and ours[1].tolist() == list(range(6))


def test_original_module_untouched() -> None:
    program = shlo_cli.parse(HELPER)
    before = print_module(program.module)
    program(np.ones(3, np.float32))
    assert print_module(program.module) == before
    assert "?" in before


def test_cache_per_shape_signature() -> None:
    program = shlo_cli.parse(MLP)
    w = np.ones((4, 3), np.float32)
    program.main(np.ones((2, 4), np.float32), w)
    program.main(np.zeros((2, 4), np.float32), w)  # same shapes: no new refinement
    assert program._refined.refinements == 1
    program.main(np.ones((3, 4), np.float32), w)  # another batch size refines again
    assert program._refined.refinements == 2
    program.main(np.ones((2, 4), np.float32), w)
    assert program._refined.refinements == 2
    for batch in range(10, 10 + 2 * DEFAULT_LIMIT):
        program.main(np.ones((batch, 4), np.float32), w)
    assert len(program._refined._cache) == DEFAULT_LIMIT  # bounded
    assert program._refined.refinements == 2 + 2 * DEFAULT_LIMIT


def test_composite_with_dynamic_decomposition(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.array([1.5, -2.0, 3.0], np.float32)
    program = shlo_cli.parse(COMPOSITE)
    ours = program(x)
    assert _refined_for(program, (3,)) is not None
    _same_bits(ours, _unrefined(monkeypatch, COMPOSITE, x))
    assert ours[0].tolist() == [3.0, -4.0, 6.0]


def test_dynamic_reduce_window_becomes_reduce_window(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.random.default_rng(0).standard_normal(7).astype(np.float32)
    program = shlo_cli.parse(CUMSUM)
    ours = program(x)
    refined = _refined_for(program, (7,))
    assert refined is not None
    text = print_module(refined)
    assert "stablehlo.reduce_window" in text and "dynamic_reduce_window" not in text
    _same_bits(ours, _unrefined(monkeypatch, CUMSUM, x))
    np.testing.assert_allclose(ours[0], np.cumsum(x), rtol=1e-5, atol=1e-6)


def test_refinement_that_does_not_verify_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    program = shlo_cli.parse(RESHAPE)
    assert program(np.arange(5, dtype=np.float32))[0].tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(shlo_cli.Diagnostic) as refined_error:
        program(np.arange(3, dtype=np.float32))
    assert _refined_for(program, (5,)) is not None
    assert _refined_for(program, (3,)) is None  # fell back: the dynamic path's error
    with monkeypatch.context() as m:
        m.setattr(api.Program, "_refine", lambda self, module, types: None)
        with pytest.raises(shlo_cli.Diagnostic) as dynamic_error:
            shlo_cli.parse(RESHAPE)(np.arange(3, dtype=np.float32))
    assert str(refined_error.value) == str(dynamic_error.value)
    with pytest.raises(shlo_cli.Diagnostic):
        program(np.arange(3, dtype=np.float32))
    assert program._refined.refinements == 2  # the failure is remembered, not retried


def test_types_left_dynamic_fall_back() -> None:
    shlo_cli.register_custom_call("test.refine.halve", lambda x: x[: len(x) // 2])
    program = shlo_cli.parse(OPAQUE)
    assert program(np.arange(6, dtype=np.float32))[0].tolist() == [0.0, 2.0, 4.0]
    assert _refined_for(program, (6,)) is None


def test_failed_shape_assertion_keeps_its_error(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.ones(2, np.float32)
    with pytest.raises(shlo_cli.Diagnostic) as refined_error:
        shlo_cli.parse(ASSERTION)(x)
    with monkeypatch.context() as m:
        m.setattr(api.Program, "_refine", lambda self, module, types: None)
        with pytest.raises(shlo_cli.Diagnostic) as dynamic_error:
            shlo_cli.parse(ASSERTION)(x)
    assert str(refined_error.value) == str(dynamic_error.value)
    assert "Expected b >= 4, got b = 2" in str(refined_error.value)
    program = shlo_cli.parse(ASSERTION)
    with pytest.raises(shlo_cli.Diagnostic):
        program(x)
    failing = _refined_for(program, (2,))
    assert failing is not None  # the refined module raised it
    assert "@shape_assertion" in print_module(failing)
    assert program(np.ones(4, np.float32))[0].tolist() == [2.0] * 4
    assert "@shape_assertion" not in print_module(_refined_for(program, (4,)))  # passes: gone


def test_wrong_input_reported_against_the_original() -> None:
    program = shlo_cli.parse(MLP)
    with pytest.raises(shlo_cli.Diagnostic, match="tensor<4x3xf32>"):
        program.main(np.ones((2, 4), np.float32), np.ones((3, 3), np.float32))
    assert program._refined is None  # rejected before any refinement


def test_refine_to_types_leaves_no_dynamic_type() -> None:
    module = parse_source(MLP)
    from shlo_cli.ir.types import F32, TensorType

    refined = refine_to_types(module, [TensorType((2, 4), F32), TensorType((4, 3), F32)])
    assert refined is not None and refined is not module and fully_static(refined)
    assert "?" not in print_module(refined) and "?" in print_module(module)
    assert refine_to_types(parse_source(OPAQUE), [TensorType((2,), F32)]) is None
    assert refine_to_types(parse_source(RESHAPE), [TensorType((2,), F32)]) is None


def test_evaluate_skips_refinement_with_an_observer() -> None:
    from shlo_cli.interpreter.engine import entry_function
    from shlo_cli.interpreter.run import arrays_as_arguments

    module = parse_source(HELPER)
    asked: list[Any] = []

    def refine(m: Any, types: Any) -> None:
        asked.append(types)

    arguments = arrays_as_arguments(entry_function(module), [np.ones(2, np.float32)])
    evaluate(module, arguments, refine=refine)
    assert len(asked) == 1 and asked[0][0].shape == (2,)

    class Observer:
        def wrap(self, op: Any, kernel: Any) -> Any:
            return kernel

    evaluate(module, arguments, refine=refine, observer=Observer())
    assert len(asked) == 1


def test_static_program_pays_nothing() -> None:
    program = shlo_cli.parse(STATIC)
    assert program(np.ones(3, np.float32))[0].tolist() == [2.0] * 3
    assert program._refined is None
    code = ("import sys, numpy as np, shlo_cli\n"
            f"p = shlo_cli.parse({STATIC!r})\n"
            "p(np.ones(3, np.float32))\n"
            "print(sorted(m for m in sys.modules if m.startswith('shlo_cli.passes')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
