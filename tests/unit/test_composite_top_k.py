"""`stablehlo.composite "chlo.top_k"` (jax's `lax.top_k` export) bound to our chlo.top_k
kernel (dialects/stablehlo/composite_kernels.py) gives the decomposition's bits: floats
from random bit patterns (NaNs of both signs and every payload, signaling ones too) mixed
with ±0, ±inf and ties at several densities, integers with extremes and duplicates, ranks
1 to 3, k from 0 to the whole row. Composites whose decomposition or attributes differ
from jax's keep running the decomposition."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import composite_kernels
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.interpreter.observe import Profiler
from shlo_cli.ir import registry
from shlo_cli.ir.parser import parse_source

TYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
         "i1": np.bool_, "i8": np.int8, "i32": np.int32, "i64": np.int64, "ui8": np.uint8,
         "ui64": np.uint64}
SHAPES = (((4000,), 4), ((3, 700), 5), ((2, 3, 256), 32), ((64,), 8), ((4, 1), 1),
          ((4, 10), 0), ((4, 10), 10), ((5, 80), 3))
KIND = {"f16": "TOTALORDER", "bf16": "TOTALORDER", "f32": "TOTALORDER", "f64": "TOTALORDER"}


def _program(elem: str, shape: tuple[int, ...], k: int, **change: str) -> str:
    """A composite laid out as jax exports top_k; `change` overrides a piece of it."""
    last = len(shape) - 1
    full = "x".join(map(str, shape))
    out = "x".join(map(str, shape[:-1] + (k,)))
    kind = change.get("kind", f", {KIND[elem]}" if elem in KIND else "")
    piece = {"name": "chlo.top_k", "attrs": f"k = {k} : i64", "version": "1",
             "direction": "GT", "stable": "true", "compare": "%p, %q",
             "start": "0", "limit": str(k), **change}
    dims = ", ".join(f"0:{d}" for d in shape[:-1])
    window = (dims + ", " if dims else "") + f"{piece['start']}:{piece['limit']}"
    types = f"(tensor<{full}x{elem}>) -> (tensor<{out}x{elem}>, tensor<{out}xi32>)"
    return f"""
func.func @main(%x: tensor<{full}x{elem}>) -> (tensor<{out}x{elem}>, tensor<{out}xi32>) {{
  %v:2 = stablehlo.composite "{piece['name']}" %x {{composite_attributes = {{{piece['attrs']}}},
      decomposition = @impl, version = {piece['version']} : i32}} : {types}
  return %v#0, %v#1 : tensor<{out}x{elem}>, tensor<{out}xi32>
}}
func.func private @impl(%x: tensor<{full}x{elem}>) -> (tensor<{out}x{elem}>, tensor<{out}xi32>) {{
  %i = stablehlo.iota dim = {last} : tensor<{full}xi32>
  %s:2 = "stablehlo.sort"(%x, %i) <{{dimension = {last} : i64, is_stable = {piece['stable']}}}> ({{
  ^bb0(%p: tensor<{elem}>, %q: tensor<{elem}>, %m: tensor<i32>, %n: tensor<i32>):
    %c = stablehlo.compare {piece['direction']}, {piece['compare']}{kind}
        : (tensor<{elem}>, tensor<{elem}>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }}) : (tensor<{full}x{elem}>, tensor<{full}xi32>) -> (tensor<{full}x{elem}>, tensor<{full}xi32>)
  %a = stablehlo.slice %s#0 [{window}] : (tensor<{full}x{elem}>) -> tensor<{out}x{elem}>
  %b = stablehlo.slice %s#1 [{window}] : (tensor<{full}xi32>) -> tensor<{out}xi32>
  return %a, %b : tensor<{out}x{elem}>, tensor<{out}xi32>
}}
"""


def _values(elem: str, shape: tuple[int, ...], ties: float, seed: int) -> np.ndarray:
    """Random bits (every NaN, signaling ones too) or integers, a `ties` share replaced by
    a few special values."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(TYPES[elem])
    if dtype == np.bool_:
        return rng.random(shape) < 0.3
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        pool = np.array([info.min, info.max, 0, 1, info.max // 2], dtype)
    else:
        bits = np.dtype(f"u{dtype.itemsize}")
        x = rng.integers(0, np.iinfo(bits).max, shape, dtype=bits, endpoint=True).view(dtype)
        pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], np.float64)
        pool = pool.astype(dtype)
    special = pool[rng.integers(0, pool.size, shape)]
    return np.where(rng.random(shape) < ties, special, x)


def _run(text: str, x: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], bool]:
    """(composite's results, decomposition's results, whether a kernel replaced it)."""
    interpreter = Interpreter(parse_source(text))
    out = interpreter.call(interpreter.lookup_function("main"), [x])
    reference = interpreter.call(interpreter.lookup_function("impl"), [x])
    step = next((s for p in interpreter._plans.values() for s in p.steps
                 if s.op.name == "stablehlo.composite"), None)  # (None: inlined)
    plain = registry.lookup("stablehlo.composite").evaluate
    replaced = step is not None and getattr(step.fn, "func", None) is not plain
    return [np.asarray(o) for o in out], [np.asarray(r) for r in reference], replaced


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(p.dtype == q.dtype and p.shape == q.shape and p.tobytes() == q.tobytes()
               for p, q in zip(a, b, strict=True))


@pytest.mark.parametrize("elem", list(TYPES))
def test_kernel_matches_decomposition(elem: str) -> None:
    for shape, k in SHAPES:
        text = _program(elem, shape, k)
        for seed, ties in enumerate((0.0, 0.05, 0.6)):
            fast, reference, replaced = _run(text, _values(elem, shape, ties, seed))
            assert replaced, (elem, shape, k)
            assert _same(fast, reference), (elem, shape, k, ties)


def test_decomposition_runs_without_a_registered_kernel(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.delitem(composite_kernels.COMPOSITE_KERNELS, "chlo.top_k")
    x = _values("f32", (3, 700), 0.3, 7)
    out, reference, replaced = _run(_program("f32", (3, 700), 5), x)
    assert not replaced and _same(out, reference)


# pieces of the program that make it something other than jax's top_k
NOT_TOP_K = {
    "float compare": {"kind": ""},  # NaNs compare unordered, not in total order
    "ascending": {"direction": "LT"},
    "swapped compare": {"compare": "%q, %p"},
    "unstable sort": {"stable": "false"},
    "other window": {"start": "1", "limit": "6"},
    "other version": {"version": "2"},
    "more attributes": {"attrs": "k = 5 : i64, largest = true"},
    "other name": {"name": "mine.top_k"},
}


@pytest.mark.parametrize("change", list(NOT_TOP_K))
def test_other_composites_keep_the_decomposition(change: str) -> None:
    x = _values("f32", (3, 700), 0.3, 3)
    out, reference, replaced = _run(_program("f32", (3, 700), 5, **NOT_TOP_K[change]), x)
    assert not replaced
    assert _same(out, reference)


def test_float_compare_differs_from_the_kernel() -> None:
    """The guard matters: with a plain float compare the decomposition orders NaNs
    otherwise than chlo.top_k would."""
    x = _values("f32", (3, 700), 0.3, 3)
    out, _, _ = _run(_program("f32", (3, 700), 5, kind=""), x)
    kernel, _, replaced = _run(_program("f32", (3, 700), 5), x)
    assert replaced and not _same(out, kernel)


def test_profiler_sees_the_composite() -> None:
    profiler = Profiler()
    interpreter = Interpreter(parse_source(_program("f32", (4000,), 4)), observer=profiler)
    interpreter.call(interpreter.lookup_function("main"), [_values("f32", (4000,), 0.1, 1)])
    assert [name for name, _ in profiler.rows(profiler.by_kind)] == ["stablehlo.composite"]
