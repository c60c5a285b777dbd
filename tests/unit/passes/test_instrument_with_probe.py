"""interpreter-instrument-with-probe: which values get probes, their ids, and that the
instrumented program still computes the same results."""

from __future__ import annotations

import numpy as np

from shlo_cli import interpret
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes

PROGRAM = """func.func @main(%a: tensor<2xf32>, %b: tensor<?xf32>)
    -> (tensor<2xf32>, tensor<?xf32>) {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  %0 = stablehlo.add %a, %c : tensor<2xf32> loc("sum@here")
  %1 = stablehlo.multiply %0, %0 : tensor<2xf32>
  %2 = stablehlo.abs %b : tensor<?xf32>
  return %1, %2 : tensor<2xf32>, tensor<?xf32>
}
"""


def _instrument(options: str) -> str:
    module = parse_source(PROGRAM)
    run_passes(module, [("interpreter-instrument-with-probe", options)])
    return print_module(module)


def test_ids_and_uses() -> None:
    out = _instrument("")
    assert out.count("interpreter.probe") == 2  # not the constant, not the dynamic abs
    assert '%1 = interpreter.probe %0, probe_id = "probe1"' in out
    assert "stablehlo.multiply %1, %1" in out
    assert 'interpreter.probe %2, probe_id = "probe2"' in out
    assert "return %3, %4" in out


def test_debug_info_names_probes_after_named_locations() -> None:
    out = _instrument("useDebugInfo=true")
    assert 'probe_id = "sum.1"' in out and 'probe_id = "probe2"' in out


def test_results_unchanged_and_probes_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    a, b = np.array([1.0, -2.0], np.float32), np.array([-3.0, 4.0, -5.0], np.float32)
    want = interpret(PROGRAM, a, b)
    got = interpret(_instrument(""), a, b, probe_output_dir=str(tmp_path))
    for x, y in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, y)
    index = (tmp_path / "index.csv").read_text()
    assert "probe1" in index and "probe2" in index


def test_string_tensors_of_other_dialects_parse_and_are_not_probed() -> None:
    text = ('func.func @main() -> tensor<!tf_type.string> {\n'
            '  %0 = "tf.Const"() {value = dense<"hi"> : tensor<!tf_type.string>} : () -> '
            'tensor<!tf_type.string>\n  return %0 : tensor<!tf_type.string>\n}\n')
    module = parse_source(text, allow_unregistered=True)
    run_passes(module, ["interpreter-instrument-with-probe"])
    out = print_module(module)
    assert 'value = dense<"hi"> : tensor<!tf_type.string>' in out
    assert "probe" not in out
