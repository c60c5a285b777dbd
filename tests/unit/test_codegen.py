"""Compiled block plans (interpreter/codegen.py): the same results as the step loop, values
captured by nested regions, multi-result ops, folded constants that later kernels cannot
change, large locals released early, and failures located at the failing op's line."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source


@pytest.fixture(autouse=True)
def _repeats_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """These programs repeat ops on purpose (two reads of one element, a product read twice)
    to test codegen's fusions: repeats stay unmerged here (test_dedupe.py merges them)."""
    monkeypatch.setattr(engine, "merge_repeats", lambda ops, terminator: ops)

PROGRAM = """
func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<i32>, tensor<4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1.5> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %k = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %k : tensor<i32>
      %m = stablehlo.multiply %acc, %b : tensor<4xf32>
      %s = stablehlo.add %m, %x : tensor<4xf32>
      stablehlo.return %i1, %s : tensor<i32>, tensor<4xf32>
    }
  %sorted:2 = "stablehlo.sort"(%r#1, %x) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>, %e: tensor<f32>):
      %gt = stablehlo.compare GT, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %gt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %sorted#0, %r#0, %b : tensor<4xf32>, tensor<i32>, tensor<4xf32>
}
"""


def _reference(x: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    acc = x.copy()
    for _ in range(n):
        acc = acc * np.float32(1.5) + x
    return np.sort(acc)[::-1], max(n, 0)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_compiled_plans_compute_what_the_program_says(n: int) -> None:
    x = np.array([1.0, -0.0, 2.5, 3.0], np.float32)
    interpreter = Interpreter(parse_source(PROGRAM))
    main = interpreter.lookup_function("main")
    for _ in range(3):  # warm runs reuse the plans (and their folded constants)
        out = interpreter.call(main, [x, np.int32(n)])
        want, count = _reference(x, n)
        np.testing.assert_array_equal(out[0], want)
        assert int(out[1]) == count
        np.testing.assert_array_equal(out[2], np.full(4, 1.5, np.float32))
    plan = interpreter._plans[id(main.regions[0])]
    assert plan.compiled is not None


def test_folded_constants_are_read_only() -> None:
    interpreter = Interpreter(parse_source(PROGRAM))
    main = interpreter.lookup_function("main")
    out = interpreter.call(main, [np.ones(4, np.float32), np.int32(1)])
    with pytest.raises(ValueError):
        out[2][0] = 7.0  # the folded broadcast is shared by every run
    again = interpreter.call(main, [np.ones(4, np.float32), np.int32(1)])
    np.testing.assert_array_equal(again[2], np.full(4, 1.5, np.float32))


def test_a_failing_op_is_located_at_its_line() -> None:
    text = """func.func @main(%x: tensor<2xf32>, %i: tensor<i32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  %1 = stablehlo.dynamic_slice %0, %i, sizes = [2] : (tensor<2xf32>, tensor<i32>) -> tensor<2xf32>
  %2 = "stablehlo.custom_call"(%1) {call_target_name = "no_such_target"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %2 : tensor<2xf32>
}
"""
    with pytest.raises(Diagnostic) as info:
        shlo_cli.interpret(text, np.ones(2, np.float32), np.int32(0))
    assert ":4:" in str(info.value).splitlines()[0]


def test_large_dead_values_are_released() -> None:
    """A chain over 64K-element tensors: the generated code deletes each temporary after its
    last use, and the result is still right."""
    t = "tensor<65536xf32>"
    text = (f"func.func @main(%x: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.add %x, %x : {t}\n  %1 = stablehlo.multiply %0, %0 : {t}\n"
            f"  %2 = stablehlo.subtract %1, %0 : {t}\n  func.return %2 : {t}\n}}\n")
    x = np.random.default_rng(0).standard_normal(65536).astype(np.float32)
    interpreter = Interpreter(parse_source(text))
    main = interpreter.lookup_function("main")
    (out,) = interpreter.call(main, [x])
    y = x + x
    np.testing.assert_array_equal(out, y * y - y)
    plan = interpreter._plans[id(main.regions[0])]
    assert plan.compiled is not None and "del v1, v0" in plan.compiled.source


def test_wrong_argument_count_falls_back_to_the_step_loop() -> None:
    text = """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %x, %x : tensor<f32>
  func.return %0 : tensor<f32>
}
"""
    interpreter = Interpreter(parse_source(text))
    main = interpreter.lookup_function("main")
    with pytest.raises(Diagnostic):  # %x unbound: the step loop reports it at the add
        interpreter.call(main, [])
    assert float(interpreter.call(main, [np.float32(2)])[0]) == 4.0


ELEMENT_READS = """
func.func @main(%x: tensor<5xf32>, %i: tensor<i32>) -> (tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<f32>) {
  %s = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
  %e = stablehlo.reshape %s : (tensor<1xf32>) -> tensor<f32>
  %t = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
  %f = stablehlo.reshape %t : (tensor<1xf32>) -> tensor<f32>
  %n = stablehlo.negate %e : tensor<f32>
  %u = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
  %g = stablehlo.reshape %u : (tensor<1xf32>) -> tensor<f32>
  %r = "stablehlo.reduce"(%x, %g) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %m = stablehlo.maximum %p, %q : tensor<f32>
      stablehlo.return %m : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
  return %n, %f, %t, %r : tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<f32>
}
"""


@pytest.mark.parametrize("i", [-7, -1, 0, 2, 4, 5, 2**31 - 1])
def test_element_reads_match_slice_and_reshape(i: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A size-1 dynamic_slice used only by a reshape to 0-d runs as one element read (the
    first pair, and the third, whose element is a reduce's init; not the second, whose
    slice is also returned): the same numpy scalars as the pair, clamped indices, NaN and -0.0 included."""
    from shlo_cli.interpreter import codegen

    x = np.array([np.nan, -0.0, 2.5, -np.inf, 1e-45], np.float32)
    results = []
    for fused in (True, False):
        with monkeypatch.context() as m:
            if not fused:
                m.setattr(codegen, "_element_reads", lambda steps, kept, chained: {})
            interpreter = Interpreter(parse_source(ELEMENT_READS))
            main = interpreter.lookup_function("main")
            results.append([interpreter.call(main, [x, np.int32(i)]) for _ in range(2)][-1])
            source = interpreter._plans[id(main.regions[0])].compiled.source
            assert source.count("E0(") + source.count("E5(") == (2 if fused else 0)
            assert "E2(" not in source  # its slice is a result too
    for a, b in zip(*results, strict=True):
        assert type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()


SUMS = """
func.func @main(%x: tensor<2x9xf32>, %w: tensor<9x3xf32>, %h: tensor<2x10xf32>, %u: tensor<10x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x9xf32>, tensor<9x3xf32>) -> tensor<2x3xf32>
  %b = stablehlo.dot_general %h, %u, contracting_dims = [1] x [0] : (tensor<2x10xf32>, tensor<10x3xf32>) -> tensor<2x3xf32>
  %s = stablehlo.add %a, %b : tensor<2x3xf32>
  %c = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x9xf32>, tensor<9x3xf32>) -> tensor<2x3xf32>
  %t = stablehlo.add %c, %c : tensor<2x3xf32>
  return %s, %t, %b : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
"""


@pytest.mark.parametrize("seed", range(4))
def test_sums_of_products_skip_one_normalization(seed: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """x @ w + h @ u with the first product's +0 left out: the bits of normalizing both,
    with all -0.0 sums (zero rows times positive weights), NaN and infinities; a product
    added to itself keeps its +0."""
    from shlo_cli.interpreter import codegen

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 9)).astype(np.float32)
    w = rng.standard_normal((9, 3)).astype(np.float32)
    h = rng.standard_normal((2, 10)).astype(np.float32)
    u = rng.standard_normal((10, 3)).astype(np.float32)
    x[0], h[0] = -0.0, -0.0  # row 0: every product -0.0 (w, u made positive there)
    w, u = np.abs(w), np.abs(u)
    if seed == 1:
        x[1, 3], u[2, 1] = np.nan, np.inf
    if seed == 2:
        h[1] = 0.0
        x[1] = -0.0
    results, sources = [], []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(codegen, "signed_zero_sums", lambda steps, kept, chained: set())
            interpreter = Interpreter(parse_source(SUMS))
            main = interpreter.lookup_function("main")
            results.append(interpreter.call(main, [x, w, h, u]))
            sources.append(interpreter._plans[id(main.regions[0])].compiled.source)
    assert sources[0].count(", False)") == 1 and ", False)" not in sources[1]
    for a, b in zip(*results, strict=True):
        assert a.tobytes() == b.tobytes()
    plan = Interpreter(parse_source(SUMS))
    main = plan.lookup_function("main")
    plan.call(main, [x, w, h, u])
    kernel = plan._plans[id(main.regions[0])].steps[0].fn
    raw, normalized = kernel(x, w, False), kernel(x, w)
    assert (raw + np.float32(0)).tobytes() == normalized.tobytes()  # at most -0.0 differs
    assert not np.signbit(normalized[0]).any()
    # the identity the skip rests on: -0.0 + y is +0.0 + y for every y but -0.0 (in bits)
    ys = np.array([0.0, 1e-45, -1e-45, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan,
                   3.4e38], np.float32)
    for zero in (np.float32(-0.0), np.float32(0.0)):
        assert (zero + ys).tobytes() == (np.float32(0.0) + ys).tobytes()


ROW_READS = """
func.func @main(%x: tensor<4x1x3xf32>, %y: tensor<5x2xf32>, %i: tensor<i32>) -> (tensor<1x3xf32>, tensor<2xf32>, tensor<1x3xf32>, tensor<1x3xf32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %k = stablehlo.constant dense<[[[1.0, -0.0, 2.0]], [[3.0, 4.0, 5.0]]]> : tensor<2x1x3xf32>
  %s = stablehlo.dynamic_slice %x, %i, %z, %z, sizes = [1, 1, 3] : (tensor<4x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x3xf32>
  %r = stablehlo.reshape %s : (tensor<1x1x3xf32>) -> tensor<1x3xf32>
  %t = stablehlo.dynamic_slice %y, %i, %z, sizes = [1, 2] : (tensor<5x2xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  %q = stablehlo.reshape %t : (tensor<1x2xf32>) -> tensor<2xf32>
  %u = stablehlo.dynamic_slice %k, %i, %z, %z, sizes = [1, 1, 3] : (tensor<2x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x3xf32>
  %c = stablehlo.reshape %u : (tensor<1x1x3xf32>) -> tensor<1x3xf32>
  %v = stablehlo.dynamic_slice %x, %i, %z, %z, sizes = [1, 1, 3] : (tensor<4x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x3xf32>
  %w = stablehlo.reshape %v : (tensor<1x1x3xf32>) -> tensor<3xf32>
  %ww = stablehlo.reshape %w : (tensor<3xf32>) -> tensor<1x3xf32>
  return %r, %q, %c, %ww : tensor<1x3xf32>, tensor<2xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}
"""


@pytest.mark.parametrize("i", [-3, 0, 1, 3, 4, 9])
def test_row_reads_match_slice_and_reshape(i: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dynamic_slice of one index along the first dimension used only by a reshape that
    drops it runs as one row read (of an argument and of a folded, read-only constant; not
    where the reshape drops another dimension): the pair's values, clamped indices, NaN and
    -0.0, and results the next kernels may not write into the constant through."""
    from shlo_cli.interpreter import codegen

    rng = np.random.default_rng(i + 5)
    x = rng.standard_normal((1, 4, 3)).astype(np.float32).transpose(1, 0, 2)  # a view
    x[1, 0, 1], x[2, 0, 0] = np.nan, -0.0
    y = rng.standard_normal((5, 2)).astype(np.float32)
    results = []
    for fused in (True, False):
        with monkeypatch.context() as m:
            if not fused:
                m.setattr(codegen, "_element_reads", lambda steps, kept, chained: {})
            interpreter = Interpreter(parse_source(ROW_READS))
            main = interpreter.lookup_function("main")
            results.append([interpreter.call(main, [x, y, np.int32(i)]) for _ in range(2)][-1])
            source = interpreter._plans[id(main.regions[0])].compiled.source
            assert source.count("E") == (3 if fused else 0), source
    for a, b in zip(*results, strict=True):  # the same layout too (products read it)
        assert a.shape == b.shape and a.strides == b.strides and a.tobytes() == b.tobytes()
    assert results[0][2].flags.writeable  # a copy of the frozen constant's row


SCALARS = """
func.func @main(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %v: tensor<5xf32>) -> (tensor<f32>, tensor<f32>, tensor<i32>, tensor<i1>, tensor<f32>) {
  %m = stablehlo.multiply %a, %b : tensor<f32>
  %s = stablehlo.subtract %m, %a : tensor<f32>
  %d = stablehlo.divide %s, %b : tensor<f32>
  %k = stablehlo.constant dense<7> : tensor<i32>
  %j = stablehlo.add %i, %k : tensor<i32>
  %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = "stablehlo.reduce"(%v, %a) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %pq = stablehlo.multiply %p, %q : tensor<f32>
      %pp = stablehlo.add %pq, %p : tensor<f32>
      stablehlo.return %pp : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
  return %m, %d, %j, %lt, %r : tensor<f32>, tensor<f32>, tensor<i32>, tensor<i1>, tensor<f32>
}
"""


def test_scalar_operators_written_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """0-d operator kernels are written as the operators (float arithmetic redone by the
    kernel where the result is NaN): the bits of calling the kernels, for NaN of either
    sign, infinities, -0.0, int32 overflow, and a reducer body run on whole arrays."""
    from shlo_cli.interpreter import codegen

    values = [np.float32(v) for v in (np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -3.0)]
    vector = np.array([2.0, np.nan, -0.0, 1.0, -np.nan], np.float32)
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(codegen, "_inline", lambda *args: None)
            interpreter = Interpreter(parse_source(SCALARS))
            main = interpreter.lookup_function("main")
            outs = [interpreter.call(main, [a, b, np.int32(2**31 - 3), vector])
                    for a in values for b in values]
            source = interpreter._plans[id(main.regions[0])].compiled.source
        assert (" * " in source) == fast and ("a2 + C" in source) == fast
        if fast:
            got = outs
        else:
            want = outs
    for g, w in zip(got, want, strict=True):
        for a, b in zip(g, w, strict=True):
            assert type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()


SELECTS = """
func.func @main(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<f32>, %q: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
  %s = stablehlo.select %p, %a, %b : tensor<i1>, tensor<f32>
  %t = stablehlo.select %p, %x, %y : tensor<i1>, tensor<3xf32>
  %u = stablehlo.select %q, %x, %y : tensor<3xi1>, tensor<3xf32>
  return %s, %t, %u : tensor<f32>, tensor<3xf32>, tensor<3xf32>
}
"""


@pytest.mark.parametrize("p", [True, False])
def test_selects_on_a_scalar_pred_written_inline(p: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """select written as a pick when its pred is 0-d (whole operands, scalars or tensors),
    the kernel otherwise: the same objects' bits either way, NaN and -0.0 included."""
    from shlo_cli.interpreter import codegen

    args = [np.bool_(p), np.float32(np.nan), np.float32(-0.0), np.array([True, False, True]),
            np.array([1.0, -0.0, np.nan], np.float32), np.array([-np.nan, 2.0, 0.0], np.float32)]
    results = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(codegen, "_inline", lambda *a: None)
            interpreter = Interpreter(parse_source(SELECTS))
            main = interpreter.lookup_function("main")
            results.append(interpreter.call(main, args))
            source = interpreter._plans[id(main.regions[0])].compiled.source
            assert (".ndim == 0" in source) == fast
    for a, b in zip(*results, strict=True):
        assert type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()


GATES = """
func.func @main(%x: tensor<2x9xf32>, %w: tensor<9x3xf32>, %h: tensor<2x10xf32>, %u: tensor<10x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x9xf32>, tensor<9x3xf32>) -> tensor<2x3xf32>
  %b = stablehlo.dot_general %h, %u, contracting_dims = [1] x [0] : (tensor<2x10xf32>, tensor<10x3xf32>) -> tensor<2x3xf32>
  %s = stablehlo.add %a, %b : tensor<2x3xf32>
  %n = stablehlo.negate %s : tensor<2x3xf32>
  %e = stablehlo.exponential %n : tensor<2x3xf32>
  %c = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x9xf32>, tensor<9x3xf32>) -> tensor<2x3xf32>
  %d = stablehlo.dot_general %h, %u, contracting_dims = [1] x [0] : (tensor<2x10xf32>, tensor<10x3xf32>) -> tensor<2x3xf32>
  %t = stablehlo.add %c, %d : tensor<2x3xf32>
  %n2 = stablehlo.negate %t : tensor<2x3xf32>
  %g = stablehlo.tanh %n2 : tensor<2x3xf32>
  return %e, %g : tensor<2x3xf32>, tensor<2x3xf32>
}
"""


@pytest.mark.parametrize("seed", range(3))
def test_sums_read_only_by_sign_blind_ops_skip_both_normalizations(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """exp(-(x @ w + h @ u)) with neither product's +0 (exp(-(-0.0)) is exp(-(+0.0))); the
    same sum under tanh (tanh(-0.0) is -0.0) keeps one: the bits of normalizing both."""
    from shlo_cli.interpreter import codegen

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 9)).astype(np.float32)
    h = rng.standard_normal((2, 10)).astype(np.float32)
    w = np.abs(rng.standard_normal((9, 3))).astype(np.float32)
    u = np.abs(rng.standard_normal((10, 3))).astype(np.float32)
    x[0], h[0] = -0.0, -0.0  # row 0: every product -0.0
    if seed == 1:
        x[1, 3], u[2, 1] = np.nan, np.inf
    results, sources = [], []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(codegen, "signed_zero_sums", lambda steps, kept, chained: set())
            interpreter = Interpreter(parse_source(GATES))
            main = interpreter.lookup_function("main")
            results.append(interpreter.call(main, [x, w, h, u]))
            sources.append(interpreter._plans[id(main.regions[0])].compiled.source)
    assert sources[0].count(", False)") == 3 and ", False)" not in sources[1]
    for a, b in zip(*results, strict=True):
        assert a.tobytes() == b.tobytes()
    if seed != 1:  # (there -0.0 * inf puts a NaN in row 0)
        assert np.signbit(results[0][1][0]).all()  # tanh(-0.0) kept its sign
