"""The op index (`dialects/op_index.py`): a launch imports the core op modules and only the
other modules its program's ops need. The checked-in index must be what a fresh walk of the
op modules finds (regenerate with `python -m shlo_cli.dialects.op_index_build`), and a
program parses, verifies and prints the same whichever modules were imported."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from shlo_cli.dialects import op_index

PROGRAM = """func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_checked_in_index_is_what_the_walk_finds() -> None:
    out = _run("""
        from shlo_cli.dialects.op_index_build import build, render
        print(render(*build()), end="")
    """)
    with open(op_index.__file__) as f:
        assert f.read() == out, "op_index.py is stale: python -m shlo_cli.dialects.op_index_build"


def test_index_covers_every_op_of_the_walk() -> None:
    out = _run("""
        import sys
        from shlo_cli.ir import registry
        from shlo_cli.dialects import op_index
        registry.load_core()
        core = set(registry._REGISTRY)
        registry.ensure_loaded()
        rest = set(registry._REGISTRY) - core
        missing = set(op_index.OPS) - set(registry._REGISTRY)
        print(sorted(rest - set(op_index.OPS)), sorted(missing))
    """)
    assert out == "[] []\n"  # every op loaded on demand is indexed; every indexed op exists


def test_a_program_imports_only_the_modules_of_its_ops() -> None:
    out = _run(f"""
        import sys
        from shlo_cli.ir.parser import parse_source
        from shlo_cli.ir.printer import print_module
        from shlo_cli.ir.verifier import verify_module
        module = parse_source({PROGRAM!r}, "t.mlir", False, 0)
        verify_module(module)
        print(print_module(module))
        print("chlo.unary" if "shlo_cli.dialects.chlo.unary" in sys.modules else "-")
        print("func" if "shlo_cli.dialects.func" in sys.modules else "-")
    """)
    assert out.endswith("-\nfunc\n")
    assert "stablehlo.add %arg0, %arg0 : tensor<2xf32>" in out


def test_unknown_and_lazily_loaded_ops() -> None:
    out = _run("""
        from shlo_cli.ir import registry
        from shlo_cli.ir.diagnostics import Diagnostic, ShloError
        from shlo_cli.ir.parser import parse_source
        from shlo_cli.ir.verifier import verify_module
        assert registry.lookup("chlo.erf") is not None       # an on-demand op
        assert registry.lookup("stablehlo.nonesuch") is None  # loads everything, still none
        assert registry._loaded
        try:
            verify_module(parse_source('"stablehlo.nonesuch"() : () -> ()', "t.mlir", False, 0))
        except (Diagnostic, ShloError) as d:
            print(d)
    """)
    assert "unregistered operation 'stablehlo.nonesuch' found in dialect ('stablehlo')" in out


def test_binding_hooks_load_when_binding_and_keep_their_order() -> None:
    """Parsing imports no binding-hook module; the interpreter's first binding imports them
    all, and the hooks run in their registered order whichever module was imported first."""
    out = _run(f"""
        import sys
        from shlo_cli.ir import registry
        from shlo_cli.ir.parser import parse_source
        from shlo_cli.dialects import op_index
        parse_source({PROGRAM!r}, "t.mlir", False, 0)
        print(sorted(m for m in op_index.BIND if m in sys.modules))
        import shlo_cli.dialects.stablehlo.specialize_reduce  # out of the walk's order
        hooks = registry.bind_hooks()
        print(all(m in sys.modules for m in op_index.BIND))
        orders = [registry._BIND_ORDER[f"{{h.__module__}}.{{h.__qualname__}}"] for h in hooks]
        print(orders == sorted(orders), len(hooks) >= len(op_index.BIND))
    """)
    assert out == "[]\nTrue\nTrue True\n"


def test_dialect_attributes_load_their_module_on_first_use() -> None:
    """`#stablehlo.gather<...>` is parsed by its own grammar (its module imported when the
    parser first meets it): fields in upstream's order, spaces normalized."""
    out = _run("""
        import sys
        from shlo_cli.ir.parser import parse_source
        from shlo_cli.ir.printer import print_module
        gather = "shlo_cli.dialects.stablehlo.gather_scatter"
        module = parse_source('func.func @f() attributes {a = #stablehlo.gather<'
                              'index_vector_dim = 1, offset_dims = [0]>} {\\n  return\\n}',
                              "t.mlir", False, 0)
        print(gather in sys.modules)
        print(print_module(module))
        print("shlo_cli.dialects.stablehlo.attr_conv" in sys.modules)
    """)
    assert out.startswith("True\n")
    assert "#stablehlo.gather<offset_dims = [0], index_vector_dim = 1>" in out
    assert out.endswith("False\n")
    assert set(op_index.ATTRIBUTES) >= {"stablehlo.conv", "stablehlo.dot", "stablehlo.gather"}
