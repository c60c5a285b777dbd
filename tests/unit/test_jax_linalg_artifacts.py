"""The jax.export `linalg_*` artifacts (StableHLO text + XLA's outputs) through the Python API.

The artifacts live outside the repository (/work/shared/artifacts, or $SHLO_JAX_ARTIFACTS);
the test is skipped when they are absent.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import shlo_cli

ARTIFACTS = pathlib.Path(os.environ.get("SHLO_JAX_ARTIFACTS", "/work/shared/artifacts"))
NAMES = sorted(p.stem for p in ARTIFACTS.glob("linalg_*.mlir")) if ARTIFACTS.is_dir() else []


@pytest.mark.skipif(not NAMES, reason="jax.export artifacts not available")
@pytest.mark.parametrize("name", NAMES)
def test_linalg_artifact_matches_xla(name: str) -> None:
    inputs = np.load(ARTIFACTS / f"{name}.inputs.npz")
    expected = np.load(ARTIFACTS / f"{name}.expected.npz")
    args = [inputs[f"arg{i}"] for i in range(len(inputs.files))]
    results = shlo_cli.interpret(ARTIFACTS / f"{name}.mlir", *args)
    assert len(results) == len(expected.files)
    for i, got in enumerate(results):
        want = expected[f"result{i}"]
        assert got.shape == want.shape and got.dtype == want.dtype
        tol = 1e-6 if want.dtype in (np.float64, np.complex128) else 1e-3
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
