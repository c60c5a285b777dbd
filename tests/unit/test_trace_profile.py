"""`--trace`, `--profile`, `--dump-intermediates`: observers wrapped around kernels at plan
time, and nothing at all when off."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

from shlo_cli.commands.interpret import run_interpret
from shlo_cli.dialects import libm
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.interpreter.io import read_array_file
from shlo_cli.interpreter.observe import Profiler, Tracer, summarize
from shlo_cli.ir import registry
from shlo_cli.ir.parser import parse_source

LOOP = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<3xf32>
    cond {
      %p = stablehlo.compare LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %n = stablehlo.add %i, %c1 : tensor<i32>
      %w = stablehlo.multiply %v, %v : tensor<3xf32>
      stablehlo.return %n, %w : tensor<i32>, tensor<3xf32>
    }
  %l = stablehlo.log %r#1 : tensor<3xf32>
  return %l : tensor<3xf32>
}
"""


def write(tmp_path: Path, text: str = LOOP) -> str:
    path = tmp_path / "loop.mlir"
    path.write_text(text)
    return str(path)


def test_plan_without_observer_holds_bare_kernels() -> None:
    module = parse_source(LOOP, "t")
    interpreter = Interpreter(module)
    func = module.functions()[0]
    interpreter.call(func, [np.ones(3, np.float32)])
    steps = interpreter._plans[id(func.regions[0])].steps
    log_step = next(s for s in steps if s.op.name == "stablehlo.log")
    # the evaluator itself, or its plan-time specialization (f32: libm.native_kernel of
    # libm.log, cached per function and type), never an observer's wrapper
    bare = log_step.fn
    assert (bare is registry.lookup("stablehlo.log").evaluate
            or bare is libm.native_kernel(libm.log, np.dtype(np.float32)))


def test_trace_lists_every_executed_op_with_location_and_summary() -> None:
    module = parse_source(LOOP, "loop.mlir")
    stream = io.StringIO()
    interpreter = Interpreter(module, observer=Tracer(stream))
    [out] = interpreter.call(module.functions()[0], [np.array([2, 0, -1], np.float32)])
    lines = stream.getvalue().splitlines()
    # 3 constants, the while, log; 4 conds (compare) and 3 bodies (add, multiply).
    assert sum("stablehlo.compare" in line for line in lines) == 4
    assert sum("stablehlo.multiply" in line for line in lines) == 3
    assert len(lines) == 3 + 1 + 1 + 4 + 6
    last = lines[-1]
    assert re.match(r"\[15\] loop\.mlir:14:8 stablehlo\.log -> 3 float32 ", last), last
    assert "nan=0 inf=1" in last and "values=[5.5451775 -inf 0.0]" in last
    assert np.isneginf(out[1])


def test_summary_counts_nan_and_inf_and_elides_large_tensors() -> None:
    text = summarize(np.array([np.nan, np.inf, 1.0, 3.0], np.float32))
    assert "min=1 max=3 mean=2 nan=1 inf=1" in text and "values=" in text
    assert "values=" not in summarize(np.zeros(100, np.float32))
    assert summarize(np.array([1, 5], np.int8)).startswith("2 int8 min=1 max=5")
    assert "empty" in summarize(np.zeros((0, 3)))


def test_profile_counts_calls_per_kind_and_location() -> None:
    module = parse_source(LOOP, "loop.mlir")
    profiler = Profiler()
    Interpreter(module, observer=profiler).call(module.functions()[0],
                                                [np.ones(3, np.float32)])
    assert profiler.by_kind["stablehlo.compare"].calls == 4
    assert profiler.by_kind["stablehlo.while"].calls == 1
    assert profiler.by_location["loop.mlir:11:12 (stablehlo.multiply)"].calls == 3
    rows = profiler.rows(profiler.by_kind)
    assert [s.seconds for _, s in rows] == sorted((s.seconds for _, s in rows), reverse=True)
    # self time: the while's row excludes the ops of its regions
    inner = sum(profiler.by_kind[k].seconds for k in
                ("stablehlo.compare", "stablehlo.add", "stablehlo.multiply"))
    assert profiler.total() >= inner > 0


def test_cli_trace_profile_and_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "inter.npz"
    code = run_interpret(write(tmp_path), input_values=("3xf32=1 2 3",), trace=True,
                         profile=True, dump_intermediates=str(dump))
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "tensor<3xf32>" in out  # results still printed on stdout
    assert "stablehlo.multiply -> 3 float32" in err  # trace on stderr
    assert re.search(r"^op\s+calls\s+seconds\s+%$", err, re.MULTILINE)
    assert re.search(r"^stablehlo\.compare\s+4\s", err, re.MULTILINE)
    assert re.search(r"^location\s+calls", err, re.MULTILINE)
    assert "\x1b[" not in err + out
    arrays = read_array_file(str(dump))
    keys = list(arrays)
    # 15 op executions; the while has two results (.0, .1)
    assert len(keys) == 16 and keys[0] == "000000.stablehlo.constant"
    assert "000013.stablehlo.while.1" in keys
    assert keys[-1] == "000014.stablehlo.log"
    assert np.allclose(arrays["000014.stablehlo.log"], np.log(np.array([1, 2, 3]) ** 8))


def test_dump_to_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "dump"
    code = run_interpret(write(tmp_path), input_values=("3xf32=1 2 3",),
                         dump_intermediates=str(folder))
    assert code == 0, capsys.readouterr().err
    files = sorted(p.name for p in folder.iterdir())
    assert len(files) == 16 and files[-1] == "000014.stablehlo.log.npy"


def test_failed_run_writes_no_intermediates(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    text = """func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %x, %x : tensor<2xi32>
  check.expect_eq_const %0, dense<[0, 0]> : tensor<2xi32>
  return %0 : tensor<2xi32>
}
"""
    dump = tmp_path / "inter.npz"
    code = run_interpret(write(tmp_path, text), input_values=("2xi32=1 2",), profile=True,
                         dump_intermediates=str(dump))
    err = capsys.readouterr().err
    assert code == 1 and "check.expect_eq_const" in err
    assert re.search(r"^stablehlo\.add\s+1\s", err, re.MULTILINE)  # the profile still prints
    assert not dump.exists()
