"""Whole models (issue 13): our interpreter against XLA CPU's execute time, same run.

Models: benchmarks/models/*.mlir (JAX-exported, see models/defs.py) with seeded random inputs,
and the real jax.export artifacts in ../shared/artifacts (cnn, rnn, mlp) with their inputs.
For each: parse time, the first (cold: verify + plan + run) interpret of the fresh parse, and
the best warm run (plans kept, as XLA's execute keeps its compiled executable). With jax
installed (`pip install -e '.[bench]'`), XLA's jit compile + first run and its best execute
time are measured in the same run and the ratios printed; without it only our times are
printed, labelled as such. The real-architecture suite (models/archs.py: ResNet, MobileNet,
DenseNet, LSTM, transformer classifier, ConvNeXt, EfficientNet, GRU, causal decoder, GNN, a
dropout MLP and a bf16 MLP, weights as arguments) gets a total and worst-model line against
issue 13's targets, in wall time and in mean CPU time (see `_best`).

Both one-shot timings (ours: parse + cold run; XLA's: compile + first run) start after
`gc.collect()`: with jax loaded the heap is large, and a full collection the previous model's
garbage left pending would otherwise land, by chance, inside whichever timing comes next
(simple_rnn's cold run measured 14 ms alone and 117 ms in the suite).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "models"))

import defs  # noqa: E402

import shlo_cli  # noqa: E402
from shlo_cli.interpreter.engine import Interpreter  # noqa: E402
from shlo_cli.ir.diagnostics import Diagnostic  # noqa: E402
from shlo_cli.ir.parser import parse_source  # noqa: E402

ARTIFACTS = ("cnn", "rnn", "mlp")


_CPU = [0.0]  # the mean CPU time (this process, all threads) of the last `_best` call's runs
_CPU_SPAN = 0.25  # s: calls timed together for the mean, many clock ticks long


def _best(fn: Callable[[], Any], budget: float = 1.0, at_most: int = 20) -> float:
    """Best wall time of `fn` over repeated calls within about `budget` seconds; the mean
    CPU time of calls run back to back for `_CPU_SPAN` seconds is left in `_CPU[0]` (on a
    loaded machine wall time includes waiting for a core, CPU time does not). The mean over
    a span, not the best call: the kernel adds a thread's time on another core to the
    process's clock only at a tick or switch, so single calls of a multi-threaded runtime
    (XLA's) read as little as a third of their wall time, while a span's total is right."""
    best, spent, runs = float("inf"), 0.0, 0
    while runs < 2 or (spent < budget and runs < at_most):
        start = time.perf_counter()
        fn()
        took = time.perf_counter() - start
        best, spent, runs = min(best, took), spent + took, runs + 1
    calls, start, start_cpu = 0, time.perf_counter(), time.process_time()
    while calls < 2 or time.perf_counter() - start < _CPU_SPAN:
        fn()
        calls += 1
    _CPU[0] = (time.process_time() - start_cpu) / calls
    return best


def _jax() -> Any:
    try:
        import jax
    except ImportError:
        return None
    return jax


def _time_ours(text: str, args: list[np.ndarray], name: str) -> tuple[float, float, float, Any]:
    gc.collect()
    start = time.perf_counter()
    module = parse_source(text, name)
    parsed = time.perf_counter()
    first = shlo_cli.interpret(module, *args)
    cold = time.perf_counter() - parsed
    # Warm, like XLA's execute of a compiled executable: one Interpreter keeps its plans
    # (shlo_cli.interpret verifies and plans the module again on every call).
    interpreter = Interpreter(module)
    func = interpreter.lookup_function("main")
    interpreter.call(func, list(args))
    warm = _best(lambda: interpreter.call(func, list(args)))
    _OURS_CPU[0] = _CPU[0]
    return parsed - start, cold, warm, first


_OURS_CPU = [0.0]


def _cpu_note(execute_cpu: float) -> str:
    ours = _OURS_CPU[0]
    return (f"; cpu {ours * 1e3:.2f}/{execute_cpu * 1e3:.3f} ms = "
            f"{ours / max(execute_cpu, 1e-9):.1f}x")


def _close(ours: list[Any], theirs: Any) -> str:
    theirs = theirs if isinstance(theirs, (list, tuple)) else [theirs]
    flat = []
    for t in theirs:
        flat.extend(t if isinstance(t, (list, tuple)) else [t])
    worst = 0.0
    for a, b in zip(ours, flat, strict=False):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != b.shape:
            return "shape mismatch"
        if a.size:
            worst = max(worst, float(np.max(np.abs(a - b) / (1 + np.abs(b)))))
    return f"max rel diff {worst:.1e}"


def _suite_summary(rows: dict[str, tuple[float, float]], how: str = "") -> None:
    """Issue 13's targets for the real-architecture suite: total warm time within 3x of XLA's
    total execute time, every model within 10x."""
    if not rows:
        return
    ours, theirs = sum(r[0] for r in rows.values()), sum(r[1] for r in rows.values())
    worst = max(rows, key=lambda n: rows[n][0] / rows[n][1])
    label = f"architectures ({len(rows)}){' ' + how if how else ''}"
    print(f"  {label}: total warm {ours * 1e3:.2f} ms vs XLA execute "
          f"{theirs * 1e3:.3f} ms = {ours / theirs:.1f}x (target 3x); worst {worst} "
          f"{rows[worst][0] / rows[worst][1]:.1f}x (target 10x)")


def _row(name: str, parse: float, cold: float, warm: float, xla: tuple[float, float] | None,
         check: str) -> None:
    ms = 1e3
    line = f"  {name:<14}{parse * ms:>8.1f}{cold * ms:>10.1f}{warm * ms:>10.2f}"
    if xla is None:
        print(line + f"{'(no jax: our times only)':>34}")
        return
    compile_first, execute = xla
    print(line + f"{compile_first * ms:>11.1f}{execute * ms:>10.3f}{warm / execute:>8.1f}x"
          f"{(parse + cold) / compile_first:>8.2f}x  {check}")


def run(root: str, profile: bool = False) -> None:
    jax = _jax()
    if jax:  # the baseline's version, measured in this run, same repetition policy (best of)
        import jaxlib

        print(f"  baseline: jax {jax.__version__}, jaxlib {jaxlib.__version__}, XLA CPU, in this "
              f"process; both sides timed alike (best of 2-20 runs within about 1 s each)")
    print("models: ms; ours = parse, first interpret (cold: verify + plan + run), best warm run; "
          + ("XLA = jit compile + first run, best execute; ratios warm/execute and "
             "(parse+cold)/(compile+first)" if jax else "jax not installed: our times only"))
    print(f"  {'model':<14}{'parse':>8}{'cold':>10}{'warm':>10}"
          + (f"{'xla c+1':>11}{'xla exec':>10}{'ratio':>9}{'1-shot':>8}" if jax else ""))
    fns = defs.functions() if jax else {}
    # Load the op registry and kernels' modules once, so "cold" is the program's, not imports'.
    shlo_cli.interpret("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                       "  func.return %x : tensor<f32>\n}\n", np.float32(0))
    suite: dict[str, tuple[float, float]] = {}
    suite_cpu: dict[str, tuple[float, float]] = {}
    for name in defs.SPECS:
        with open(os.path.join(HERE, "models", f"{name}.mlir"), encoding="utf-8") as f:
            text = f.read()
        args = defs.inputs(name)
        try:
            parse, cold, warm, ours = _time_ours(text, args, name)
        except Diagnostic as e:  # e.g. a kernel that runs out of memory: say so, go on
            print(f"  {name:<14}failed: {str(e).splitlines()[0][:100]}")
            continue
        xla = None
        check = ""
        if jax:
            gc.collect()
            start = time.perf_counter()
            jitted = jax.jit(fns[name])
            theirs = jax.block_until_ready(jitted(*args))
            compile_first = time.perf_counter() - start
            execute = _best(lambda j=jitted, a=args: jax.block_until_ready(j(*a)))
            xla = (compile_first, execute)
            check = _close(ours, theirs) + _cpu_note(_CPU[0])
            if name in defs.ARCHS:
                suite[name] = (warm, execute)
                suite_cpu[name] = (_OURS_CPU[0], _CPU[0])
        _row(name, parse, cold, warm, xla, check)
    _suite_summary(suite)
    _suite_summary(suite_cpu, "in mean CPU time (all threads)")
    artifacts = os.path.join(root, "..", "artifacts")
    for name in ARTIFACTS:
        path = os.path.join(artifacts, f"{name}.mlir")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with np.load(os.path.join(artifacts, f"{name}.inputs.npz")) as z:
            args = [z[f"arg{i}"] for i in range(len(z.files))]
        try:
            parse, cold, warm, ours = _time_ours(text, args, name)
        except Diagnostic as e:
            print(f"  artifact {name:<5}failed: {str(e).splitlines()[0][:100]}")
            continue
        xla = None
        check = ""
        if jax:
            from jax import export
            gc.collect()
            start = time.perf_counter()
            with open(os.path.join(artifacts, f"{name}.jax"), "rb") as f:
                try:
                    exported = export.deserialize(bytearray(f.read()))
                except ImportError as e:  # jax's deserializer needs flatbuffers
                    _row("artifact " + name, parse, cold, warm, None, "")
                    print(f"    (no XLA baseline: {e})")
                    continue
            jitted = jax.jit(exported.call)
            theirs = jax.block_until_ready(jitted(*args))
            compile_first = time.perf_counter() - start
            execute = _best(lambda j=jitted, a=args: jax.block_until_ready(j(*a)))
            xla = (compile_first, execute)
            check = _close(ours, theirs)
        _row("artifact " + name, parse, cold, warm, xla, check)
