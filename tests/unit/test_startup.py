"""Start-up (issue 13 item 4): what a tool launch imports. Assertions on imports, never on
timings: each test runs a fresh interpreter and reads its `sys.modules`."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TINY = """func.func @main() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.add %0, %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""


def _modules_after(tmp_path: Path, module: str, args: list[str]) -> tuple[set[str], str]:
    """(sys.modules, stdout) after running `module.main()` with `args` in a fresh process."""
    script = textwrap.dedent(f"""
        import sys
        sys.argv = ["tool", *{args!r}]
        from {module} import main
        code = 0
        try:
            main()
        except SystemExit as e:
            code = e.code
        sys.stdout.flush()
        modules = sorted(sys.modules)
        import json  # (after the run: json imports re)
        sys.stderr.write("\\nMODULES " + json.dumps(modules) + "\\n")
        sys.exit(code)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    return set(json.loads(line[len("MODULES "):])), proc.stdout


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.mlir"
    path.write_text(TINY)
    return path


def _pass_modules(modules: set[str]) -> set[str]:
    support = {"shlo_cli.passes", "shlo_cli.passes.pipeline"}
    return {m for m in modules if m.startswith("shlo_cli.passes.") and m not in support}


def test_plain_opt_run_imports_no_pass_vhlo_or_bytecode_module(tmp_path: Path,
                                                               tiny: Path) -> None:
    modules, out = _modules_after(tmp_path, "shlo_cli.commands.opt", [str(tiny)])
    assert "stablehlo.add" in out
    assert _pass_modules(modules) == set()
    assert not {m for m in modules if m.startswith("shlo_cli.dialects.vhlo")}
    assert "shlo_cli.formats.bytecode.reader" not in modules
    assert "shlo_cli.formats.bytecode.writer" not in modules
    assert "pkg_resources" not in modules
    assert "importlib.metadata" not in modules
    assert "click" not in modules and "rich" not in modules
    # what only type annotations, regular expressions compiled anew or numpy's warning
    # filters would need: ~10 ms of a launch
    for stdlib in ("typing", "re", "enum", "contextlib"):
        assert stdlib not in modules, stdlib


def test_opt_with_a_pass_imports_only_that_pass_module(tmp_path: Path, tiny: Path) -> None:
    modules, out = _modules_after(tmp_path, "shlo_cli.commands.opt",
                                  ["--strip-debuginfo", str(tiny)])
    assert "stablehlo.add" in out
    assert _pass_modules(modules) == {"shlo_cli.passes.strip_debuginfo"}


def test_vhlo_loads_when_the_program_uses_it(tmp_path: Path, tiny: Path) -> None:
    modules, out = _modules_after(tmp_path, "shlo_cli.commands.opt",
                                  ["--stablehlo-legalize-to-vhlo", str(tiny)])
    assert "vhlo.add_v1" in out
    vhlo_text = tmp_path / "vhlo.mlir"
    vhlo_text.write_text(out)
    modules, out = _modules_after(tmp_path, "shlo_cli.commands.opt", [str(vhlo_text)])
    assert "shlo_cli.dialects.vhlo" in modules
    assert _pass_modules(modules) == set()
    assert "vhlo.add_v1" in out


def test_opt_help_lists_every_pass_with_its_help(tmp_path: Path) -> None:
    from shlo_cli.passes import PASSES

    _, out = _modules_after(tmp_path, "shlo_cli.commands.opt", ["--help"])
    PASSES.load_all()
    for name, pass_ in PASSES.items():
        assert f"--{name}" in out
        assert pass_.help.split()[0] in out


def test_the_source_scan_finds_every_registered_pass() -> None:
    """The lazy registry's names (from the pass modules' source) are exactly those the
    modules register when all are imported, in the same order."""
    from shlo_cli.passes import PASSES, PassRegistry

    fresh = PassRegistry()
    scanned = list(fresh.index())
    PASSES.load_all()
    registered = [name for name in PASSES.names() if PASSES.loaded(name) is not None]
    assert sorted(scanned) == sorted(registered)
    for name, module in fresh.index().items():
        assert PASSES[name].run.__module__ == module


def test_registry_lookup_loads_on_demand() -> None:
    from shlo_cli.passes import PASSES

    assert "strip-debuginfo" in PASSES
    assert PASSES["strip-debuginfo"].name == "strip-debuginfo"
    assert "no-such-pass" not in PASSES
    with pytest.raises(KeyError):
        PASSES["no-such-pass"]


@pytest.mark.parametrize("args", [
    ["--help"], ["-h"], ["--version"], ["--split-input-file=true", "x.mlir"], ["-o"],
    ["a.mlir", "b.mlir"], ["--no-such-flag"], ["--", "x.mlir"], ["-emit-bytecode-version", "1"],
    ["--pass-pipeline"], ["--strip-debuginfo=1"],
])
def test_unusual_command_lines_go_to_click(args: list[str]) -> None:
    from shlo_cli.commands.opt import _simple_args

    assert _simple_args(args) is None


def test_plain_command_lines_are_read_without_click() -> None:
    from shlo_cli.commands.opt import _simple_args

    values = _simple_args(["-split-input-file", "--verify-diagnostics", "in.mlir", "-o", "out",
                           "--strip-debuginfo", "--pass-pipeline", "builtin.module(cse)"])
    assert values is not None
    assert values["input"] == "in.mlir" and values["output"] == "out"
    assert values["split_input_file"] and values["verify_diagnostics"]
    assert not values["emit_bytecode"]
    assert values["flagged"] == {"strip-debuginfo"}
    assert values["pass_pipeline"] == "builtin.module(cse)"
    assert _simple_args([])["input"] == "-"  # type: ignore[index]
    assert _simple_args(["-pass-pipeline=builtin.module(cse)"])["pass_pipeline"] == (  # type: ignore[index]
        "builtin.module(cse)")


def test_interpret_with_args_is_read_without_click(tmp_path: Path) -> None:
    """`--interpret --args=...` (upstream's spelling) runs without click and gives what the
    click command gives (forced here by an option only click reads)."""
    from shlo_cli.commands.translate import _simple_args

    values = _simple_args(["x.mlir", "--interpret", "--args=[dense<1> : tensor<i32>]",
                           "-probe-output-dir", "probes"])
    assert values == ("interpret", {"input": "x.mlir", "output": None,
                                    "args": "[dense<1> : tensor<i32>]",
                                    "probe_output_dir": "probes"})
    assert _simple_args(["--interpret", "--args"]) is None  # no value: click reports it
    assert _simple_args(["--serialize", "--args=x"]) is None  # not a serialize option
    program = tmp_path / "p.mlir"
    program.write_text("func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {\n"
                       "  %0 = stablehlo.add %a, %a : tensor<2xi32>\n"
                       "  return %0 : tensor<2xi32>\n}\n")
    args = [str(program), "--interpret", "--args=[dense<[1, 2]> : tensor<2xi32>]"]
    plain, out = _modules_after(tmp_path, "shlo_cli.commands.translate", args)
    forced, via_click = _modules_after(tmp_path, "shlo_cli.commands.translate",
                                       [*args, "--max-iterations", "10"])
    assert "click" not in plain and "click" in forced
    assert out == via_click and "[2, 4]" in out


def test_interpret_imports_the_binding_hooks_of_its_own_ops_only(tmp_path: Path,
                                                                  tiny: Path) -> None:
    """A program of a constant and an add imports the hook modules of add (and the ones for
    any op), not those of convolution, reduce or composites."""
    modules, out = _modules_after(tmp_path, "shlo_cli.commands.translate",
                                  ["--interpret", str(tiny)])
    assert "[2.000000e+00, 4.000000e+00]" in out
    stablehlo = "shlo_cli.dialects.stablehlo"
    assert {f"{stablehlo}.specialize", f"{stablehlo}.quantization"} <= modules
    for unused in ("specialize_conv", "specialize_reduce", "specialize_gather",
                   "composite_kernels", "specialize_cumulative"):
        assert f"{stablehlo}.{unused}" not in modules


def test_binding_hooks_of_an_op_are_the_ones_naming_it_or_none() -> None:
    from shlo_cli.dialects.stablehlo import specialize, specialize_conv
    from shlo_cli.ir import registry

    every = registry.bind_hooks()
    for_add = registry.bind_hooks("stablehlo.add")
    assert specialize.bind_specialized in for_add
    assert specialize_conv.bind_convolution not in for_add
    assert specialize_conv.bind_convolution in registry.bind_hooks("stablehlo.convolution")
    assert for_add == [h for h in every if h in for_add]  # same order
    assert all(h in for_add for h in every if h not in registry._HOOK_OPS)


def test_serialize_and_deserialize_import_no_typing_or_re(tmp_path: Path, tiny: Path) -> None:
    out = tmp_path / "tiny.mlirbc"
    for args in (["--serialize", "--target=current", str(tiny), "-o", str(out)],
                 ["--deserialize", str(out)]):
        modules, _ = _modules_after(tmp_path, "shlo_cli.commands.translate", args)
        for stdlib in ("typing", "re", "enum", "contextlib", "numpy._core"):
            assert stdlib not in modules, (args[0], stdlib)
    assert out.read_bytes().startswith(b"ML\xefR")
