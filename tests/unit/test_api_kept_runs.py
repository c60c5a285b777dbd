"""A Program keeps its interpreter (verified module, plans) between calls
(interpreter/run.py KeptRuns): later calls reuse it and give the same results; a failing
call, another stdout, another thread, another shape signature each get what they need."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic

LOOP = """
func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %j = stablehlo.add %i, %c1 : tensor<i32>
    %w = stablehlo.multiply %v, %v : tensor<4xf32>
    %t = stablehlo.tanh %w : tensor<4xf32>
    stablehlo.return %j, %t : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
"""


def _kept(program: shlo_cli.Program) -> list[object]:
    return [entry[2] for entry in program._kept.interpreters.values()]


def test_later_calls_reuse_the_first_calls_interpreter() -> None:
    program = shlo_cli.parse(LOOP)
    x, n = np.linspace(-1, 1, 4, dtype=np.float32), np.array(5, np.int32)
    [first] = program.main(x, n)
    kept = _kept(program)
    [second] = program.main(x, n)
    assert len(kept) == 1 and _kept(program) == kept
    [again] = shlo_cli.interpret(LOOP, x, n)  # a new program: computed from scratch
    assert first.tobytes() == second.tobytes() == again.tobytes()


def test_a_failing_call_drops_the_interpreter_and_the_next_call_works() -> None:
    program = shlo_cli.parse(LOOP)
    x = np.ones(4, np.float32)
    program.main(x, np.array(3, np.int32))
    before = _kept(program)
    with pytest.raises(Diagnostic):
        program.run(None, [x, np.array(50, np.int32)], max_iterations=10)
    assert _kept(program) == []
    [out] = program.main(x, np.array(3, np.int32))
    assert _kept(program) != before
    assert out.tobytes() == shlo_cli.interpret(LOOP, x, np.array(3, np.int32))[0].tobytes()


def test_printing_goes_to_the_stdout_of_each_call(capsys: pytest.CaptureFixture[str]) -> None:
    text = """
    func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
      interpreter.print %x : tensor<2xi32>
      return %x : tensor<2xi32>
    }
    """
    program = shlo_cli.parse(text)
    program.main(np.array([1, 2], np.int32))
    first = capsys.readouterr().out
    program.main(np.array([3, 4], np.int32))
    second = capsys.readouterr().out
    assert "1" in first and "2" in first and "3" in second and "4" in second


def test_concurrent_calls_from_threads_give_their_own_results() -> None:
    program = shlo_cli.parse(LOOP)
    inputs = [np.full(4, v, np.float32) for v in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)]
    n = np.array(200, np.int32)
    want = [shlo_cli.parse(LOOP).main(x, n)[0] for x in inputs]
    got: dict[int, np.ndarray] = {}

    def worker(i: int) -> None:
        for _ in range(5):
            got[i] = program.main(inputs[i], n)[0]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[i].tobytes() == want[i].tobytes() for i in range(len(inputs)))


def test_shape_signatures_alternate_on_a_dynamic_entry() -> None:
    text = """
    func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
      %e = stablehlo.exponential %x : tensor<?xf32>
      %s = stablehlo.add %e, %x : tensor<?xf32>
      return %s : tensor<?xf32>
    }
    """
    program = shlo_cli.parse(text)
    for size in (3, 5, 3, 5, 0):
        x = np.linspace(-2, 2, size, dtype=np.float32)
        [out] = program.main(x)
        assert out.shape == (size,)
        assert out.tobytes() == shlo_cli.interpret(text, x)[0].tobytes()


def test_overlapping_runs_leave_the_recursion_limit_as_they_found_it() -> None:
    import sys

    before = sys.getrecursionlimit()
    test_concurrent_calls_from_threads_give_their_own_results()
    assert sys.getrecursionlimit() == before
