"""VHLO types and attributes: every form upstream's CHECK lines show parses and prints back
the same, versions and enum codes follow upstream's tables, bad input gives a diagnostic."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shlo_cli.dialects.vhlo import attributes as va
from shlo_cli.dialects.vhlo import types as vt
from shlo_cli.dialects.vhlo.version import (
    CURRENT,
    MINIMUM,
    Version,
    VersionError,
    bytecode_version,
    resolve_target,
)
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

VHLO_DIR = Path("/work/shared/conformance/vhlo")


def _parse_attr(text: str):
    module = parse_source(f"func.func private @f() attributes {{x = {text}}}")
    func = module.body.operations[0]
    return func.attributes["x"] if "x" in func.attributes else func.properties["x"]


def _parse_type(text: str):
    return _parse_attr(f"#vhlo.type_v1<{text}>").value


def _balanced(text: str, start: int) -> str | None:
    """The `#vhlo...<...>` / `!vhlo...<...>` starting at `start`, or None if unbalanced."""
    m = re.compile(r"[#!]vhlo[A-Za-z0-9_.]*").match(text, start)
    end = m.end()
    if end >= len(text) or text[end] != "<":
        return text[start:end]
    depth = 0
    i = end
    while i < len(text):
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1) if '"' in text[i + 1:] else len(text)
        elif c == "-" and text[i + 1:i + 2] == ">":
            i += 1
        elif c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
        i += 1
    return None


def _check_line_forms() -> list[str]:
    """Every complete VHLO type/attribute written in a CHECK line of the vhlo tests."""
    forms: set[str] = set()
    for path in sorted(VHLO_DIR.glob("*.mlir")):
        for line in path.read_text().splitlines():
            if "CHECK" not in line or "DISABLED" in line or "{{" in line or "[[" in line:
                continue
            for m in re.finditer(r"[#!]vhlo", line):
                form = _balanced(line, m.start())
                if form and form.count("<") == form.count(">") and not form.endswith("<"):
                    forms.add(form)
    return sorted(forms)


@pytest.mark.skipif(not VHLO_DIR.exists(), reason="conformance suite not present")
def test_every_check_line_form_round_trips() -> None:
    forms = _check_line_forms()
    assert len(forms) > 200
    for form in forms:
        if form.startswith("!"):
            assert str(_parse_type(form)) == form
        elif form in ("#vhlo",):
            continue
        else:
            assert str(_parse_attr(form)) == form


def test_fields_follow_upstream_parameter_order() -> None:
    def names(cls: type) -> list[str]:
        return list(cls.key_fields)  # type: ignore[attr-defined]  # an ir.record.Record

    assert names(vt.RankedTensorV1Type) == ["shape", "element_type", "encoding"]
    assert names(vt.UniformQuantizedV1Type) == [
        "flags", "storage_type", "expressed_type", "scale", "zero_point", "storage_type_min",
        "storage_type_max"]
    assert names(vt.UniformQuantizedPerAxisV1Type) == [
        "flags", "storage_type", "expressed_type", "quantized_dimension", "scales",
        "zero_points", "storage_type_min", "storage_type_max"]
    assert names(vt.FunctionV1Type) == ["inputs", "outputs"]
    assert names(va.FloatV1Attr) == ["type", "value"]
    assert names(va.IntegerV1Attr) == ["type", "value"]
    assert names(va.TensorV1Attr) == ["type", "data"]
    assert names(va.ResultAccuracyV1Attr) == ["atol", "rtol", "ulps", "mode"]
    assert names(va.OutputOperandAliasV1Attr) == [
        "output_tuple_indices", "operand_index", "operand_tuple_indices"]
    assert names(vt.FloatF32V1Type) == []


def test_versions_of_types_and_attributes() -> None:
    assert vt.FloatTF32V1Type.mnemonic == "tf31_v1"  # upstream's frozen spelling
    assert vt.FloatTF32V1Type.min_version == Version(1, 6, 0)
    assert vt.IntegerSI2V1Type.min_version == Version(1, 2, 0)
    assert vt.FutureV1Type.min_version == Version(1, 15, 0)
    assert vt.UniformQuantizedPerAxisV1Type.min_version == Version(0, 18, 0)
    assert vt.RankedBufferV1Type.min_version == Version(1, 13, 0)
    assert va.ResultAccuracyV1Attr.min_version == Version(1, 9, 0)
    assert va.ResultAccuracyModeV1Attr.min_version == Version(1, 9, 0)
    assert va.MeshV1Attr.min_version == Version(1, 16, 0)
    assert all(cls.max_version == CURRENT for cls in vt.TYPES_BY_MNEMONIC.values())


def test_enum_codes() -> None:
    assert va.ComparisonDirectionV1Attr("LT").code == 5
    assert va.RngDistributionV1Attr("UNIFORM").code == 1
    assert va.CustomCallApiVersionV1Attr.from_code(4) == va.CustomCallApiVersionV1Attr(
        "API_VERSION_TYPED_FFI")
    assert str(va.TransposeV1Attr("ADJOINT")) == "#vhlo<transpose_v1 ADJOINT>"


def test_simple_types_compare_by_kind() -> None:
    assert vt.FloatF32V1Type() == vt.FloatF32V1Type()
    assert vt.FloatF32V1Type() != vt.FloatF64V1Type()
    assert len({vt.FloatF32V1Type(), vt.FloatF32V1Type(), vt.IndexV1Type()}) == 2


@pytest.mark.parametrize("text", [
    "!vhlo.tensor_v1<?x3x!vhlo.complex_v1<!vhlo.f64_v1>>",
    "!vhlo.unranked_tensor_v1<!vhlo.ui4_v1>",
    "!vhlo.tuple_v1<>",
    "!vhlo.func_v1<(()) -> ()>",
    "!vhlo.func_v1<(!vhlo.i64_v1, !vhlo.bf16_v1) -> !vhlo.f8E4M3FN_v1, !vhlo.witness_v1>",
    "!vhlo.quant_v1<!vhlo.ui8_v1:!vhlo.f16_v1, 5.000000e-01:-3, 0:255, 0>",
])
def test_type_round_trip(text: str) -> None:
    assert str(_parse_type(text)) == text


@pytest.mark.parametrize("text", [
    "#vhlo.float_v1<0x7FC00000 : !vhlo.f32_v1>",
    "#vhlo.float_v1<-2.500000e+00 : !vhlo.bf16_v1>",
    "#vhlo.integer_v1<-1 : i8>",
    "#vhlo.integer_v1<255 : ui8>",
    "#vhlo.integer_v1<7 : index>",
    "#vhlo.mesh_v1<axes = #vhlo.array_v1<[#vhlo.mesh_axis_v1<name = #vhlo.string_v1<\"x\">, "
    "size = 2>]>>",
    "#vhlo.type_extensions_v1<bounds = []>",
    "#vhlo.string_v1<\"a\\\\b\\22\">",
])
def test_attribute_round_trip(text: str) -> None:
    assert str(_parse_attr(text)) == text


@pytest.mark.parametrize(("text", "message"), [
    ("#vhlo.dict_v1<{\"k\" = #vhlo.array_v1<[]>}>", "expected VHLO key attribute"),
    ("#vhlo.result_accuracy_v1<atol = 0.0, rtol = 0.0, ulps = 0, "
     "mode = #stablehlo.result_accuracy_mode<DEFAULT>>", "expected VHLO result accuracy mode"),
    ("#vhlo<comparison_direction_v1 XX>", "to be one of: EQ, NE, GE, GT, LE, LT"),
    ("#vhlo.nothing_v1<1>", "unknown vhlo attribute"),
    ("#vhlo.type_v1<!vhlo.nothing_v1>", "unknown vhlo type: nothing_v1"),
    ("#vhlo.type_v1<f32>", "expected VHLO type"),
    ("#vhlo.sub_axis_info_v1<pre_size = 1>", "struct is missing required parameter: size"),
    ("#vhlo.integer_v1<1 : si8>", "has no VHLO counterpart"),
])
def test_attribute_diagnostics(text: str, message: str) -> None:
    with pytest.raises(Diagnostic, match=re.escape(message)):
        _parse_attr(text)


def test_version_parse_compare_print() -> None:
    assert Version.parse("1.10.0") > Version.parse("1.9.3")
    assert str(Version(0, 9, 0)) == "0.9.0"
    assert Version(1, 8, 4).opset() == Version(1, 8, 0)
    assert MINIMUM == Version(0, 9, 0)
    assert CURRENT == Version(1, 20, 0)
    with pytest.raises(VersionError):
        Version.parse("1.2")


def test_resolve_target_words() -> None:
    assert resolve_target("current") == CURRENT
    assert resolve_target("minimum") == MINIMUM
    assert resolve_target("1.2.3") == Version(1, 2, 3)
    cases = {
        "": "No target version specified.\nTarget version must be of the form `#.#.#`.",
        "x.y.z": "Invalid target version argument 'x.y.z'\n"
                 "Target version must be of the form `#.#.#`.",
        "0.0.0": "target version 0.0.0 is less than minimum supported 0.9.0",
        "100.10.10": "target version 100.10.10 is greater than current version 1.20.0",
    }
    for text, message in cases.items():
        with pytest.raises(VersionError) as info:
            resolve_target(text)
        assert str(info.value) == message


def test_bytecode_version_table() -> None:
    expected = {"0.9.0": 0, "0.10.0": 1, "0.11.0": 1, "0.12.0": 3, "0.13.0": 3, "0.14.0": 4,
                "0.15.0": 6, "1.0.0": 6, "1.20.0": 6}
    for text, code in expected.items():
        assert bytecode_version(Version.parse(text)) == code
    with pytest.raises(VersionError):
        bytecode_version(Version(1, 21, 0))


@pytest.mark.skipif(not VHLO_DIR.exists(), reason="conformance suite not present")
def test_bytecode_version_matches_upstream_files() -> None:
    """Byte 4 of each upstream `.mlir.bc` is a prefix varint (value = byte >> 1)."""
    checked = 0
    for path in VHLO_DIR.glob("stablehlo_legalize_to_vhlo.*_*_*.mlir.bc"):
        version = Version.parse(path.name.split(".")[1].replace("_", "."))
        assert path.read_bytes()[4] >> 1 == bytecode_version(version), path.name
        checked += 1
    assert checked >= 30


FUNC_V1 = ("""vhlo.func_v1 @main(%arg0: !vhlo.token_v1) -> () {
  "vhlo.return_v1"() : () -> ()
} {arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, """
           """sym_visibility = #vhlo.string_v1<"">}
""")


def test_func_v1_custom_form_round_trips() -> None:
    from shlo_cli.ir.printer import print_module
    from shlo_cli.ir.verifier import verify_module

    module = parse_source(FUNC_V1)
    verify_module(module)
    text = print_module(module)
    assert "vhlo.func_v1 @main(%arg0: !vhlo.token_v1) -> () {" in text
    assert str(module.body.operations[0].properties["function_type"]) == (
        "#vhlo.type_v1<!vhlo.func_v1<(!vhlo.token_v1) -> ()>>")
    assert print_module(parse_source(text)) == text
    generic = print_module(module, generic=True)
    assert generic.splitlines()[1].startswith('  "vhlo.func_v1"() <{arg_attrs = ')


@pytest.mark.parametrize(("op", "message"), [
    ('%0 = "vhlo.constant_v99"() : () -> !vhlo.token_v1',
     "unregistered operation 'vhlo.constant_v99' found in dialect ('vhlo') that does not "
     "allow unknown operations"),
    ('%0 = "vhlo.compare_v1"(%arg0, %arg0) : (!vhlo.token_v1, !vhlo.token_v1) -> '
     "!vhlo.token_v1", "'vhlo.compare_v1' op requires attribute 'compare_type'"),
])
def test_vhlo_op_diagnostics(op: str, message: str) -> None:
    from shlo_cli.ir.verifier import verify_module

    text = FUNC_V1.replace('  "vhlo.return_v1"', f"  {op}\n  \"vhlo.return_v1\"")
    with pytest.raises(Diagnostic, match=re.escape(message)):
        verify_module(parse_source(text))


def test_op_specs_follow_upstream() -> None:
    from shlo_cli.dialects.vhlo.ops import OP_SPECS, latest_spec

    assert len(OP_SPECS) == 145
    gather = OP_SPECS["vhlo.all_gather_v1"]
    assert (gather.min_version, gather.max_version) == (Version(0, 9, 0), Version(1, 4, 0))
    assert gather.attributes == ("all_gather_dim", "replica_groups", "channel_id",
                                 "use_global_device_ids")
    assert latest_spec("all_gather").name == "vhlo.all_gather_v2"
    assert OP_SPECS["vhlo.reduce_v1"].operands == ("*inputs", "*init_values")
    assert OP_SPECS["vhlo.case_v1"].regions == ("*branches",)
    assert OP_SPECS["vhlo.return_v1"].terminator
    assert OP_SPECS["vhlo.tan_v1"].min_version == Version(1, 4, 0)
