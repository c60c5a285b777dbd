"""Differential fuzzing of the interpreter's loop fast paths with JAX-exported loops.

Each program (loops_gen.py: lax.scan / fori_loop / while_loop bodies like exported models')
is exported with `jax.export` and run in-process three ways, main called twice (plans are
built on the first call, the second is compared):

- `fast`: everything on (loops compiled to Python: loopgen, pyscalar, ranges, licm,
  scan_inputs, batching, codegen, the specialized kernels);
- `off`: loop compilation (`engine._compilable_loop`) and scan batching
  (`licm.batch_scan_inputs`) off;
- `plain`: a no-op observer, as `--trace` plans: no inlining, if-conversion, hoisting,
  block codegen, loop compilation or loop invariants.

`fast` must equal `off` and `plain` bit for bit (dtype, shape, bytes). The one documented
exception: which NaN payload survives when two NaNs meet in a sum; a result that differs
only in the payloads of NaNs (both sides NaN at the same positions) is counted as
`nan-payload` and listed, not failed. Any exception other than a Diagnostic, and any hang,
is a failure. The XLA CPU result (the same exported module) is compared with a tolerance and
disagreements are counted by kind: leads, not failures (XLA flushes subnormals, its
transcendentals differ by ulps). Failures are shrunk (smaller bodies, benign inputs) and
saved under /tmp/loopfuzz/.

    python tests/fuzz/loops.py --programs 500 --seed 1
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import run_case  # noqa: E402
from loops_gen import Spec, build, sink_constants  # noqa: E402

from shlo_cli.interpreter import engine, licm  # noqa: E402
from shlo_cli.interpreter.engine import Interpreter  # noqa: E402
from shlo_cli.interpreter.io import save_arrays  # noqa: E402
from shlo_cli.interpreter.observe import Observer  # noqa: E402
from shlo_cli.ir import registry  # noqa: E402
from shlo_cli.ir.parser import parse_source  # noqa: E402

OUT = Path("/tmp/loopfuzz")


@contextlib.contextmanager
def patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    saved = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, saved)


def export(spec: Spec) -> tuple[str, list[np.ndarray], Any]:
    """The exported module's text, the arguments it kept, and the Exported."""
    import jax
    jax.config.update("jax_enable_x64", spec.x64)
    exported = jax.export.export(jax.jit(spec.fn))(*spec.args)
    kept = sorted(exported.module_kept_var_idx)
    text = exported.mlir_module()
    return sink_constants(text) if spec.sink else text, [spec.args[i] for i in kept], exported


def interpret(text: str, args: list[np.ndarray], mode: str,
              seen: dict[str, int] | None = None) -> list[np.ndarray]:
    """main's results on its second call in `mode` (fast/off/plain); in fast mode `seen`
    counts the compiled loops and the fast paths their sources show."""
    with contextlib.ExitStack() as stack:
        if mode == "fast" and seen is not None:
            build_loop, batch = engine.compile_loop, licm.batch_scan_inputs

            def spy(*a: Any, **k: Any) -> Any:
                loop = build_loop(*a, **k)
                seen["compiled"] += 1
                src = loop.source
                seen["scalar"] += "_N" in src
                seen["counted"] += "stop = " in src  # (loopgen's `for` over a counter)
                seen["exit-test"] += "break" in src  # (and the rest of its condition)
                seen["versioned"] += "wf_" in src
                seen["early"] += "EARLY(" in src
                return loop

            def spy_batch(*a: Any, **k: Any) -> Any:
                found = batch(*a, **k)
                seen["scan-batched"] += found is not None
                return found
            stack.enter_context(patched(engine, "compile_loop", spy))
            stack.enter_context(patched(licm, "batch_scan_inputs", spy_batch))
        if mode == "general":  # no binding hooks: each op's own evaluator
            registry.bind_hooks()  # (their modules loaded: they may define more than hooks)
            stack.enter_context(patched(engine, "bind_hooks", lambda *_: []))
        if mode == "off":
            stack.enter_context(patched(engine, "_compilable_loop", lambda op: False))
            stack.enter_context(patched(licm, "batch_scan_inputs", lambda *a, **k: None))
        interpreter = Interpreter(parse_source(text),
                                  observer=None if mode in ("fast", "off") else Observer())
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            out = [interpreter.call(main, list(args)) for _ in range(2)][-1]
    return [np.asarray(v) for v in out]


def difference(a: list[np.ndarray], b: list[np.ndarray]) -> str | None:
    """None when bit-identical; 'nan-payload' when only NaN payloads differ; else what
    differs first."""
    if len(a) != len(b):
        return f"result count {len(a)} != {len(b)}"
    payload = False
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        if x.dtype != y.dtype or x.shape != y.shape:
            return f"result {k}: {x.dtype}{x.shape} != {y.dtype}{y.shape}"
        if x.tobytes() == y.tobytes():
            continue
        if _is_float(x.dtype):
            with np.errstate(all="ignore"):
                fx, fy = x.astype(np.float64), y.astype(np.float64)
            nx, ny = np.isnan(fx), np.isnan(fy)
            if (nx == ny).all() and (fx[~nx].view(np.int64) == fy[~ny].view(np.int64)).all():
                payload = True
                continue
        idx = _first_diff(x, y)
        return f"result {k} at {idx}: {x.reshape(-1)[idx]!r} != {y.reshape(-1)[idx]!r}"
    return "nan-payload" if payload else None


def _first_diff(x: np.ndarray, y: np.ndarray) -> int:
    bx = x.reshape(-1).view(np.uint8).reshape(x.size, -1)
    by = y.reshape(-1).view(np.uint8).reshape(y.size, -1)
    return int(np.flatnonzero((bx != by).any(1))[0])


def _is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or "float" in dt.name


TOL = {2: (2e-2, 1e-2), 4: (1e-4, 1e-6), 8: (1e-10, 1e-12)}  # itemsize -> rtol, atol


def xla_kind(ours: list[np.ndarray], xla: list[np.ndarray]) -> str | None:
    """None when XLA's results agree within a tolerance; else the kind of disagreement:
    nan (NaN in one only), inf, subnormal (one side subnormal or zero where the other is
    subnormal: XLA flushes), zero-sign, int, float (beyond the tolerance)."""
    for x, y in zip(ours, xla, strict=True):
        if x.dtype != y.dtype or x.shape != y.shape:
            return "type"
        if x.tobytes() == y.tobytes():
            continue
        if not _is_float(x.dtype):
            return "int" if x.dtype != np.bool_ else "bool"
        fx, fy = x.astype(np.float64).reshape(-1), y.astype(np.float64).reshape(-1)
        nx, ny = np.isnan(fx), np.isnan(fy)
        if (nx != ny).any():
            return "nan"
        ix, iy = np.isinf(fx), np.isinf(fy)
        if (ix != iy).any() or (fx[ix] != fy[iy]).any():
            return "inf"
        import ml_dtypes
        tiny = float(ml_dtypes.finfo(x.dtype).tiny)
        ok = nx | ix
        rtol, atol = TOL[x.dtype.itemsize]
        close = ok | (np.abs(fx - fy) <= atol + rtol * np.abs(fy))
        if not close.all():
            sub = (np.abs(fx) < tiny) | (np.abs(fy) < tiny)
            return "subnormal" if sub[~close].all() else "float"
        if (np.signbit(fx) != np.signbit(fy))[~nx & (fx == 0) & (fy == 0)].any():
            return "zero-sign"
    return None


def check(spec: Spec, seen: collections.Counter, with_xla: bool) -> tuple[str, str]:
    """(outcome, detail) of one program: pass, skip (not exportable), diagnostic,
    mismatch, nan-payload, or xla:<kind>; jax's 64-bit mode is restored after."""
    import jax
    x64 = jax.config.jax_enable_x64
    try:
        return _check(spec, seen, with_xla)
    finally:
        jax.config.update("jax_enable_x64", x64)


def _check(spec: Spec, seen: collections.Counter, with_xla: bool) -> tuple[str, str]:
    try:
        text, args, exported = export(spec)
    except Exception as e:  # the generator's fault, not the interpreter's
        return "skip", f"{type(e).__name__}: {e}"[:200]
    seen["loops-in-module"] += text.count("stablehlo.while")
    before = [a.tobytes() for a in args]
    fast = interpret(text, args, "fast", seen)
    if [a.tobytes() for a in args] != before:
        return "mismatch", "the fast paths changed an input array"
    off = interpret(text, args, "off")
    plain = interpret(text, args, "plain")
    general = interpret(text, args, "general")
    for name, other in (("off", off), ("plain", plain), ("general", general)):
        diff = difference(fast, other)
        if diff and diff != "nan-payload":
            return "mismatch", f"fast != {name}: {diff}"
    payload = difference(fast, off) or difference(fast, plain) or difference(fast, general)
    if with_xla:
        try:
            xla = [np.asarray(v) for v in _flat(exported.call(*spec.args))]
        except Exception as e:
            return "xla:error", str(e)[:200]
        with np.errstate(all="ignore"):
            kind = xla_kind(fast, xla)
        flushed = [_flush(a) for a in args]
        if kind and any(a.tobytes() != b.tobytes() for a, b in zip(args, flushed, strict=True)):
            with np.errstate(all="ignore"):
                again = xla_kind(interpret(text, flushed, "fast"), xla)
            if again is None:
                kind = "subnormal-input"  # XLA flushes subnormal inputs to zero
        if kind:
            return f"xla:{kind}", ""
    return ("nan-payload", "") if payload else ("pass", "")


def _flush(a: np.ndarray) -> np.ndarray:
    """`a` with its subnormal floats replaced by zeros of their sign (XLA CPU's FTZ/DAZ)."""
    if not _is_float(a.dtype):
        return a
    import ml_dtypes
    wide = a.astype(np.float64)
    sub = (wide != 0) & (np.abs(wide) < float(ml_dtypes.finfo(a.dtype).tiny))
    return np.where(sub, np.copysign(np.zeros_like(a), a), a).astype(a.dtype)


def _flat(tree: Any) -> list[Any]:
    import jax
    return list(jax.tree_util.tree_leaves(tree))


def outcome_of(spec: Spec, seconds: float, with_xla: bool) -> tuple[str, str, collections.Counter]:
    seen: collections.Counter = collections.Counter()
    status, detail, value = run_case(lambda: check(spec, seen, with_xla), seconds)
    if status == "pass":
        status, detail = value
    return status, detail, seen


FAILING = ("mismatch", "internal", "hang", "oom")


def shrink(seed: int, spec: Spec, status: str, seconds: float) -> tuple[Spec, int]:
    """A smaller program failing the same way: smaller bodies, then benign inputs."""
    best, size = spec, 12
    for smaller in (0, 1, 2, 3, 5, 8):
        candidate = build(seed, smaller)
        if outcome_of(candidate, seconds, False)[0] == status:
            best, size = candidate, smaller
            break
    for k, a in enumerate(best.args):
        if a.ndim and a.size:
            trial = list(best.args)
            trial[k] = np.ones_like(a)
            candidate = Spec(best.fn, trial, best.x64, best.template, best.sink)
            if outcome_of(candidate, seconds, False)[0] == status:
                best = candidate
    return best, size


def save(seed: int, spec: Spec, size: int, status: str, detail: str) -> Path:
    where = OUT / f"seed{seed}"
    where.mkdir(parents=True, exist_ok=True)
    try:
        text, args, _ = export(spec)
        (where / "program.mlir").write_text(text)
        # (bf16 and the like as raw bits and a `__dtypes__` entry, as `--inputs` reads them)
        save_arrays(str(where / "inputs.npz"), {f"arg{k}": a for k, a in enumerate(args)})
    except Exception as e:
        text = f"(export failed: {e})"
    (where / "README").write_text(
        f"{status}: {detail}\nrebuild: loops_gen.build({seed}, {size}) (template "
        f"{spec.template}, x64={spec.x64})\nrun: shlo interpret program.mlir --inputs inputs.npz\n")
    return where


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=20.0, help="CPU time per program")
    parser.add_argument("--no-xla", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    opts = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=RuntimeWarning)  # edge values: by design
    totals: collections.Counter = collections.Counter()
    programs: collections.Counter = collections.Counter()  # programs hitting each path
    outcomes: collections.Counter = collections.Counter()
    failures: list[str] = []
    start = time.monotonic()
    for k in range(opts.programs):
        seed = opts.seed * 1_000_000 + k
        spec = build(seed)
        status, detail, seen = outcome_of(spec, opts.seconds, not opts.no_xla)
        outcomes[status] += 1
        totals.update(seen)
        programs.update(key for key, count in seen.items() if count)
        # (jax 0.10 hoists constants out of loops; sink_constants puts them back)
        where = "sunk" if spec.sink else "as-exported"
        programs.update(f"{key}[{where}]" for key, count in seen.items() if count)
        if status in FAILING:
            small, size = shrink(seed, spec, status, opts.seconds)
            where = save(seed, small, size, status, detail)
            failures.append(f"{status} seed={seed} ({spec.template}): {detail[:300]} -> {where}")
            if not opts.quiet:
                print(failures[-1], flush=True)
        elif status == "nan-payload" or status.startswith("xla:"):
            if not opts.quiet and status != "xla:subnormal":
                print(f"{status} seed={seed} ({spec.template}) {detail[:200]}", flush=True)
    print(f"loops: programs={opts.programs} seed={opts.seed} "
          f"time={time.monotonic() - start:.0f}s")
    print("  outcomes: " + ", ".join(f"{k}={v}" for k, v in sorted(outcomes.items())))
    print("  programs with: " + ", ".join(f"{k}={v}" for k, v in sorted(programs.items())))
    print("  totals: " + ", ".join(f"{k}={v}" for k, v in sorted(totals.items())))
    for line in failures:
        print("  FAIL " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
