"""Interoperability with jaxlib's own StableHLO serializer (the `interop` extra).

shlo's portable artifacts are only useful if the real toolchain reads them, and shlo must read
what the real toolchain writes. Over a deterministic sample of conformance `testdata` programs
(one per op kind) and several targets, three directions are checked:

(a) jaxlib serializes, shlo deserializes: the printed module equals shlo's print of the source.
(b) shlo serializes, jaxlib deserializes: jaxlib's text, re-parsed and printed by shlo, equals
    shlo's print of the source.
(c) with debug info stripped on both sides, shlo's bytes equal jaxlib's: counted, not asserted.
    shlo writes as a StableHLO 1.20 producer: it legalizes to 1.20's VHLO and downgrades, and
    the ops a downgrade recreates change MLIR's use lists, hence the use-list orders written
    (e.g. `custom_call_v2` -> `v1` at any target below 1.18). jaxlib is a 1.17 producer, so
    the bytes are also compared with shlo modelling a producer whose current version is
    jaxlib's (legalize, convert to jaxlib's version as if built there, then downgrade).

A program jaxlib cannot serialize for a target (an op or type newer than it) is counted as
skipped; shlo must refuse it too. Run `python tests/unit/test_jaxlib_interop.py` for the table.
Skipped as a whole when jaxlib is not importable (`pip install -e '.[interop]'`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

try:
    import jax._src.interpreters.mlir as jax_mlir
    import jaxlib.mlir.dialects.stablehlo as jsh
    import jaxlib.mlir.ir as jir
    import jaxlib.mlir.passmanager as jpm
except ImportError as e:  # any failure to import, not only a missing package
    pytest.skip(f"jax/jaxlib not importable ({e}); pip install -e '.[interop]'",
                allow_module_level=True)

from shlo_cli.dialects.vhlo.version import bytecode_version, resolve_target  # noqa: E402
from shlo_cli.formats import portable  # noqa: E402
from shlo_cli.formats.bytecode import write_bytecode  # noqa: E402
from shlo_cli.formats.bytecode.uselists import model_use_orders  # noqa: E402
from shlo_cli.ir.diagnostics import Diagnostic, ShloError  # noqa: E402
from shlo_cli.ir.parser import parse_source  # noqa: E402
from shlo_cli.ir.printer import print_module  # noqa: E402
from shlo_cli.passes.stablehlo_legalize_to_vhlo import legalize_to_vhlo  # noqa: E402
from shlo_cli.passes.strip_debuginfo import strip_debuginfo  # noqa: E402
from shlo_cli.passes.vhlo_to_version import vhlo_to_version  # noqa: E402

ROOT = Path(os.environ.get("SHLO_CONFORMANCE",
                           Path(__file__).resolve().parents[3] / "shared" / "conformance"))
TESTDATA = ROOT / "testdata"
SAMPLE_SIZE = 40
# `SHLO_INTEROP_ALL=1 python tests/unit/test_jaxlib_interop.py` covers every program instead.
EVERY_PROGRAM = os.environ.get("SHLO_INTEROP_ALL") == "1"
# A program whose RUN line serializes it as is (the chlo ones need a pre-serialization pipeline).
_PLAIN_SERIALIZE = "stablehlo-translate --serialize --target=current %s |"
# `abs_int8_20_20.mlir` -> `abs`; `dynamic_slice_...` and `dynamic_update_slice_...` share
# `dynamic`, which is fine: the sample wants breadth, not completeness.
_OP_KIND = re.compile(r"[a-z0-9]+")


def sample_programs(size: int = SAMPLE_SIZE) -> list[Path]:
    """One program per op kind (the first by name), then every k-th kind: stable across runs."""
    if not TESTDATA.is_dir():
        return []
    plain = [path for path in sorted(TESTDATA.glob("*.mlir"))
             if _PLAIN_SERIALIZE in path.read_text(errors="replace")[:2000]]
    if EVERY_PROGRAM:
        return plain
    first: dict[str, Path] = {}
    for path in plain:
        first.setdefault(_OP_KIND.match(path.name).group(0), path)
    kinds = sorted(first)
    step = max(1, len(kinds) // size)
    return [first[k] for k in kinds[::step]][:size]


def jaxlib_targets() -> list[str]:
    """jaxlib's current version, 1.0.0, 0.14.0 and its minimum: newest to oldest."""
    targets = [str(jsh.get_current_version()), "1.0.0", "0.14.0", str(jsh.get_minimum_version())]
    return list(dict.fromkeys(targets))


@dataclass
class Counts:
    """Outcome of one target over the sample; `failures` says what differed and where."""

    target: str
    programs: int = 0
    skipped: list[str] = field(default_factory=list)
    jax_to_shlo: int = 0
    shlo_to_jax: int = 0
    byte_identical: int = 0
    byte_identical_as_jaxlib_version: int = 0
    failures: list[str] = field(default_factory=list)


def _context():
    return jax_mlir.make_ir_context()


def _jaxlib_bytes(text: str, target: str, *, strip: bool) -> bytes:
    ctx = _context()
    with ctx:
        module = jir.Module.parse(text)
        if strip:
            jpm.PassManager.parse("builtin.module(strip-debuginfo)").run(module.operation)
        return jsh.serialize_portable_artifact(module, target)


def _jaxlib_text(artifact: bytes) -> str:
    ctx = _context()
    with ctx:
        return str(jsh.deserialize_portable_artifact(ctx, artifact))


def _as_producer_of(current: str, text: str, name: str, target: str) -> bytes:
    """shlo's stripped artifact as a producer whose current version is `current` would write
    it: IR converted to `current` counts as freshly built, only the later downgrade recreates
    ops. Mirrors `portable.serialize` step by step."""
    module = parse_source(text, name)
    strip_debuginfo(module)
    legalize_to_vhlo(module, False)
    vhlo_to_version(module, resolve_target(current))
    version = resolve_target(target)
    model_use_orders(module.op, vhlo_to_version(module, version))
    return write_bytecode(module, bytecode_version(version), f"{portable.PRODUCER_PREFIX}{version}")


def _check(path: Path, target: str, counts: Counts) -> None:
    text = path.read_text()
    name = path.name
    expected = print_module(parse_source(text, str(path)))
    counts.programs += 1
    try:
        theirs = _jaxlib_bytes(text, target, strip=False)
    except Exception as e:  # noqa: BLE001 - jaxlib raises MLIRError or ValueError
        counts.skipped.append(name)
        try:
            portable.serialize(parse_source(text, str(path)), target)
        except (Diagnostic, ShloError):
            return
        counts.failures.append(f"{name}: jaxlib refuses target {target} ({str(e)[:120]!r}), "
                               "shlo serializes it")
        return
    # (a) jaxlib writes, shlo reads.
    try:
        got = print_module(portable.deserialize(theirs, name))
    except (Diagnostic, ShloError) as e:
        counts.failures.append(f"(a) {name}: shlo cannot read jaxlib's artifact: {e}")
    else:
        if got == expected:
            counts.jax_to_shlo += 1
        else:
            counts.failures.append(f"(a) {name}: shlo's print of jaxlib's artifact differs")
    # (b) shlo writes, jaxlib reads.
    try:
        ours = portable.serialize(parse_source(text, str(path)), target)
    except (Diagnostic, ShloError) as e:
        counts.failures.append(f"(b) {name}: shlo cannot serialize for {target}: {e}")
        return
    try:
        back = _jaxlib_text(ours)
    except Exception as e:  # noqa: BLE001
        counts.failures.append(f"(b) {name}: jaxlib cannot read shlo's artifact: {str(e)[:300]}")
    else:
        if print_module(parse_source(back, f"jaxlib:{name}")) == expected:
            counts.shlo_to_jax += 1
        else:
            counts.failures.append(f"(b) {name}: jaxlib's print of shlo's artifact differs")
    # (c) the same bytes, debug info stripped on both sides (locations carry file names).
    stripped = portable.serialize(parse_source(text, str(path)), target, strip_debuginfo=True)
    reference = _jaxlib_bytes(text, target, strip=True)
    counts.byte_identical += stripped == reference
    emulated = _as_producer_of(str(jsh.get_current_version()), text, str(path), target)
    counts.byte_identical_as_jaxlib_version += emulated == reference


def run_target(target: str, programs: list[Path] | None = None) -> Counts:
    """Every check over the sample for one target."""
    counts = Counts(target)
    for path in sample_programs() if programs is None else programs:
        _check(path, target, counts)
    return counts


def _targets() -> Iterator[str]:
    yield from jaxlib_targets()


pytestmark = pytest.mark.skipif(not sample_programs(), reason="no conformance testdata folder")


@pytest.mark.parametrize("target", list(_targets()))
def test_round_trips_with_jaxlib(target: str) -> None:
    counts = run_target(target)
    assert counts.programs >= SAMPLE_SIZE // 2
    assert not counts.failures, "\n".join(counts.failures)
    expressible = counts.programs - len(counts.skipped)
    assert counts.jax_to_shlo == counts.shlo_to_jax == expressible
    assert expressible > 0
    if target == str(jsh.get_current_version()):
        # No downgrade on either side: shlo's writer must match jaxlib's MLIR byte for byte.
        assert counts.byte_identical_as_jaxlib_version == expressible


def test_versions_agree_with_shlo() -> None:
    # jaxlib's current version must be one shlo can write, or (c) compares different things.
    assert portable.serialize(parse_source("module {}\n", "empty"), str(jsh.get_current_version()))


if __name__ == "__main__":
    print(f"jaxlib StableHLO current {jsh.get_current_version()}, "
          f"minimum {jsh.get_minimum_version()}; sample of {len(sample_programs())} programs")
    for tgt in jaxlib_targets():
        c = run_target(tgt)
        print(f"{tgt:>8}: programs {c.programs}, skipped {len(c.skipped)}, jaxlib->shlo "
              f"{c.jax_to_shlo}, shlo->jaxlib {c.shlo_to_jax}, byte-identical {c.byte_identical} "
              f"(as a {jsh.get_current_version()} producer {c.byte_identical_as_jaxlib_version}), "
              f"failures {len(c.failures)}")
        for line in c.failures:
            print("   ", line)


_SHARED_DOWNGRADE = """func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = stablehlo.cosine %x : tensor<4xf32>
  %a = stablehlo.add %c, %x : tensor<4xf32>
  %m = stablehlo.multiply %c, %x : tensor<4xf32>
  return %a, %m : tensor<4xf32>, tensor<4xf32>
}
"""


@pytest.mark.parametrize("target", list(_targets()))
def test_same_downgrade_gives_the_same_bytes(target: str) -> None:
    # Only ops both producers downgrade (cosine_v2 -> v1 below 1.10) are recreated here, so the
    # use-list orders, hence the bytes, must agree even though the producers' versions differ.
    ours = portable.serialize(parse_source(_SHARED_DOWNGRADE, "t.mlir"), target,
                              strip_debuginfo=True)
    assert ours == _jaxlib_bytes(_SHARED_DOWNGRADE, target, strip=True)
