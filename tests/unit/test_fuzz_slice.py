"""A short fixed-seed slice of both fuzzers (`make fuzz` runs the long ones)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"
sys.path.insert(0, str(FUZZ))
CONFORMANCE = Path(os.environ.get("CONFORMANCE",
                                  Path(__file__).resolve().parents[3] / "shared" / "conformance"))


@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="conformance files not available")
def test_mutation_slice() -> None:
    import mutate

    tally = mutate.run(150, seed=7, folder=CONFORMANCE, seconds=10)
    assert tally.counts["cases"] == 150
    assert tally.failures() == 0, tally.summary("mutation") + "\n" + "\n".join(
        e for v in tally.examples.values() for e in v[:3])


def test_mutation_operators_change_text() -> None:
    import random

    import mutate

    rng = random.Random(3)
    text = ("func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
            "  return %a : tensor<2x3xf32>\n}")
    assert any(mutate.mutate(text, rng) != text for _ in range(20))


def test_generated_slice() -> None:
    pytest.importorskip("hypothesis")
    import generate

    tally, disagreements, _ = generate.run(60, seed=11, compare=False)
    assert tally.counts["cases"] == 60
    assert tally.counts["pass"] > 50  # generated programs are well-typed
    assert tally.failures() == 0, tally.summary("generated")


def test_case_limit_is_cpu_time() -> None:
    """A case waiting for the CPU (a busy shared machine, here a sleep) is not a hang; one
    burning CPU past the limit is, and a case blocked past WALL_FACTOR x the limit too."""
    import time

    import harness

    assert harness.run_case(lambda: time.sleep(0.3), 0.1)[0] == "pass"

    def spin() -> None:
        while True:
            pass

    assert harness.run_case(spin, 0.1)[0] == "hang"
    assert harness.run_case(lambda: time.sleep(5), 0.1)[0] == "hang"


def test_pass_deviation_is_zero_signs_only() -> None:
    """The upstream add(X, 0) -> X deviation covers results that differ in zero signs alone."""
    import numpy as np
    import opt_check

    f16 = np.float16
    assert opt_check.zero_signs_only(np.array(-0.0, f16), np.array(0.0, f16))
    assert opt_check.zero_signs_only(np.array([np.nan, -0.0]), np.array([np.nan, 0.0]))
    assert not opt_check.zero_signs_only(np.array(0.0, f16), np.array(0.0, f16))
    assert not opt_check.zero_signs_only(np.array([-0.0, 1.0]), np.array([0.0, 2.0]))
    assert not opt_check.zero_signs_only(np.array([1, 2]), np.array([1, 3]))
    assert "upstream-add-zero" in __import__("xla_compare").DEVIATIONS
