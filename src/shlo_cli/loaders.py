"""Reading a program file: one loader per file type, chosen by suffix or magic bytes.

A loader maps a path to a `LoadedProgram`: the module plus, when the file records it, the
entry function's signature (argument names, names of dynamic dimensions such as jax's `b`).
Text (`.mlir` and anything else that is not recognised as binary) is built in; binary
formats plug in with

    @register_loader(".jax")
    def load_jax(path: str) -> LoadedProgram: ...

from the module that implements them (listed in LAZY_LOADERS so it is imported on demand).
A binary file without a loader is refused with a diagnostic, never parsed as text.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .ir.core import Module
from .ir.diagnostics import ShloError
from .ir.record import Struct

if TYPE_CHECKING:
    from .formats.jax_export import Exported

MLIR_BYTECODE_MAGIC = b"ML\xefR"


class LoadedProgram(Struct):
    """A loaded module and what its file recorded about the entry function (or None)."""

    module: Module
    signature: Any  # interpreter.io.Signature when the file records one

    def __init__(self, module: Module, signature: Any = None) -> None:
        self.module = module
        self.signature = signature


Loader = Callable[[str], LoadedProgram]
_LOADERS: dict[str, Loader] = {}

# suffix -> "module:function" imported on first use.
LAZY_LOADERS: dict[str, str] = {
    ".mlirbc": f"{__package__}.loaders:load_bytecode",
    ".bc": f"{__package__}.loaders:load_bytecode",
    ".jax": f"{__package__}.loaders:load_jax",
}

# What each binary suffix is, for the "not supported" diagnostic.
BINARY_KINDS = {
    ".jax": "jax.export artifact (flatbuffer)",
    ".mlirbc": "MLIR bytecode",
    ".bc": "MLIR bytecode",
}


def register_loader(*suffixes: str) -> Callable[[Loader], Loader]:
    """Register `fn` as the loader of files ending in any of `suffixes` (e.g. ".jax")."""

    def wrap(fn: Loader) -> Loader:
        for suffix in suffixes:
            _LOADERS[suffix.lower()] = fn
        return fn

    return wrap


def file_kind(path: str) -> str:
    """The loader key of `path`: its suffix when a binary loader or kind knows it, ".mlirbc"
    for MLIR bytecode by its magic bytes, else ".mlir" (text)."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix in _LOADERS or suffix in LAZY_LOADERS or suffix in BINARY_KINDS:
        return suffix
    try:
        with open(path, "rb") as f:
            if f.read(4) == MLIR_BYTECODE_MAGIC:
                return ".mlirbc"
    except OSError:
        pass
    return ".mlir"


def is_binary(path: str) -> bool:
    return path != "-" and file_kind(path) != ".mlir"


def _loader(kind: str) -> Loader | None:
    if kind not in _LOADERS and kind in LAZY_LOADERS:
        module_name, _, name = LAZY_LOADERS[kind].partition(":")
        try:
            _LOADERS[kind] = getattr(importlib.import_module(module_name), name)
        except (ImportError, AttributeError):
            return None
    return _LOADERS.get(kind)


def load_program(path: str, allow_unregistered: bool = False) -> LoadedProgram:
    """Load `path` with the loader its type selects. Errors raise ShloError/Diagnostic."""
    kind = file_kind(path)
    if kind == ".mlir":
        from .ir.parser import parse_source

        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError as e:
            raise ShloError(f"cannot open input file '{path}': {e.strerror}") from None
        return LoadedProgram(parse_source(text, path, allow_unregistered))
    loader = _loader(kind)
    if loader is None:
        what = BINARY_KINDS.get(kind, "binary file")
        raise ShloError(f"cannot load '{path}': reading a {what} is not supported yet")
    return loader(path)


def load_bytecode(path: str) -> LoadedProgram:
    """An MLIR bytecode file to run: a StableHLO portable artifact as its StableHLO module
    (as `.jax` files give theirs, `read_runnable_bytecode`); other bytecode as written."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ShloError(f"cannot open input file '{path}': {e.strerror}") from None
    return LoadedProgram(read_runnable_bytecode(data, path))


def read_runnable_bytecode(data: bytes, filename: str,
                           allow_unregistered: bool = False) -> Module:
    """Bytecode read to be run. A portable artifact holds VHLO, which has no functions the
    interpreter could run (read as written it would run nothing and print no results): it
    is deserialized, whatever its producer (jax's early artifacts name MLIR's), and Shardy
    annotations are dropped, as for the module of a jax.export artifact."""
    from .formats.bytecode import read_bytecode
    from .formats.jax_export import for_one_device, locate
    from .formats.portable import is_vhlo, to_stablehlo
    from .ir.diagnostics import Diagnostic

    module = read_bytecode(data, filename, allow_unregistered, keep_undecodable=True)
    try:
        if is_vhlo(module):
            to_stablehlo(module)
    except Diagnostic as e:
        locate(e, filename)
        raise
    for_one_device(module, filename)
    return module


# ---- jax.export artifacts ----------------------------------------------------------------

def load_jax(path: str) -> LoadedProgram:
    """A `.jax` file as a runnable program: the module plus a Signature of jax's arrays
    (names from the module, symbolic dims from the avals), its platforms and a check that
    binds the shape symbols from the given inputs."""
    from .formats.jax_export import load_exported, read_file

    exported, module = load_exported(read_file(path), path)
    if exported.nr_devices > 1:
        raise ShloError(f"{path}: the export runs on {exported.nr_devices} devices; only "
                        "single-device exports (nr_devices = 1) can be run")
    return LoadedProgram(module, jax_signature(exported, module, path))


def jax_signature(exported: Exported, module: Module, path: str) -> Any:
    """The entry function's array arguments, checked against the recorded avals."""
    from .formats.jax_export import bind_symbols
    from .interpreter.io import ArgSpec, InputError, Signature, signature_of
    from .interpreter.jax_convention import implicit_inputs

    funcs = [f for f in module.functions()
             if getattr(f.attr("sym_name"), "value", None) == "main"] or module.functions()
    if not funcs:
        return None
    func = funcs[0]
    base = signature_of(func)
    has_index, tokens = implicit_inputs(func)
    arg_specs = base.args[int(has_index) + tokens:]
    kept = exported.module_kept_var_idx
    if len(kept) != len(arg_specs) or any(i >= len(exported.in_avals) for i in kept):
        raise ShloError(f"{path}: the module takes {len(arg_specs)} arrays but the export "
                        f"records {len(kept)} kept inputs of {len(exported.in_avals)}")
    avals = [exported.in_avals[i] for i in kept]
    args = []
    for position, (spec, aval) in enumerate(zip(arg_specs, avals, strict=True)):
        recorded = aval.tensor_type()
        if recorded is not None and str(recorded) != str(spec.type):
            raise ShloError(f"{path}: {spec.label} of the module is {spec.type} but the "
                            f"export records {aval}")
        names = tuple(None if d.isdigit() else d for d in aval.dims)
        name = spec.name if spec.name != f"arg{spec.index}" else f"arg{kept[position]}"
        args.append(ArgSpec(kept[position], name, spec.type, spec.dim_var, names))
    labels = [a.label for a in args]

    def check(arrays: list[Any]) -> None:
        try:
            bind_symbols(avals, [a.shape for a in arrays], labels)
        except ValueError as e:
            raise InputError(str(e)) from None

    results = base.results[len(base.results) - len(exported.out_avals):] \
        if len(base.results) >= len(exported.out_avals) else base.results
    return Signature(args, list(results), platforms=list(exported.platforms) or None,
                     check=check if exported.symbols else None,
                     inputs=len(exported.in_avals))
