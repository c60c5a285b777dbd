"""Memory budget, while-loop cap and Ctrl-C: refusals are located diagnostics, fast."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.memory import default_limit, parse_size

SHLO = str(Path(sys.executable).with_name("shlo"))

TERABYTE = """func.func @main(%arg0: tensor<f32>) -> tensor<100000x100000x100xf32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<100000x100000x100xf32>
  return %0 : tensor<100000x100000x100xf32>
}
"""

# One program per allocation class whose size the types give: results of each kind.
ALLOCATIONS = {
    "broadcast": TERABYTE.replace("(%arg0: tensor<f32>)", "()").replace(
        "{\n", "{\n  %arg0 = stablehlo.constant dense<1.0> : tensor<f32>\n", 1),
    "constant": """func.func @main() -> tensor<100000x100000x100xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<100000x100000x100xf32>
  return %0 : tensor<100000x100000x100xf32>
}""",
    "iota": """func.func @main() -> tensor<f32> {
  %0 = stablehlo.iota dim = 0 : tensor<100000x100000xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [0, 1]
       : (tensor<100000x100000xf32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}""",
    "pad": """func.func @main() -> tensor<100000000000xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.pad %a, %z, low = [0], high = [99999999998], interior = [0]
       : (tensor<2xf32>, tensor<f32>) -> tensor<100000000000xf32>
  return %0 : tensor<100000000000xf32>
}""",
    "dot_general": """func.func @main() -> tensor<1000000x1000000xf32> {
  %a = stablehlo.iota dim = 0 : tensor<1000000xf32>
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [] x []
       : (tensor<1000000xf32>, tensor<1000000xf32>) -> tensor<1000000x1000000xf32>
  return %0 : tensor<1000000x1000000xf32>
}""",
}


def _run_limited(text: str, tmp_path: Path,
                 *args: str) -> tuple[subprocess.CompletedProcess, float]:
    path = tmp_path / "prog.mlir"
    path.write_text(text)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000 * 1024, 4_000_000 * 1024))

    start = time.monotonic()
    proc = subprocess.run([SHLO, "interpret", str(path), *args], capture_output=True,
                          text=True, preexec_fn=limit, timeout=60)
    return proc, time.monotonic() - start


def test_terabyte_broadcast_refused_fast_under_ulimit(tmp_path: Path) -> None:
    proc, _ = _run_limited(TERABYTE, tmp_path, "--args=[dense<1.0> : tensor<f32>]")
    assert proc.returncode == 1
    assert "prog.mlir:2:8: error: 'stablehlo.broadcast_in_dim' needs 3.64 TiB" in proc.stderr
    assert "tensor<100000x100000x100xf32>" in proc.stderr
    assert "4000000000000 bytes" in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    # Timed in-process: the child's start-up (imports) is not the refusal's cost.
    start = time.monotonic()
    with pytest.raises(Diagnostic, match="needs 3.64 TiB"):
        shlo_cli.interpret(TERABYTE, np.float32(1), memory_limit=4 << 30)
    assert time.monotonic() - start < 2


@pytest.mark.parametrize("name", sorted(ALLOCATIONS))
def test_each_allocation_class_refused(name: str, tmp_path: Path) -> None:
    proc, _ = _run_limited(ALLOCATIONS[name], tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "error: 'stablehlo." in proc.stderr and "over the memory limit" in proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


def test_memory_limit_option_and_api(tmp_path: Path) -> None:
    prog = """func.func @main() -> tensor<1024x1024xf32> {
  %0 = stablehlo.iota dim = 0 : tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}"""
    with pytest.raises(Diagnostic, match=r"'stablehlo.iota' needs 4.00 MiB \(4194304 bytes\)"):
        shlo_cli.interpret(prog, memory_limit=2 << 20)
    [out] = shlo_cli.interpret(prog, memory_limit=8 << 20)
    assert out.shape == (1024, 1024)
    path = tmp_path / "p.mlir"
    path.write_text(prog)
    proc = subprocess.run([SHLO, "interpret", str(path), "--memory-limit", "3M"],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "p.mlir:2:8: error:" in proc.stderr


def test_parse_size_and_default() -> None:
    assert parse_size("4G") == 4 << 30
    assert parse_size("512MiB") == 512 << 20
    assert parse_size("1000") == 1000
    with pytest.raises(ValueError):
        parse_size("lots")
    assert 0 < default_limit()


LOOP = """func.func @main() -> tensor<i64> {
  %c = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r = stablehlo.while(%i = %c) : tensor<i64>
    cond {
      %t = stablehlo.compare GE, %i, %c : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %n = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %n : tensor<i64>
    }
  return %r : tensor<i64>
}
"""


def test_max_iterations(tmp_path: Path) -> None:
    with pytest.raises(Diagnostic, match="while loop exceeded 50 iterations"):
        shlo_cli.interpret(LOOP, max_iterations=50)
    path = tmp_path / "loop.mlir"
    path.write_text(LOOP)
    proc = subprocess.run([SHLO, "interpret", str(path), "--max-iterations", "10"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "loop.mlir:4:8: error: while loop exceeded 10 iterations" in proc.stderr


def _wait_for_cpu(pid: int, seconds: float) -> None:
    """Until the child has used `seconds` of CPU (past its imports, so its SIGINT handler is
    installed): wall-clock sleeps are unreliable on a loaded machine."""
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:
            return
        time.sleep(0.05)


def test_ctrl_c_exits_130_without_output_file(tmp_path: Path) -> None:
    path = tmp_path / "loop.mlir"
    path.write_text(LOOP)
    out = tmp_path / "out.txt"
    proc = subprocess.Popen(
        [SHLO, "interpret", str(path), "-o", str(out)], stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_for_cpu(proc.pid, 1.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "Traceback" not in err and "interrupted" in err
    assert not out.exists()
    assert not [p for p in os.listdir(tmp_path) if p not in ("loop.mlir",)]


def test_kernel_temporaries_are_budgeted(tmp_path: Path) -> None:
    """A dilation the result type does not show: the padded temporary is refused (an
    infinite kernel: 0 * inf makes the inserted zeros count, so they are materialized)."""
    prog = """func.func @main() -> tensor<1x1x1xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<1x2x1xf32>
  %k = stablehlo.constant dense<0x7F800000> : tensor<1x1x1xf32>
  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f],
       window = {stride = [4000000000], lhs_dilate = [2000000000]}
       {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
       : (tensor<1x2x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  return %0 : tensor<1x1x1xf32>
}"""
    proc, elapsed = _run_limited(prog, tmp_path)
    assert proc.returncode == 1
    assert "prog.mlir:4:8: error: 'stablehlo.convolution': the dilated operand needs" in \
        proc.stderr
    assert "Traceback" not in proc.stderr


def test_ctrl_c_in_stablehlo_opt(tmp_path: Path) -> None:
    values = ", ".join(f"{i % 97}.5" for i in range(1500000))
    path = tmp_path / "big.mlir"
    path.write_text(f"func.func @main() -> tensor<1500000xf32> {{\n  %c = stablehlo.constant "
                    f"dense<[{values}]> : tensor<1500000xf32>\n"
                    f"  return %c : tensor<1500000xf32>\n}}\n")
    out = tmp_path / "out.mlir"
    opt = str(Path(sys.executable).with_name("stablehlo-opt"))
    proc = subprocess.Popen([opt, str(path), "-o", str(out)], stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_for_cpu(proc.pid, 1.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert sorted(os.listdir(tmp_path)) == ["big.mlir"]


_HUGE = "dense<[2143289344]> : tensor<1xi64>"


def test_a_pad_its_result_type_cannot_hold_is_refused_before_padding() -> None:
    prog = """func.func @main(%high: tensor<1xi64>) -> tensor<11xf32> {
  %x = stablehlo.constant dense<1.0> : tensor<4xf32>
  %v = stablehlo.constant dense<0.0> : tensor<f32>
  %z = stablehlo.constant dense<[0]> : tensor<1xi64>
  %0 = stablehlo.dynamic_pad %x, %v, %z, %high, %z : (tensor<4xf32>, tensor<f32>,
       tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<11xf32>
  return %0 : tensor<11xf32>
}"""
    with pytest.raises(Diagnostic) as caught:  # (not the budget's refusal of the padding)
        shlo_cli.interpret(prog, np.array([2143289344], np.int64), memory_limit=64 << 20)
    assert "result shape [2143289348] does not match tensor<11xf32>" in str(caught.value)


@pytest.mark.parametrize(("body", "result", "message"), [
    (f"%x = stablehlo.constant dense<1.0> : tensor<f32>\n  %s = stablehlo.constant {_HUGE}\n"
     "  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [] : "
     "(tensor<f32>, tensor<1xi64>) -> tensor<?xf32>",
     "tensor<?xf32>", "result needs 7.98 GiB"),
    (f"%s = stablehlo.constant {_HUGE}\n"
     "  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xi32>",
     "tensor<?xi32>", "dynamic_iota needs 7.98 GiB"),
])
def test_sizes_read_from_operands_are_budgeted_before_allocating(body: str, result: str,
                                                                 message: str) -> None:
    prog = f"func.func @main() -> {result} {{\n  {body}\n  return %0 : {result}\n}}"
    with pytest.raises(Diagnostic) as caught:
        shlo_cli.interpret(prog, memory_limit=64 << 20)
    assert message in str(caught.value)


COUNT_TO_100 = LOOP.replace("compare GE, %i, %c", "compare LT, %i, %hundred").replace(
    "%one = stablehlo.constant dense<1> : tensor<i64>",
    "%one = stablehlo.constant dense<1> : tensor<i64>\n"
    "  %hundred = stablehlo.constant dense<100> : tensor<i64>")


def test_iteration_cap_and_budget_are_per_thread() -> None:
    """API calls in several threads: one call's cap (or memory budget) must not reach a
    call running meanwhile in another thread (they were process-wide)."""
    import threading

    from shlo_cli.ir import limits, memory

    entered, finished = threading.Event(), threading.Event()

    def hold_a_cap() -> None:
        with limits.iteration_cap(5), memory.memory_limit(1000):
            entered.set()
            finished.wait(60)

    holder = threading.Thread(target=hold_a_cap)
    holder.start()
    try:
        assert entered.wait(60)
        assert limits.max_iterations() is None and memory.run_limit() is None
        assert int(shlo_cli.interpret(COUNT_TO_100)[0]) == 100  # 100 > the other's cap
    finally:
        finished.set()
        holder.join(60)


RUN_PARALLEL_LOOPS = LOOP.replace("@main", "@loop") + """func.func @main() -> tensor<i64> {
  %res:2 = "interpreter.run_parallel"() {programs = [[@loop], [@loop]]}
    : () -> (tensor<i64>, tensor<i64>)
  return %res#0 : tensor<i64>
}
"""


def test_iteration_cap_reaches_run_parallel_processes() -> None:
    """Each process of run_parallel runs on a thread of its own: the run's cap goes with
    it (else an endless loop there would run until the timeout)."""
    with pytest.raises(Diagnostic, match="while loop exceeded 20 iterations"):
        shlo_cli.interpret(RUN_PARALLEL_LOOPS, max_iterations=20, timeout=60)
