"""The few `memref` and `bufferization` ops upstream's pass tests use around StableHLO:
`memref.cast`, `bufferization.to_tensor` and `bufferization.to_buffer`. Memref types are kept
as text (the interpreter does not run these ops); they parse, verify their operand/result
kinds and print in upstream's syntax, so passes such as `--stablehlo-convert-to-signless` can
retype them. Folders: an identity `memref.cast` is its source, and `to_buffer(to_tensor(m))`
of the same type is `m` (as MLIR folds them)."""

from __future__ import annotations

from typing import Any

from ..ir.core import Location, Operation
from ..ir.diagnostics import Diagnostic
from ..ir.types import OpaqueType, TensorType, Type, UnrankedTensorType
from .registry import OpDef, declare_op, folder
from .syntax import Custom


def is_memref(t: Type) -> bool:
    return isinstance(t, OpaqueType) and t.text.startswith("memref<")


def _is_tensor(t: Type) -> bool:
    return isinstance(t, (TensorType, UnrankedTensorType))


def _parser(flags: tuple[str, ...]) -> Any:
    """`$source (flag)* attr-dict : type($source) to type($result)`."""

    def parse(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
        tok = p.tok
        source = p.parse_operand()
        properties: dict[str, Any] = {}
        for flag in flags:
            if p.at(flag):
                from ..ir.attributes import UnitAttr

                p.advance()
                properties[flag] = UnitAttr()
        attributes = p.parse_optional_attr_dict()
        p.expect(":")
        p.check_operand_types([source], [p.parse_type()], tok)
        p.expect_keyword("to")
        result = p.parse_type()
        return p.build_operation(opdef.name, opdef, [source], [result], properties,
                                 attributes, [], None, location)

    return parse


def _printer(flags: tuple[str, ...]) -> Any:
    def print_(pr: Any, op: Operation) -> None:
        pr.write(" " + pr.operands(op.operands))
        for flag in flags:
            if flag in op.properties:
                pr.write(f" {flag}")
        pr.write(pr.attr_dict(op.attributes))
        pr.write(f" : {op.operands[0].type} to {op.results[0].type}")

    return print_


def _verifier(source_ok: Any, result_ok: Any, what: str) -> Any:
    def verify(op: Operation) -> None:
        if not (source_ok(op.operands[0].type) and result_ok(op.results[0].type)):
            raise Diagnostic(f"'{op.name}' op {what}", line=op.location.line or None,
                             col=op.location.col or None)

    return verify


declare_op("memref.cast", syntax=Custom(_parser(()), _printer(())),
           verify=_verifier(is_memref, is_memref, "operand and result must be memrefs"),
           asm_result_name=lambda op: "cast")
declare_op("bufferization.to_tensor",
           syntax=Custom(_parser(("restrict", "writable")), _printer(("restrict", "writable"))),
           properties=("restrict", "writable"),
           verify=_verifier(is_memref, _is_tensor,
                            "converts a memref operand to a tensor result"))
declare_op("bufferization.to_buffer",
           syntax=Custom(_parser(("read_only",)), _printer(("read_only",))),
           properties=("read_only",),
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
