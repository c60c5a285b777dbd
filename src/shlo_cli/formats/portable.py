"""StableHLO portable artifacts: a StableHLO module as VHLO of a target version in MLIR bytecode.

Upstream (`stablehlo/dialect/Serialization.cpp`) serializes in three steps, each of which may
fail with its own diagnostic: StableHLO -> VHLO, VHLO -> VHLO of the target version, and MLIR
bytecode in the format version that release used, with the producer `StableHLO_vX.Y.Z`.
Deserializing reads bytecode (or text), upgrades VHLO to the current version and legalizes it
back to StableHLO. The producer string is also how an artifact's version is read back.
"""

from __future__ import annotations

from ..dialects.vhlo.version import CURRENT, Version, VersionError, bytecode_version, resolve_target
from ..ir import regex_programs
from ..ir.core import Module
from ..ir.diagnostics import Diagnostic, ShloError
from ..ir.parser import parse_source
from ..passes.stablehlo_legalize_to_vhlo import legalize_to_vhlo
from ..passes.strip_debuginfo import strip_debuginfo as strip_locations
from ..passes.vhlo_legalize_to_stablehlo import legalize_to_stablehlo
from ..passes.vhlo_to_version import vhlo_to_version
from .bytecode import is_bytecode, read_bytecode, write_bytecode
from .bytecode.uselists import model_use_orders

PRODUCER_PREFIX = "StableHLO_v"
# (read from the producer's bytes decoded as latin-1: one character per byte)
_PRODUCER_VERSION = regex_programs.compile(r"StableHLO_v([0-9]+)\.([0-9]+)\.([0-9]+)\x00")


def serialize(module: Module, target: str = "current", *, strip_debuginfo: bool = False,
              allow_other_dialects: bool = False) -> bytes:
    """The portable artifact of `module` for `target` (`current`, `minimum` or `X.Y.Z`).

    Rewrites `module` in place (to VHLO), as upstream does; raises Diagnostic or ShloError."""
    try:
        version = resolve_target(target)
    except VersionError as e:
        raise ShloError(str(e)) from None
    if strip_debuginfo:
        strip_locations(module)
    legalize_to_vhlo(module, allow_other_dialects)
    model_use_orders(module.op, vhlo_to_version(module, version))
    return write_bytecode(module, bytecode_version(version), f"{PRODUCER_PREFIX}{version}")


def deserialize(data: bytes | str, filename: str = "<stdin>", *,
                keep_undecodable: bool = False) -> Module:
    """The StableHLO module of a portable artifact (bytecode, or VHLO/StableHLO text as
    upstream's parser also accepts). Raises Diagnostic; a failure to read the artifact adds
    upstream's `failed to deserialize portable artifact using StableHLO_vX` error."""
    try:
        if isinstance(data, bytes) and is_bytecode(data):
            module = read_bytecode(data, filename, keep_undecodable=keep_undecodable)
        else:
            text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
            module = parse_source(text, filename)
    except Diagnostic as e:
        e.notes.append(Diagnostic(f"failed to deserialize portable artifact using "
                                  f"{PRODUCER_PREFIX}{CURRENT}", severity="error"))
        raise
    to_stablehlo(module)
    return module


def to_stablehlo(module: Module) -> None:
    """A VHLO module, just read, as StableHLO in place: VHLO upgraded to the current
    version, then legalized (the steps of `deserialize` after reading)."""
    vhlo_to_version(module, CURRENT)
    legalize_to_stablehlo(module)


def is_vhlo(module: Module) -> bool:
    """Whether the module's top level holds VHLO ops (a portable artifact as read)."""
    return any(op.dialect == "vhlo" for op in module.body.operations)


def artifact_version(data: bytes) -> Version | None:
    """The StableHLO version in a portable artifact's producer string, or None when `data` is
    not bytecode written by StableHLO (upstream's `getPortableArtifactVersion`)."""
    if not is_bytecode(data):
        return None
    end = data.find(b"\x00")
    if end < 0:
        return None
    match = _PRODUCER_VERSION.search(data[:end + 1].decode("latin-1"))
    if match is None:
        return None
    return Version(*(int(g) for g in match.groups()))
