"""`#stablehlo.channel_handle<...>` and `#stablehlo.output_operand_alias<...>`: struct
attributes whose parameters upstream's generated parsers type-check while reading them (a
value of another kind is a parse error there, so it never reaches a verifier or kernel)."""

from __future__ import annotations

from typing import Any

from ...ir.attributes import DialectAttr
from ...ir.parse_attributes import DIALECT_ATTR_PARSERS, format_field, parse_struct_fields

_CHANNEL_FIELDS = ("handle", "type")
_ALIAS_FIELDS = ("output_tuple_indices", "operand_index", "operand_tuple_indices")
_ALIAS_PARAMETERS = {"output_tuple_indices": "outputTupleIndices",
                     "operand_index": "operandIndex",
                     "operand_tuple_indices": "operandTupleIndices"}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _attr(name: str, fields: list[tuple[str, Any]]) -> DialectAttr:
    text = ", ".join(f"{k} = {format_field(v)}" for k, v in fields)
    return DialectAttr("stablehlo", name, text, tuple(fields))


def parse_channel_handle(p: Any, body: str, offset: int) -> DialectAttr:
    """`<handle = 1, type = 0>`: `struct(params)`, its two int64 parameters in any order."""
    fields = parse_struct_fields(p, body, offset) or []
    names = [key for key, _ in fields]
    for key in names:
        if key not in _CHANNEL_FIELDS or names.count(key) > 1:
            raise p.error(f"duplicate or unknown struct parameter name: {key}", offset=offset)
    values = dict(fields)
    for key in _CHANNEL_FIELDS:
        if key not in values:
            raise p.error(f"struct is missing required parameter: {key}", offset=offset)
        if not _is_int(values[key]):
            raise p.error(f"failed to parse StableHLO_ChannelHandle parameter '{key}' which is "
                          "to be a `int64_t`", offset=offset)
    return _attr("channel_handle", [(key, values[key]) for key in _CHANNEL_FIELDS])


def parse_output_operand_alias(p: Any, body: str, offset: int) -> DialectAttr:
    """`<output_tuple_indices = [..], operand_index = i, operand_tuple_indices = [..]>`: the
    three parameters, in this order (a fixed assembly format)."""
    fields = parse_struct_fields(p, body, offset) or []
    for i, key in enumerate(_ALIAS_FIELDS):
        if i >= len(fields) or fields[i][0] != key:
            raise p.error(f"expected '{key}'", offset=offset)
        value = fields[i][1]
        indices = isinstance(value, list) and all(_is_int(v) for v in value)
        if not (_is_int(value) if key == "operand_index" else indices):
            kind = "int64_t" if key == "operand_index" else "::llvm::ArrayRef<int64_t>"
            raise p.error(f"failed to parse StableHLO_OutputOperandAlias parameter "
                          f"'{_ALIAS_PARAMETERS[key]}' which is to be a `{kind}`", offset=offset)
    if len(fields) > len(_ALIAS_FIELDS):
        raise p.error("expected '>'", offset=offset)
    return _attr("output_operand_alias", fields)


DIALECT_ATTR_PARSERS[("stablehlo", "channel_handle")] = parse_channel_handle
DIALECT_ATTR_PARSERS[("stablehlo", "output_operand_alias")] = parse_output_operand_alias
