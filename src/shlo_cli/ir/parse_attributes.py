"""Attribute parsing for the MLIR text parser: attribute dictionaries, builtin attributes
(numbers, strings, arrays, dense elements, symbol refs), `#dialect<...>` attributes and the
structs upstream prints in a fixed field order. `AttributeParsing` is a mixin of `parser.Parser`."""

from __future__ import annotations

import numpy as np

from . import registry, storage
from .attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    DenseResourceAttr,
    DialectAttr,
    DictAttr,
    FloatAttr,
    IntegerAttr,
    OpaqueAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)

# `parse_dense` is looked up here at each call (dialects' fast paths too), so a caller can
# wrap it for a whole parse (benchmarks/parse_print.py times the literals apart that way).
from .dense import STRAY_EXPONENT, DenseLiteralError, element_offset
from .dense import parse_dense as parse_dense
from .diagnostics import Diagnostic, SourceFile
from .lexer import (
    AT,
    BANG,
    BARE,
    EOF,
    FLOAT,
    HASH,
    INT,
    PUNCT,
    STRING,
    Token,
    lazy_regex,
    lex_at,
    possessive,
    unescape_string,
)
from .literal_syntax import check_literal
from .parse_caches import text_cache
from .parse_host import ParserHost
from .parse_types import (
    _CACHE_LIMIT,
    _dialect_hook,
    _normalize_space,
    dialect_body_error,
    scalar_type,
    starts_type,
)
from .types import (
    FloatType,
    IndexType,
    IntegerType,
    OpaqueType,
    TensorType,
    Type,
    VectorType,
    numpy_dtype,
)

SIMPLE_DICT_PATTERN = possessive(
    r'\{(?:[A-Za-z_][A-Za-z0-9_$.]*+ = (?:"[^"\\\n]*+"|-?[0-9]++ : i[0-9]++|true|false)'
    r'(?:, (?=[A-Za-z_]))?+)*+\}')
_SIMPLE_DICT = lazy_regex(SIMPLE_DICT_PATTERN)

_DICT_CACHE: dict[str, dict[str, Attribute]] = text_cache()

# (`#dialect.name`, body) -> attribute
_HASH_ATTR_CACHE: dict[tuple[str, str], Attribute] = text_cache()

# Dictionaries `_SIMPLE_DICT` does not match, by (text, allow_unregistered); texts that name
# something outside themselves (locations, resources, dialect hooks) are never kept, nor
# ones holding `dense<...>` literals: those are decoded every time (by `parse_dense`, which
# benchmarks/parse_print.py times apart).
_TEXT_DICT_CACHE: dict[tuple[str, bool], dict[str, Attribute]] = text_cache()
# A dictionary text with no braces nor strings inside: where `_balanced_end` ends it.
_PLAIN_DICT = lazy_regex(r'\{(?!-#)[^{}"]*\}')
_TEXT_DICT_MAX = 2000  # characters: longer dictionaries are read each time
_UNCACHED_WORDS = ("loc(", "dense_resource", "vhlo", "#loc", "dense<")

DIALECT_ATTR_HOOKS: dict[str, Callable[[Parser, Token], Attribute]] = {}

# Dialect attributes with their own grammar: (dialect, name) -> fn(parser, body, body offset),
# registered by the op modules that own them (e.g. `#stablehlo.conv<...>`), which are
# imported on the attribute's first use (`registry.load_attribute`).
DIALECT_ATTR_PARSERS: dict[tuple[str, str], Callable[[Parser, str, int], Attribute]] = {}

# Structs upstream prints in a fixed field order, leaving out empty lists and zero integers.
STRUCT_FIELD_ORDER: dict[str, tuple[str, ...]] = {
    "gather": ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
               "start_indices_batching_dims", "start_index_map", "index_vector_dim"),
    "scatter": ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                "scatter_indices_batching_dims", "scatter_dims_to_operand_dims",
                "index_vector_dim"),
    "dot": ("lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
            "rhs_contracting_dimensions"),
    "result_accuracy": ("atol", "rtol", "ulps", "mode"),
    # chlo's RaggedDotDimensionNumbersAttr::print (printStruct: empty fields left out)
    "ragged_dot": ("lhs_batching_dimensions", "rhs_batching_dimensions",
                   "lhs_contracting_dimensions", "rhs_contracting_dimensions",
                   "lhs_ragged_dimensions", "rhs_group_dimensions"),
}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .parser import Parser


def int_in_range(number: int, type: Type, negative: bool = False) -> int | None:
    """`number` as an attribute of integer or index `type` holds it (signless values wrap
    to signed), or None where MLIR's range check (buildAttributeAPInt) refuses it: that
    includes `-0`, spelled `negative`, since a negated zero has no sign bit."""
    width = type.width if isinstance(type, IntegerType) else 64
    unsigned = isinstance(type, IntegerType) and type.is_unsigned
    if (unsigned and number < 0) or (negative and number == 0):
        return None
    signed_only = isinstance(type, IndexType) or (isinstance(type, IntegerType)
                                                  and type.signedness == "s")
    low = -(1 << (width - 1)) if width else 0
    high = (1 << (width - 1 if signed_only else width)) - 1
    if width == 1:
        low = -1 if not unsigned else 0
    if number < low or number > high:
        return None
    if not unsigned and width and number >= (1 << (width - 1)):
        number -= 1 << width
    if width == 1:
        number &= 1
    return number


class AttributeParsing(ParserHost):
    """Mixin: `parse_attribute`, attribute dictionaries (needs `Parser`'s token helpers and
    `parse_type`)."""

    def parse_int64(self) -> int:
        """An integer of an int64 attribute in custom syntax (MLIR's `parseInteger<int64_t>`:
        a value beyond int64 is `integer value too large`, at the integer)."""
        tok = self.tok
        value = self.parse_integer()
        if not -(1 << 63) <= value < (1 << 63):
            raise self.op_error("integer value too large", tok)
        return value

    def parse_optional_attr_dict(self) -> dict[str, Attribute]:
        if self.at("{"):
            return self.parse_attr_dict_body()
        return {}

    def parse_properties(self) -> dict[str, Attribute]:
        """A generic op's `<{...}>` dictionary: MLIR reads any attribute after the `<`, so
        what is no attribute is reported as such."""
        if not self.at("{"):
            self.parse_attribute()
        return self.parse_attr_dict_body()

    def parse_attr_dict_body(self) -> dict[str, Attribute]:
        """`{name = attr, unit_name, "quoted" = attr}`."""
        if self.tok.text == "{":
            m = _SIMPLE_DICT.match(self.src, self.tok.start)
            if m is not None:
                key = m.group(0)
                cached = _DICT_CACHE.get(key)
                if cached is not None:
                    self.tok = lex_at(self.src, m.end())
                    return dict(cached)
                parsed = self._parse_attr_dict_body()
                if len(_DICT_CACHE) < _CACHE_LIMIT:
                    _DICT_CACHE[key] = dict(parsed)
                return parsed
            if not (self.attr_aliases or self.type_aliases):
                return self._parse_dict_by_text()
        return self._parse_attr_dict_body()

    def cached_attr_dict(self, pos: int) -> tuple[dict[str, Attribute], int] | None:
        """The dictionary whose `{` is at `pos`, as `parse_attr_dict_body` reads it, when it
        has read that text before (a fresh copy), and the offset after it; None otherwise
        (nothing read). A text by-text reading keeps has no braces or strings inside here."""
        src = self.src
        m = _SIMPLE_DICT.match(src, pos)
        if m is not None:
            cached = _DICT_CACHE.get(m.group(0))
        elif self.attr_aliases or self.type_aliases:
            return None
        else:
            m = _PLAIN_DICT.match(src, pos)
            if m is None:
                return None
            cached = _TEXT_DICT_CACHE.get((m.group(0), self.allow_unregistered))
        if cached is None:
            return None
        return dict(cached), m.end()

    def _parse_dict_by_text(self) -> dict[str, Attribute]:
        """A dictionary at `{` read once per text: with no aliases defined, its attributes
        depend on its text alone (`#dialect.attr<...>` bodies, strings, arrays), so a text
        the token-level reader read before (ending where the brackets balance) is reused."""
        src = self.src
        start = self.tok.start
        try:
            end = self._balanced_end(start, "{", "}")
        except Diagnostic:
            return self._parse_attr_dict_body()  # it reports the unbalanced text its way
        key = (src[start:end], self.allow_unregistered)
        cached = _TEXT_DICT_CACHE.get(key)
        if cached is not None:
            self.tok = lex_at(src, end)
            return dict(cached)
        parsed = self._parse_attr_dict_body()
        text = key[0]
        if (len(text) <= _TEXT_DICT_MAX and len(_TEXT_DICT_CACHE) < _CACHE_LIMIT
                and not any(word in text for word in _UNCACHED_WORDS)
                and self.tok.start == lex_at(src, end).start):
            _TEXT_DICT_CACHE[key] = dict(parsed)
        return parsed

    def _parse_attr_dict_body(self) -> dict[str, Attribute]:
        self.expect("{", "in attribute dictionary")
        out: dict[str, Attribute] = {}
        if self.accept("}"):
            return out
        while True:
            tok = self.tok
            if tok.kind == BARE:
                key = tok.text
            elif tok.kind == STRING:
                key = unescape_string(tok.text)
            else:
                raise self.wrong_token_error("expected attribute name")
            self.advance()
            if key in out:
                raise self.error(f"duplicate key '{key}' in dictionary attribute", tok)
            out[key] = self.parse_attribute() if self.accept("=") else UnitAttr()
            if not self.accept(","):
                break
        self.expect("}", "in attribute dictionary")
        return out

    def parse_attribute(self, type_hint: Type | None = None) -> Attribute:
        ops = self.custom_ops
        if ops and ops[-1] is not None:  # attribute errors carry no `custom op` prefix
            ops.append(None)
            try:
                return self._parse_attribute(type_hint)
            finally:
                ops.pop()
        return self._parse_attribute(type_hint)

    def _parse_attribute(self, type_hint: Type | None = None) -> Attribute:
        tok = self.tok
        kind = tok.kind
        if kind == BARE:
            text = tok.text
            if text == "dense":
                return self.parse_dense_attr()
            if text == "true" or text == "false":
                self.advance()
                return BoolAttr(text == "true")
            if text == "array":
                return self._parse_dense_array()
            if text == "unit":
                self.advance()
                return UnitAttr()
            if text == "dense_resource":
                self.advance()
                self.expect("<")
                handle = self.parse_keyword()
                self.expect(">")
                self.expect(":")
                return DenseResourceAttr(handle, self.parse_type(), self.resources)
            if text in ("affine_map", "affine_set", "distinct", "strided"):
                self.advance()
                if self.at("["):
                    end = self._balanced_end(self.tok.start, "[", "]")
                    self.tok = lex_at(self.src, end)
                end = self._balanced_end(self.tok.start, "<", ">")
                body = self.src[tok.start:end]
                self.tok = lex_at(self.src, end)
                return OpaqueAttr(_normalize_space(body))
            if text == "loc":
                return self.parse_location()
            if not starts_type(text):
                raise self.wrong_token_error("expected attribute value")
            return TypeAttr(self.parse_type())
        if kind in (INT, FLOAT) or (kind == PUNCT and tok.text == "-"):
            return self._parse_number_attr(type_hint)
        if kind == STRING:
            self.advance()
            if self.at(":") and self.peek_next().kind in (BARE, BANG):
                self.advance()
                return StringAttr(unescape_string(tok.text), self.parse_type())
            return StringAttr(unescape_string(tok.text))
        if kind == PUNCT:
            if tok.text == "[":
                self.advance()
                items: list[Attribute] = []
                if not self.at("]"):
                    items.append(self.parse_attribute())
                    while self.accept(","):
                        items.append(self.parse_attribute())
                self.expect("]", "in attribute list")
                return ArrayAttr(tuple(items))
            if tok.text == "{":
                return DictAttr(tuple(self.parse_attr_dict_body().items()))
            if tok.text == "(":
                return TypeAttr(self.parse_type())
        if kind == AT:
            root = self.parse_symbol_name()
            nested = []
            # `@a::@b`: MLIR's lexer has no `::`; two colons in a row nest a reference.
            while self.at(":") and self.peek_next().text == ":":
                self.advance()
                self.advance()
                if self.tok.kind != AT:
                    raise self.error("expected nested symbol reference identifier")
                nested.append(self.parse_symbol_name())
            return SymbolRefAttr(root, tuple(nested))
        if kind == HASH:
            return self._parse_hash_attr()
        if kind == BANG:
            return TypeAttr(self.parse_type())
        raise self.wrong_token_error("expected attribute value")

    def _parse_number_attr(self, type_hint: Type | None) -> Attribute:
        negative = self.accept("-")
        tok = self.tok
        if tok.kind not in (INT, FLOAT):
            raise self.error("expected constant integer or floating point value")
        self.advance()
        type = type_hint
        if self.at(":"):
            self.advance()
            type = self.parse_type()
        if tok.kind == FLOAT and type is not None and not isinstance(type, FloatType):
            raise self.error("floating point value not valid for specified type", tok)
        if tok.kind == FLOAT or isinstance(type, FloatType):
            if tok.kind == INT:
                assert isinstance(type, FloatType)  # (an INT token got here by the type)
                value = self._float_from_integer_token(tok, negative, type)
            else:
                value = -float(tok.text) if negative else float(tok.text)
            return FloatAttr(value, type or FloatType("f64"))
        number = int(tok.text, 16) if tok.text.startswith("0x") else int(tok.text)
        type = type or IntegerType(64)
        if not isinstance(type, (IntegerType, IndexType)):
            raise self.error("integer literal not valid for specified type", tok)
        number = self._check_int_range(number, negative, type, tok)
        return IntegerAttr(number, type)

    def _float_from_integer_token(self, tok: Token, negative: bool, type: FloatType) -> float:
        """A float spelled as an integer token: only its bits in hex (MLIR's
        parseFloatFromIntegerLiteral); `42 : f32` is refused, not read as 42.0."""
        if not tok.text.startswith("0x"):
            error = self.error("unexpected decimal integer literal for a floating point value",
                               tok)
            error.notes.append(Diagnostic("add a trailing dot to make the literal a float",
                                          self.source, tok.start, severity="note"))
            raise error
        if negative:
            raise self.error("hexadecimal float literal should not have a leading minus", tok)
        bits = int(tok.text, 16)
        if bits >> type.width:
            raise self.error("hexadecimal float constant out of range for type", tok)
        return _float_from_bits(bits, type)

    def _check_int_range(self, magnitude: int, negative: bool, type: Type, tok: Token) -> int:
        """MLIR's range check for integer literals; signless values wrap to signed."""
        if isinstance(type, IntegerType) and type.is_unsigned and negative:
            raise self.error("negative integer literal not valid for unsigned integer type", tok)
        value = int_in_range(-magnitude if negative else magnitude, type, negative)
        if value is None:
            raise self.error("integer constant out of range for attribute", tok)
        return value

    def _parse_dense_array(self) -> Attribute:
        """`array<i64: 1, 2>`, `array<i1: true>`, `array<f32: 1.0, 0x7FC00000>`, `array<i8>`."""
        self.advance()
        self.expect("<")
        type_tok = self.tok
        element = self.parse_type()
        if not isinstance(element, (IntegerType, FloatType)):
            raise self.error("expected integer or float type", type_tok)
        items: list[Any] = []
        if self.accept(":"):
            while True:
                items.append(self._dense_array_float(element)
                             if isinstance(element, FloatType)
                             else self._dense_array_int(element))
                if not self.accept(","):
                    break
        self.expect(">", "to close an array attribute")
        return DenseArrayAttr(element, tuple(items))

    def _dense_array_float(self, element: FloatType) -> float:
        """One element of a float dense array (MLIR's parseFloatElement)."""
        negative = self.accept("-")
        tok = self.tok
        if tok.kind not in (INT, FLOAT):
            raise self.error("expected floating point literal")
        self.advance()
        if tok.kind == INT:
            return self._float_from_integer_token(tok, negative, element)
        return -float(tok.text) if negative else float(tok.text)

    def _dense_array_int(self, element: IntegerType) -> int | bool:
        """One element of an integer dense array (MLIR's parseIntegerElement): i1 takes
        only `true`/`false`, other widths only integers."""
        negative = self.accept("-")
        tok = self.tok
        if tok.kind == BARE and tok.text in ("true", "false"):
            if element.width != 1:
                raise self.error("expected i1 type for 'true' or 'false' values")
            self.advance()
            return tok.text == "true"
        if tok.kind != INT:
            raise self.error("expected integer literal")
        self.advance()  # MLIR reports the next two at the token after the number
        if element.width == 1:
            raise self.error("expected 'true' or 'false' values for i1 type")
        number = int(tok.text, 16) if tok.text.startswith("0x") else int(tok.text)
        value = int_in_range(-number if negative else number, element, negative)
        if value is None:
            raise self.error("integer constant out of range")
        return value

    def parse_dense_attr(self) -> Attribute:
        """`dense<...> : type` at the current token (public: dialects' fast parsers use it)."""
        dense_tok = self.advance()
        if not self.at("<"):
            raise self.wrong_token_error("expected '<' after 'dense'")
        body_start = self.tok.end
        try:
            first = _skip_ws(self.src, body_start)
            if self.src.startswith(">", first):
                body = ""
                self.tok = lex_at(self.src, first + 1)
            else:
                end = self._dense_body_end(body_start)
                body = self.src[body_start:end]
                self.tok = lex_at(self.src, end + 1)
            if not self.at(":"):
                raise self.wrong_token_error("expected ':'")
            self.advance()
            type = self.parse_type()
            if not isinstance(type, (TensorType, VectorType)):  # MLIR reports these at `dense`
                raise self.error("elements literal must be a shaped type", dense_tok)
            if isinstance(type, TensorType) and not type.is_static:
                raise self.error("elements literal type must have static shape", dense_tok)
            if isinstance(type.element, OpaqueType) and body.lstrip().startswith('"'):
                # A string literal of another dialect's element type (`dense<"hello"> :
                # tensor<!tf_type.string>`, MLIR's DenseStringElementsAttr): kept as written.
                return OpaqueAttr(f"dense<{body.strip()}> : {type}")
            try:
                return parse_dense(body, type)
            except DenseLiteralError as e:
                message = str(e)
                if e.element is not None:
                    where = body_start + element_offset(body, e.element) + e.shift
                else:
                    where = body_start + e.offset if e.offset >= 0 else dense_tok.start
                if message == STRAY_EXPONENT:  # what MLIR's parser expects after the number
                    message = "expected ']'" if body.lstrip().startswith("[") \
                        else "expected '>'"
                error = self.error(message, offset=where)
                if e.note:  # MLIR's attached note, at the error's place
                    error.notes.append(Diagnostic(e.note, self.source, where, severity="note"))
                raise error from None
        except Diagnostic:
            # MLIR reads the whole literal before its type: a malformed one is what it
            # reports (this walk runs only once the one-pass reading above has failed).
            check_literal(self, body_start)
            raise

    def _dense_body_end(self, start: int) -> int:
        """Offset of the `>` closing a dense literal that starts at `start`."""
        src = self.src
        if src.startswith('"', _skip_ws(src, start)):
            i = _skip_ws(src, start) + 1
            close = src.find('"', i)
            if close < 0:
                raise self.error("expected '\"' in string literal", offset=start)
            end = _skip_ws(src, close + 1)
            if end >= len(src) or src[end] != ">":
                raise self.error("expected '>'", offset=end)
            return end
        end = src.find(">", start)
        if end < 0:
            raise self.error("expected '>'", offset=start)
        return end

    def _parse_hash_attr(self) -> Attribute:
        tok = self.advance()
        text = tok.text
        if text in self.attr_aliases:
            return self.attr_aliases[text]
        hook = _dialect_hook(DIALECT_ATTR_HOOKS, text[1:].split(".", 1)[0])
        if hook is not None:
            return hook(self.as_parser(), tok)  # the mixin only lives in Parser
        if not self.at("<"):
            if "." in text:
                dialect, name = text[1:].split(".", 1)
                if (dialect, name) in DIALECT_ATTR_PARSERS or registry.load_attribute(dialect,
                                                                                      name):
                    raise self.wrong_token_error("expected '<'")  # the dialect's parseLess
                return DialectAttr(dialect, name, "")
            raise self.error(f"undefined symbol alias id '{text[1:]}'", tok)
        end = self._balanced_end(self.tok.start, "<", ">")
        body_start = self.tok.end
        body = self.src[body_start:end - 1]
        self.tok = lex_at(self.src, end)
        # A body naming no alias (`#a`, `!t`) always gives the same attribute: parsed once.
        key = (text, body) if "#" not in body and "!" not in body else None
        if key is not None:
            cached = _HASH_ATTR_CACHE.get(key)
            if cached is not None:
                return cached
        try:
            attr = self._parse_dialect_attr_body(text, body, body_start)
        except Diagnostic:
            # MLIR scans the body for balanced brackets of every kind before reading it.
            found = dialect_body_error(self.src, body_start - 1)
            if found is not None:
                raise self.error(found[0], offset=found[1]) from None
            raise
        if key is not None and len(_HASH_ATTR_CACHE) < _CACHE_LIMIT:
            _HASH_ATTR_CACHE[key] = attr
        return attr

    def _parse_dialect_attr_body(self, text: str, body: str, body_start: int) -> Attribute:
        """`#dialect.name<body>` from its body text (at offset `body_start`)."""
        dialect, _, name = text[1:].partition(".")
        if dialect == "stablehlo" and name in ("bounds", "type_extensions"):
            return self._bounds_attr(name, body, body_start)
        parse_body = DIALECT_ATTR_PARSERS.get((dialect, name))
        if parse_body is None and registry.load_attribute(dialect, name):
            parse_body = DIALECT_ATTR_PARSERS.get((dialect, name))
        if parse_body is not None:
            return parse_body(self.as_parser(), body, body_start)
        fields = None
        if name and dialect in ("stablehlo", "chlo", "mhlo"):
            fields = parse_struct_fields(self.as_parser(), body, body_start)
        if fields is not None:
            shown = canonical_fields(name, fields)
            body = ", ".join(f"{k} = {format_field(v)}" for k, v in shown)
        else:
            body = _normalize_space(body)
        return DialectAttr(dialect, name, body, tuple(fields) if fields is not None else None)

    def _bounds_attr(self, name: str, body: str, body_start: int) -> DialectAttr:
        """`#stablehlo.bounds<3, ?>`, also spelled `#stablehlo.type_extensions<bounds = [3, ?]>`
        (one attribute: it always prints as `bounds`). ``get("bounds")`` gives the list with
        None for `?`."""
        import re  # (not imported by launches without bounds)

        inner = body
        if name == "type_extensions":
            m = re.fullmatch(r"\s*bounds\s*=\s*\[(.*)\]\s*", body, re.S)
            if m is None:
                raise self.error("expected 'bounds = [...]'", offset=body_start)
            inner = m.group(1)
        items = [x.strip() for x in inner.split(",")] if inner.strip() else []
        for item in items:
            if item != "?" and not re.fullmatch(r"-?[0-9]+", item):
                raise self.error("expected integer value or '?' in bounds", offset=body_start)
        bounds = [None if x == "?" else int(x) for x in items]
        return DialectAttr("stablehlo", "bounds", ", ".join(items), (("bounds", bounds),))


def register_dialect_attributes(dialect: str, fn: Callable[[Parser, Token], Attribute]) -> None:
    """Let `fn` parse every `#dialect<...>` / `#dialect.*` attribute."""
    DIALECT_ATTR_HOOKS[dialect] = fn


def canonical_fields(name: str, fields: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    order = STRUCT_FIELD_ORDER.get(name)
    if order is None or any(k not in order for k, _ in fields):
        return fields
    found = dict(fields)
    return [(k, found[k]) for k in order
            if k in found and not (isinstance(found[k], (list, int, float)) and not found[k]
                                   and not isinstance(found[k], bool))]


def _skip_ws(src: str, pos: int) -> int:
    while pos < len(src) and src[pos] in " \t\r\n":
        pos += 1
    return pos


def _float_from_bits(bits: int, type: Type | None) -> float:

    if not isinstance(type, FloatType):
        type = FloatType("f64")
    if type.name in storage.FLOAT_CODES:
        return storage.bits_float(bits & ((1 << 8 * storage.FLOAT_CODES[type.name][2]) - 1),
                                  type.name)
    dtype = numpy_dtype(type)
    raw = np.array([bits], dtype=np.uint64).astype(f"u{max(dtype.itemsize, 1)}")
    return float(raw.view(dtype)[0])


def parse_struct_fields(parser: Parser, body: str, offset: int) -> list[tuple[str, Any]] | None:
    """`key = value, ...` bodies of `#stablehlo.name<...>` structs, or None for other shapes."""
    if "=" not in body:
        return None
    sub = type(parser)(SourceFile(parser.source.name, body), parser.allow_unregistered)
    sub.attr_aliases = parser.attr_aliases
    fields: list[tuple[str, Any]] = []
    try:
        while sub.tok.kind != EOF:
            key = sub.parse_keyword()
            sub.expect("=")
            fields.append((key, _parse_struct_value(sub)))
            if not sub.accept(","):
                break
        if sub.tok.kind != EOF:
            return None
    except Diagnostic:
        return None
    return fields


def _parse_struct_value(p: Parser) -> Any:
    tok = p.tok
    if p.at("["):
        p.advance()
        items: list[Any] = []
        if not p.at("]"):
            items.append(_parse_struct_value(p))
            while p.accept(","):
                items.append(_parse_struct_value(p))
        p.expect("]")
        return items
    if tok.kind == INT or (tok.kind == PUNCT and tok.text == "-"):
        negative = p.accept("-")
        t = p.tok
        if t.kind not in (INT, FLOAT):
            raise p.error("expected integer value")
        p.advance()
        if t.kind == FLOAT:
            value: Any = float(t.text)
        else:
            value = int(t.text, 16) if t.text.startswith("0x") else int(t.text)
        return -value if negative else value
    if tok.kind == FLOAT:
        return float(p.advance().text)
    if tok.kind == BARE:
        if tok.text in ("true", "false"):
            p.advance()
            return tok.text == "true"
        if scalar_type(tok.text) is not None or tok.text in ("tensor", "complex"):
            return p.parse_type()
        return p.advance().text
    return p.parse_attribute()


def format_field(value: Any) -> str:
    from .floats import format_float

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(format_field(v) for v in value) + "]"
    if isinstance(value, float):
        return format_float(value, FloatType("f64"))
    return str(value)
