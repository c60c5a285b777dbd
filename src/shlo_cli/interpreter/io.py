"""Entry-function inputs and outputs as numpy data: `.npy`/`.npz` files, IREE-style literals,
random inputs, and saving results.

Everything here knows the entry function's signature (`Signature`), so an input that does not
fit is refused with a message naming the argument, the expected type and what was given,
instead of failing deep inside a kernel. Element types numpy cannot name on its own (bf16,
f8*, i4/ui4, ...) are written as their raw bits plus a `__dtypes__` entry and read back with
the signature's (or that entry's) dtype, so every element type round-trips through `.npz`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from ..ir import regex_programs
from ..ir.core import Operation
from ..ir.locations import LocAliasRef, NameLoc
from ..ir.record import Struct
from ..ir.types import (
    FunctionType,
    IntegerType,
    TensorType,
    Type,
    UnsupportedTypeError,
    numpy_dtype,
)

DTYPES_KEY = "__dtypes__"  # npz entry: "key=dtype name" lines for dtypes stored as raw bits
DEFAULT_DIM = 4  # size of a dynamic dimension for --random-inputs when --dim does not say


class InputError(Exception):
    """An input cannot be used for the entry function (message names the argument)."""


class DataFileError(InputError):
    """A data file cannot be read or written (not about one argument)."""


class ArgSpec(Struct):
    """One entry-function argument: its position, display name, type and, for a dimension
    variable (a 0-d integer argument used as a size), the variable's name.

    `dim_names` gives a name per dimension of a tensor argument where one is known (a `.jax`
    artifact records `b` for a `?`); the loader of such a file fills it in."""

    def __init__(self, index: int, name: str, type: Type, dim_var: str | None = None,
                 dim_names: tuple[str | None, ...] = ()) -> None:
        self.index = index
        self.name = name
        self.type = type
        self.dim_var = dim_var
        self.dim_names = dim_names

    @property
    def label(self) -> str:
        if self.name == f"arg{self.index}":
            return f"argument #{self.index}"
        return f"argument #{self.index} '{self.name}'"


class Signature(Struct):
    """The entry function's arguments and result types.

    A `.jax` loader also sets `platforms` (the args are then only jax's arrays: the platform
    index and effect tokens are filled in, see `jax_convention`) and `check`, run on the
    coerced arrays for what one argument alone cannot tell (shape symbols such as `b`
    agreeing across arguments); it raises InputError.

    `inputs` is the number of inputs the caller gives when that differs from `args`: jax
    drops inputs a function does not use from the module but its callers still pass them,
    so an arg's `index` is its position among all of jax's inputs (`arg{index}` in an .npz)
    and `select` keeps the module's ones."""

    def __init__(self, args: list[ArgSpec], results: list[Type] | None = None,
                 platforms: list[str] | None = None,
                 check: Callable[[list[np.ndarray]], None] | None = None,
                 inputs: int | None = None) -> None:
        self.args = args
        self.results = [] if results is None else results
        self.platforms = platforms
        self.check = check
        self.inputs = len(args) if inputs is None else inputs

    def select(self, values: Sequence[Any]) -> list[Any]:
        """The module's arguments from all of the caller's inputs (given as many as
        `inputs`); any other count is returned as is, for the count check to report."""
        if self.inputs != len(self.args) and len(values) == self.inputs:
            return [values[spec.index] for spec in self.args]
        return list(values)


# ---- signature ---------------------------------------------------------------------------

_SHAPE_OPS = {  # op name -> operand positions that are shapes/sizes
    "stablehlo.dynamic_broadcast_in_dim": (1,), "stablehlo.dynamic_iota": (0,),
    "stablehlo.dynamic_reshape": (1,), "stablehlo.real_dynamic_slice": (1, 2, 3),
    "stablehlo.dynamic_pad": (2, 3, 4), "stablehlo.dynamic_conv": (2,),
    "stablehlo.dynamic_gather": (2,),
}


def signature_of(func: Operation) -> Signature:
    """Names (from `loc("x")` of the arguments, else `argN`) and dimension variables."""
    ftype: FunctionType = func.attr("function_type").value
    entry = func.regions[0].entry if func.regions and func.regions[0].blocks else None
    locations = list(getattr(entry, "arg_locations", None) or []) if entry else []
    arg_attrs = func.attr("arg_attrs")
    attr_dicts = list(arg_attrs.value) if arg_attrs is not None else []
    args = []
    for index, type in enumerate(ftype.inputs):
        name = _loc_name(locations[index] if index < len(locations) else None)
        if name is None and entry is not None:  # `%x` in text: the SSA name, if not %argN
            hint = (entry.arguments[index].name_hint or "").lstrip("%")
            if re.fullmatch(r"[A-Za-z_][\w.]*", hint) and not re.fullmatch(r"arg\d+", hint):
                name = hint
        dim_var = _attr_text(attr_dicts[index] if index < len(attr_dicts) else None,
                             "jax.global_constant")
        if dim_var is None and entry is not None and _is_int_scalar(type) \
                and _feeds_shape(entry.arguments[index]):
            dim_var = name or f"arg{index}"
        args.append(ArgSpec(index, name or f"arg{index}", type, dim_var))
    return Signature(args, list(ftype.results))


def _loc_name(loc: Any) -> str | None:
    if isinstance(loc, LocAliasRef):
        loc = loc.resolved()
    if isinstance(loc, NameLoc) and re.fullmatch(r"[A-Za-z_][\w.\[\]']*", loc.name):
        return loc.name
    return None


def _attr_text(attrs: Any, key: str) -> str | None:
    value = getattr(attrs, "value", attrs)
    if not isinstance(value, Mapping) or key not in value:
        return None
    inner = getattr(value[key], "value", value[key])
    return inner if isinstance(inner, str) else None


def _is_int_scalar(t: Type) -> bool:
    return isinstance(t, TensorType) and t.shape == () and isinstance(t.element, IntegerType) \
        and t.element.width in (32, 64)


def _feeds_shape(value: Any, depth: int = 0) -> bool:
    """Does `value` flow (through any ops) into a shape operand of a dynamic op?"""
    if depth > 8:
        return False
    for op in _users(value):
        positions = _SHAPE_OPS.get(op.name)
        if positions and any(i in positions for i, v in enumerate(op.operands) if v is value):
            return True
        if op.name in ("stablehlo.reshape", "stablehlo.concatenate", "stablehlo.convert",
                       "stablehlo.broadcast_in_dim", "stablehlo.multiply", "stablehlo.add") \
                and any(_feeds_shape(r, depth + 1) for r in op.results):
            return True
    return False


def _users(value: Any) -> list[Operation]:
    owner = value.owner
    block = owner if not isinstance(owner, Operation) else owner.parent
    ops: list[Operation] = []
    stack = list(getattr(block, "operations", []))
    while stack:
        op = stack.pop()
        if value in op.operands:
            ops.append(op)
        for region in op.regions:
            for b in region.blocks:
                stack.extend(b.operations)
    return ops


# ---- dtypes ------------------------------------------------------------------------------

def dtype_of(spec: ArgSpec | Type) -> np.dtype:
    t = spec.type if isinstance(spec, ArgSpec) else spec
    element = t.element if isinstance(t, TensorType) else t
    try:
        return numpy_dtype(element)
    except UnsupportedTypeError as e:
        raise InputError(str(e)) from None


def is_native(dtype: np.dtype) -> bool:
    """Can `np.save` write this dtype so that `np.load` gives it back?"""
    return dtype.kind in "biufcSU" and dtype.type.__module__ == "numpy"


def _named_dtype(name: str) -> np.dtype | None:
    try:
        return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)
    except TypeError:
        return None


def from_bits(array: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A raw-bits array (void, or unsigned of the same item size) viewed as `dtype`."""
    if array.dtype == dtype:
        return array
    if array.dtype.itemsize == dtype.itemsize and array.dtype.kind in "Vu" \
            and not is_native(dtype):
        return array.view(dtype)
    return array


# ---- reading -----------------------------------------------------------------------------

def read_array_file(path: str) -> dict[str, np.ndarray]:
    """All arrays of a `.npz` (by key) or `.npy` (key ``""``), without pickles."""
    import zipfile  # imported here: a launch reading no data files never needs it

    try:
        with open(path, "rb") as f:
            magic = f.read(6)
    except OSError as e:
        raise DataFileError(f"cannot open '{path}': {e.strerror}") from None
    try:
        if magic.startswith(b"PK"):
            with np.load(path, allow_pickle=False) as data:
                arrays = {key: data[key] for key in data.files}
        elif magic == b"\x93NUMPY":
            arrays = {"": np.load(path, allow_pickle=False)}
        else:
            raise DataFileError(f"'{path}' is not a .npy or .npz file")
    except InputError:
        raise
    except ValueError as e:
        if "pickle" in str(e):
            raise DataFileError(f"'{path}' holds Python objects (an object array); only numeric "
                             "arrays can be read (pickles are not loaded)") from None
        raise DataFileError(f"cannot read '{path}': {e}") from None
    except (OSError, zipfile.BadZipFile, EOFError) as e:
        raise DataFileError(f"cannot read '{path}': {e}") from None
    names = arrays.pop(DTYPES_KEY, None)
    if names is not None:
        for line in np.atleast_1d(names).tolist():
            key, _, dtype_name = str(line).partition("=")
            dtype = _named_dtype(dtype_name)
            if key in arrays and dtype is not None:
                arrays[key] = from_bits(arrays[key], dtype)
    return arrays


def positional_keys(arrays: dict[str, np.ndarray], stem: str) -> dict[str, np.ndarray]:
    """`arrays` with numpy's names for unnamed arrays (`np.savez(f, x, y)` writes `arr_0`,
    `arr_1`, ...) read as `{stem}0`, `{stem}1`, ...: the file a user saves first."""
    if not arrays or not all(key.startswith("arr_") and key[4:].isdigit() for key in arrays):
        return arrays
    return {f"{stem}{int(key[4:])}": value for key, value in arrays.items()}


def inputs_from_npz(path: str, signature: Signature) -> list[np.ndarray]:
    """`--inputs FILE.npz`: keys `arg0`, `arg1`, ..., the arguments' names, or numpy's
    `arr_0`, `arr_1`, ... of `np.savez(path, *arrays)`."""
    saved = read_array_file(path)
    arrays = positional_keys(saved, "arg")
    if "" in arrays and len(arrays) == 1:
        arrays = {"arg0": arrays[""]}
    values = []
    for spec in signature.args:
        for key in (f"arg{spec.index}", spec.name):
            if key in arrays:
                values.append(arrays[key])
                break
        else:
            keys = ", ".join(sorted(saved)) or "none"  # (as the file names them)
            raise InputError(f"{spec.label} of type {spec.type} is missing from '{path}' "
                             f"(expected key 'arg{spec.index}'"
                             + (f" or '{spec.name}'" if spec.name != f"arg{spec.index}" else "")
                             + f"; keys present: {keys})")
    return values


def input_from_option(text: str) -> np.ndarray:
    """One `--input`: `@FILE.npy` (or `@FILE.npz` holding one array) or an IREE literal."""
    if text.startswith("@"):
        arrays = read_array_file(text[1:])
        if len(arrays) != 1:
            raise InputError(f"'{text[1:]}' holds {len(arrays)} arrays; --input=@FILE needs "
                             "exactly one (use --inputs for .npz files)")
        return next(iter(arrays.values()))
    return parse_literal(text)


_LITERAL = regex_programs.compile(r"^\s*(?:((?:\d+x)*)([a-z][\w<>]*))\s*(?:=(.*))?$", re.DOTALL)


def parse_literal(text: str) -> np.ndarray:
    """IREE's `--input` syntax: `2x3xf32=1 2 3 4 5 6`, `f32=1.5`, `4xi32=[1 2][3 4]`,
    `2x2xf32=0` (one value fills the tensor), `2x2xf32` (zeros); values separated by spaces
    or commas, brackets ignored, `true`/`false` for i1, `1+2j` for complex."""
    m = _LITERAL.match(text)
    if not m:
        raise InputError(f"cannot parse --input '{text}': expected e.g. '2x3xf32=1 2 3 4 5 6'")
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    dtype = _literal_dtype(m.group(2), text)
    body = m.group(3)
    count = int(np.prod(dims, dtype=np.int64))
    if body is None:
        return np.zeros(dims, dtype)
    tokens = [t for t in re.split(r"[\s,\[\]]+", body) if t]
    if len(tokens) not in (1, count):
        raise InputError(f"--input '{text}': {len(tokens)} values given for a "
                         f"{'x'.join(map(str, dims)) or 'scalar'} tensor of {count} elements")
    try:
        values = [_literal_value(t, dtype) for t in tokens]
        if dtype.kind in "iub":
            flat = _checked_int_array(values, dtype, f"--input '{text}'")
        else:
            flat = np.array(values, dtype=np.complex128 if dtype.kind == "c" else np.float64)
            flat = flat.astype(dtype)
    except ValueError as e:
        raise InputError(f"--input '{text}': {e}") from None
    if len(tokens) == 1:
        return np.full(dims, flat[0], dtype)
    return flat.reshape(dims)


_LITERAL_TYPES = {"i1": "bool", "si8": "int8", "si16": "int16", "si32": "int32",
                  "si64": "int64", "complex64": "complex64", "complex128": "complex128",
                  "complex<f32>": "complex64", "complex<f64>": "complex128"}


def _literal_dtype(name: str, text: str) -> np.dtype:
    from ..ir.diagnostics import Diagnostic, SourceFile
    from ..ir.parser import Parser

    if name in _LITERAL_TYPES:
        return np.dtype(_LITERAL_TYPES[name])
    try:
        parsed = Parser(SourceFile("<input>", name)).parse_type()
        return numpy_dtype(parsed)
    except (Diagnostic, UnsupportedTypeError, ValueError):
        raise InputError(f"--input '{text}': unknown element type '{name}'") from None


def _literal_value(token: str, dtype: np.dtype) -> Any:
    low = token.lower()
    if low in ("true", "false"):
        return low == "true"
    if dtype.kind == "c":
        return complex(token.replace("i", "j"))
    try:
        return int(token, 0) if dtype.kind in "iub" else float(token)
    except ValueError:
        kind = "an integer" if dtype.kind in "iub" else "a number"
        raise ValueError(f"'{token}' is not {kind}") from None


def _checked_int_array(values: Sequence[Any], dtype: np.dtype, what: str) -> np.ndarray:
    info = _int_bounds(dtype)
    for v in values:
        if not info[0] <= int(v) <= info[1]:
            raise InputError(f"{what}: value {int(v)} is out of range for {dtype.name}")
    return np.array([int(v) for v in values], dtype=np.int64).astype(dtype)


def _int_bounds(dtype: np.dtype) -> tuple[int, int]:
    if dtype.kind == "b":
        return 0, 1
    info = ml_dtypes.iinfo(dtype) if not is_native(dtype) else np.iinfo(dtype)
    return int(info.min), int(info.max)


# ---- checking a value against its argument -----------------------------------------------

def coerce_input(value: Any, spec: ArgSpec) -> np.ndarray:
    """`value` as the array `spec` expects: same rank and static sizes. The dtype is converted
    when that keeps the values: ints in range (to ints or exactly to floats), floats to
    floats (rounded, as any float cast), bools; never floats to ints or complex to real."""
    expected = dtype_of(spec)
    array = np.asarray(value)
    if array.dtype == object:
        raise InputError(f"{spec.label}: expected {spec.type}, got an array of Python objects")
    array = from_bits(array, expected)
    if isinstance(spec.type, TensorType):
        shape = spec.type.shape
        if array.ndim != len(shape) or any(e >= 0 and e != g
                                           for e, g in zip(shape, array.shape, strict=False)):
            raise InputError(f"{spec.label}: expected {spec.type}, got an array of shape "
                             f"{_shape_text(array.shape)} and dtype {array.dtype}")
    if array.dtype == expected:
        return array
    if not _convertible(array, expected):
        raise InputError(f"{spec.label}: expected {spec.type}, got an array of dtype "
                         f"{array.dtype} (shape {_shape_text(array.shape)})")
    if expected.kind in "iu" and array.dtype.kind in "iub" and array.size:
        low, high = _int_bounds(expected)
        amin, amax = int(array.min()), int(array.max())
        if amin < low or amax > high:
            bad = amin if amin < low else amax
            raise InputError(f"{spec.label}: value {bad} does not fit in {expected.name} "
                             f"(expected {spec.type}, got dtype {array.dtype})")
    converted = array.astype(expected)
    if array.dtype.kind in "iu" and expected.kind in "fcV" and array.size \
            and not np.array_equal(converted.astype(array.dtype), array):
        raise InputError(f"{spec.label}: integer values of dtype {array.dtype} are not exact "
                         f"in {spec.type}")
    return converted


def _convertible(array: np.ndarray, expected: np.dtype) -> bool:
    src, dst = array.dtype.kind, expected.kind
    if src == "b":
        return dst in "biufcV"
    if src in "iu":
        return dst in "iufcV" or (dst == "b" and bool(np.isin(array, (0, 1)).all()))
    if src in "fV":
        return dst in "fcV" and expected.kind != "V"
    if src == "c":
        return dst == "c"
    return False


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


# ---- random inputs -----------------------------------------------------------------------

def random_inputs(signature: Signature, seed: int = 0,
                  dims: Mapping[str, int] | None = None) -> list[np.ndarray]:
    """Inputs drawn from the signature: floats in [-1, 1), ints in [-10, 10] clipped to the
    type's range, bools, complex with both parts random. A `?` dimension takes the size of
    its named dimension (`dims[name]`), else `dims["?"]`, else DEFAULT_DIM; a dimension
    variable argument takes the size of its variable; a multi-platform jax export's platform
    index is 0 (jax's first platform, as the Python API fills it) unless `dims` names it."""
    from .jax_convention import PLATFORM_INDEX  # (a launch without random inputs skips it)

    dims = dict(dims or {})
    default = dims.get("?", DEFAULT_DIM)
    rng = np.random.default_rng(seed)
    values = []
    for spec in signature.args:
        dtype = dtype_of(spec)
        if spec.dim_var is not None:
            unset = 0 if spec.dim_var == PLATFORM_INDEX else default
            values.append(np.array(dims.get(spec.dim_var, unset), dtype))
            continue
        t = spec.type
        shape: tuple[int, ...] = ()
        if isinstance(t, TensorType):
            names = spec.dim_names or (None,) * len(t.shape)
            shape = tuple(d if d >= 0 else dims.get(n or "?", default)
                          for d, n in zip(t.shape, names, strict=False))
        values.append(random_array(rng, shape, dtype))
    return values


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu" or (not is_native(dtype) and _is_int_like(dtype)):
        low, high = _int_bounds(dtype)
        return rng.integers(max(low, -10), min(high, 10) + 1, shape).astype(dtype)
    if dtype.kind == "c":
        real = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
        return real.astype(dtype)
    if not is_native(dtype) and float(ml_dtypes.finfo(dtype).min) >= 0:  # unsigned: f8E8M0FNU
        return rng.uniform(0.25, 4, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def _is_int_like(dtype: np.dtype) -> bool:
    try:
        ml_dtypes.iinfo(dtype)
        return True
    except (ValueError, TypeError):
        return False


def parse_dims(items: Sequence[str]) -> dict[str, int]:
    """`--dim NAME=SIZE` (a named dimension / dimension variable) or `--dim SIZE` (every
    other dynamic dimension)."""
    dims: dict[str, int] = {}
    for item in items:
        name, _, size = item.rpartition("=")
        if not size.strip().isdigit():
            raise InputError(f"--dim '{item}': expected NAME=SIZE or SIZE (a non-negative "
                             "integer)")
        dims[name.strip() or "?"] = int(size)
    return dims


# ---- writing -----------------------------------------------------------------------------

def save_arrays(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Write `.npz` (every key) or `.npy` (exactly one array) atomically; dtypes numpy cannot
    name are stored as raw bits with a `__dtypes__` entry (see module docstring)."""
    is_npy = path.endswith(".npy")
    if is_npy and len(arrays) != 1:
        raise DataFileError(f"cannot save {len(arrays)} arrays to the .npy file '{path}'; "
                         "use a .npz file")
    stored: dict[str, np.ndarray] = {}
    names = []
    for key, value in arrays.items():
        array = np.asarray(value)
        if not is_native(array.dtype):
            names.append(f"{key}={array.dtype.name}")
            array = array.view(f"u{array.dtype.itemsize}") if array.dtype.itemsize in (1, 2, 4, 8) \
                else array
        stored[key] = array
    if is_npy and names:
        raise DataFileError(f"dtype {names[0].partition('=')[2]} cannot be stored in a .npy file "
                         "with its type; use a .npz file")
    if names:
        stored[DTYPES_KEY] = np.array(names)
    import tempfile  # imported here: a launch writing no data files never needs it

    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".shlo-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                if is_npy:
                    np.save(f, next(iter(stored.values())), allow_pickle=False)
                else:
                    np.savez(f, **stored)
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give a normal file
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
    except OSError as e:
        raise DataFileError(f"cannot write '{path}': {e.strerror}") from None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def results_dict(values: Sequence[Any]) -> dict[str, np.ndarray]:
    return {f"result{i}": np.asarray(v) for i, v in enumerate(values)}

