"""Inputs and outputs of `shlo interpret` as numpy data (interpreter/io.py, compare.py) and
the CLI flags built on them."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from click.testing import CliRunner

from shlo_cli.commands.interpret import run_interpret
from shlo_cli.commands.main import cli
from shlo_cli.interpreter.compare import Tolerance, compare_arrays, ulp_distance
from shlo_cli.interpreter.io import (
    ArgSpec,
    InputError,
    Signature,
    coerce_input,
    parse_dims,
    parse_literal,
    random_inputs,
    read_array_file,
    save_arrays,
    signature_of,
)
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.types import FloatType, IntegerType, TensorType

ELEMENT_TYPES = {
    "i1": np.bool_, "i2": ml_dtypes.int2, "i4": ml_dtypes.int4, "i8": np.int8,
    "i16": np.int16, "i32": np.int32, "i64": np.int64, "ui2": ml_dtypes.uint2,
    "ui4": ml_dtypes.uint4, "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32,
    "ui64": np.uint64, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32,
    "f64": np.float64, "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2,
    "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz, "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
    "f8E4M3B11FNUZ": ml_dtypes.float8_e4m3b11fnuz, "f8E3M4": ml_dtypes.float8_e3m4,
    "f8E4M3": ml_dtypes.float8_e4m3, "f8E8M0FNU": ml_dtypes.float8_e8m0fnu,
    "f6E2M3FN": ml_dtypes.float6_e2m3fn, "f6E3M2FN": ml_dtypes.float6_e3m2fn,
    "f4E2M1FN": ml_dtypes.float4_e2m1fn, "complex<f32>": np.complex64,
    "complex<f64>": np.complex128,
}

IDENTITY = """func.func @main(%x: tensor<2x3x{t}>) -> tensor<2x3x{t}> {{
  return %x : tensor<2x3x{t}>
}}
"""

ADD = """func.func @main(%x: tensor<2x3xf32>, %n: tensor<i32>) -> (tensor<2x3xf32>, tensor<i32>) {
  %0 = stablehlo.add %x, %x : tensor<2x3xf32>
  return %0, %n : tensor<2x3xf32>, tensor<i32>
}
"""


def write(tmp_path: Path, text: str, name: str = "prog.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(capsys: pytest.CaptureFixture[str], path: str, **options: object) -> tuple[int, str, str]:
    code = run_interpret(path, **options)  # type: ignore[arg-type]
    out, err = capsys.readouterr()
    return code, out, err


# ---- every element type round-trips ----------------------------------------------------

@pytest.mark.parametrize("element", sorted(ELEMENT_TYPES))
def test_every_dtype_round_trips_through_npz_and_the_interpreter(
        element: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dtype = np.dtype(ELEMENT_TYPES[element])
    spec = ArgSpec(0, "x", TensorType((2, 3), _element(element)))
    values = random_inputs(Signature([spec]), seed=7)[0]
    assert values.dtype == dtype and values.shape == (2, 3)
    inputs = tmp_path / "in.npz"
    save_arrays(str(inputs), {"arg0": values})
    assert read_array_file(str(inputs))["arg0"].dtype == dtype
    out = tmp_path / "out.npz"
    code, _, err = run(capsys, write(tmp_path, IDENTITY.format(t=element)),
                       inputs=str(inputs), save_results=str(out))
    assert code == 0, err
    result = read_array_file(str(out))["result0"]
    assert result.dtype == dtype
    assert result.tobytes() == values.tobytes()
    if dtype.kind in "fV":  # random floats are finite numbers, also for unsigned f8E8M0FNU
        assert np.isfinite(values.astype(np.float64)).all()
    code, stdout, err = run(capsys, write(tmp_path, IDENTITY.format(t=element)),
                            inputs=str(inputs), expected_output="@" + str(out))
    assert code == 0 and "result0: ok" in stdout, err


def _element(name: str) -> object:
    from shlo_cli.ir.diagnostics import SourceFile
    from shlo_cli.ir.parser import Parser

    return Parser(SourceFile("t", name)).parse_type()


def test_random_inputs_respect_type_bounds() -> None:
    specs = [ArgSpec(0, "a", TensorType((1000,), IntegerType(4))),
             ArgSpec(1, "b", TensorType((1000,), IntegerType(8, "u"))),
             ArgSpec(2, "c", TensorType((1000,), FloatType("f32"))),
             ArgSpec(3, "d", TensorType((1000,), IntegerType(1)))]
    a, b, c, d = random_inputs(Signature(specs), seed=1)
    assert a.astype(int).min() >= -8 and a.astype(int).max() <= 7
    assert b.min() >= 0 and b.max() <= 10
    assert -1 <= c.min() and c.max() < 1 and c.std() > 0.3
    assert d.dtype == np.bool_ and 0 < d.sum() < 1000
    again = random_inputs(Signature(specs), seed=1)
    assert all(np.array_equal(x, y) for x, y in zip((a, b, c, d), again, strict=True))
    assert not np.array_equal(random_inputs(Signature(specs), seed=2)[2], c)


def test_dynamic_dims_and_dimension_variables() -> None:
    text = """func.func @main(%b: tensor<i32> {jax.global_constant = "b"}, %x: tensor<?x3xf32>)
        -> tensor<?x3xf32> {
  return %x : tensor<?x3xf32>
}"""
    sig = signature_of(parse_source(text, "t").functions()[0])
    assert sig.args[0].dim_var == "b" and sig.args[1].dim_var is None
    n, x = random_inputs(sig, dims=parse_dims(["b=5", "7"]))
    assert int(n) == 5 and x.shape == (7, 3)
    n, x = random_inputs(sig)
    assert int(n) == 4 and x.shape == (4, 3)
    sig.args[1].dim_names = ("b", None)  # what a .jax loader records
    n, x = random_inputs(sig, dims={"b": 6})
    assert int(n) == 6 and x.shape == (6, 3)


def test_random_inputs_give_a_multi_platform_export_its_first_platform() -> None:
    """A random platform index ran an arbitrary platform's branch (cusolver calls of a
    ("cpu", "cuda") export): it is 0, as the Python API fills it, unless --dim names it."""
    text = """func.func @main(%p: tensor<i32> {jax.global_constant = "_platform_index"},
        %x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}"""
    sig = signature_of(parse_source(text, "t").functions()[0])
    for seed in range(3):
        p, x = random_inputs(sig, seed=seed, dims={"?": 5})
        assert int(p) == 0 and x.shape == (5,)
    p, x = random_inputs(sig, dims=parse_dims(["_platform_index=1"]))
    assert int(p) == 1 and x.shape == (4,)


def test_int_scalar_feeding_a_shape_is_a_dimension_variable() -> None:
    text = """func.func @main(%n: tensor<i32>, %k: tensor<i32>) -> tensor<?xf32> {
  %0 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %1 = stablehlo.dynamic_iota %0, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}"""
    sig = signature_of(parse_source(text, "t").functions()[0])
    assert sig.args[0].dim_var == "n" and sig.args[1].dim_var is None
    assert int(random_inputs(sig, dims={"n": 9})[0]) == 9


def test_parse_dims_rejects_garbage() -> None:
    with pytest.raises(InputError, match="NAME=SIZE"):
        parse_dims(["b=x"])


# ---- literals ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("2x3xf32=1 2 3 4 5 6", np.arange(1, 7, dtype=np.float32).reshape(2, 3)),
    ("2x2xi32=[[1 2][3 4]]", np.array([[1, 2], [3, 4]], np.int32)),
    ("3xi8=1,2,3", np.array([1, 2, 3], np.int8)),
    ("f32=1.5", np.float32(1.5)),
    ("2x2xf32=7", np.full((2, 2), 7, np.float32)),
    ("2xi1=true false", np.array([True, False])),
    ("4xf16", np.zeros(4, np.float16)),
    ("2xcomplex<f32>=1+2j 3", np.array([1 + 2j, 3], np.complex64)),
    ("1xbf16=0.5", np.array([0.5], ml_dtypes.bfloat16)),
    ("2xui8=0x10 255", np.array([16, 255], np.uint8)),
])
def test_iree_literals(text: str, expected: np.ndarray) -> None:
    value = parse_literal(text)
    assert value.dtype == np.asarray(expected).dtype and value.shape == np.shape(expected)
    assert np.array_equal(value, expected)


@pytest.mark.parametrize("text, message", [
    ("2x3xf32=1 2", "2 values given"), ("i8=300", "out of range"),
    ("2xq7=1 2", "unknown element type"), ("i32=1.5", "not an integer"),
    ("nonsense", "cannot parse|unknown element type"),
])
def test_bad_literals(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_literal(text)


# ---- checking inputs ---------------------------------------------------------------------

def test_coerce_input_names_the_argument_and_refuses_lossy_values() -> None:
    spec = ArgSpec(1, "n", TensorType((), IntegerType(32)))
    assert coerce_input(np.int64(7), spec).dtype == np.int32
    with pytest.raises(InputError, match=r"argument #1 'n': value 1099511627776 does not fit"):
        coerce_input(np.int64(2**40), spec)
    with pytest.raises(InputError, match=r"expected tensor<i32>, got an array of dtype float64"):
        coerce_input(1.5, spec)
    as_float = ArgSpec(0, "f", TensorType((), FloatType("f32")))
    assert coerce_input(3, as_float).dtype == np.float32
    with pytest.raises(InputError, match="not exact"):
        coerce_input(np.int64(2**40 + 1), as_float)
    shaped = ArgSpec(0, "arg0", TensorType((2, -1), FloatType("f32")))
    assert coerce_input(np.zeros((2, 5)), shaped).shape == (2, 5)
    with pytest.raises(InputError, match=r"argument #0: expected tensor<2x\?xf32>, got an "
                                         r"array of shape \(3, 5\)"):
        coerce_input(np.zeros((3, 5), np.float32), shaped)


def test_object_arrays_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "obj.npz"
    np.savez(path, arg0=np.array([{}], dtype=object))
    with pytest.raises(InputError, match="Python objects"):
        read_array_file(str(path))


def test_unreadable_files(tmp_path: Path) -> None:
    (tmp_path / "bad.npz").write_text("not a zip")
    with pytest.raises(InputError, match="not a .npy or .npz"):
        read_array_file(str(tmp_path / "bad.npz"))
    (tmp_path / "trunc.npz").write_bytes(b"PK\x03\x04garbage")
    with pytest.raises(InputError, match="cannot read"):
        read_array_file(str(tmp_path / "trunc.npz"))
    with pytest.raises(InputError, match="cannot open"):
        read_array_file(str(tmp_path / "missing.npz"))


# ---- the CLI flags -----------------------------------------------------------------------

def test_inputs_by_position_or_name_and_input_literals(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prog = write(tmp_path, ADD)
    np.savez(tmp_path / "named.npz", x=np.ones((2, 3), np.float32), n=np.int32(3))
    code, out, err = run(capsys, prog, inputs=str(tmp_path / "named.npz"))
    assert code == 0, err
    assert "2.000000e+00" in out and "tensor<i32> {3}" in out
    code, out, err = run(capsys, prog, input_values=("2x3xf32=1 2 3 4 5 6", "i32=9"))
    assert code == 0 and "1.200000e+01" in out and "{9}" in out, err
    np.save(tmp_path / "x.npy", np.full((2, 3), 0.5, np.float32))
    code, out, err = run(capsys, prog, input_values=(f"@{tmp_path / 'x.npy'}", "i32=1"))
    assert code == 0 and "1.000000e+00" in out, err


@pytest.mark.parametrize("options, message", [
    ({"input_values": ("3x2xf32=1", "i32=1")},
     r"prog.mlir:1:1: error: argument #0 'x': expected tensor<2x3xf32>, got an array of "
     r"shape \(3, 2\)"),
    ({"input_values": ("2x3xf32=1", "f32=1")}, r"argument #1 'n': expected tensor<i32>, "
                                              r"got an array of dtype float32"),
    ({"input_values": ("2x3xf32=1", "i64=4000000000")}, "does not fit in int32"),
    ({"input_values": ("2x3xf32=1",)}, "1 --input values given but the entry function takes 2"),
    ({"inputs": "missing.npz"}, "error: cannot open 'missing.npz'"),
    ({"args": "[dense<1> : tensor<i32>]", "random_inputs": True},
     "--args and --random-inputs cannot be combined"),
])
def test_bad_inputs_are_diagnostics(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    options: dict[str, object], message: str) -> None:
    code, out, err = run(capsys, write(tmp_path, ADD), **options)
    assert code == 1 and out == ""
    assert __import__("re").search(message, err), err
    assert "Traceback" not in err


def test_missing_key_in_npz_names_argument(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    np.savez(tmp_path / "in.npz", arg0=np.ones((2, 3), np.float32))
    code, _, err = run(capsys, write(tmp_path, ADD), inputs=str(tmp_path / "in.npz"))
    assert code == 1
    assert "argument #1 'n' of type tensor<i32> is missing" in err and "'arg1' or 'n'" in err


def test_positional_npz_files_read_as_arguments_and_results(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`np.savez(f, x, n)` names its arrays arr_0, arr_1: they are the arguments (and, for
    --expected-output, the results) in order."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.savez(tmp_path / "in.npz", x, np.int32(7))
    np.savez(tmp_path / "good.npz", 2 * x, np.int32(7))
    np.savez(tmp_path / "bad.npz", 2 * x, np.int32(8))
    prog = write(tmp_path, ADD)
    code, out, err = run(capsys, prog, inputs=str(tmp_path / "in.npz"),
                         expected_output=str(tmp_path / "good.npz"))
    assert code == 0 and "result0: ok" in out and "result1: ok" in out, out + err
    code, out, _ = run(capsys, prog, inputs=str(tmp_path / "in.npz"),
                       expected_output=str(tmp_path / "bad.npz"))
    assert code == 1 and "result1: MISMATCH" in out
    np.savez(tmp_path / "short.npz", x)
    code, _, err = run(capsys, prog, inputs=str(tmp_path / "short.npz"))
    assert code == 1 and "'arg1' or 'n'; keys present: arr_0)" in err  # the file's names
    np.savez(tmp_path / "mixed.npz", np.ones((2, 3), np.float32), n=np.int32(1))
    code, _, err = run(capsys, prog, inputs=str(tmp_path / "mixed.npz"))
    assert code == 1 and "'arg0'" in err  # arr_0 beside a named key: not positional


def test_save_results_npy_and_npz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prog = write(tmp_path, IDENTITY.format(t="f32"))
    code, out, err = run(capsys, prog, input_values=("2x3xf32=1 2 3 4 5 6",),
                         save_results=str(tmp_path / "r.npy"))
    assert code == 0 and out == "", err
    assert np.load(tmp_path / "r.npy").tolist() == [[1, 2, 3], [4, 5, 6]]
    code, _, err = run(capsys, write(tmp_path, ADD), random_inputs=True,
                       save_results=str(tmp_path / "r2.npy"))
    assert code == 1 and "cannot save 2 arrays" in err
    assert not (tmp_path / "r2.npy").exists()


def test_expected_output_mismatch_fails_with_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prog = write(tmp_path, IDENTITY.format(t="f32"))
    expected = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.savez(tmp_path / "e.npz", result0=expected)
    code, out, _ = run(capsys, prog, input_values=("2x3xf32=0 1 2 3 4 5",),
                       expected_output=str(tmp_path / "e.npz"))
    assert code == 0 and "result0: ok" in out
    code, out, _ = run(capsys, prog, input_values=("2x3xf32=0 1 2 3.001 4 5",),
                       expected_output=str(tmp_path / "e.npz"))
    assert code == 1 and "result0: MISMATCH" in out
    assert "first difference at [1, 0]: got 3.001, expected 3.0" in out
    code, out, _ = run(capsys, prog, input_values=("2x3xf32=0 1 2 3.001 4 5",),
                       expected_output=str(tmp_path / "e.npz"), rtol=1e-3)
    assert code == 0, out


def test_expected_output_of_another_shape_reports_no_element_statistics(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No element was compared: no "max abs 0 ... 0/6 differ" beside the shape message."""
    prog = write(tmp_path, IDENTITY.format(t="f32"))
    np.savez(tmp_path / "e.npz", result0=np.zeros((3, 2), np.float32))
    code, out, _ = run(capsys, prog, input_values=("2x3xf32=0 1 2 3 4 5",),
                       expected_output=str(tmp_path / "e.npz"))
    assert code == 1
    assert "result0: MISMATCH\n  shape (2, 3) differs from expected (3, 2)" in out
    assert "differ)" not in out


# ---- comparisons -------------------------------------------------------------------------

def test_compare_tolerances_ulps_and_nans() -> None:
    e = np.array([1.0, 2.0, np.nan, 0.0], np.float32)
    a = np.nextafter(e, np.float32(np.inf))
    a[2] = np.nan
    result = compare_arrays("r", a, e, Tolerance(ulp=1))
    assert result.ok and result.max_ulp == 1.0, result.summary()
    assert not compare_arrays("r", a, e, Tolerance(ulp=0.5)).ok
    assert compare_arrays("r", a, e).ok  # within default f32 rtol/atol
    bad = compare_arrays("r", np.array([1, 2, 4]), np.array([1, 2, 3]))
    assert not bad.ok and bad.mismatches == 1 and "[2]" in bad.message
    assert not compare_arrays("r", np.zeros(2), np.zeros(3)).ok
    assert not compare_arrays("r", np.zeros(2, np.float32), np.zeros(2)).ok
    assert ulp_distance(np.array([1.0078125]), np.array([1.0]),
                        np.dtype(ml_dtypes.bfloat16))[0] == 1.0


def test_compare_command(tmp_path: Path) -> None:
    np.savez(tmp_path / "a.npz", result0=np.array([1.0, 2.0]), result1=np.array([1, 2]))
    np.savez(tmp_path / "b.npz", result0=np.array([1.0, 2.5]), result1=np.array([1, 2]))
    runner = CliRunner()
    result = runner.invoke(cli, ["compare", str(tmp_path / "a.npz"), str(tmp_path / "a.npz")])
    assert result.exit_code == 0 and "all 2 arrays match" in result.output
    result = runner.invoke(cli, ["compare", str(tmp_path / "a.npz"), str(tmp_path / "b.npz")])
    assert result.exit_code == 1
    assert "result0: MISMATCH" in result.output and "result1: ok" in result.output
    assert "first difference at [1]: got 2.0, expected 2.5 (abs 0.5, rel 0.2" in result.output
    assert "\x1b[" not in result.output  # never escape codes into a pipe
    result = runner.invoke(cli, ["compare", str(tmp_path / "a.npz"), str(tmp_path / "no.npz")])
    assert result.exit_code == 1 and "cannot open" in result.output


ARTIFACTS = Path(__file__).resolve().parents[3] / "shared" / "artifacts"


@pytest.mark.skipif(not ARTIFACTS.is_dir(), reason="no /work/shared/artifacts")
@pytest.mark.parametrize("model", ["mlp", "cnn", "rnn", "mlp_poly_batch"])
def test_jax_exported_models_match_xla(model: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """jax.export's text modules on their recorded inputs give XLA CPU's results."""
    prog = str(ARTIFACTS / f"{model}.mlir")
    out = tmp_path / "out.npz"
    code, stdout, err = run(capsys, prog, inputs=str(ARTIFACTS / f"{model}.inputs.npz"),
                            save_results=str(out),
                            expected_output="@" + str(ARTIFACTS / f"{model}.expected.npz"))
    assert code == 0, stdout + err
    expected = read_array_file(str(ARTIFACTS / f"{model}.expected.npz"))
    results = read_array_file(str(out))
    assert sorted(results) == sorted(expected)
    for key, value in expected.items():
        assert results[key].dtype == value.dtype and results[key].shape == value.shape
        assert np.allclose(results[key], value, rtol=1e-4, atol=1e-5)
