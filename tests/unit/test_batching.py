"""Calls of a costly elementwise kernel run as one (interpreter/batching.py): the same
results as the calls one by one, bit for bit, with the steps a later call's operand
needs moved up; a call whose operand depends on a member's result stays out of its group."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.interpreter import batching, codegen
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

PROGRAM = """
func.func @main(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>, %w: tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %na = stablehlo.negate %a : tensor<2x8xf32>
  %ea = stablehlo.exponential %na : tensor<2x8xf32>
  %one = stablehlo.constant dense<1.0> : tensor<2x8xf32>
  %sa = stablehlo.add %ea, %one : tensor<2x8xf32>
  %bw = stablehlo.dot_general %b, %w, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %nb = stablehlo.negate %bw : tensor<2x8xf32>
  %eb = stablehlo.exponential %nb : tensor<2x8xf32>
  %t1 = stablehlo.tanh %sa : tensor<2x8xf32>
  %t2 = stablehlo.tanh %t1 : tensor<2x8xf32>
  return %sa, %eb, %t1, %t2 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
"""

SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -3e-39, 88.7, -103.9, 1e30, -1e30]


def _run(args: list[np.ndarray], batched: bool, monkeypatch: pytest.MonkeyPatch,
         program: str = PROGRAM) -> tuple[list[Any], list[str]]:
    with monkeypatch.context() as m:
        if not batched:
            m.setattr(codegen, "batch_groups", lambda steps, captured: (list(steps), {}))
        interpreter = Interpreter(parse_source(program))
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            out = [interpreter.call(main, list(args)) for _ in range(2)][-1]
        sources = [plan.compiled.source for plan in interpreter._plans.values()
                   if plan.compiled is not None]
    return out, sources


@pytest.mark.parametrize("seed", range(4))
def test_batched_calls_match_the_calls_one_by_one(seed: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal((2, 8)) * 30).astype(np.float32), rng.standard_normal(
        (2, 8)).astype(np.float32)
    a.reshape(-1)[:len(SPECIALS)] = np.array(SPECIALS, np.float32)[rng.permutation(len(SPECIALS))]
    w = rng.standard_normal((8, 8)).astype(np.float32)
    got, sources = _run([a, b, w], True, monkeypatch)
    want, plain = _run([a, b, w], False, monkeypatch)
    for x, y in zip(got, want, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()
    # the two exps together, the dependent tanh pair not
    assert sum(s.count("_cat(") for s in sources) == 1
    assert not any("_cat(" in s for s in plain)


def test_a_dependent_or_impure_step_keeps_the_order() -> None:
    """The groups batch_groups finds: not a call whose operand needs the other's result."""
    module = parse_source(PROGRAM)
    interpreter = Interpreter(module)
    main = interpreter.lookup_function("main")
    block = main.regions[0].entry
    ops = [op for op in block.operations if op.name != "func.return"]

    class Step:
        def __init__(self, op: Any) -> None:
            self.op = op
            self.fn = interpreter._bind(op)

    steps = [Step(op) for op in ops]
    order, groups = batching.batch_groups(steps, set())
    names = [s.op.name.split(".")[-1] for s in order]
    assert groups == {groups and next(iter(groups)): 2}
    i, = groups
    j = i + 1
    assert names[i] == names[j] == "exponential"
    assert order[j].op.operands[0] not in {r for s in order[i:j] for r in s.op.results}
    # the moved steps (dot, negate) come before the first call, in their order
    assert names.index("dot_general") < i and sorted(map(id, order)) == sorted(map(id, steps))


GATES = """
func.func @main(%a: tensor<1x16xf32>, %b: tensor<1x16xf32>) -> (tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>) {
  %na = stablehlo.negate %a : tensor<1x16xf32>
  %ea = stablehlo.exponential %na : tensor<1x16xf32>
  %one = stablehlo.constant dense<1.0> : tensor<1x16xf32>
  %sa = stablehlo.add %one, %ea : tensor<1x16xf32>
  %ra = stablehlo.divide %one, %sa : tensor<1x16xf32>
  %nb = stablehlo.negate %b : tensor<1x16xf32>
  %eb = stablehlo.exponential %nb : tensor<1x16xf32>
  %c1 = stablehlo.constant dense<1.0> : tensor<f32>
  %one2 = stablehlo.broadcast_in_dim %c1, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
  %sb = stablehlo.add %one2, %eb : tensor<1x16xf32>
  %two = stablehlo.constant dense<2.0> : tensor<1x16xf32>
  %rb = stablehlo.divide %two, %sb : tensor<1x16xf32>
  %m = stablehlo.multiply %ra, %rb : tensor<1x16xf32>
  return %m, %ra, %sb : tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>
}
"""


@pytest.mark.parametrize("seed", range(4))
def test_the_steps_around_a_pair_run_on_both_halves(seed: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A gate's negate before its exp and its `1 + e` after run once on the stacked
    halves (the same splat constant, written two ways); the divides by different
    constants do not."""
    rng = np.random.default_rng(seed)
    a, b = [(rng.standard_normal((1, 16)) * 40).astype(np.float32) for _ in range(2)]
    a.reshape(-1)[:len(SPECIALS)] = np.array(SPECIALS, np.float32)[rng.permutation(len(SPECIALS))]
    b.reshape(-1)[:5] = np.array([np.nan, -0.0, np.inf, 1e-45, -88.0], np.float32)
    got, sources = _run([a, b], True, monkeypatch, GATES)
    want, _ = _run([a, b], False, monkeypatch, GATES)
    line = next(line for s in sources for line in s.splitlines() if "_cat(" in line)
    assert line.count(" = w_K") + line.count(" = K") == 3  # negate, exp, add
    for x, y in zip(got, want, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


GROUP = """
func.func @main(%a: tensor<1x16xf32>, %b: tensor<1x16xf32>, %c: tensor<1x16xf32>, %d: tensor<1x16xf64>) -> (tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf64>, tensor<1x16xf32>) {
  %ea = stablehlo.exponential %a : tensor<1x16xf32>
  %rb = stablehlo.round_nearest_even %b : tensor<1x16xf32>
  %er = stablehlo.exponential %rb : tensor<1x16xf32>
  %nb = stablehlo.negate %b : tensor<1x16xf32>
  %eb = stablehlo.exponential %nb : tensor<1x16xf32>
  %ta = stablehlo.tanh %a : tensor<1x16xf32>
  %ed = stablehlo.exponential %d : tensor<1x16xf64>
  %ee = stablehlo.exponential %ea : tensor<1x16xf32>
  %cc = stablehlo.multiply %c, %c : tensor<1x16xf32>
  %ec = stablehlo.exponential %cc : tensor<1x16xf32>
  return %ea, %er, %eb, %ta, %ec, %ed, %ee : tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf64>, tensor<1x16xf32>
}
"""


def _steps(program: str) -> list[Any]:
    interpreter = Interpreter(parse_source(program))
    block = interpreter.lookup_function("main").regions[0].entry

    class Step:
        def __init__(self, op: Any) -> None:
            self.op = op
            self.fn = interpreter._bind(op)

    return [Step(op) for op in block.operations if op.name != "func.return"]


def test_all_independent_calls_of_one_kernel_form_one_group() -> None:
    """exp of a, of -b and of c*c run together; not the exp after an op that may not move
    (round), not tanh (another kernel), not the f64 exp, not the exp of a member's result:
    those two form the next group, after the first."""
    steps = _steps(GROUP)
    original = {id(s): k for k, s in enumerate(steps)}  # ea 0, er 2, eb 4, ee 7, ec 9
    order, groups = batching.batch_groups(steps, set())
    assert [[original[id(order[k])] for k in range(i, i + n)]
            for i, n in sorted(groups.items())] == [[0, 4, 9], [2, 7]]
    assert sorted(map(id, order)) == sorted(map(id, steps))
    position = {id(s): k for k, s in enumerate(order)}
    for s in order:  # every operand is defined before its reader
        for v in s.op.operands:
            producer = next((t for t in order if v in t.op.results), None)
            assert producer is None or position[id(producer)] < position[id(s)]


@pytest.mark.parametrize("seed", range(4))
def test_a_group_matches_the_calls_one_by_one(seed: int,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    a, b, c = [(rng.standard_normal((1, 16)) * 40).astype(np.float32) for _ in range(3)]
    d = rng.standard_normal((1, 16))
    for x in (a, b, c):
        x.reshape(-1)[:len(SPECIALS)] = np.array(SPECIALS, np.float32)[
            rng.permutation(len(SPECIALS))]
    got, sources = _run([a, b, c, d], True, monkeypatch, GROUP)
    want, plain = _run([a, b, c, d], False, monkeypatch, GROUP)
    lines = [line for s in sources for line in s.splitlines() if "_cat(" in line]
    assert sorted(line.count("[") for line in lines) == [2, 3]  # two groups' blocks
    assert not any("_cat(" in s for s in plain)
    for x, y in zip(got, want, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


LOGISTIC = """
func.func @main(%a: tensor<1x16xf32>, %b: tensor<1x16xf32>, %c: tensor<1x16xf64>, %d: tensor<1x16xf64>) -> (tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf64>, tensor<1x16xf64>) {
  %la = stablehlo.logistic %a : tensor<1x16xf32>
  %lb = stablehlo.logistic %b : tensor<1x16xf32>
  %lc = stablehlo.logistic %c : tensor<1x16xf64>
  %ld = stablehlo.logistic %d : tensor<1x16xf64>
  return %la, %lb, %lc, %ld : tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16xf64>, tensor<1x16xf64>
}
"""


@pytest.mark.parametrize("seed", range(3))
def test_logistic_calls_of_one_kernel_run_together(seed: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    args = [(rng.standard_normal((1, 16)) * 40).astype(t)
            for t in (np.float32, np.float32, np.float64, np.float64)]
    for x in args:
        x.reshape(-1)[:len(SPECIALS)] = np.array(SPECIALS, x.dtype)[
            rng.permutation(len(SPECIALS))]
    got, sources = _run(args, True, monkeypatch, LOGISTIC)
    want, _ = _run(args, False, monkeypatch, LOGISTIC)
    assert sum(s.count("_cat(") for s in sources) == 1  # the f32 pair (f64: numpy's own)
    for x, y in zip(got, want, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


def test_searches_stop_when_the_block_budget_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each search visits all later steps: a block's searches share a budget of visits,
    so planning thousands of dependent calls stays linear once it is spent."""
    steps = _steps(GROUP)
    _, groups = batching.batch_groups(steps, set())
    assert groups
    monkeypatch.setattr(batching, "_VISITS", 0)
    order, groups = batching.batch_groups(steps, set())
    assert groups == {} and [id(s) for s in order] == [id(s) for s in steps]
