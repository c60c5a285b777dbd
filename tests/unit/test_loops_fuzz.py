"""A short fixed-seed slice of the loop fuzzer (tests/fuzz/loops.py; `make fuzz` runs the
long one): jax-exported scans, fori_loops and while_loops give the same bits with the loop
fast paths on and off, and the fast paths do run."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
pytest.importorskip("jax")


def test_loop_fuzz_slice() -> None:
    import loops
    import loops_gen

    seen: collections.Counter = collections.Counter()
    outcomes = collections.Counter()
    for seed in range(24):
        status, detail, counts = loops.outcome_of(loops_gen.build(7_000_000 + seed), 20.0,
                                                  False)
        assert status in ("pass", "nan-payload", "skip"), f"seed {seed}: {status} {detail}"
        outcomes[status] += 1
        seen.update(counts)
    assert outcomes["skip"] <= 2
    assert seen["compiled"] >= 12 and seen["scalar"] and seen["versioned"], seen
