"""Tools that do not compute never load numpy (issue 13 item 4): parse, verify, print,
bytecode and portable-artifact round trips of a program with every numpy-free element type
run in a fresh process with the tools' lazy numpy, which must still be unexecuted at the end.
Interpreting the same program does load it (the check is not vacuous)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PROGRAM = """
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>
  %1 = stablehlo.add %0, %arg0 : tensor<2xf32>
  %2 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %3 = stablehlo.constant dense<[1, -2]> : tensor<2xi32>
  %4 = stablehlo.constant dense<[255, 7]> : tensor<2xui8>
  %5 = stablehlo.constant dense<[0x7E00, 1.5]> : tensor<2xf16>
  %6 = stablehlo.constant dense<3.14159> : tensor<2x3xf64>
  %7 = stablehlo.constant dense<[(1.0, -2.0), (0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %8 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %9 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %10 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<2xf32>) -> tensor<2xf32>
  %11 = stablehlo.compare GT, %0, %arg0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %1 : tensor<2xf32>
}
"""

ROUND_TRIPS = """
import shlo_cli.commands  # installs the lazy numpy the tools use
from shlo_cli import lazy_imports
from shlo_cli.formats.bytecode import read_bytecode, write_bytecode
from shlo_cli.formats.portable import deserialize, serialize
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module

module = parse_source(PROGRAM, "t.mlir", False, 0)
verify_module(module)
text = print_module(module)
again = print_module(read_bytecode(write_bytecode(module), "t.mlirbc"))
assert again == text, (again, text)
portable = print_module(deserialize(serialize(module, "current"), "t.mlirbc"))
assert "stablehlo.add" in portable
print(text)
print("NUMPY LOADED" if lazy_imports.is_loaded("numpy") else "numpy not loaded")
"""


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", f"PROGRAM = {PROGRAM!r}\n" + code],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_parse_verify_print_and_bytecode_never_load_numpy() -> None:
    out = _run(ROUND_TRIPS)
    assert out.endswith("numpy not loaded\n")
    # and the printed constants are MLIR's spellings
    assert "dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf32>" in out
    assert "dense<[0x7E00, 1.500000e+00]> : tensor<2xf16>" in out
    assert "dense<[(1.000000e+00,-2.000000e+00), (5.000000e-01,2.500000e-01)]>" in out
    assert "dense<[255, 7]> : tensor<2xui8>" in out


@pytest.mark.parametrize("argv", [
    ["stablehlo-opt", "{path}"],
    ["stablehlo-opt", "--emit-bytecode", "{path}", "-o", "{path}.bc"],
    ["stablehlo-translate", "--serialize", "--target=current", "{path}", "-o", "{path}.bc"],
])
def test_tools_that_do_not_compute_never_load_numpy(tmp_path, argv: list[str]) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(PROGRAM)
    argv = [a.replace("{path}", str(path)) for a in argv]
    module = {"stablehlo-opt": "opt", "stablehlo-translate": "translate"}[argv[0]]
    out = _run(textwrap.dedent(f"""
        import sys
        sys.argv = {argv!r}
        from shlo_cli.commands.{module} import main
        try:
            main()
        except SystemExit as e:
            assert not e.code, e.code
        from shlo_cli import lazy_imports
        print("NUMPY LOADED" if lazy_imports.is_loaded("numpy") else "numpy not loaded")
    """))
    assert out.endswith("numpy not loaded\n")


def test_interpreting_does_load_numpy(tmp_path) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(PROGRAM.replace("%arg0: tensor<2xf32>", "").replace("%arg0", "%0"))
    out = _run(textwrap.dedent(f"""
        import sys
        sys.argv = ["stablehlo-translate", "--interpret", {str(path)!r}]
        from shlo_cli.commands.translate import main
        try:
            main()
        except SystemExit as e:
            assert not e.code, e.code
        from shlo_cli import lazy_imports
        print("NUMPY LOADED" if lazy_imports.is_loaded("numpy") else "numpy not loaded")
    """))
    assert out.endswith("NUMPY LOADED\n")


@pytest.mark.parametrize("first", [
    "import ml_dtypes; ml_dtypes.bfloat16",  # its C extension imports numpy._core itself
    "import numpy.fft",                       # a submodule before the package
    "from numpy.linalg import norm",
])
def test_lazy_numpy_loads_whole_whichever_import_comes_first(first: str) -> None:
    out = _run(f"import shlo_cli.commands\n{first}\n" + textwrap.dedent("""
        import numpy as np, ml_dtypes
        assert np.asarray([1, 2], np.float32).sum() == 3
        assert np.dtype(ml_dtypes.bfloat16).itemsize == 2
        print(np.fft.fftn(np.ones(2)).tolist())
    """))
    assert out == "[(2+0j), 0j]\n"


def test_importing_every_op_module_never_loads_numpy() -> None:
    """A program naming an op the index does not know imports every op module
    (`dialects.load_all`): none may touch numpy at import (tables of numpy objects are
    built on first use)."""
    out = _run(textwrap.dedent("""
        import shlo_cli.commands
        from shlo_cli import dialects, lazy_imports
        dialects.load_all()
        print("NUMPY LOADED" if lazy_imports.is_loaded("numpy") else "numpy not loaded")
    """))
    assert out.endswith("numpy not loaded\n")
