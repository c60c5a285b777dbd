"""Every upstream conformance file parses, and print -> parse -> print is a fixed point.

Covers /work/shared/conformance/{interpret,testdata,math} (recursively; each `// -----` chunk
separately). Skipped when the folder is absent. Files that cannot pass yet are listed in
XFAIL below, with the reason; run `python tests/unit/test_round_trip_conformance.py` to list
the files failing now (to prune XFAIL as op syntaxes land).
"""
# ruff: noqa: E501

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from shlo_cli.commands.common import split_chunks
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

ROOT = Path(os.environ.get("SHLO_CONFORMANCE",
                           Path(__file__).resolve().parents[3] / "shared" / "conformance"))
FOLDERS = ("interpret", "testdata", "math")

# The one list of expected failures: path relative to ROOT -> why it cannot pass yet.
XFAIL: dict[str, str] = {
    'interpret/quantized_ops.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/add_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/cbrt_shape_float32_20_20_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/ceil_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_conv_tranpose2d_same_padding_lhs_float32_1_16_16_2__rhs_float32_2_3_2_2__window-296817466026258822_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_conv_tranpose2d_valid_padding_lhs_float32_1_16_16_2__rhs_float32_2_3_2_2__windo216554503587864094_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_depthwise1d_dilated_lhs_float32_2_3_9__rhs_float32_12_1_3__windowstrides__1___p4726467912149865720_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_depthwise1d_lhs_float32_2_3_9__rhs_float32_12_1_3__windowstrides__1___padding__2025442285785167829_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_dilations_lhs_float32_2_3_9_10__rhs_float32_3_3_4_5__windowstrides__1_1__paddin-940783895638600378_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_dilations_lhs_float32_2_3_9_10__rhs_float32_3_3_4_5__windowstrides__1_1__paddin7803468828575064957_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_dilations_lhs_float32_2_3_9_10__rhs_float32_3_3_4_5__windowstrides__1_1__paddin8362069580368565836_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_dimension_numbers_lhs_float32_2_3_9_10__rhs_float32_4_5_3_3__windowstrides__1_1-8327739261064575227_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_dimension_numbers_lhs_float32_2_9_10_3__rhs_float32_4_5_3_3__windowstrides__1_1-6479296361709234045_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_dtype_precision_lhs_float32_2_3_9_10__rhs_float32_3_3_4_5__windowstrides__1_1__-1572008590406220780_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_dtype_precision_lhs_float32_2_3_9_10__rhs_float32_3_3_4_5__windowstrides__1_1__-6463715315589295392_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_group_counts_lhs_float32_2_6_9_10__rhs_float32_6_3_4_5__windowstrides__1_1__pad-2212136815070163245_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_preferred_lhs_float32_2_3_9_10__rhs_float32_3_3_4_5__windowstrides__1_1__paddin-8230831430534381289_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_rhs_oob_after_pading_lhs_float32_1_3_2_2__rhs_float32_64_3_7_7__windowstrides__5476883256254674781_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_tf_conversion_path_1d_lhs_float32_1_28_1__rhs_float32_3_1_16__windowstrides__1_-3622729120410096886_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_tf_conversion_path_1d_lhs_float32_1_28_1__rhs_float32_3_1_16__windowstrides__1_-6986955039250405512_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_tf_conversion_path_1d_lhs_float32_1_28_1__rhs_float32_3_1_16__windowstrides__1_-9029857704645127306_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_tf_conversion_path_2d_lhs_float32_1_1_28_28__rhs_float32_3_3_1_16__windowstride-4268834939663085007_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_tf_conversion_path_2d_lhs_float32_1_28_28_1__rhs_float32_3_3_1_16__windowstride5787494791845602941_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_tf_conversion_path_2d_lhs_float32_1_28_28_1__rhs_float32_3_3_1_16__windowstride8472832706066243053_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_tf_conversion_path_3d_lhs_float32_1_4_28_28_1__rhs_float32_2_3_3_1_16__windowst8524424959485066052_qi8.large.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/conv_general_dilated_window_strides_lhs_float32_2_3_9_10__rhs_float32_3_3_4_5__windowstrides__2_3__p-3051008093469972974_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/cos_shape_float32_20_20_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/cosine_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/div_singularity_0_by_0_lhs_float32_2__rhs_float32_2_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/dot_general_dtypes_and_precision_lhs_float32_1_3_4__rhs_float32_1_4_3__dimensionnumbers____2_1___1_26892231390636518787_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/dot_general_dtypes_and_precision_lhs_float32_1_3_4__rhs_float32_1_4_3__dimensionnumbers____2_1___1_2_____0____0_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/exp_shape_float32_20_20_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/floor_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_batchdims_shape__2__3__3__start_indices_shape__2__3__slice_sizes__1__3__2__enable_xla_True_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_batchdims_shape__2__6__3__start_indices_shape__2__3__slice_sizes__1__3__3__enable_xla_True_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_batchdims_shape__4__6__start_indices_shape__4__2__slice_sizes__1__3__enable_xla_True_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_from_slicing_name___0___enable_xla_True_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_from_slicing_name___2_5_5___enable_xla_True_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_from_take_indices_name__1__axis_0_enable_xla_True_mode_clip_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_from_take_indices_name__2__axis_1_enable_xla_True_mode_clip_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_from_take_indices_name__5_oob__axis_1_enable_xla_True_mode_clip_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_from_take_indices_name__6_neg__axis_2_enable_xla_True_mode_clip_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_from_take_indices_name__8_neg_oob__axis_0_enable_xla_True_mode_clip_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_from_take_indices_name__8_neg_oob__axis_2_enable_xla_True_mode_clip_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/gather_shape__10___idxs_shape__3__1__dnums_GatherDimensionNumbers_offset_dims__1____collapsed_slice_-4284776541264791777_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/integer_pow_dtypes_shape_float32_20_30__y_2_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/log_shape_float32_20_20_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/multiply_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/round_rounding_methods_shape_float32_2_5__roundingmethod_0_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/sign_special_0_dtype_float32_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/sqrt_shape_float32_20_20_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/sub_dtypes_lhs_float32_20_20__rhs_float32_20_20_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/subtract_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
    'testdata/quantized/tanh_qi8.mlir': 'op stablehlo.uniform_quantize is not registered yet',
}


def conformance_files() -> list[str]:
    files: list[str] = []
    for folder in FOLDERS:
        base = ROOT / folder
        if base.is_dir():
            files += sorted(str(p.relative_to(ROOT)) for p in base.rglob("*.mlir"))
    return files


def round_trip_problem(path: Path) -> str | None:
    """None when every chunk parses and re-prints identically, else what went wrong."""
    text = path.read_text(encoding="utf-8")
    for chunk in split_chunks(text, "// -----" in text):
        try:
            module = parse_source(chunk.text, str(path), line_offset=chunk.line_offset)
        except Diagnostic as d:
            return "parse: " + d.render(show_source=False)
        first = print_module(module)
        try:
            again = print_module(parse_source(first, "<printed>"))
        except Diagnostic as d:
            return "re-parse of printed text: " + d.render(show_source=False)
        if again != first:
            return "printed text is not a fixed point"
    return None


def xfail_reason(problem: str) -> str:
    """A short reason for XFAIL from a failure message."""
    message = problem.splitlines()[0].split(": error: ")[-1]
    op = re.search(r"'([a-z_]+\.[a-z_0-9.]+)'", message)
    if op and ("is unknown" in message or "unregistered operation" in message):
        return f"op {op.group(1)} is not registered yet"
    return message[:90]


FILES = conformance_files()


@pytest.mark.skipif(not FILES, reason=f"no conformance files under {ROOT}")
@pytest.mark.parametrize("rel", FILES or ["<none>"])
def test_conformance_file_round_trips(rel: str) -> None:
    if rel in XFAIL:
        pytest.xfail(XFAIL[rel])
    problem = round_trip_problem(ROOT / rel)
    assert problem is None, problem


def test_xfail_list_names_existing_files() -> None:
    if FILES:
        missing = sorted(set(XFAIL) - set(FILES))
        assert not missing, f"XFAIL names files that do not exist: {missing[:5]}"


if __name__ == "__main__":  # list the files failing now, in XFAIL's format
    for rel in conformance_files():
        problem = round_trip_problem(ROOT / rel)
        if problem is not None:
            sys.stdout.write(f"    {rel!r}: {xfail_reason(problem)!r},\n")
