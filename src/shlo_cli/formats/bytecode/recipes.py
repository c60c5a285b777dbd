"""Recorded attribute and type encodings ("templates"), resolved into the writer's recipes.

A dialect encoder runs once per attribute or type value and writes through a
`TemplateRecorder`: raw bytes stay bytes, and each reference (attribute, type, string,
resource) is kept as the referenced object. Numbering then resolves a template into a
recipe, whose references are the numbered entries, and the writer replays the recipe once
all numbers are final. A type's template depends only on the type (types are immutable and
the parser shares them), so templates of types are kept across writes (see numbering).

The builtin attributes met in nearly every program (dictionaries, arrays, integers, type
and symbol attributes, dense elements and arrays) have direct encoders here that produce
the same bytes as `builtin.write_attribute` without a recorder.
"""

from __future__ import annotations

from ...ir.attributes import Attribute
from ...ir.types import Type
from .encoding import Emitter, encode_varint, zigzag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

# Template and recipe items besides raw bytes: (kind, payload). In a recipe an attribute
# or type reference is the bare entry (the writer emits its number); the others stay pairs.
REF_ATTR, REF_OPTIONAL_ATTR, REF_TYPE, REF_RESOURCE, REF_STRING = range(5)

_MASK64 = (1 << 64) - 1


def apint_bytes(value: int, width: int) -> bytes:
    """An APInt of known width: a byte up to 8 bits, a signed varint up to 64, else the
    count of active 64-bit words and each word as a signed varint."""
    value &= (1 << width) - 1
    if width <= 8:
        return bytes((value & 0xFF,))
    if width <= 64:
        return encode_varint(zigzag(value))
    words = max(1, (value.bit_length() + 63) // 64)
    return encode_varint(words) + b"".join(
        encode_varint(zigzag((value >> (64 * i)) & _MASK64)) for i in range(words))


class TemplateRecorder:
    """The writer a dialect encoder sees: bytes are buffered, references recorded as the
    objects they name (resolved to numbered entries later)."""

    __slots__ = ("version", "out", "items")

    def __init__(self, version: int) -> None:
        self.version = version
        self.out = Emitter()
        self.items: list[Any] = []

    def _ref(self, kind: int, payload: Any) -> None:
        buf = self.out.buf
        if buf:
            self.items.append(bytes(buf))
            buf.clear()
        self.items.append((kind, payload))

    def finish(self) -> list[Any]:
        buf = self.out.buf
        if buf:
            self.items.append(bytes(buf))
        return self.items

    def attribute(self, attr: Attribute) -> None:
        self._ref(REF_ATTR, attr)

    def optional_attribute(self, attr: Attribute | None) -> None:
        if attr is None:
            self.out.varint(0)
        else:
            self._ref(REF_OPTIONAL_ATTR, attr)

    def attributes(self, attrs: Iterable[Attribute]) -> None:
        attrs = list(attrs)
        self.out.varint(len(attrs))
        for attr in attrs:
            self._ref(REF_ATTR, attr)

    def type(self, type: Type) -> None:
        self._ref(REF_TYPE, type)

    def types(self, types: Iterable[Type]) -> None:
        types = list(types)
        self.out.varint(len(types))
        for type in types:
            self._ref(REF_TYPE, type)

    def resource(self, key: str) -> None:
        self._ref(REF_RESOURCE, key)

    def varint(self, value: int) -> None:
        self.out.varint(value)

    def signed_varint(self, value: int) -> None:
        self.out.signed_varint(value)

    def signed_varints(self, values: Iterable[int]) -> None:
        values = list(values)
        self.out.varint(len(values))
        for value in values:
            self.out.signed_varint(value)

    def string(self, text: str) -> None:
        self._ref(REF_STRING, text)

    def blob(self, data: bytes) -> None:
        self.out.varint(len(data))
        self.out.raw(data)

    def bool(self, value: bool) -> None:
        self.out.byte(1 if value else 0)

    def apint(self, value: int, width: int) -> None:
        self.out.raw(apint_bytes(value, width))
