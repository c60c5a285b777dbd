"""The plan-time rewrites (interpreter/inline.py, hoist.py, narrow_products.py) on the benchmark's
JAX-exported models (benchmarks/models/*.mlir: LSTM, MLP training loop, CNNs, transformer,
...): every result equals the run without them, bit for bit, on random inputs."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.types import TensorType, numpy_dtype

MODELS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks",
                                       "models", "*.mlir")))


def _inputs(main: object, rng: np.random.Generator) -> list[np.ndarray]:
    args = []
    for value in main.regions[0].blocks[0].arguments:  # type: ignore[attr-defined]
        t = value.type
        assert isinstance(t, TensorType)
        dtype = np.dtype(numpy_dtype(t.element))
        if dtype.kind == "f":
            args.append((rng.standard_normal(t.shape) * 0.5).astype(dtype))
        elif dtype.kind in "iu":
            args.append(rng.integers(0, 8, t.shape).astype(dtype))
        else:
            args.append(rng.random(t.shape) < 0.5)
    return args


def _run(text: str, args: list[np.ndarray], rewrite: bool,
         monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    with monkeypatch.context() as m:
        if not rewrite:
            m.setattr(engine, "inline_calls", lambda ops, lookup: list(ops))
            m.setattr(engine, "hoist_slices", lambda ops, pinned: list(ops))
            m.setattr(engine, "widened_products", lambda ops: list(ops))
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        return [np.asarray(v) for v in interpreter.call(main, list(args))]


@pytest.mark.parametrize("path", MODELS, ids=lambda p: os.path.basename(p)[:-5])
def test_rewritten_plans_give_the_same_bits(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    main = parse_source(text).lookup("main")
    args = _inputs(main, np.random.default_rng(0))
    got = _run(text, args, True, monkeypatch)
    want = _run(text, args, False, monkeypatch)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
