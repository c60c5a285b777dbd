"""jax.export artifacts (`.jax`): the flatbuffer record, the loader, `shlo interpret`, `shlo
inspect`, and malformed files.

The artifacts live outside the repository (/work/shared/artifacts, or $SHLO_JAX_ARTIFACTS);
the tests that need them are skipped when they are absent.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shlo_cli.commands.main import cli
from shlo_cli.formats.flatbuf import Buffer
from shlo_cli.formats.jax_export import (
    Aval,
    bind_symbols,
    evaluate_dim,
    load_exported,
    read_exported,
)
from shlo_cli.interpreter.io import Signature
from shlo_cli.ir.diagnostics import Diagnostic, ShloError
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.loaders import load_program

ARTIFACTS = Path(os.environ.get("SHLO_JAX_ARTIFACTS", "/work/shared/artifacts"))
NAMES = sorted(p.stem for p in ARTIFACTS.glob("*.jax")) if ARTIFACTS.is_dir() else []
needs_artifacts = pytest.mark.skipif(not NAMES, reason="jax.export artifacts not available")


def shlo(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    return result.exit_code, result.output


# ---- the artifacts -----------------------------------------------------------------------

@needs_artifacts
@pytest.mark.parametrize("name", NAMES)
def test_artifact_loads_with_signature(name: str) -> None:
    exported = read_exported((ARTIFACTS / f"{name}.jax").read_bytes(), name)
    loaded = load_program(str(ARTIFACTS / f"{name}.jax"))
    signature = loaded.signature
    assert isinstance(signature, Signature)
    assert len(signature.args) == len(exported.in_avals) > 0
    for spec, aval in zip(signature.args, exported.in_avals, strict=True):
        assert str(spec.type) == str(aval.tensor_type())
        assert spec.dim_names == tuple(None if d.isdigit() else d for d in aval.dims)
    assert signature.platforms == ["cpu"]
    assert [str(t) for t in signature.results] == \
        [str(a.tensor_type()) for a in exported.out_avals]
    assert exported.nr_devices == 1 and exported.calling_convention_version >= 9
    assert exported.stablehlo_version is not None


@needs_artifacts
@pytest.mark.parametrize("name", NAMES)
def test_artifact_runs_and_matches_xla(name: str, tmp_path: Path) -> None:
    out = tmp_path / "out.npz"
    code, output = shlo("interpret", str(ARTIFACTS / f"{name}.jax"),
                        "--inputs", str(ARTIFACTS / f"{name}.inputs.npz"),
                        "--save-results", str(out),
                        f"--expected-output=@{ARTIFACTS / f'{name}.expected.npz'}")
    assert code == 0, output
    expected = np.load(ARTIFACTS / f"{name}.expected.npz")
    got = np.load(out)
    assert sorted(got.files) == sorted(expected.files)
    for key in expected.files:
        assert got[key].shape == expected[key].shape
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-4, atol=1e-5)
    assert output.count(": ok (") == len(expected.files)


def _strip_sdy(module: object) -> None:
    for op in module.op.walk():  # type: ignore[attr-defined]
        for name in [n for n in op.attributes if n.startswith("sdy.")]:
            del op.attributes[name]


@needs_artifacts
@pytest.mark.parametrize("name", NAMES)
def test_module_prints_as_its_text(name: str) -> None:
    """The module in the .jax prints as the .mlir jax wrote, except Shardy's sharding rules,
    which we cannot decode from bytecode and drop (the loader says so in a note)."""
    exported, module = load_exported((ARTIFACTS / f"{name}.jax").read_bytes(), name)
    text_path = ARTIFACTS / f"{name}.mlir"
    from_text = parse_source(text_path.read_text(), str(text_path))
    had_sdy = "sdy.sharding_rule" in text_path.read_text()
    _strip_sdy(from_text)
    assert print_module(module) == print_module(from_text)
    assert bool(exported.notes) == had_sdy


@needs_artifacts
def test_symbolic_batch_takes_any_batch(tmp_path: Path) -> None:
    inputs = dict(np.load(ARTIFACTS / "mlp_poly_batch.inputs.npz"))
    inputs["arg0"] = inputs["arg0"][:3]
    np.savez(tmp_path / "in.npz", **inputs)
    code, output = shlo("interpret", str(ARTIFACTS / "mlp_poly_batch.jax"),
                        "--inputs", str(tmp_path / "in.npz"),
                        "--save-results", str(tmp_path / "out.npz"))
    assert code == 0, output
    want = np.load(ARTIFACTS / "mlp_poly_batch.expected.npz")["result0"][:3]
    np.testing.assert_allclose(np.load(tmp_path / "out.npz")["result0"], want,
                               rtol=1e-4, atol=1e-5)


@needs_artifacts
def test_wrong_shape_names_argument_and_types(tmp_path: Path) -> None:
    inputs = dict(np.load(ARTIFACTS / "mlp.inputs.npz"))
    inputs["arg2"] = inputs["arg2"][:7]
    np.savez(tmp_path / "in.npz", **inputs)
    code, output = shlo("interpret", str(ARTIFACTS / "mlp.jax"), "--inputs",
                        str(tmp_path / "in.npz"), "--save-results", str(tmp_path / "o.npz"))
    assert code == 1
    assert "argument #2 'b1': expected tensor<256xf32>, got an array of shape (7,)" in output
    assert "Traceback" not in output and not (tmp_path / "o.npz").exists()


# ---- malformed files ---------------------------------------------------------------------

def _load_or_error(data: bytes, tmp_path: Path) -> bool:
    """True when `data` loads; False when it is refused with a diagnostic."""
    path = tmp_path / "x.jax"
    path.write_bytes(data)
    try:
        load_program(str(path))
    except (ShloError, Diagnostic) as e:
        assert str(path) in str(e) or str(path) in repr(getattr(e, "filename", "")) or \
            "x.jax" in str(e), str(e)
        return False
    return True


@needs_artifacts
def test_truncated_files_are_refused(tmp_path: Path) -> None:
    data = (ARTIFACTS / "cnn.jax").read_bytes()
    prefixes = list(range(0, 256)) + list(range(256, len(data), 37))
    loaded = [n for n in prefixes if _load_or_error(data[:n], tmp_path)]
    assert loaded == []
    code, output = shlo("interpret", str(tmp_path / "x.jax"), "--random-inputs")
    assert code == 1 and "error:" in output and "Traceback" not in output


@needs_artifacts
@pytest.mark.parametrize("name", ["mlp", "linalg_cholesky_f32"])
def test_corrupt_bytes_give_diagnostics(name: str, tmp_path: Path) -> None:
    data = (ARTIFACTS / f"{name}.jax").read_bytes()
    rng = random.Random(7)
    positions = list(range(0, 160)) + rng.sample(range(160, len(data)), 120)
    refused = 0
    for pos in positions:
        for value in (0xFF, data[pos] ^ 0x40):
            corrupt = bytearray(data)
            corrupt[pos] = value
            refused += not _load_or_error(bytes(corrupt), tmp_path)
    assert refused > len(positions) // 4  # many flips break it, and none crash


def test_other_files_named_jax(tmp_path: Path) -> None:
    for data in (b"", b"module {}\n", b"ML\xefR\x06garbage", bytes(range(256)) * 4):
        assert not _load_or_error(data, tmp_path)
    code, output = shlo("inspect", str(tmp_path / "x.jax"))
    assert code == 1 and "not a valid jax.export artifact" in output
    code, output = shlo("inspect", str(tmp_path / "missing.jax"))
    assert code == 1 and "cannot open input file" in output


@needs_artifacts
def test_multi_device_export_is_refused(tmp_path: Path) -> None:
    data = bytearray((ARTIFACTS / "mlp.jax").read_bytes())
    root = Buffer(bytes(data)).root()
    slot = 18 if root.has(18) else 6  # nr_devices (uint32), else the older short
    pos = root._field(slot)
    assert pos is not None
    data[pos] = 4
    path = tmp_path / "multi.jax"
    path.write_bytes(bytes(data))
    with pytest.raises(ShloError, match="runs on 4 devices"):
        load_program(str(path))
    code, output = shlo("inspect", str(path), "--no-module")
    assert code == 0 and "nr_devices: 4" in output


# ---- shape symbols -----------------------------------------------------------------------

def test_dimension_expressions() -> None:
    env = {"b": 6, "n": 4}
    assert evaluate_dim("16", env) == 16
    assert evaluate_dim("b", env) == 6
    assert evaluate_dim("2*b + 1", env) == 13
    assert evaluate_dim("b - n", env) == 2
    assert evaluate_dim("floordiv(b, 4)", env) == 1
    assert evaluate_dim("mod(b, 4) * (n + 1)", env) == 10
    assert evaluate_dim("max(b, 2*n)", env) == 8
    assert evaluate_dim("c", env) is None
    assert evaluate_dim("b ** 2", env) is None


def test_symbols_bind_and_must_agree() -> None:
    avals = [Aval(("b", "784"), "float32", "f32"), Aval(("2*b",), "int32", "i32")]
    labels = ["argument #0 'x'", "argument #1 'y'"]
    assert bind_symbols(avals, [(3, 784), (6,)], labels) == {"b": 3}
    with pytest.raises(ValueError, match=re.escape("argument #1 'y': dimension 0 is 5 but "
                                                   "the export says '2*b' = 6")):
        bind_symbols(avals, [(3, 784), (5,)], labels)


@needs_artifacts
def test_python_api_runs_a_jax_file() -> None:
    import shlo_cli

    inputs = np.load(ARTIFACTS / "rnn.inputs.npz")
    results = shlo_cli.interpret(str(ARTIFACTS / "rnn.jax"),
                                 *[inputs[f"arg{i}"] for i in range(len(inputs.files))])
    expected = np.load(ARTIFACTS / "rnn.expected.npz")
    assert len(results) == 2
    for got, key in zip(results, ("result0", "result1"), strict=True):
        np.testing.assert_allclose(got, expected[key], rtol=1e-4, atol=1e-5)


@needs_artifacts
def test_random_corruption_of_every_artifact(tmp_path: Path) -> None:
    """Seeded byte changes plus truncation anywhere in every artifact: loads or a diagnostic
    (this found a dynamic-shaped tensor constant, a huge convolution dimension and
    non-function `function_type`/`arg_attrs` in corrupt modules)."""
    rng = random.Random(2)
    refused = 0
    tries = 0
    for name in NAMES:
        data = (ARTIFACTS / f"{name}.jax").read_bytes()
        for _ in range(30):
            corrupt = bytearray(data)
            for _ in range(rng.choice((1, 1, 3))):
                corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
            if rng.random() < 0.3:
                corrupt = corrupt[:rng.randrange(len(corrupt))]
            tries += 1
            refused += not _load_or_error(bytes(corrupt), tmp_path)
    assert refused > tries // 3
