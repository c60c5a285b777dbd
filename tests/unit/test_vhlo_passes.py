"""The VHLO passes: legalization both ways, version conversion and their diagnostics,
pass options, and the lossless round trip on a sample of the testdata programs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from shlo_cli.dialects.vhlo import attributes as va
from shlo_cli.dialects.vhlo import types as vt
from shlo_cli.dialects.vhlo.version import CURRENT, Version
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import PASSES, PassOptionError
from shlo_cli.passes.stablehlo_legalize_to_vhlo import legalize_to_vhlo
from shlo_cli.passes.vhlo_legalize_to_stablehlo import legalize_to_stablehlo
from shlo_cli.passes.vhlo_to_version import op_is_legal, vhlo_to_version

CONFORMANCE = Path("/work/shared/conformance")
BIN = Path(sys.executable).parent


def _vhlo(text: str, target: Version | None = None):
    module = parse_source(text)
    verify_module(module)
    legalize_to_vhlo(module)
    if target is not None:
        vhlo_to_version(module, target)
    verify_module(module)
    return module


def _ops(module, name: str):
    return [op for op in module.op.walk() if op.name == name]


ALL_GATHER = """
func.func @f(%a: tensor<16x8xf32>, %b: tensor<16x8xf32>) -> tensor<16x16xf32> {
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64,
    replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<16x8xf32>) -> tensor<16x16xf32>
  func.return %0 : tensor<16x16xf32>
}
"""


def test_legalize_writes_out_defaults_and_converts_types() -> None:
    module = _vhlo(ALL_GATHER)
    (op,) = _ops(module, "vhlo.all_gather_v2")
    assert op.properties["channel_id"] == va.IntegerV1Attr(vt.IntegerSI64V1Type(), 0)
    assert op.properties["use_global_device_ids"] == va.BooleanV1Attr(False)
    assert str(op.results[0].type) == "!vhlo.tensor_v1<16x16x!vhlo.f32_v1>"
    (func,) = _ops(module, "vhlo.func_v1")
    assert func.properties["sym_visibility"] == va.StringV1Attr("")
    assert str(func.properties["function_type"]) == (
        "#vhlo.type_v1<!vhlo.func_v1<(!vhlo.tensor_v1<16x8x!vhlo.f32_v1>, "
        "!vhlo.tensor_v1<16x8x!vhlo.f32_v1>) -> !vhlo.tensor_v1<16x16x!vhlo.f32_v1>>>")
    assert _ops(module, "vhlo.return_v1")


def test_downgrade_and_upgrade_all_gather() -> None:
    module = _vhlo(ALL_GATHER, Version(1, 4, 0))
    assert _ops(module, "vhlo.all_gather_v1") and not _ops(module, "vhlo.all_gather_v2")
    vhlo_to_version(module, CURRENT)
    assert _ops(module, "vhlo.all_gather_v2")


def test_variadic_all_gather_cannot_go_below_1_5_0() -> None:
    text = ALL_GATHER.replace('"stablehlo.all_gather"(%a)', '"stablehlo.all_gather"(%a, %b)')
    text = text.replace("(tensor<16x8xf32>) -> tensor<16x16xf32>",
                        "(tensor<16x8xf32>, tensor<16x8xf32>) -> (tensor<16x16xf32>, "
                        "tensor<16x16xf32>)").replace("%0 =", "%0:2 =").replace(
                            "func.return %0 :", "func.return %0#0 :")
    with pytest.raises(Diagnostic) as info:
        _vhlo(text, Version(1, 4, 0))
    assert info.value.message == ("failed to legalize operation 'vhlo.all_gather_v2' that was "
                                  "explicitly marked illegal")
    assert [n.message for n in info.value.notes] == ["failed to convert VHLO to v1.4.0"]
    assert info.value.notes[0].severity == "error"


def test_types_and_attributes_gate_versions() -> None:
    f8 = "func.func @f(%a: tensor<f8E5M2FNUZ>) -> tensor<f8E5M2FNUZ> { func.return %a : " \
         "tensor<f8E5M2FNUZ> }"
    module = _vhlo(f8)
    (func,) = _ops(module, "vhlo.func_v1")
    assert not op_is_legal(func, Version(0, 9, 0))
    assert op_is_legal(func, Version(0, 10, 0))
    with pytest.raises(Diagnostic, match="'vhlo.func_v1'"):
        vhlo_to_version(module, Version(0, 9, 0))


def test_result_accuracy_ops_downgrade_only_with_default_accuracy() -> None:
    text = """func.func @f(%a: tensor<f32>) -> tensor<f32> {
      %0 = "stablehlo.exponential"(%a) {result_accuracy = #stablehlo.result_accuracy<atol =
        1.0e-05, rtol = 0.0, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>}
        : (tensor<f32>) -> tensor<f32>
      func.return %0 : tensor<f32>
    }"""
    assert _ops(_vhlo(text.replace("atol =\n        1.0e-05", "atol = 0.0").replace(
        "ulps = 1", "ulps = 0").replace("TOLERANCE", "DEFAULT"), Version(1, 8, 0)),
        "vhlo.exponential_v1")
    with pytest.raises(Diagnostic, match="vhlo.exponential_v2"):
        _vhlo(text, Version(1, 8, 0))


def test_custom_call_constraints() -> None:
    text = """func.func @f(%a: tensor<f32>) -> tensor<f32> {
      %0 = "stablehlo.custom_call"(%a) {call_target_name = "foo", api_version = 4 : i32,
        backend_config = {bar = 42 : i32}} : (tensor<f32>) -> tensor<f32>
      func.return %0 : tensor<f32>
    }"""
    module = _vhlo(text, Version(1, 3, 0))
    (op,) = _ops(module, "vhlo.custom_call_v1")
    assert "result_tilings" not in op.properties
    with pytest.raises(Diagnostic, match="'vhlo.custom_call_v2'"):
        _vhlo(text, Version(1, 2, 0))


def test_dot_general_keeps_algorithm_from_1_6_0() -> None:
    text = """func.func @f(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32> {
      %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<
        lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}
        : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
      func.return %0 : tensor<8x8xf32>
    }"""
    assert _ops(_vhlo(text, Version(1, 5, 0)), "vhlo.dot_general_v1")
    with_algorithm = text.replace("rhs_contracting_dimensions = [0]>}", """
      rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<
      lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32,
      lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1,
      allow_imprecise_accumulation = false>}""")
    assert _ops(_vhlo(with_algorithm, Version(1, 6, 0)), "vhlo.dot_general_v2")
    with pytest.raises(Diagnostic, match="vhlo.dot_general_v2"):
        _vhlo(with_algorithm, Version(1, 5, 0))


def test_reduce_with_promoted_result_needs_0_17_0() -> None:
    text = """func.func @f(%a: tensor<4xi8>, %z: tensor<i32>) -> tensor<i32> {
      %0 = "stablehlo.reduce"(%a, %z) ({
      ^bb0(%x: tensor<i32>, %y: tensor<i32>):
        %1 = "stablehlo.add"(%x, %y) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%1) : (tensor<i32>) -> ()
      }) {dimensions = array<i64: 0>} : (tensor<4xi8>, tensor<i32>) -> tensor<i32>
      func.return %0 : tensor<i32>
    }"""
    module = parse_source(text)
    legalize_to_vhlo(module)
    (op,) = _ops(module, "vhlo.reduce_v1")
    assert not op_is_legal(op, Version(0, 16, 0))
    assert op_is_legal(op, Version(0, 17, 0))


@pytest.mark.parametrize(("text", "op_name"), [
    ('%0 = "stablehlo.custom_call"(%a) {call_target_name = "foo" : tensor<3xf32>} '
     ": (tensor<f32>) -> tensor<f32>", "stablehlo.custom_call"),
    ("%0 = stablehlo.abs %a {bad = unit} : tensor<f32>", "stablehlo.abs"),
])
def test_legalize_failures(text: str, op_name: str) -> None:
    module = parse_source(f"func.func @f(%a: tensor<f32>) -> tensor<f32> {{\n  {text}\n"
                          "  func.return %0 : tensor<f32>\n}")
    with pytest.raises(Diagnostic) as info:
        legalize_to_vhlo(module)
    assert info.value.message == (f"failed to legalize operation '{op_name}' that was "
                                  "explicitly marked illegal")
    assert info.value.line == 2


def test_old_ops_must_be_upgraded_before_leaving_vhlo() -> None:
    module = _vhlo(ALL_GATHER, Version(1, 4, 0))
    with pytest.raises(Diagnostic, match="'vhlo.all_gather_v1'"):
        legalize_to_stablehlo(module)


def test_pass_options() -> None:
    to_version = PASSES["vhlo-to-version"]
    assert to_version.parse_options("target=1.0.0") == {"target": "1.0.0"}
    assert to_version.parse_options("'target=1.2.3'") == {"target": "1.2.3"}
    assert to_version.parse_options("") == {"target": ""}
    with pytest.raises(PassOptionError, match="<Pass-Options-Parser>: no such option foo"):
        to_version.parse_options("foo=1")
    legalize = PASSES["stablehlo-legalize-to-vhlo"]
    assert legalize.parse_options("allow-other-dialects") == {"allow_other_dialects": True}
    with pytest.raises(PassOptionError, match="invalid value for boolean"):
        legalize.parse_options("allow-other-dialects=maybe")


def _opt(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "stablehlo-opt"), *args], input=stdin, text=True,
                          capture_output=True, timeout=120)


@pytest.mark.parametrize(("option", "message"), [
    ("--vhlo-to-version", "No target version specified.\nTarget version must be of the form"),
    ("--vhlo-to-version=target=x.y.z", "Invalid target version argument 'x.y.z'"),
    ("--vhlo-to-version='target=0.0.0'", "target version 0.0.0 is less than minimum supported"),
    ("--vhlo-to-version=target=100.10.10",
     "target version 100.10.10 is greater than current version 1.20.0"),
    ("--vhlo-to-version=tgt=1.0.0", "<Pass-Options-Parser>: no such option tgt"),
])
def test_opt_target_diagnostics(option: str, message: str) -> None:
    result = _opt(option.replace("'", ""), "-", stdin="func.func @f() { func.return }")
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_opt_round_trip_through_an_old_version() -> None:
    lowered = _opt("--stablehlo-legalize-to-vhlo", "--vhlo-to-version=target=1.4.0", "-",
                   stdin=ALL_GATHER)
    assert lowered.returncode == 0, lowered.stderr
    assert "vhlo.func_v1 @f(" in lowered.stdout and '"vhlo.all_gather_v1"' in lowered.stdout
    back = _opt("--vhlo-to-version=target=current", "--vhlo-legalize-to-stablehlo", "-",
                stdin=lowered.stdout)
    assert back.returncode == 0, back.stderr
    assert back.stdout == _opt("-", stdin=ALL_GATHER).stdout


VERSIONED = sorted(CONFORMANCE.glob("vhlo/stablehlo_legalize_to_vhlo.*_*_*.mlir"))


@pytest.mark.skipif(not VERSIONED, reason="conformance suite not present")
@pytest.mark.parametrize("path", [p for p in VERSIONED if p.name.split(".")[1] in (
    "0_9_0", "1_4_0", "1_20_0")], ids=lambda p: p.name)
def test_upstream_check_lines(path: Path) -> None:
    """What upstream's deserialized `.bc` prints (the file's CHECK lines)."""
    target = path.name.split(".")[1].replace("_", ".")
    out = _opt("--stablehlo-legalize-to-vhlo", f"--vhlo-to-version=target={target}",
               "--mlir-print-op-generic", str(path))
    assert out.returncode == 0, out.stderr
    check = subprocess.run([str(BIN / "filecheck"), str(path)], input=out.stdout, text=True,
                           capture_output=True, timeout=120)
    assert check.returncode == 0, check.stderr[:2000]


def _sample(folder: Path, every: int) -> list[Path]:
    return sorted(folder.glob("*.mlir"))[::every]


@pytest.mark.skipif(not (CONFORMANCE / "testdata").exists(), reason="no testdata")
@pytest.mark.parametrize("path", _sample(CONFORMANCE / "testdata", 40), ids=lambda p: p.name)
def test_round_trip_is_lossless(path: Path) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    try:
        from vhlo_round_trip import pre_passes, round_trip
    finally:
        sys.path.pop(0)
    text = path.read_text()
    assert round_trip(text, str(path), pre_passes(text)) is None


def test_round_trip_of_every_attribute_form() -> None:
    path = CONFORMANCE / "vhlo" / "stablehlo_legalize_to_vhlo.mlir"
    if not path.exists():
        pytest.skip("conformance suite not present")
    module = parse_source(path.read_text(), str(path))
    before = print_module(module)
    legalize_to_vhlo(module)
    legalize_to_stablehlo(module)
    assert print_module(module) == before


MIXED = """func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.abs %arg0 : tensor<f32>
  %1 = arith.addf %0, %arg0 : tensor<f32>
  %2 = stablehlo.abs %1 : tensor<f32>
  return %2 : tensor<f32>
}
"""


def test_allow_other_dialects_casts_between_dialects() -> None:
    module = parse_source(MIXED)
    with pytest.raises(Diagnostic, match="'arith.addf'"):
        legalize_to_vhlo(module)
    module = parse_source(MIXED)
    legalize_to_vhlo(module, allow_other_dialects=True)
    verify_module(module)
    (func,) = _ops(module, "vhlo.func_v1")
    names = [op.name for op in func.regions[0].entry.operations]
    # The argument's cast heads the block; each other cast follows its value's definer.
    assert names == ["builtin.unrealized_conversion_cast", "vhlo.abs_v1",
                     "builtin.unrealized_conversion_cast", "arith.addf",
                     "builtin.unrealized_conversion_cast", "vhlo.abs_v1", "vhlo.return_v1"]
    legalize_to_stablehlo(module)
    verify_module(module)
    assert print_module(module) == print_module(parse_source(MIXED))


def test_mixed_upstream_check_lines() -> None:
    path = CONFORMANCE / "vhlo" / "stablehlo_legalize_to_vhlo_mixed.mlir"
    if not path.exists():
        pytest.skip("conformance suite not present")
    out = _opt("--stablehlo-legalize-to-vhlo=allow-other-dialects", "--mlir-print-local-scope",
               "--split-input-file", str(path))
    assert out.returncode == 0, out.stderr
    check = subprocess.run([str(BIN / "filecheck"), str(path)], input=out.stdout, text=True,
                           capture_output=True, timeout=120)
    assert check.returncode == 0, check.stderr[:2000]


@pytest.mark.skipif(not (CONFORMANCE / "testdata").is_dir(), reason="no conformance folder")
def test_current_target_shortcut_agrees_with_the_full_check(monkeypatch) -> None:
    """At the current version every VHLO attribute and type class exists, so op_is_legal
    skips walking them; the full walk must give the same answer on real programs."""
    from shlo_cli.passes import vhlo_to_version as versioning

    files = sorted((CONFORMANCE / "testdata").glob("*.mlir"))[::40]
    modules = []
    for path in files:
        try:
            modules.append(_vhlo(path.read_text()))
        except Diagnostic:
            continue
    assert len(modules) > 20
    assert versioning._every_vhlo_class_legal(CURRENT)
    assert not versioning._every_vhlo_class_legal(Version(0, 9, 0))
    ops = [op for m in modules for op in list(m.op.walk())[1:]]
    fast = [op_is_legal(op, CURRENT) for op in ops]
    monkeypatch.setattr(versioning, "_every_vhlo_class_legal", lambda target: False)
    assert [op_is_legal(op, CURRENT) for op in ops] == fast
