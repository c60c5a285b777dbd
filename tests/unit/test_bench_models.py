"""The issue-13 benchmark programs compute what they claim: the overhead programs agree with
their plain-numpy replays, and every benchmark model runs on its seeded inputs with results
of the right shapes (sort_scan against numpy's sort, argsort and sequential cumsum)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH / "models"))

import defs  # noqa: E402
import overhead  # noqa: E402

import shlo_cli  # noqa: E402


def test_overhead_programs_match_their_numpy_replays():
    rng = np.random.default_rng(0)
    v = [rng.standard_normal(4).astype(np.float32) * 0.1 for _ in range(2)]
    [ours] = shlo_cli.interpret(overhead._straight_program(), *v)
    np.testing.assert_allclose(ours, overhead._straight_numpy(*v), rtol=1e-5, atol=1e-6)
    xs = rng.standard_normal(overhead.STEPS).astype(np.float32)
    w, u = np.array(0.5, np.float32), np.array(0.3, np.float32)
    [h] = shlo_cli.interpret(overhead.LOOP_PROGRAM, xs, w, u)
    np.testing.assert_allclose(h, overhead._loop_numpy(xs, w, u), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(defs.SPECS))
def test_benchmark_models_run_on_their_inputs(name):
    text = (BENCH / "models" / f"{name}.mlir").read_text(encoding="utf-8")
    args = defs.inputs(name)
    results = shlo_cli.interpret(text, *args)
    assert all(np.all(np.isfinite(np.asarray(r, np.float64))) for r in results)
    if name == "sort_scan":
        x = args[0]
        values, order, total = results
        assert values.tobytes() == np.sort(x).tobytes()
        assert order.tolist() == np.argsort(x, kind="stable").tolist()
        expected = np.add.accumulate(np.concatenate([[np.float32(0)], x]), dtype=np.float32)[1:]
        assert total.tobytes() == expected.tobytes()
