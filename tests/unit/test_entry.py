"""The console-script wrappers leave with `os._exit`: what a normal exit would have flushed
must still arrive, and exit codes must be Python's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from shlo_cli.commands import entry


def _entry(name: str, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    code = f"import sys; sys.argv = ['tool', *{list(args)!r}]; " \
           f"from shlo_cli.commands.entry import {name}; {name}()"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, **kwargs)  # type: ignore[call-overload]


def _adds(tmp_path: Path, count: int) -> Path:
    """A program of `count` adds (its printed form is ~50 bytes per add)."""
    body = "".join(f"  %{i} = stablehlo.add %arg0, %arg0 : tensor<2xf32>\n"
                   for i in range(count))
    path = tmp_path / "big.mlir"
    path.write_text(f"func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {{\n{body}"
                    "  return %arg0 : tensor<2xf32>\n}\n")
    return path


def test_large_output_arrives_whole(tmp_path: Path) -> None:
    """Buffered stdout is flushed before the early exit (a pipe, many buffers' worth)."""
    proc = _entry("stablehlo_opt", str(_adds(tmp_path, 2000)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("stablehlo.add") == 2000
    assert proc.stdout.endswith("}\n\n")


def test_error_exit_code_and_diagnostic(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @main() {\n")
    proc = _entry("stablehlo_opt", str(path))
    assert proc.returncode == 1
    assert "bad.mlir:1:20: error: expected operation name in quotes" in proc.stderr


def test_diagnostic_quotes_non_utf8_bytes_as_they_are(tmp_path: Path) -> None:
    """A quoted source line keeps its bytes (MLIR prints them raw), not `\\udcff` escapes."""
    path = tmp_path / "bin.mlir"
    path.write_bytes(b"\xff\xfe\n")
    code = f"import sys; sys.argv = ['tool', {str(path)!r}]; " \
           "from shlo_cli.commands.entry import stablehlo_opt; stablehlo_opt()"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert proc.returncode == 1
    assert proc.stderr.endswith(b"error: unexpected character\n\xff\xfe\n^\n"), proc.stderr


def test_closed_pipe_is_exit_1_without_traceback(tmp_path: Path) -> None:
    path = _adds(tmp_path, 20000)
    code = f"import sys; sys.argv = ['tool', {str(path)!r}]; " \
           "from shlo_cli.commands.entry import stablehlo_opt; stablehlo_opt()"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == 1
    assert err == "error: cannot write to standard output: Broken pipe\n"


@pytest.mark.parametrize("unbuffered", ["1", ""])
@pytest.mark.parametrize(("name", "flags"), [("stablehlo_opt", []),
                                             ("stablehlo_translate", ["--interpret"])])
def test_pipe_closed_midway_is_reported(tmp_path: Path, name: str, flags: list[str],
                                        unbuffered: str) -> None:
    """A reader that takes a few bytes and closes (`| head -c 10`): one write of the whole
    output then writes only what the pipe holds and reports no error, which must not pass
    for success (buffered or unbuffered stdout, bytes or text written)."""
    body = "".join(f"  %{i} = stablehlo.add %arg0, %arg0 : tensor<2xf32>\n"
                   for i in range(3000))
    path = tmp_path / "big.mlir"
    path.write_text("func.func @main() -> tensor<400000xf32> {\n"
                    "  %arg0 = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
                    f"{body}  %r = stablehlo.iota dim = 0 : tensor<400000xf32>\n"
                    "  return %r : tensor<400000xf32>\n}\n")
    code = f"import sys; sys.argv = ['tool', *{[*flags, str(path)]!r}]; " \
           f"from shlo_cli.commands.entry import {name}; {name}()"
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(10)) == 10
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == 1
    assert err == "error: cannot write to standard output: Broken pipe\n"


@pytest.mark.parametrize(("code", "expected", "printed"),
                         [(None, 0, ""), (3, 3, ""), ("bad", 1, "bad\n")])
def test_exit_code_as_python_makes_it(code: object, expected: int, printed: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert entry._exit_code(code) == expected
    assert capsys.readouterr().err == printed


def test_ctrl_c_without_a_handler_is_one_line_and_130() -> None:
    """The plain command paths install no SIGINT handler: the wrapper reports the
    KeyboardInterrupt as the handler would."""
    code = ("from shlo_cli.commands import entry\n"
            "def main():\n    print('partial', end='')\n    raise KeyboardInterrupt\n"
            "entry._run(main)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 130
    assert proc.stdout == "partial"
    assert proc.stderr == "error: interrupted\n"


def test_an_unforeseen_exception_is_one_error_line_not_a_traceback() -> None:
    code = ("from shlo_cli.commands.entry import _run\n"
            "def main():\n    raise ValueError('boom')\n"
            "_run(main)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 1
    assert proc.stderr == "error: internal error: ValueError: boom\n"


def test_string_bytes_that_are_not_utf8_print_as_escapes(tmp_path: Path) -> None:
    """A raw 0xFF byte in a string attribute prints as `\\FF` (MLIR's escape) and reads back
    as the same byte, also next to an escape (an encode error reached the user before)."""
    path = tmp_path / "ff.mlir"
    path.write_bytes(b'func.func @f() attributes {x = "a\xff\\\\b"} {\n  return\n}\n')
    first = subprocess.run([sys.executable, "-c", "import sys; sys.argv = ['tool', "
                            f"{str(path)!r}]; from shlo_cli.commands.entry import stablehlo_opt; "
                            "stablehlo_opt()"], capture_output=True, check=False)
    assert first.returncode == 0, first.stderr
    assert b'x = "a\\FF\\\\b"' in first.stdout
    again = tmp_path / "again.mlir"
    again.write_bytes(first.stdout)
    second = subprocess.run([sys.executable, "-c", "import sys; sys.argv = ['tool', "
                             f"{str(again)!r}]; from shlo_cli.commands.entry import stablehlo_opt; "
                             "stablehlo_opt()"], capture_output=True, check=False)
    assert second.stdout == first.stdout
