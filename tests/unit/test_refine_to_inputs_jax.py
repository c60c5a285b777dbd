"""jax symbolic-shape exports through the Python API: refined per call shape (one refinement
per signature), bit-identical to the dynamic path, close to jax, and a violated shape
constraint reports jax's own error exactly as the dynamic path does. Skipped without jax."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import shlo_cli
from shlo_cli import api

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def _symbolic(f: Callable[..., Any], *specs: Any) -> str:
    return str(jax.export.export(jax.jit(f))(*specs).mlir_module())


def _sym(spec: str, dtype: Any = np.float32, constraints: tuple[str, ...] = ()) -> Any:
    return jax.ShapeDtypeStruct(jax.export.symbolic_shape(spec, constraints=constraints),
                                dtype)


def _unrefined(monkeypatch: pytest.MonkeyPatch, text: str, *inputs: Any) -> Any:
    with monkeypatch.context() as m:
        m.setattr(api.Program, "_refine", lambda self, module, types: None)
        try:
            return shlo_cli.parse(text)(*inputs)
        except shlo_cli.Diagnostic as e:
            return str(e)


def _norm_softmax_cumsum(x: Any) -> Any:
    return (jax.nn.softmax(x, -1), (x - x.mean(-1, keepdims=True)) / (x.std(-1) + 1e-5)[:, None],
            jnp.cumsum(x, 1), x.sum(), jax.lax.top_k(x, 2)[0])


@pytest.mark.parametrize("shape", [(5, 7), (1, 3), (8, 2)])
def test_symbolic_export_refined_matches_dynamic_and_jax(monkeypatch: pytest.MonkeyPatch,
                                                          shape: tuple[int, int]) -> None:
    text = _symbolic(_norm_softmax_cumsum, _sym("b, n", constraints=("n >= 2",)))
    x = np.random.default_rng(shape[0]).standard_normal(shape).astype(np.float32)
    program = shlo_cli.parse(text)
    ours = program(x)
    assert program._refined is not None and list(program._refined._cache.values())[0] \
        is not None  # ran refined
    dynamic = _unrefined(monkeypatch, text, x)
    for a, b in zip(ours, dynamic, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    for a, b in zip(ours, jax.jit(_norm_softmax_cumsum)(x), strict=True):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-5, atol=1e-5)


def test_constraint_violation_keeps_jax_error(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _symbolic(lambda x: x * 2, _sym("b", constraints=("b >= 4",)))
    program = shlo_cli.parse(text)
    assert program(np.ones(5, np.float32))[0].tolist() == [2.0] * 5
    with pytest.raises(shlo_cli.Diagnostic) as refined:
        program(np.ones(2, np.float32))
    assert str(refined.value) == _unrefined(monkeypatch, text, np.ones(2, np.float32))
    assert "b >= 4" in str(refined.value)
    assert program._refined.refinements == 2
