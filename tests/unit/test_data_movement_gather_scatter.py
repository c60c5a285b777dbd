"""gather / scatter evaluators against a direct element-by-element transcription of the spec."""
# ruff: noqa: E501  (test oracles and MLIR text)

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo.gather_scatter import dynamic_gather, gather, scatter
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.attributes import DialectAttr
from shlo_cli.ir.core import Block, Operation, Region
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source, scalar_type
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import TensorType, numpy_dtype


def _dims(name: str, **fields: Any) -> DialectAttr:
    return DialectAttr("stablehlo", name, "", tuple(fields.items()))


def _type(shape: tuple[int, ...], dtype: str = "i64") -> TensorType:
    return TensorType(tuple(shape), scalar_type(dtype))


# ---- spec transcriptions (loops are fine in a test oracle) ------------------------------


def _start_vector(indices: np.ndarray, batch_index: tuple[int, ...], ivd: int) -> tuple[list, list]:
    full = list(batch_index)
    if ivd < indices.ndim:
        full.insert(ivd, slice(None))
    return [int(x) for x in np.atleast_1d(indices[tuple(full)])], full


def naive_gather(operand, indices, offset_dims, collapsed, obatch, ibatch, start_map, ivd,
                 sizes, shape):
    result = np.zeros(shape, operand.dtype)
    batch_dims = [d for d in range(len(shape)) if d not in offset_dims]
    for ri in itertools.product(*map(range, shape)):
        start, sii = _start_vector(indices, tuple(ri[d] for d in batch_dims), ivd)
        full_start = [0] * operand.ndim
        for k, d in enumerate(start_map):
            full_start[d] = min(max(start[k], 0), operand.shape[d] - sizes[d])
        full_batch = [0] * operand.ndim
        for d, dsi in zip(obatch, ibatch, strict=False):
            full_batch[d] = sii[dsi]
        offsets = [ri[d] for d in offset_dims]
        full_offset = [0] * operand.ndim
        it = iter(offsets)
        for d in range(operand.ndim):
            if d not in collapsed and d not in obatch:
                full_offset[d] = next(it)
        idx = tuple(a + b + c for a, b, c in zip(full_start, full_batch, full_offset, strict=False))
        result[ri] = operand[idx]
    return result


def naive_scatter(inputs, indices, updates, uwd, iwd, ibatch, sbatch, to_operand, ivd, fn):
    results = [x.copy() for x in inputs]
    usd = [d for d in range(updates[0].ndim) if d not in uwd]
    for ui in itertools.product(*map(range, updates[0].shape)):
        start, sii = _start_vector(indices, tuple(ui[d] for d in usd), ivd)
        rank = results[0].ndim
        full_start = [0] * rank
        for k, d in enumerate(to_operand):
            full_start[d] = start[k]
        full_batch = [0] * rank
        for d, dsi in zip(ibatch, sbatch, strict=False):
            full_batch[d] = sii[dsi]
        it = iter([ui[d] for d in uwd])
        full_window = [0 if (d in iwd or d in ibatch) else next(it) for d in range(rank)]
        ri = tuple(a + b + c for a, b, c in zip(full_start, full_batch, full_window, strict=False))
        if not all(0 <= i < n for i, n in zip(ri, results[0].shape, strict=False)):
            continue
        new = fn(*[r[ri] for r in results], *[u[ui] for u in updates])
        for r, v in zip(results, new, strict=False):
            r[ri] = v
    return results


# ---- gather ---------------------------------------------------------------------------------


GATHER_CASES = [
    # operand shape, indices, offset_dims, collapsed, obatch, ibatch, start_map, ivd, sizes
    ((3, 4, 2), [[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], [2, 3], [0], [], [],
     [1, 0], 2, [1, 2, 2]),
    ((5,), [[3], [-2], [7]], [], [0], [], [], [0], 1, [1]),
    ((4, 6), [1, 3, 0], [0], [1], [], [], [1], 1, [4, 1]),
    ((2, 3, 4, 2), [[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                    [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]],
     [3, 4], [1], [0], [1], [2, 1], 3, [1, 1, 2, 2]),
    ((3, 5), [[2, 1], [0, 4]], [1, 2], [], [], [], [0, 1], 0, [1, 2]),  # index_vector_dim 0
]


def _gather_shape(operand_shape, indices, offset_dims, collapsed, obatch, ivd, sizes):
    batch = [n for d, n in enumerate(np.shape(indices)) if d != ivd]
    offsets = [sizes[d] for d in range(len(operand_shape)) if d not in collapsed and d not in obatch]
    shape, b, o = [], iter(batch), iter(offsets)
    for d in range(len(batch) + len(offsets)):
        shape.append(next(o) if d in offset_dims else next(b))
    return tuple(shape)


@pytest.mark.parametrize("case", GATHER_CASES)
def test_gather_matches_spec(case: tuple) -> None:
    shape, idx, offset_dims, collapsed, obatch, ibatch, start_map, ivd, sizes = case
    operand = np.arange(np.prod(shape), dtype=np.int64).reshape(shape)
    indices = np.array(idx, dtype=np.int32)
    rshape = _gather_shape(shape, indices, offset_dims, collapsed, obatch, ivd, sizes)
    dims = _dims("gather", offset_dims=offset_dims, collapsed_slice_dims=collapsed,
                 operand_batching_dims=obatch, start_indices_batching_dims=ibatch,
                 start_index_map=start_map, index_vector_dim=ivd)
    got = gather(operand, indices, dimension_numbers=dims, slice_sizes=tuple(sizes),
                 indices_are_sorted=False, result_type=_type(rshape))
    want = naive_gather(operand, indices, offset_dims, collapsed, obatch, ibatch, start_map,
                        ivd, sizes, rshape)
    np.testing.assert_array_equal(got, want)


# ---- scatter --------------------------------------------------------------------------------


def _region_op(name: str, n: int, etype: str = "i64") -> Operation:
    """A scatter op whose region is `%r = name(%cur, %upd)` per operand (for combiner detection)."""
    t = _type((), etype)
    block = Block([t] * (2 * n))
    returned = []
    for i in range(n):
        if name == "replace":
            returned.append(block.arguments[n + i])
            continue
        inner = Operation(name, [block.arguments[i], block.arguments[n + i]], [t])
        block.append(inner)
        returned.append(inner.results[0])
    block.append(Operation("stablehlo.return", returned))
    return Operation("stablehlo.scatter", regions=[Region([block])])


SCATTER_CASES = [
    # input shape, indices, update shape, uwd, iwd, ibatch, sbatch, to_operand, ivd
    ((3, 4, 2), [[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [0, 9]]], (2, 3, 2, 2), [2, 3],
     [0], [], [], [1, 0], 2),
    ((6,), [[1], [1], [4], [1], [-1], [5]], (6,), [], [0], [], [], [0], 1),
    ((5, 3), [0, 4, 4, 2, 0], (5, 3), [1], [0], [], [], [0], 1),
    ((2, 3, 4, 2), [[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                    [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]],
     (2, 2, 3, 2, 2), [3, 4], [1], [0], [1], [2, 1], 3),
    ((4, 4), [[3, 3], [2, 2], [3, 3]], (3, 2, 2), [1, 2], [], [], [], [0, 1], 1),  # windows cut
]


def _run_scatter(case, name, fn, n=1, etype="i64"):
    shape, idx, ushape, uwd, iwd, ibatch, sbatch, to_operand, ivd = case
    rng = np.random.default_rng(0)
    dt = numpy_dtype(scalar_type(etype))
    inputs = [rng.integers(-5, 5, size=shape).astype(dt) for _ in range(n)]
    updates = [rng.integers(-5, 5, size=ushape).astype(dt) for _ in range(n)]
    originals = [x.copy() for x in inputs]
    indices = np.array(idx, dtype=np.int64)
    dims = _dims("scatter", update_window_dims=uwd, inserted_window_dims=iwd,
                 input_batching_dims=ibatch, scatter_indices_batching_dims=sbatch,
                 scatter_dims_to_operand_dims=to_operand, index_vector_dim=ivd)

    def region(*args):
        return list(fn(*args))

    got = scatter(*inputs, indices, *updates, scatter_dimension_numbers=dims,
                  indices_are_sorted=False, unique_indices=False, update_computation=region,
                  op=_region_op(name, n, etype), result_types=[_type(shape, etype)] * n)
    got = [got] if n == 1 else got
    want = naive_scatter(originals, indices, updates, uwd, iwd, ibatch, sbatch, to_operand, ivd,
                         fn)
    for g, w in zip(got, want, strict=False):
        np.testing.assert_array_equal(g, w)
    for x, o in zip(inputs, originals, strict=False):
        np.testing.assert_array_equal(x, o)  # the operand is never mutated


@pytest.mark.parametrize("case", SCATTER_CASES)
def test_scatter_add_fast_path(case: tuple) -> None:
    _run_scatter(case, "stablehlo.add", lambda a, b: [a + b])


@pytest.mark.parametrize("case", SCATTER_CASES)
def test_scatter_replace_keeps_last_update(case: tuple) -> None:
    _run_scatter(case, "replace", lambda a, b: [b])


@pytest.mark.parametrize("case", SCATTER_CASES)
def test_scatter_general_region_in_order(case: tuple) -> None:
    # Not commutative and not a known op: duplicates must be combined in update order.
    _run_scatter(case, "test.affine", lambda a, b: [a * 3 - b])


def test_scatter_variadic_general_region() -> None:
    def fn(a0, a1, b0, b1):
        return [a0 * 2 + b1, a1 - b0]

    _run_scatter(SCATTER_CASES[1], "test.mix", fn, n=2)
    _run_scatter(SCATTER_CASES[3], "test.mix", fn, n=2)


def test_scatter_variadic_fast_path_and_bool() -> None:
    _run_scatter(SCATTER_CASES[2], "stablehlo.maximum", lambda a, b, c, d: [max(a, c), max(b, d)],
                 n=2)
    _run_scatter(SCATTER_CASES[1], "stablehlo.add", lambda a, b: [a or b], etype="i1")


SCATTER_MLIR = """
func.func @main(%input: tensor<5xi64>, %idx: tensor<4x1xi32>, %upd: tensor<4xi64>) -> tensor<5xi64> {
  %0 = "stablehlo.scatter"(%input, %idx, %upd) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %1 = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}
     : (tensor<5xi64>, tensor<4x1xi32>, tensor<4xi64>) -> tensor<5xi64>
  func.return %0 : tensor<5xi64>
}
"""


def test_scatter_through_interpreter_and_generic_print() -> None:
    module = parse_source(SCATTER_MLIR)
    text = print_module(module)
    assert ('"stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = '
            "#stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
            "index_vector_dim = 1>, unique_indices = false}> ({") in text
    assert print_module(parse_source(text)) == text
    interp = Interpreter(module)
    out = interp.call(module.functions()[0], [np.zeros(5, np.int64),
                                              np.array([[1], [1], [7], [4]], np.int32),
                                              np.array([1, 2, 3, 4], np.int64)])
    result = out[0] if isinstance(out, list) else out
    np.testing.assert_array_equal(result, [0, 3, 0, 0, 4])


def test_gather_generic_print() -> None:
    text = """func.func @g(%o: tensor<3x4xf32>, %i: tensor<2x1xi64>) -> tensor<2x4xf32> {
  %0 = "stablehlo.gather"(%o, %i) {dimension_numbers = #stablehlo.gather<index_vector_dim = 1,
     start_index_map = [0], collapsed_slice_dims = [0], offset_dims = [1]>,
     slice_sizes = array<i64: 1, 4>, indices_are_sorted = false}
     : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}"""
    printed = print_module(parse_source(text))
    assert ('%0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<'
            "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
            "index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}>"
            " : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>") in printed


def test_scatter_region_that_only_takes_scalars_still_runs() -> None:
    def scalar_only(a, b):
        if np.ndim(a):
            raise Diagnostic("kernel wants 0-d operands")
        return [a * 3 - b]

    _run_scatter(SCATTER_CASES[1], "test.scalar", scalar_only)


def test_dynamic_gather_takes_slice_sizes_from_a_tensor() -> None:
    shape, idx, offset_dims, collapsed, obatch, ibatch, start_map, ivd, sizes = GATHER_CASES[0]
    operand = np.arange(np.prod(shape), dtype=np.int64).reshape(shape)
    indices = np.array(idx, dtype=np.int32)
    dims = _dims("gather", offset_dims=offset_dims, collapsed_slice_dims=collapsed,
                 start_index_map=start_map, index_vector_dim=ivd)
    rshape = _gather_shape(shape, indices, offset_dims, collapsed, obatch, ivd, sizes)
    got = dynamic_gather(operand, indices, np.array(sizes), dimension_numbers=dims,
                         indices_are_sorted=False, result_type=_type((-1,) * len(rshape)))
    want = naive_gather(operand, indices, offset_dims, collapsed, obatch, ibatch, start_map,
                        ivd, sizes, rshape)
    np.testing.assert_array_equal(got, want)


# ---- verifiers ------------------------------------------------------------------------------

SCATTER_TEMPLATE = """func.func @f(%x: tensor<4x5x{W}>, %i: tensor<3x2xi32>, %u: tensor<3x{U}>) -> tensor<4x5x{W}> {{
  %0 = "stablehlo.scatter"(%x, %i, %u) ({{
  ^bb0(%a: tensor<{R}>, %b: tensor<{R}>):
    stablehlo.return %b : tensor<{R}>
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {UWD},
      inserted_window_dims = {IWD}, scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>}}
     : (tensor<4x5x{W}>, tensor<3x2xi32>, tensor<3x{U}>) -> tensor<4x5x{W}>
  func.return %0 : tensor<4x5x{W}>
}}"""


def _verify_first(text: str) -> str | None:
    module = parse_source(text)
    for op in module.op.walk():
        if op.opdef is not None and op.opdef.verify is not None:
            try:
                op.opdef.verify(op)
            except Diagnostic as d:
                return d.message
    return None


def _scatter_text(**kw: str) -> str:
    fields = {"W": "6xf32", "U": "6xf32", "R": "f32", "UWD": "[1]", "IWD": "[0, 1]"}
    fields.update(kw)
    return SCATTER_TEMPLATE.format(**fields)


@pytest.mark.parametrize(("changes", "message"), [
    ({}, None),
    ({"IWD": "[1, 0]"}, "Expects inserted_window_dims to be sorted; got: [1, 0]."),
    ({"UWD": "[1, 1]", "U": "6x6xf32", "IWD": "[0]"}, "Expects update_window_dims to not repeat"),
    ({"IWD": "[0]"}, "Expects rank-of operand to match size-of('update_window_dims') + "
                     "size-of('inserted_window_dims') + size-of('input_batching_dims') i.e. 2 "
                     "but got 3."),
    ({"U": "7xf32"}, "For dimension 1, updates bound is 7, operand bound is 6."),
    ({"R": "f16"}, "The element-type of reduction-region's result type at index 0 is expected "
                   "to be promotable from the op's corresponding init-value element-type: "
                   "'tensor<f16>' vs 'tensor<f32>'"),
    ({"W": "6xi32", "U": "6xi8", "R": "i8"}, "The element-type of reduction-region's argument "
                                             "at index 1 is expected to be promotable from "
                                             "'i32', but got 'i8'"),
    ({"W": "6xi8", "U": "6xi8", "R": "i32"}, "'stablehlo.scatter' op inferred type(s) "
                                             "'tensor<4x5x6xi32>' are incompatible with return "
                                             "type(s) of operation 'tensor<4x5x6xi8>'"),
])
def test_scatter_verifier(changes: dict, message: str | None) -> None:
    got = _verify_first(_scatter_text(**changes))
    if message is None:
        assert got is None
    else:
        assert got is not None and message in got


GATHER_TEMPLATE = """func.func @g(%o: tensor<3x4xf32>, %i: tensor<2x1xi64>) -> tensor<{RES}> {{
  %0 = "stablehlo.gather"(%o, %i) {{dimension_numbers = #stablehlo.gather<offset_dims = {OD},
     collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
     slice_sizes = array<i64: {SS}>}} : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<{RES}>
  func.return %0 : tensor<{RES}>
}}"""


@pytest.mark.parametrize(("changes", "message"), [
    ({}, None),
    ({"SS": "2, 4"}, "Expects that for each dim in collapsed_slice_dims, slice_sizes[dim] "
                     "should be <= 1, but got 2"),
    ({"SS": "1, 5"}, "slice size (5) is out of bounds for operand dimension (4) at index 1"),
    ({"SS": "1, 4, 1"}, "slice_sizes size (3) not equal to operand rank (2)"),
    ({"OD": "[2]"}, "Expects each element of offset_dims to be in range [0, implied-result-rank)"
                    " i.e. [0, 2). got: 2."),
    ({"RES": "2x3xf32"}, "'stablehlo.gather' op inferred type(s) 'tensor<2x4xf32>' are "
                         "incompatible with return type(s) of operation 'tensor<2x3xf32>'"),
])
def test_gather_verifier(changes: dict, message: str | None) -> None:
    fields = {"RES": "2x4xf32", "OD": "[1]", "SS": "1, 4"}
    fields.update(changes)
    got = _verify_first(GATHER_TEMPLATE.format(**fields))
    if message is None:
        assert got is None
    else:
        assert got is not None and message in got


@pytest.mark.parametrize("operand", [np.array([3, 1], np.uint64), np.zeros((0,), np.uint64)])
def test_gather_collapsed_slice_of_size_zero_gives_zeros(operand: np.ndarray) -> None:
    """slice_sizes 0 on a collapsed dimension: the slices are empty but the result keeps its
    batch elements; nothing to read, so zeros as XLA (the spec's formula reads out of bounds:
    this was an IndexError for the operand of size 0 or a start index at the end)."""
    dims = _dims("gather", offset_dims=[], collapsed_slice_dims=[0], start_index_map=[0],
                 index_vector_dim=1)
    for starts in ([[1], [1]], [[-1], [2147483647]], [[0], [0]]):
        got = gather(operand, np.array(starts, np.int32), dimension_numbers=dims,
                     slice_sizes=np.array([0]), indices_are_sorted=False,
                     result_type=_type((2,), "ui64"))
        assert got.dtype == np.uint64 and got.tolist() == [0, 0]
