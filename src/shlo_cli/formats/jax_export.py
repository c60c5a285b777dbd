"""`jax.export` artifacts (`Exported.serialize()`, usually saved as `.jax`).

The file is a flatbuffer whose root table `Exported` (jax `serialization.fbs`) records the
StableHLO portable artifact of the module plus what running it needs: input/output abstract
values (shapes may hold symbolic dimensions such as `b` or `2*b`), the platforms it was
lowered for, the device count, the calling-convention version and ordered effects.

Every serialization version is read (nothing expires here): fields added later are simply
absent in older files, and avals are taken from `in_avals_idxs` into `unique_avals` (v10+)
or from `in_avals` (before).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ir import regex_programs
from ..ir.core import Module
from ..ir.diagnostics import Diagnostic, ShloError, SourceFile
from ..ir.types import ComplexType, FloatType, IntegerType, TensorType, Type
from .flatbuf import Buffer, FlatError, Table

# Slots of the `Exported` table, in schema order.
(_SER_VERSION, _FUNCTION_NAME, _IN_TREE, _IN_AVALS, _OUT_TREE, _OUT_AVALS, _NR_DEVICES_SHORT,
 _IN_SHARDINGS, _OUT_SHARDINGS, _PLATFORMS, _ORDERED_EFFECTS, _UNORDERED_EFFECTS,
 _DISABLED_CHECKS, _MLIR_MODULE, _CALLING_CONVENTION, _KEPT_VAR_IDX, _USES_GLOBAL_CONSTANTS,
 _VJP, _NR_DEVICES, _UNIQUE_AVALS, _UNIQUE_MESHES, _UNIQUE_SHARDINGS, _IN_AVALS_IDXS,
 _OUT_AVALS_IDXS, _IN_SHARDINGS_IDXS, _OUT_SHARDINGS_IDXS, _JAX_VERSION) = range(27)

# jax's DType enum -> MLIR element type name (None: no tensor element type of its own).
_DTYPES: dict[int, tuple[str, str | None]] = {
    0: ("bool", "i1"), 1: ("int8", "i8"), 2: ("int16", "i16"), 3: ("int32", "i32"),
    4: ("int64", "i64"), 5: ("uint8", "ui8"), 6: ("uint16", "ui16"), 7: ("uint32", "ui32"),
    8: ("uint64", "ui64"), 9: ("float16", "f16"), 10: ("float32", "f32"),
    11: ("float64", "f64"), 12: ("complex64", "complex<f32>"),
    13: ("complex128", "complex<f64>"), 14: ("bfloat16", "bf16"), 15: ("int4", "i4"),
    16: ("uint4", "ui4"), 17: ("float8_e4m3b11fnuz", "f8E4M3B11FNUZ"),
    18: ("float8_e4m3fn", "f8E4M3FN"), 19: ("float8_e4m3fnuz", "f8E4M3FNUZ"),
    20: ("float8_e5m2", "f8E5M2"), 21: ("float8_e5m2fnuz", "f8E5M2FNUZ"),
    22: ("float0", "i1"), 23: ("float8_e4m3", "f8E4M3"), 24: ("float8_e3m4", "f8E3M4"),
    25: ("float8_e8m0fnu", "f8E8M0FNU"), 26: ("float4_e2m1fn", "f4E2M1FN"),
    27: ("key<fry>", None), 28: ("key<rbg>", None), 29: ("key<unsafe_rbg>", None),
}
_MEMORY_SPACES = {0: "", 1: "device", 2: "host", 3: "any"}
_SYMBOL = regex_programs.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTIONS = {"floordiv", "mod", "max", "min", "non_negative"}


@dataclass
class Aval:
    """One input or output: dims as jax wrote them ("16", "b", "2*b"), and its dtype."""

    dims: tuple[str, ...]
    dtype: str
    element: str | None  # MLIR element type name, None for key types
    memory_space: str = ""

    @property
    def symbols(self) -> list[str]:
        out: list[str] = []
        for dim in self.dims:
            for name in _SYMBOL.findall(dim):
                if name not in _FUNCTIONS and name not in out:
                    out.append(name)
        return out

    def tensor_type(self) -> Type | None:
        """The MLIR tensor type, `?` for each symbolic dimension."""
        element = _element_type(self.element)
        if element is None:
            return None
        return TensorType(tuple(int(d) if d.isdigit() else -1 for d in self.dims), element)

    def __str__(self) -> str:
        return f"{self.dtype}[{', '.join(self.dims)}]"


@dataclass
class Exported:
    """What an artifact records (the module still serialized)."""

    serialization_version: int
    function_name: str
    in_avals: list[Aval]
    out_avals: list[Aval]
    nr_devices: int
    platforms: list[str]
    ordered_effects: list[str]
    unordered_effects: list[str]
    disabled_checks: list[str]
    calling_convention_version: int
    module_kept_var_idx: list[int]
    uses_global_constants: bool
    mlir_module_serialized: bytes
    jax_version: str | None = None
    has_vjp: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def symbols(self) -> list[str]:
        """Shape-polymorphism symbols, in order of first use by the inputs."""
        out: list[str] = []
        for aval in self.in_avals + self.out_avals:
            out += [s for s in aval.symbols if s not in out]
        return out

    @property
    def stablehlo_version(self) -> str | None:
        from .portable import artifact_version

        version = artifact_version(self.mlir_module_serialized)
        return None if version is None else str(version)


def read_exported(data: bytes, filename: str) -> Exported:
    """Parse the flatbuffer. A malformed file raises ShloError naming `filename`."""
    try:
        root = Buffer(data).root()
        return _exported(root)
    except FlatError as e:
        raise ShloError(f"{filename}: not a valid jax.export artifact: {e}") from None


def _exported(t: Table) -> Exported:
    unique = [_aval(a) for a in t.tables(_UNIQUE_AVALS)]
    in_avals = _avals(t, _IN_AVALS_IDXS, _IN_AVALS, unique)
    out_avals = _avals(t, _OUT_AVALS_IDXS, _OUT_AVALS, unique)
    nr_devices = t.scalar(_NR_DEVICES, "I", 0) or t.scalar(_NR_DEVICES_SHORT, "h", 0)
    checks = []
    for check in t.tables(_DISABLED_CHECKS):
        kind = check.scalar(0, "b", 0)
        name = {0: "platform", 1: "custom_call", 2: "shape_assertions"}.get(kind, f"#{kind}")
        if kind == 1:
            name += f"({check.string(1) or ''})"
        checks.append(name)
    module = t.bytes(_MLIR_MODULE)
    if not module:
        raise FlatError("the artifact holds no mlir_module_serialized")
    return Exported(
        serialization_version=t.scalar(_SER_VERSION, "H", 0),
        function_name=t.string(_FUNCTION_NAME) or "",
        in_avals=in_avals, out_avals=out_avals, nr_devices=nr_devices or 1,
        platforms=t.strings(_PLATFORMS),
        ordered_effects=[e.string(0) or "" for e in t.tables(_ORDERED_EFFECTS)],
        unordered_effects=[e.string(0) or "" for e in t.tables(_UNORDERED_EFFECTS)],
        disabled_checks=checks,
        calling_convention_version=t.scalar(_CALLING_CONVENTION, "H", 0),
        # jax always writes the vector: an empty one means the module takes none of the
        # inputs (their values do not matter), not that the field is missing
        module_kept_var_idx=(t.scalars(_KEPT_VAR_IDX, "H") if t.has(_KEPT_VAR_IDX)
                             else list(range(len(in_avals)))),
        uses_global_constants=bool(t.scalar(_USES_GLOBAL_CONSTANTS, "B", 0)),
        mlir_module_serialized=module,
        jax_version=t.string(_JAX_VERSION),
        has_vjp=t.has(_VJP),
    )


def _avals(t: Table, idx_slot: int, slot: int, unique: list[Aval]) -> list[Aval]:
    idxs = t.scalars(idx_slot, "I")
    if idxs:
        for i in idxs:
            if i >= len(unique):
                raise FlatError(f"aval index {i} is past the {len(unique)} unique avals")
        return [unique[i] for i in idxs]
    return [_aval(a) for a in t.tables(slot)]


def _aval(t: Table) -> Aval:
    kind = t.scalar(0, "b", 0)
    if kind != 0:
        raise FlatError(f"unsupported abstract value kind {kind} (only shaped arrays)")
    dims = tuple(t.strings(1))
    for d in dims:
        if not d or not re.fullmatch(r"[\w\s+\-*(),]+", d):
            raise FlatError(f"bad dimension {d!r}")
    code = t.scalar(2, "b", 0)
    if code not in _DTYPES:
        raise FlatError(f"unknown dtype code {code}")
    dtype, element = _DTYPES[code]
    return Aval(dims, dtype, element, _MEMORY_SPACES.get(t.scalar(3, "b", 0), ""))


def _element_type(name: str | None) -> Type | None:
    if name is None:
        return None
    if name.startswith("complex<"):
        return ComplexType(FloatType(name[8:-1]))
    m = re.fullmatch(r"(u?)i(\d+)", name)
    if m:
        return IntegerType(int(m.group(2)), m.group(1) and "u")
    return FloatType(name)


# ---- symbolic dimensions -----------------------------------------------------------------

def evaluate_dim(text: str, env: dict[str, int]) -> int | None:
    """The value of a dimension expression ("16", "b", "2*b + 1", "floordiv(b, 2)") with
    `env`'s symbols, or None when a symbol is unbound or the text is not understood."""
    tokens: list[str] = re.findall(r"\d+|[A-Za-z_]\w*|[-+*(),]", text)
    if "".join(tokens) != re.sub(r"\s+", "", text):
        return None
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError
        pos += 1
        return tokens[pos - 1]

    def atom() -> int:
        tok = take()
        if tok.isdigit():
            return int(tok)
        if tok == "-":
            return -atom()
        if tok == "(":
            value = expr()
            if take() != ")":
                raise ValueError
            return value
        if tok in _FUNCTIONS and peek() == "(":
            take()
            args = [expr()]
            while peek() == ",":
                take()
                args.append(expr())
            if take() != ")":
                raise ValueError
            return _call(tok, args)
        if tok in env:
            return env[tok]
        raise KeyError(tok)

    def term() -> int:
        value = atom()
        while peek() == "*":
            take()
            value *= atom()
        return value

    def expr() -> int:
        value = term()
        while peek() in ("+", "-"):
            value = value + term() if take() == "+" else value - term()
        return value

    try:
        value = expr()
    except (ValueError, KeyError, ZeroDivisionError, IndexError):
        return None
    return value if pos == len(tokens) else None


def _call(name: str, args: list[int]) -> int:
    if name == "non_negative" and len(args) == 1:
        return max(args[0], 0)
    if len(args) != 2:
        raise ValueError
    a, b = args
    return {"floordiv": lambda: a // b, "mod": lambda: a % b, "max": lambda: max(a, b),
            "min": lambda: min(a, b)}[name]()


def bind_symbols(avals: list[Aval], shapes: list[tuple[int, ...]],
                 labels: list[str]) -> dict[str, int]:
    """Bind each symbol from the first input dimension that is exactly that symbol, then
    check every dimension expression. Raises ValueError naming the argument."""
    env: dict[str, int] = {}
    for aval, shape in zip(avals, shapes, strict=True):
        for dim, size in zip(aval.dims, shape, strict=False):
            name = dim.strip()
            if _SYMBOL.fullmatch(name) and name not in env:
                env[name] = size
    for aval, shape, label in zip(avals, shapes, labels, strict=True):
        for axis, (dim, size) in enumerate(zip(aval.dims, shape, strict=False)):
            want = evaluate_dim(dim, env)
            if want is not None and want != size:
                bound = ", ".join(f"{k} = {v}" for k, v in env.items())
                raise ValueError(f"{label}: dimension {axis} is {size} but the export says "
                                 f"'{dim}' = {want} (with {bound}; recorded shape {aval})")
    return env


def load_exported(data: bytes, filename: str) -> tuple[Exported, Module]:
    """The record and its StableHLO module. Raises ShloError or Diagnostic."""
    from .portable import deserialize

    exported = read_exported(data, filename)
    try:
        module = deserialize(exported.mlir_module_serialized, filename, keep_undecodable=True)
        exported.notes.extend(for_one_device(module, filename))
    except Diagnostic as e:
        locate(e, filename)
        e.notes.append(Diagnostic(f"while reading the module of jax.export artifact "
                                  f"'{filename}'", severity="note"))
        raise
    return exported, module


def for_one_device(module: Module, filename: str) -> list[str]:
    """Make a module read with `keep_undecodable` runnable on one device: Shardy's sharding
    ops removed and its undecodable attributes dropped (jax writes them even for one
    device; upstream's tools, which know no `sdy`, could not read such a module at all).
    Returns notes saying what went. Raises ShloError or Diagnostic."""
    from ..ir.verifier import verify_module
    from .jax_shardy import remove_sharding_ops

    try:
        sharding_ops = remove_sharding_ops(module, filename)
        dropped = drop_undecoded(module)
        verify_module(module)  # a corrupt module stops here, not deep in a later step
    except Diagnostic as e:
        locate(e, filename)
        raise
    notes = []
    if sharding_ops:
        notes.append("removed Shardy sharding ops (no-ops on one device): " + ", ".join(
            f"{name} x{count}" for name, count in sharding_ops.items()))
    if dropped:
        notes.append("dropped attributes we cannot decode (sharding annotations, unused on "
                     "one device): " + ", ".join(
                         f"{name} x{count}" for name, count in dropped.items()))
    return notes


def locate(error: Diagnostic, filename: str) -> None:
    """Name the file in an error that has no place (e.g. a pass's error at an op without
    a location)."""
    if error.source is None:
        error.source = SourceFile(filename, "")
        error.line, error.col = (0, 0) if error.line is None else (error.line, error.col)


def drop_undecoded(module: Module) -> dict[str, int]:
    """Remove discardable attributes holding an undecodable dialect attribute (Shardy's
    `sdy.sharding_rule`); how many of each name went."""
    from .bytecode.tables import UndecodedAttr

    dropped: dict[str, int] = {}
    for op in module.op.walk():
        for table in (op.attributes, op.properties):
            for name in [n for n, v in table.items() if isinstance(v, UndecodedAttr)]:
                del table[name]
                dropped[name] = dropped.get(name, 0) + 1
    return dropped


# ---- the `.jax` loader -------------------------------------------------------------------

def read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ShloError(f"cannot open input file '{path}': {e.strerror}") from None
