"""`interpreter.run_parallel` (a grid of processes, one thread each) and `interpreter.probe`.

run_parallel: `programs` is a replicas x partitions grid of function names; inputs and results
are flattened in row-major (replica, partition) order. The running interpreter runs the grid
(`ctx.interpreter.run_grid`, interpreter/parallel.py): one Interpreter per process, and the
first failing process ends the run.

probe: writes the tensor to `<dir>/probe<N>.npy` (N counts probes of the whole run, from 1)
in upstream's NumPy layout and appends `probe_id,type,path` to `<dir>/index.csv`. Both files
are written atomically (temporary file + rename) and only inside the probe directory.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from ..ir.attributes import ArrayAttr, StringAttr, SymbolRefAttr
from ..ir.context import Context
from ..ir.core import Operation
from ..ir.diagnostics import Diagnostic, EvaluationError
from ..ir.types import ComplexType, FloatType, FunctionType, IntegerType, TensorType, Type
from .registry import define_op
from .syntax import Custom

# ---- interpreter.run_parallel ---------------------------------------------------------------

def _symbol_rows(op: Operation, name: str) -> list[list[str]] | None:
    attr = op.attr(name)
    if attr is None:
        return None
    if not isinstance(attr, ArrayAttr):
        return []
    rows = []
    for row in attr.elements:
        if not isinstance(row, ArrayAttr) or not all(
                isinstance(e, SymbolRefAttr) for e in row.elements):
            raise EvaluationError(f"'{name}' must be an array of arrays of symbol references")
        rows.append([e.root for e in row.elements])
    return rows


def _functions(op: Operation) -> dict[str, Operation]:
    module = op.parent_op
    while module is not None and module.name != "builtin.module":
        module = module.parent_op
    symbols: dict[str, Operation] = {}
    if module is not None:
        for child in module.regions[0].entry.operations:
            sym = child.attr("sym_name")
            if child.name == "func.func" and sym is not None:
                symbols[sym.value] = child
    return symbols


def run_parallel_error(op: Operation, functions: dict[str, Operation]) -> str | None:
    """Upstream's RunParallelOp::verify, as a message (None when the op is valid)."""
    if op.attr("programs") is None:
        return "'interpreter.run_parallel' op requires attribute 'programs'"
    programs = _symbol_rows(op, "programs") or []
    if not programs or not programs[0]:
        return "`programs` attribute cannot be empty"
    num_partitions = len(programs[0])
    num_args = num_results = 0
    for replica in programs:
        if len(replica) != num_partitions:
            return (f"Sizes of second dimension of `programs` should all match "
                    f"{num_partitions} but got {len(replica)}")
        for name in replica:
            func = functions.get(name)
            if func is None:
                return f"Function {StringAttr(name)} not found"
            ftype: FunctionType = func.attr("function_type").value
            num_args += len(ftype.inputs)
            num_results += len(ftype.results)
    if len(op.operands) != num_args:
        return (f"Number of inputs ({len(op.operands)}) should match the sum of the number of "
                f"inputs of all programs ({num_args})")
    if len(op.results) != num_results:
        return (f"Number of results ({len(op.results)}) should match the sum of the number of "
                f"results of all programs ({num_results})")
    infeed = op.attr("infeed")
    if infeed is not None:
        names = [e.root for e in infeed.elements if isinstance(e, SymbolRefAttr)] \
            if isinstance(infeed, ArrayAttr) else []
        if not names:
            return "infeed attribute is optional or should not be empty"
        for name in names:
            func = functions.get(name)
            if func is None:
                return f"Function {StringAttr(name)} not found"
            results = func.attr("function_type").value.results
            if len(results) != 1:
                return (f"Function {StringAttr(name)} should return 1 tensor but returns "
                        f"{len(results)}")
            if not isinstance(results[0], TensorType):
                return (f"Function {StringAttr(name)} should return a tensor type, but instead "
                        f"returns '{results[0]}'")
    return None


def verify_run_parallel(op: Operation) -> None:
    try:
        message = run_parallel_error(op, _functions(op))
    except EvaluationError as e:
        message = str(e)
    if message is not None:
        raise Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


@define_op("interpreter.run_parallel", operands=("*inputs",), results="*",
           attributes=("programs", "infeed?"), verify=verify_run_parallel)
def run_parallel(*inputs: Any, op: Operation, ctx: Context) -> Any:
    """Runs programs[i][j] as process (i, j) of a grid, each in its own thread, and returns
    the results of all processes in row-major (replica, partition) order."""
    functions = {f.attr("sym_name").value: f for f in ctx.interpreter.module.functions()}
    message = run_parallel_error(op, functions)
    if message is not None:
        raise EvaluationError(message)
    programs = _symbol_rows(op, "programs") or []
    infeed = op.attr("infeed")
    infeed_names = [e.root for e in infeed.elements] if isinstance(infeed, ArrayAttr) else []
    results = ctx.interpreter.run_grid([[functions[n] for n in row] for row in programs],
                                       inputs, infeed_names)
    flat = [value for process_results in results for value in process_results]
    return flat[0] if len(op.results) == 1 else flat


# ---- interpreter.probe ----------------------------------------------------------------------

INDEX_FILE = "index.csv"
_probe_lock = threading.Lock()


def _numpy_code(etype: Type) -> tuple[str, int] | None:
    """Upstream's NumPy (kind, itemsize) per element type (NumPy.cpp `dispatchType`)."""
    if isinstance(etype, IntegerType):
        signless = etype.signedness == ""
        if etype.width == 1 and signless:
            return "i", 1
        sizes = {8: 1, 16: 2, 32: 4, 64: 8}
        if etype.width not in sizes:
            return None
        size = sizes[etype.width]
        if etype.width == 64:  # upstream maps signless i64 to uint64 and the others to int64
            return ("u" if signless else "i"), size
        return ("i" if signless else "u"), size
    if isinstance(etype, FloatType):
        return {"f16": ("u", 2), "bf16": ("u", 2), "f32": ("f", 4),
                "f64": ("f", 8)}.get(etype.name)
    if isinstance(etype, ComplexType) and isinstance(etype.element, FloatType):
        return {"f32": ("f", 8), "f64": ("c", 16)}.get(etype.element.name)
    return None


def numpy_file_bytes(value: np.ndarray, type: TensorType) -> bytes:
    """The `.npy` bytes upstream writes for a tensor: v1.0 header, then the raw data."""
    code = _numpy_code(type.element)
    if code is None:
        raise EvaluationError(f"Unknown type: {type.element} cannot be serialized")
    kind, size = code
    shape = "".join(f"{d}," for d in value.shape)
    header = f"{{'descr': '<{kind}{size}', 'fortran_order': False, 'shape' : ({shape}), }}"
    header += " " * (16 - (8 + 1) % 16 - 1) + "\n"
    length = len(header).to_bytes(2, "little")
    data = np.ascontiguousarray(value)
    if data.dtype.kind == "b":
        data = data.astype(np.uint8)
    return b"\x93NUMPY\x01\x00" + length + header.encode("latin-1") + data.tobytes()


def check_probe_id(probe_id: str) -> None:
    """Refuse ids that read like a way out of the probe directory."""
    parts = probe_id.replace("\\", "/").split("/")
    if os.path.isabs(probe_id) or probe_id.startswith(("/", "\\")) or ".." in parts:
        raise EvaluationError(
            f"invalid probe_id \"{probe_id}\": it must not be an absolute path or contain '..'")
    if any(c in probe_id for c in "\n\r\0"):
        raise EvaluationError(
            f"invalid probe_id {probe_id!r}: it must not contain line breaks or NUL")


def _write_atomically(directory: str, name: str, data: bytes) -> str:
    """Write `directory/name` through a temporary file in the same folder and a rename. The
    file gets the mode a plain create gives (0666 less the umask, as upstream's probe files
    have), not mkstemp's owner-only 0600; the umask is applied by the kernel, so threads
    writing probes at once never change it."""
    path = os.path.join(directory, name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        temp = os.path.join(directory, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            fd = os.open(temp, flags, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no free temporary name for '{path}'")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    return path


def _next_probe_number(ctx: Context) -> int:
    with _probe_lock:
        number = int(ctx.options.get("_probe_counter", 0)) + 1
        ctx.options["_probe_counter"] = number
        return number


def _parse_probe(p: Any, opdef: Any, location: Any, num_results: int) -> Operation:
    """`%x, probe_id = "id" {attrs} : T` (upstream's assembly format)."""
    tok = p.tok
    operand = p.parse_operand()
    p.expect(",")
    p.expect_keyword("probe_id")
    p.expect("=")
    props = {"probe_id": StringAttr(p.parse_string())}
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    p.check_operand_types([operand], [t], tok)
    return p.build_operation(opdef.name, opdef, [operand], [t], props, attributes, [], None,
                             location)


def _print_probe(pr: Any, op: Operation) -> None:
    pr.write(f" {pr.name(op.operands[0])}, probe_id = {op.properties['probe_id']}"
             + pr.attr_dict(op.attributes) + f" : {op.results[0].type}")


@define_op("interpreter.probe", operands=("operand",), results=1, attributes=("probe_id",),
           syntax=Custom(_parse_probe, _print_probe))
def probe(operand: np.ndarray, *, probe_id: str, op: Operation, ctx: Context) -> np.ndarray:
    """Serializes operand for later inspection and returns it unchanged."""
    try:
        serialize_probe(np.asarray(operand), op.operands[0].type, probe_id, ctx)
    except EvaluationError as e:  # worded like upstream's fallback failures
        raise EvaluationError(f"{op.name} failed: {e}") from None
    return operand


def serialize_probe(value: np.ndarray, type: TensorType, probe_id: str, ctx: Context) -> None:
    """Write `<dir>/probe<N>.npy`, then append its record to `<dir>/index.csv`."""
    check_probe_id(probe_id)
    directory = str(ctx.options.get("probe_output_dir") or "")
    if not directory:
        raise EvaluationError("Probe serialization directory cannot be empty.")
    contents = numpy_file_bytes(value, type)
    number = _next_probe_number(ctx)
    with _probe_lock:
        try:  # like `mkdir -p`: a folder that does not exist yet is made on first use
            os.makedirs(directory, exist_ok=True)
        except OSError as e:
            raise EvaluationError(f"cannot create probe directory '{directory}': "
                                  f"{e.strerror or e}") from None
        try:
            path = _write_atomically(directory, f"probe{number}.npy", contents)
        except OSError:
            raise EvaluationError("Failed to open NumPy file.") from None
        try:
            index = os.path.join(directory, INDEX_FILE)
            try:
                with open(index, "rb") as f:
                    previous = f.read()
            except FileNotFoundError:
                previous = b""
            line = f"{probe_id},{type},{path}\n".encode()
            _write_atomically(directory, INDEX_FILE, previous + line)
        except OSError:
            raise EvaluationError("Failed to open instrumentation metadata file.") from None

