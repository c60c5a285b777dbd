"""The few `memref` and `bufferization` ops upstream's pass tests use around StableHLO:
`memref.cast`, `bufferization.to_tensor` and `bufferization.to_buffer`. Memref types are kept
as text (the interpreter does not run these ops); they parse, verify their operand/result
kinds and print in upstream's syntax, so passes such as `--stablehlo-convert-to-signless` can
retype them. Folders: an identity `memref.cast` is its source, and `to_buffer(to_tensor(m))`
of the same type is `m` (as MLIR folds them)."""

from __future__ import annotations

from typing import Any

from ..ir.core import Operation
from ..ir.diagnostics import Diagnostic
from ..ir.types import OpaqueType, TensorType, Type, UnrankedTensorType
from .registry import declare_op, folder
from .syntax import cast_syntax


def is_memref(t: Type) -> bool:
    return isinstance(t, OpaqueType) and t.text.startswith("memref<")


def _is_tensor(t: Type) -> bool:
    return isinstance(t, (TensorType, UnrankedTensorType))


def _verifier(source_ok: Any, result_ok: Any, what: str) -> Any:
    def verify(op: Operation) -> None:
        if not (source_ok(op.operands[0].type) and result_ok(op.results[0].type)):
            raise Diagnostic(f"'{op.name}' op {what}", line=op.location.line or None,
                             col=op.location.col or None)

    return verify


declare_op("memref.cast", operands=("source",), results=1, syntax=cast_syntax(),
           verify=_verifier(is_memref, is_memref, "operand and result must be memrefs"),
           asm_result_name=lambda op: "cast")
declare_op("bufferization.to_tensor", operands=("buffer",), results=1,
           attributes=("restrict?", "writable?"), syntax=cast_syntax("restrict", "writable"),
           verify=_verifier(is_memref, _is_tensor,
                            "converts a memref operand to a tensor result"))
declare_op("bufferization.to_buffer", operands=("tensor",), results=1, attributes=("read_only?",),
           syntax=cast_syntax("read_only"),
           verify=_verifier(_is_tensor, is_memref,
                            "converts a tensor operand to a memref result"))


@folder("memref.cast")
def _fold_memref_cast(op: Operation, constants: list[Any]) -> Any:
    source = op.operands[0]
    return source if source.type == op.results[0].type else None


@folder("bufferization.to_buffer")
def _fold_to_buffer(op: Operation, constants: list[Any]) -> Any:
    producer = op.operands[0].owner
    if isinstance(producer, Operation) and producer.name == "bufferization.to_tensor":
        buffer = producer.operands[0]
        if buffer.type == op.results[0].type:
            return buffer
    return None
