"""MLIR text parser: generic op form, custom op syntax via the registry, types, attributes.

Errors raise :class:`Diagnostic` located at the offending token, worded like MLIR's parser.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from . import registry
from .attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    DenseElementsAttr,
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
from .core import Block, Location, Module, Operation, Region, Value
from .dense import DenseLiteralError, parse_dense_literal
from .diagnostics import Diagnostic, SourceFile
from .lexer import (
    AT,
    BANG,
    BARE,
    CARET,
    EOF,
    FLOAT,
    HASH,
    INT,
    INVALID,
    PERCENT,
    PUNCT,
    STRING,
    Token,
    lex_at,
    unescape_string,
)
from .locations import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    LocAliasRef,
    LocationAttr,
    NameLoc,
    UnknownLoc,
)
from .types import (
    DYNAMIC,
    ComplexType,
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    NoneType,
    OpaqueType,
    QuantizedType,
    TensorType,
    TokenType,
    TupleType,
    Type,
    UnrankedTensorType,
    UnsupportedTypeError,
    VectorType,
    numpy_dtype,
)

_FLOAT_NAMES = {
    "f16", "bf16", "f32", "f64", "tf32", "f80", "f128", "f4E2M1FN", "f6E2M3FN", "f6E3M2FN",
    "f8E3M4", "f8E4M3", "f8E4M3FN", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ",
    "f8E8M0FNU",
}
_INT_TYPE = re.compile(r"([su]?)i([0-9]+)")
_SIMPLE_TENSOR = re.compile(
    r"tensor<((?:(?:[0-9]+|\?)x)*)([A-Za-z][A-Za-z0-9]*|complex<[a-z0-9]+>)>")
_DIMS = re.compile(r"\s*((?:(?:[0-9]+|\?)\s*x\s*)*)")
_QUANT_HEAD = re.compile(
    r"\s*(ui|si|u|i)([0-9]+)(?:<\s*(-?[0-9]+)\s*:\s*(-?[0-9]+)\s*>)?\s*:\s*([A-Za-z0-9]+)\s*(?::\s*(-?[0-9]+))?\s*,\s*")
_QUANT_PARAM = re.compile(
    r"\s*([-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?|0x[0-9A-Fa-f]+)\s*(?::\s*(-?[0-9]+))?\s*")

_TYPE_CACHE: dict[str, Type] = {}
# Fast paths: whole function types of plain tensors and dictionaries of plain entries are
# parsed once per distinct text (types and attributes are immutable, so sharing is safe).
_T = r"tensor<(?:(?:[0-9]+|\?)x)*(?:[A-Za-z][A-Za-z0-9]*|complex<[a-z0-9]+>)>"
_SIMPLE_FUNC = re.compile(rf"\((?:{_T}(?:, {_T})*)?\) -> (?:{_T}|\((?:{_T}(?:, {_T})*)?\))")
_SIMPLE_DICT = re.compile(
    r'\{(?:[A-Za-z_][A-Za-z0-9_$.]* = (?:"[^"\\\n]*"|-?[0-9]+ : i[0-9]+|true|false)'
    r'(?:, (?=[A-Za-z_]))?)*\}')
_FUNC_CACHE: dict[str, Type] = {}
_CACHE_LIMIT = 1 << 16  # entries per cache; beyond it texts are parsed every time
_DICT_CACHE: dict[str, dict[str, Attribute]] = {}
MAX_INT_WIDTH = 16777215  # IntegerType::kMaxWidth


def scalar_type(name: str) -> Type | None:
    """The builtin scalar type spelled `name` (i32, ui8, bf16, index, ...), or None."""
    if name in _FLOAT_NAMES:
        return FloatType(name)
    m = _INT_TYPE.fullmatch(name)
    if m:
        width = int(m.group(2))
        if width > MAX_INT_WIDTH:
            return None
        return IntegerType(width, m.group(1))
    if name == "index":
        return IndexType()
    if name == "none":
        return NoneType()
    return None


class Parser:
    """Recursive-descent parser over one source chunk."""

    def __init__(self, source: SourceFile, allow_unregistered: bool = False) -> None:
        self.source = source
        self.src = source.text
        self.allow_unregistered = allow_unregistered
        self.tok: Token = lex_at(self.src, 0)
        self.attr_aliases: dict[str, Attribute] = {}
        self.type_aliases: dict[str, Type] = {}
        self.loc_aliases: dict[str, LocationAttr] = {}
        self.loc_alias_uses: list[Token] = []
        self.resources: dict[str, Any] = {}  # `{-# dialect_resources #-}` blobs by key
        # Scopes of SSA names: (names, isolated). Lookups stop at an isolated scope.
        self.scopes: list[tuple[dict[str, Value], bool]] = []
        self.block_scopes: list[dict[str, Block]] = []
        self.forward_refs: dict[int, tuple[str, Token]] = {}
        self.block_uses: dict[int, Token] = {}
        self.default_dialects: list[str] = []
        self._peeked: Token | None = None
        self._peek_from = -1
        # Innermost op whose custom parser is running (None inside types, attributes, regions
        # and generic ops): MLIR's CustomOpAsmParser prefixes its errors with the op name.
        self.custom_ops: list[str | None] = []

    # ---- token helpers -------------------------------------------------------------------

    def advance(self) -> Token:
        tok = self.tok
        if self._peek_from == tok.end and self._peeked is not None:
            self.tok = self._peeked
            self._peeked = None
        else:
            self.tok = lex_at(self.src, tok.end)
        return tok

    def peek_next(self) -> Token:
        """The token after the current one (cached so `advance` does not lex it again)."""
        end = self.tok.end
        if self._peeked is None or self._peek_from != end:
            self._peeked = lex_at(self.src, end)
            self._peek_from = end
        return self._peeked

    def error(self, message: str, tok: Token | None = None,
              offset: int | None = None) -> Diagnostic:
        where = tok or self.tok
        if offset is None and where.kind == INVALID:
            # The parser stopped at text the lexer could not read: report that instead.
            message = ("expected '\"' in string literal" if where.text in ('"', "@")
                       else "unexpected character")
        pos = offset if offset is not None else where.start
        return Diagnostic(message, self.source, pos)

    def op_error(self, message: str, tok: Token | None = None) -> Diagnostic:
        """An error from an op's custom parser: `custom op '<name>' message`, as in MLIR."""
        ops = self.custom_ops
        if ops and ops[-1] is not None:
            message = f"custom op '{ops[-1]}' {message}"
        return self.error(message, tok)

    def wrong_token_error(self, message: str) -> Diagnostic:
        """MLIR's emitWrongTokenError: a token starting a line is reported at the end of
        the previous line's code (before any `//` comment)."""
        pos = self.tok.start
        text = self.src[:pos]
        while True:
            text = text.rstrip(" \t")
            if not text:
                return self.error(message)
            if text[-1] not in "\n\r":
                return self.error(message, offset=len(text))
            text = text[:-1]
            line_start = max(text.rfind("\n"), text.rfind("\r")) + 1
            comment = text.find("//", line_start)
            if comment != -1:
                text = text[:comment]

    def at(self, text: str) -> bool:
        return self.tok.text == text and self.tok.kind in (PUNCT, BARE)

    def accept(self, text: str) -> bool:
        tok = self.tok
        if tok.text == text and (tok.kind == PUNCT or tok.kind == BARE):
            if self._peek_from == tok.end and self._peeked is not None:
                self.tok = self._peeked
                self._peeked = None
            else:
                self.tok = lex_at(self.src, tok.end)
            return True
        return False

    def expect(self, text: str, context: str = "") -> Token:
        tok = self.tok
        if self.accept(text):
            return tok
        suffix = f" {context}" if context else ""
        raise self.error(f"expected '{text}'{suffix}")

    def expect_keyword(self, word: str) -> None:
        if not (self.tok.kind == BARE and self.tok.text == word):
            raise self.op_error(f"expected '{word}'")
        self.advance()

    def parse_keyword(self) -> str:
        if self.tok.kind != BARE:
            raise self.op_error("expected valid keyword")
        return self.advance().text

    def parse_integer(self) -> int:
        negative = self.accept("-")
        if self.tok.kind != INT:
            raise self.op_error("expected integer value")
        text = self.advance().text
        value = int(text, 16) if text.startswith("0x") else int(text)
        return -value if negative else value

    def parse_string(self) -> str:
        if self.tok.kind != STRING:
            raise self.error("expected string")
        return unescape_string(self.advance().text)

    def parse_symbol_name(self) -> str:
        if self.tok.kind != AT:
            raise self.op_error("expected valid '@'-identifier for symbol name")
        text = self.advance().text[1:]
        return unescape_string(text) if text.startswith('"') else text

    def file_location(self, tok: Token) -> FileLineColLoc:
        """`loc("file":line:col)` of a token."""
        line, col = self.source.position(tok.start)
        return FileLineColLoc(self.source.name, line, col)

    def location_here(self, tok: Token | None = None) -> Location:
        line, col = self.source.position((tok or self.tok).start)
        return Location(self.source.name, line, col)

    # ---- module --------------------------------------------------------------------------

    def parse_module(self) -> Module:
        ops: list[Operation] = []
        resources = self.resources
        self.scopes.append(({}, True))
        self.block_scopes.append({})
        while self.tok.kind != EOF:
            tok = self.tok
            if tok.kind in (HASH, BANG) and self.peek_next().text == "=":
                self._parse_alias_definition()
            elif tok.kind == PUNCT and tok.text == "{-#":
                self.resources.update(self._parse_resources())
            else:
                ops.append(self.parse_operation())
        self._check_forward_refs()
        for use in self.loc_alias_uses:
            if use.text[1:] not in self.loc_aliases:
                raise self.error(f"undefined symbol alias id '{use.text[1:]}'", use)
        self.scopes.pop()
        self.block_scopes.pop()
        if len(ops) == 1 and ops[0].name == "builtin.module":
            module_op = ops[0]
        else:
            opdef = registry.lookup("builtin.module")
            body = Block()
            for op in ops:
                body.append(op)
            # MLIR gives an implicit module the location `"file":0:0`.
            module_op = Operation("builtin.module", regions=[Region([body])],
                                  location=Location(self.source.name, 0, 0), opdef=opdef)
        return Module(module_op, resources, self.source.name, self.src)

    def _parse_alias_definition(self) -> None:
        tok = self.advance()
        self.expect("=")
        if tok.kind == HASH:
            if self.tok.kind == BARE and self.tok.text == "loc":
                self.loc_aliases[tok.text[1:]] = self.parse_location()
            else:
                self.attr_aliases[tok.text] = self.parse_attribute()
        else:
            self.type_aliases[tok.text] = self.parse_type()

    def _parse_resources(self) -> dict[str, Any]:
        """`{-# dialect_resources: { builtin: { name: "0x..." } } #-}`."""
        self.expect("{-#")
        out: dict[str, Any] = {}
        while not self.at("#-}"):
            self.parse_keyword()
            self.expect(":")
            self.expect("{")
            while not self.accept("}"):
                self.parse_keyword()  # dialect name
                self.expect(":")
                self.expect("{")
                while not self.accept("}"):
                    key = self.advance().text
                    self.expect(":")
                    if self.tok.kind == STRING:
                        out[key] = self.parse_string()
                    else:
                        out[key] = self.advance().text
                    self.accept(",")
                self.accept(",")
            self.accept(",")
        self.expect("#-}")
        return out

    # ---- values and scopes ---------------------------------------------------------------

    def push_scope(self, isolated: bool) -> None:
        self.scopes.append(({}, isolated))
        self.block_scopes.append({})

    def pop_scope(self) -> None:
        self.scopes.pop()
        blocks = self.block_scopes.pop()
        for label, block in blocks.items():
            if block.parent is None:
                use = self.block_uses.get(id(block))
                raise self.error(f"reference to an undefined block '{label}'", use)

    def define_value(self, name: str, value: Value, tok: Token | None = None) -> None:
        names = self.scopes[-1][0]
        placeholder = names.get(name)
        if placeholder is not None:
            if id(placeholder) in self.forward_refs:
                self._resolve_forward(placeholder, value, name, tok)
            else:
                raise self.error(f"redefinition of SSA value '{name}'", tok)
        names[name] = value
        value.name_hint = name

    def _resolve_forward(self, placeholder: Value, value: Value, name: str,
                         tok: Token | None) -> None:
        del self.forward_refs[id(placeholder)]
        if placeholder.type is not None and placeholder.type != value.type:
            raise self.error(
                f"definition of SSA value '{name}#0' has type {value.type}", tok)
        # Rewire uses of the placeholder (uses are recorded on the placeholder's owner list).
        for op in placeholder.owner or []:
            op.operands = [value if v is placeholder else v for v in op.operands]

    def lookup_value(self, name: str, tok: Token) -> Value:
        for names, isolated in reversed(self.scopes):
            v = names.get(name)
            if v is not None:
                return v
            if "#" in name:
                base, _, index = name.partition("#")
                single = names.get(base)
                if single is not None and id(single) not in self.forward_refs:
                    if index == "0":
                        return single
                    raise self.error("reference to invalid result number", tok)
                if names.get(base + "#0") is not None:
                    raise self.error("reference to invalid result number", tok)
            if isolated:
                break
        # A forward reference: resolved when the name is defined later in this scope.
        placeholder = Value(None, [], 0, name)  # type: ignore[arg-type]
        self.scopes[-1][0][name] = placeholder
        self.forward_refs[id(placeholder)] = (name, tok)
        return placeholder

    def _check_forward_refs(self) -> None:
        if self.forward_refs:
            name, tok = min(self.forward_refs.values(), key=lambda x: x[1].start)
            raise self.error("use of undeclared SSA value name", tok)

    def note_uses(self, op: Operation) -> None:
        """Record `op` as a user of any forward-referenced operands (to rewire later)."""
        if self.forward_refs:
            for v in op.operands:
                if id(v) in self.forward_refs:
                    v.owner.append(op)  # type: ignore[union-attr]

    def parse_operand(self) -> Value:
        tok = self.tok
        if tok.kind != PERCENT:
            raise self.error("expected SSA operand")
        self.advance()
        return self.lookup_value(tok.text, tok)

    def parse_operand_with_type(self, value: Value, type: Type, tok: Token) -> Value:
        if value.type is None:
            value.type = type
        elif value.type != type:
            raise self.error(
                f"use of value '{value.name_hint}' expects different type than prior uses: "
                f"'{type}' vs '{value.type}'", tok)
        return value

    def parse_operand_list(self, close: str | None = None) -> list[Value]:
        """`%a, %b, ...` (possibly empty when `close` is the next token)."""
        values: list[Value] = []
        if close is not None and self.at(close):
            return values
        if self.tok.kind != PERCENT:
            return values
        values.append(self.parse_operand())
        while self.accept(","):
            values.append(self.parse_operand())
        return values

    def check_operand_types(self, operands: list[Value], types: list[Type], tok: Token) -> None:
        if len(operands) != len(types):
            raise self.op_error(
                f"{len(operands)} operands present, but expected {len(types)}", tok)
        for v, t in zip(operands, types, strict=True):
            self.parse_operand_with_type(v, t, tok)

    def resolve_operands(self, operands: list[Value], types: list[Type], tok: Token) -> None:
        """MLIR's OpAsmParser::resolveOperands (its own count-mismatch wording)."""
        if len(operands) != len(types):
            raise self.op_error(
                f"number of operands and types do not match: got {len(operands)} operands "
                f"and {len(types)} types", tok)
        self.check_operand_types(operands, types, tok)

    # ---- operations ----------------------------------------------------------------------

    def parse_operation(self) -> Operation:
        start = self.tok
        result_names: list[tuple[str, int, Token]] = []
        num_results = 0
        if start.kind == PERCENT:
            after = self.peek_next()
            if after.text == "=" and after.kind == PUNCT:  # the common `%name = ` prefix
                self.advance()
                self.advance()
                result_names.append((start.text, 1, start))
                num_results = 1
        if start.kind == PERCENT and not result_names:
            while True:
                tok = self.tok
                if tok.kind != PERCENT:
                    raise self.error("expected valid ssa identifier")
                self.advance()
                count = 1
                if self.accept(":"):
                    count = self.parse_integer()
                result_names.append((tok.text, count, tok))
                if not self.accept(","):
                    break
            self.expect("=", "after SSA name")
            num_results = sum(c for _, c, _ in result_names)
        name_tok = self.tok
        line, col = self.source.position(name_tok.start)
        location = Location(self.source.name, line, col)
        if name_tok.kind == STRING:
            op = self.parse_generic_operation(location)
        elif name_tok.kind == BARE:
            op = self._parse_custom_operation(location, num_results)
        else:
            raise self.error("expected operation name in quotes")
        self._parse_trailing_location(op)
        if result_names and num_results != len(op.results):
            raise self.error(
                f"operation defines {len(op.results)} results but was provided "
                f"{num_results} to bind", start)
        index = 0
        for name, count, tok in result_names:
            if count == 1:
                self.define_value(name, op.results[index], tok)
                index += 1
            else:
                for i in range(count):
                    self.define_value(f"{name}#{i}", op.results[index], tok)
                    index += 1
        self.note_uses(op)
        return op

    def _parse_custom_operation(self, location: Location, num_results: int) -> Operation:
        tok = self.tok
        name = tok.text
        opdef = registry.lookup(name)
        if opdef is None and "." not in name:
            if name == "module":
                opdef = registry.lookup("builtin.module")
            elif self.default_dialects and self.default_dialects[-1]:
                opdef = registry.lookup(f"{self.default_dialects[-1]}.{name}")
        if opdef is None or opdef.syntax is None:
            raise self.error(f"custom op '{name}' is unknown")
        self.advance()
        self.custom_ops.append(opdef.name)
        try:
            return opdef.syntax.parse(self, opdef, location, num_results)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as e:
            # A custom parser tripping over malformed input still gives a located error.
            raise self.error(f"custom op '{name}' could not be parsed: {e}", tok) from None
        finally:
            self.custom_ops.pop()

    def parse_generic_operation(self, location: Location) -> Operation:
        self.custom_ops.append(None)
        try:
            return self._parse_generic_operation(location)
        finally:
            self.custom_ops.pop()

    def _parse_generic_operation(self, location: Location) -> Operation:
        name_tok = self.advance()
        name = unescape_string(name_tok.text)
        opdef = registry.lookup(name)
        dialect = name.split(".", 1)[0] if "." in name else ""
        # An unknown op of a known dialect is built; the verifier rejects it, in MLIR's order.
        if opdef is None and not self.allow_unregistered and not registry.is_known_dialect(
                dialect):
            raise self.error(
                "operation being parsed with an unregistered dialect. If this is intended, "
                "please use -allow-unregistered-dialect with the MLIR tool used", name_tok)
        self.expect("(", "to start operand list")
        operands = self.parse_operand_list(")")
        self.expect(")", "to end operand list")
        successors: list[Block] = []
        if self.accept("["):
            successors.append(self.parse_successor())
            while self.accept(","):
                successors.append(self.parse_successor())
            self.expect("]")
        properties: dict[str, Attribute] = {}
        if self.at("<"):
            self.advance()
            properties = self.parse_attr_dict_body()
            self.expect(">")
        regions: list[Region] = []
        if self.accept("("):
            isolated = opdef.isolated if opdef else False
            regions.append(self.parse_region(isolated=isolated))
            while self.accept(","):
                regions.append(self.parse_region(isolated=isolated))
            self.expect(")", "to end region list")
        attributes: dict[str, Attribute] = {}
        if self.at("{"):
            attributes = self.parse_attr_dict_body()
        type_tok = self.expect(":", "followed by operation type")
        ftype = self.parse_type()
        if not isinstance(ftype, FunctionType):
            raise self.error("expected function type", type_tok)
        if len(ftype.inputs) != len(operands):
            count = len(operands)
            raise self.error(f"expected {count} operand type{'' if count == 1 else 's'} but had "
                             f"{len(ftype.inputs)}", type_tok)
        self.check_operand_types(operands, list(ftype.inputs), name_tok)
        return self.build_operation(name, opdef, operands, list(ftype.results), properties,
                                    attributes, regions, successors, location)

    def build_operation(self, name: str, opdef: Any, operands: list[Value],
                        result_types: list[Type],
                        properties: dict[str, Attribute], attributes: dict[str, Attribute],
                        regions: list[Region], successors: list[Block] | None,
                        location: Location) -> Operation:
        """Create an op, moving inherent attributes into properties as MLIR does."""
        if opdef is not None and attributes:
            for key in [k for k in attributes if k in opdef.properties]:
                properties.setdefault(key, attributes.pop(key))
        return Operation(name, operands, result_types, properties, attributes, regions,
                         successors, location, opdef)

    def parse_successor(self) -> Block:
        tok = self.tok
        if tok.kind != CARET:
            raise self.error("expected block name")
        self.advance()
        blocks = self.block_scopes[-1]
        block = blocks.get(tok.text)
        if block is None:
            block = Block()
            block.label = tok.text
            blocks[tok.text] = block
            self.block_uses[id(block)] = tok
        return block

    def _parse_trailing_location(self, op: Operation) -> None:
        if self.tok.kind == BARE and self.tok.text == "loc":
            op.location.attr = self.parse_location()

    def parse_optional_location(self) -> Attribute | None:
        if self.tok.kind == BARE and self.tok.text == "loc":
            return self.parse_location()
        return None

    def parse_location(self) -> LocationAttr:
        """`loc(...)`: file:line:col, name, callsite, fused, unknown or a `#loc` alias."""
        self.expect_keyword("loc")
        self.expect("(", "in location")
        loc = self._parse_location_body()
        self.expect(")", "in location")
        return loc

    def _parse_location_body(self) -> LocationAttr:
        tok = self.tok
        if tok.kind == HASH:
            self.advance()
            self.loc_alias_uses.append(tok)
            return LocAliasRef(tok.text[1:], self.loc_aliases)
        if tok.kind == STRING:
            self.advance()
            text = unescape_string(tok.text)
            if self.accept(":"):
                line = self.parse_integer()
                self.expect(":", "in file line col location")
                col = self.parse_integer()
                if self.tok.kind == BARE and self.tok.text == "to":  # a range: keep the start
                    self.advance()
                    self.accept(":")
                    self.parse_integer()
                    if self.accept(":"):
                        self.parse_integer()
                return FileLineColLoc(text, line, col)
            if self.accept("("):
                child = self._parse_location_body()
                self.expect(")", "after child location of NameLoc")
                return NameLoc(text, child)
            return NameLoc(text)
        if tok.kind == BARE:
            if tok.text == "unknown":
                self.advance()
                return UnknownLoc()
            if tok.text == "callsite":
                self.advance()
                self.expect("(", "in callsite location")
                callee = self._parse_location_body()
                self.expect_keyword("at")
                caller = self._parse_location_body()
                self.expect(")", "in callsite location")
                return CallSiteLoc(callee, caller)
            if tok.text == "fused":
                self.advance()
                metadata = None
                if self.accept("<"):
                    metadata = self.parse_attribute()
                    self.expect(">", "after fused location metadata")
                self.expect("[", "in fused location")
                locs = [self._parse_location_body()]
                while self.accept(","):
                    locs.append(self._parse_location_body())
                self.expect("]", "in fused location")
                return FusedLoc(tuple(locs), metadata)
        raise self.error("expected location instance")

    # ---- regions -------------------------------------------------------------------------

    def parse_region(self, entry_args: list[tuple[Token, Type, Any]] | None = None,
                     isolated: bool = False, default_dialect: str = "") -> Region:
        """`{ ops }` or `{ ^bb0(%a: t): ops ^bb1: ... }`; `entry_args` are pre-declared
        block arguments (from custom syntax like `func.func @f(%arg0: t)`)."""
        self.expect("{", "to begin a region")
        region = Region()
        self.push_scope(isolated)
        self.default_dialects.append(default_dialect)
        self.custom_ops.append(None)
        try:
            if entry_args is not None or not (self.at("}") or self.tok.kind == CARET):
                block = Block()
                for tok, type, loc in entry_args or []:
                    value = block.add_argument(type)
                    # Without `loc(...)` an argument is located at its name, as in MLIR.
                    block.arg_locations[-1] = loc or self.file_location(tok)
                    self.define_value(tok.text, value, tok)
                region.add_block(block)
                self._parse_block_body(block)
            while self.tok.kind == CARET:
                region.add_block(self._parse_labeled_block())
            self.expect("}", "to end region")
        finally:
            self.default_dialects.pop()
            self.custom_ops.pop()
        self.pop_scope()
        return region

    def _parse_labeled_block(self) -> Block:
        tok = self.advance()
        blocks = self.block_scopes[-1]
        block = blocks.get(tok.text)
        if block is None:
            block = Block()
            block.label = tok.text
            blocks[tok.text] = block
        elif block.parent is not None:
            raise self.error(f"redefinition of block '{tok.text}'", tok)
        if self.accept("("):
            if not self.at(")"):
                while True:
                    arg_tok = self.tok
                    if arg_tok.kind != PERCENT:
                        raise self.error("expected SSA operand")
                    self.advance()
                    self.expect(":")
                    type = self.parse_type()
                    value = block.add_argument(type)
                    block.arg_locations[-1] = (self.parse_optional_location()
                                               or self.file_location(arg_tok))
                    self.define_value(arg_tok.text, value, arg_tok)
                    if not self.accept(","):
                        break
            self.expect(")")
        self.expect(":")
        # Mark as placed (parent set when the region adds it).
        self._parse_block_body(block)
        return block

    def _parse_block_body(self, block: Block) -> None:
        while not (self.at("}") or self.tok.kind in (CARET, EOF)):
            block.append(self.parse_operation())
        if self.tok.kind == EOF:
            raise self.error("expected '}' to end region")

    # ---- attribute dictionaries ----------------------------------------------------------

    def parse_optional_attr_dict(self) -> dict[str, Attribute]:
        if self.at("{"):
            return self.parse_attr_dict_body()
        return {}

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
        return self._parse_attr_dict_body()

    def _parse_attr_dict_body(self) -> dict[str, Attribute]:
        self.expect("{")
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
                raise self.error("expected attribute name")
            self.advance()
            if key in out:
                raise self.error(f"duplicate key '{key}' in dictionary attribute", tok)
            out[key] = self.parse_attribute() if self.accept("=") else UnitAttr()
            if not self.accept(","):
                break
        self.expect("}", "in attribute dictionary")
        return out

    # ---- types ---------------------------------------------------------------------------

    def parse_type(self) -> Type:
        ops = self.custom_ops
        if ops and ops[-1] is not None:  # type errors carry no `custom op` prefix
            ops.append(None)
            try:
                return self._parse_type()
            finally:
                ops.pop()
        return self._parse_type()

    def _parse_type(self) -> Type:
        tok = self.tok
        if tok.kind == BARE:
            text = tok.text
            if text == "tensor":
                m = _SIMPLE_TENSOR.match(self.src, tok.start)
                if m is not None:
                    key = m.group(0)
                    cached = _TYPE_CACHE.get(key)
                    if cached is None:
                        cached = self._parse_tensor_type()
                        if len(_TYPE_CACHE) < _CACHE_LIMIT:
                            _TYPE_CACHE[key] = cached
                    else:
                        self.tok = lex_at(self.src, m.end())
                    return cached
                return self._parse_tensor_type()
            scalar = scalar_type(text)
            if scalar is not None:
                self.advance()
                return scalar
            if _INT_TYPE.fullmatch(text):
                raise self.error("invalid integer width")
            if text == "complex":
                self.advance()
                self.expect("<", "in complex type")
                inner_tok = self.tok
                inner = self.parse_type()
                if not isinstance(inner, (FloatType, IntegerType)):
                    raise self.error("invalid element type for complex", inner_tok)
                self.expect(">", "in complex type")
                return ComplexType(inner)
            if text == "tuple":
                self.advance()
                self.expect("<")
                types = [] if self.at(">") else self.parse_type_list()
                self.expect(">")
                return TupleType(tuple(types))
            if text == "vector":
                self.advance()
                self.expect("<")
                shape = self._parse_dims()
                element = self.parse_type()
                self.expect(">")
                return VectorType(tuple(shape), element)
            if text == "memref" and self.src.startswith("<", self.tok.end):
                # Not a StableHLO type, but builtin: kept as text so verifiers can reject it.
                end = self._balanced_end(self.tok.end, "<", ">")
                self.tok = lex_at(self.src, end)
                return OpaqueType(_normalize_space(self.src[tok.start:end]))
            raise self.error("expected non-function type")
        if tok.kind == BANG:
            return self._parse_dialect_type()
        if tok.kind == PUNCT and tok.text == "(":
            m = _SIMPLE_FUNC.match(self.src, tok.start)
            if m is not None:
                key = m.group(0)
                cached = _FUNC_CACHE.get(key)
                if cached is not None:
                    after = lex_at(self.src, m.end())
                    if after.text != "->":  # not a function type returning a function
                        self.tok = after
                        return cached
                else:
                    cached = self._parse_function_type()
                    if self.tok.start == lex_at(self.src, m.end()).start:
                        if len(_FUNC_CACHE) < _CACHE_LIMIT:
                            _FUNC_CACHE[key] = cached
                    return cached
            return self._parse_function_type()
        raise self.error("expected non-function type")

    def parse_type_list(self) -> list[Type]:
        types = [self.parse_type()]
        while self.accept(","):
            types.append(self.parse_type())
        return types

    def parse_function_result_types(self) -> list[Type]:
        """Results after `->`: a single type or a parenthesized list."""
        if self.at("("):
            nxt = self.peek_next()
            self.advance()
            if nxt.text == ")":
                self.advance()
                return []
            types = self.parse_type_list()
            self.expect(")")
            if len(types) == 1 and self.at("->"):
                # `(a) -> b` is a function type used as a result.
                self.advance()
                return [FunctionType(tuple(types), tuple(self.parse_function_result_types()))]
            return types
        return [self.parse_type()]

    def _parse_function_type(self) -> FunctionType:
        self.expect("(")
        inputs = [] if self.at(")") else self.parse_type_list()
        self.expect(")")
        if not self.accept("->"):
            raise self.wrong_token_error("expected '->' in function type")
        return FunctionType(tuple(inputs), tuple(self.parse_function_result_types()))

    def parse_dimension_list(self) -> list[int]:
        """`2x?x3x` before an element type (DYNAMIC for `?`); leaves the token after it."""
        return self._parse_dims()

    def _parse_dims(self) -> list[int]:
        """Character-level `2x?x3x` before an element type; leaves the token after it."""
        m = _DIMS.match(self.src, self.tok.start)
        dims = []
        text = m.group(1)
        if text:
            for part in text.split("x")[:-1]:
                part = part.strip()
                dims.append(DYNAMIC if part == "?" else int(part))
        self.tok = lex_at(self.src, m.end())
        return dims

    def _parse_tensor_type(self) -> Type:
        tensor_tok = self.advance()  # tensor
        if not self.at("<"):
            raise self.error("expected '<' in tensor type")
        self.tok = lex_at(self.src, self.tok.end)
        if self.at("*"):
            self.advance()
            if not (self.tok.kind == BARE and self.tok.text.startswith("x")):
                raise self.error("expected 'x' in unranked tensor type")
            # `*xf32` lexes as `*` then `xf32`: re-scan after the `x`.
            self.tok = lex_at(self.src, self.tok.start + 1)
            element = self.parse_type()
            self.expect(">")
            return UnrankedTensorType(element)
        shape = self._parse_dims()
        elem_tok = self.tok
        element = self.parse_type()
        if isinstance(element, (FunctionType, TensorType, TupleType, UnrankedTensorType)):
            raise self.error("invalid tensor element type", elem_tok)
        encoding = None
        if self.accept(","):
            encoding = self.parse_attribute()
            _check_bounds(self, shape, encoding, tensor_tok)
        self.expect(">", "in tensor type")
        return TensorType(tuple(shape), element, encoding)

    def _parse_dialect_type(self) -> Type:
        tok = self.advance()
        text = tok.text
        if text in self.type_aliases:
            return self.type_aliases[text]
        hook = _dialect_hook(DIALECT_TYPE_HOOKS, text[1:].split(".", 1)[0])
        if hook is not None:
            return hook(self, tok)
        if text == "!stablehlo.token":
            return TokenType()
        if text == "!quant.uniform":
            return self._parse_quant_uniform(tok)
        if text.startswith("!stablehlo.") and text[11:] not in ("token", "future"):
            raise self.error(f"unknown stablehlo type: {text[11:]}", tok)
        if self.at("<"):
            end = self._balanced_end(self.tok.start, "<", ">")
            body = self.src[self.tok.start:end]
            self.tok = lex_at(self.src, end)
            return OpaqueType(text + _normalize_space(body))
        if "." not in text:
            raise self.error(f"undefined symbol alias id '{text[1:]}'", tok)
        return OpaqueType(text)

    def _parse_quant_uniform(self, tok: Token) -> Type:
        if not self.at("<"):
            raise self.error("expected '<'")
        end = self._balanced_end(self.tok.start, "<", ">")
        body = self.src[self.tok.start + 1:end - 1]
        m = _QUANT_HEAD.match(body)
        if m is None:
            raise self.error("invalid quantized type", self.tok)
        signed, width, qmin, qmax, expressed_name, axis = m.groups()
        storage = IntegerType(int(width), {"u": "u", "ui": "u", "si": "s"}.get(signed, ""))
        expressed = scalar_type(expressed_name)
        if expressed is None:
            raise self.error(f"invalid expressed type '{expressed_name}'", self.tok)
        if axis is not None and int(axis) < 0:
            raise self.error(f"illegal quantized dimension: {int(axis)}", tok)
        rest = body[m.end():].strip()
        scales: list[float] = []
        zero_points: list[int] = []
        if axis is not None:
            if not (rest.startswith("{") and rest.endswith("}")):
                raise self.error("expected '{' for per-axis quantization parameters", self.tok)
            items = [s for s in rest[1:-1].split(",") if s.strip()]
        else:
            items = [rest]
        item_start = self.tok.start + 1 + m.end() + body[m.end():].find(rest) + (
            1 if axis is not None else 0)
        for item in items:
            pm = _QUANT_PARAM.fullmatch(item)
            if pm is None:
                raise self.error("invalid quantization parameters", self.tok)
            scales.append(_parse_float_text(pm.group(1)))
            zero_points.append(int(pm.group(2) or 0))
            # The quant parser checks each scale as it reads it, at the token after it.
            _check_scale_range(self, expressed, scales[-1], item_start + pm.end(1)
                               + len(item[pm.end(1):]) - len(item[pm.end(1):].lstrip()))
            item_start += len(item) + 1
        self.tok = lex_at(self.src, end)
        width = storage.width
        full = ((0, (1 << width) - 1) if storage.is_unsigned
                else (-(1 << (width - 1)), (1 << (width - 1)) - 1))
        # The quant dialect's own invariants, checked as the type is built.
        if qmin is not None and int(qmin) < full[0]:
            raise self.error(f"illegal storage type minimum: {int(qmin)}", tok)
        if qmax is not None and int(qmax) > full[1]:
            raise self.error(f"illegal storage type maximum: {int(qmax)}", tok)
        for scale in scales:
            if not (0.0 < scale < float("inf")):
                raise self.error(f"illegal scale: {scale:e}", tok)
        if qmin is not None and (int(qmin), int(qmax)) == full:
            qmin = qmax = None  # the default range is not kept (nor printed)
        return QuantizedType(storage, expressed, tuple(scales), tuple(zero_points),
                             int(axis) if axis is not None else None,
                             int(qmin) if qmin is not None else None,
                             int(qmax) if qmax is not None else None,
                             builtin_storage=signed in ("ui", "si"))

    def _balanced_end(self, start: int, open_ch: str, close_ch: str) -> int:
        """Offset just past the bracket matching the one at `start` (skips strings, `->`)."""
        src = self.src
        depth = 0
        i = start
        n = len(src)
        while i < n:
            c = src[i]
            if c == '"':
                i += 1
                while i < n and src[i] != '"':
                    i += 2 if src[i] == "\\" else 1
            elif c == "-" and i + 1 < n and src[i + 1] == ">":
                i += 1
            elif c == open_ch:
                depth += 1
            elif c == close_ch:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise self.error(f"unbalanced '{open_ch}' character in pretty dialect name",
                         offset=start)

    # ---- attributes ----------------------------------------------------------------------

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
                return self._parse_dense()
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
            while self.at("::"):
                self.advance()
                nested.append(self.parse_symbol_name())
            return SymbolRefAttr(root, tuple(nested))
        if kind == HASH:
            return self._parse_hash_attr()
        if kind == BANG:
            return TypeAttr(self.parse_type())
        raise self.error("expected attribute value")

    def _parse_number_attr(self, type_hint: Type | None) -> Attribute:
        negative = self.accept("-")
        tok = self.tok
        if tok.kind not in (INT, FLOAT):
            raise self.error("expected integer or float literal")
        self.advance()
        type = type_hint
        if self.at(":"):
            self.advance()
            type = self.parse_type()
        if tok.kind == FLOAT and type is not None and not isinstance(type, FloatType):
            raise self.error("floating point value not valid for specified type", tok)
        if tok.kind == FLOAT or isinstance(type, FloatType):
            if tok.text.startswith("0x"):
                bits = int(tok.text, 16)
                width = type.width if isinstance(type, FloatType) else 64
                if negative or bits >> width:
                    raise self.error("hexadecimal float constant out of range for type", tok)
                value = _float_from_bits(bits, type)
            else:
                value = float(tok.text)
            if negative:
                value = -value
            return FloatAttr(value, type or FloatType("f64"))
        number = int(tok.text, 16) if tok.text.startswith("0x") else int(tok.text)
        if negative:
            number = -number
        type = type or IntegerType(64)
        if isinstance(type, (IntegerType, IndexType)):
            number = self._check_int_range(number, type, tok)
        return IntegerAttr(number, type)

    def _check_int_range(self, number: int, type: Type, tok: Token) -> int:
        """MLIR's range check for integer literals; signless values wrap to signed."""
        width = type.width if isinstance(type, IntegerType) else 64
        unsigned = isinstance(type, IntegerType) and type.is_unsigned
        if unsigned and number < 0:
            raise self.error("negative integer literal not valid for unsigned integer type", tok)
        signed_only = isinstance(type, IntegerType) and type.signedness == "s"
        low = -(1 << (width - 1)) if width else 0
        high = (1 << (width - 1 if signed_only else width)) - 1
        if width == 1:
            low = -1 if not unsigned else 0
        if number < low or number > high:
            raise self.error("integer constant out of range for attribute", tok)
        if not unsigned and width and number >= (1 << (width - 1)):
            number -= 1 << width
        if width == 1:
            number &= 1
        return number

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
                tok = self.tok
                if tok.kind == BARE and tok.text in ("true", "false"):
                    self.advance()
                    items.append(tok.text == "true")
                    if element.width != 1:
                        raise self.error("expected integer value", tok)
                    if not self.accept(","):
                        break
                    continue
                negative = self.accept("-")
                tok = self.tok
                if tok.kind not in (INT, FLOAT):
                    raise self.error("expected float value" if isinstance(element, FloatType)
                                     else "expected integer value")
                self.advance()
                if isinstance(element, FloatType):
                    if tok.text.startswith("0x"):
                        bits = int(tok.text, 16)
                        if negative or bits >> element.width:
                            raise self.error("hexadecimal float constant out of range for type",
                                             tok)
                        value = _float_from_bits(bits, element)
                    else:
                        value = float(tok.text)
                    items.append(-value if negative else value)
                elif tok.kind == FLOAT:
                    raise self.error("floating point value not valid for specified type", tok)
                else:
                    number = int(tok.text, 16) if tok.text.startswith("0x") else int(tok.text)
                    number = self._check_int_range(-number if negative else number, element, tok)
                    items.append(bool(number) if element.width == 1 else number)
                if not self.accept(","):
                    break
        self.expect(">", "to close an array attribute")
        return DenseArrayAttr(element, tuple(items))

    def _parse_dense(self) -> Attribute:
        dense_tok = self.advance()
        if not self.at("<"):
            raise self.error("expected '<' after 'dense'")
        body_start = self.tok.end
        first = _skip_ws(self.src, body_start)
        if self.src.startswith(">", first):
            body = ""
            self.tok = lex_at(self.src, first + 1)
        else:
            end = self._dense_body_end(body_start)
            body = self.src[body_start:end]
            self.tok = lex_at(self.src, end + 1)
        if not self.at(":"):
            raise self.error("expected ':'")
        self.advance()
        type_tok = self.tok
        type = self.parse_type()
        if not isinstance(type, (TensorType, VectorType)):
            raise self.error("elements literal must be a shaped type", type_tok)
        if isinstance(type, TensorType) and not type.is_static:
            raise self.error("elements literal type must have static shape", type_tok)
        try:
            data, splat = parse_dense_literal(body, type)
        except DenseLiteralError as e:
            where = body_start + e.offset if e.offset >= 0 else dense_tok.start
            raise self.error(str(e), offset=where) from None
        return DenseElementsAttr(type, data, splat)

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
            return hook(self, tok)
        if not self.at("<"):
            if "." in text:
                return DialectAttr(text[1:].split(".", 1)[0], text[1:].split(".", 1)[1], "")
            raise self.error(f"undefined symbol alias id '{text[1:]}'", tok)
        end = self._balanced_end(self.tok.start, "<", ">")
        body_start = self.tok.end
        body = self.src[body_start:end - 1]
        self.tok = lex_at(self.src, end)
        dialect, _, name = text[1:].partition(".")
        if dialect == "stablehlo" and name in ("bounds", "type_extensions"):
            return self._bounds_attr(name, body, body_start)
        hook = DIALECT_ATTR_PARSERS.get((dialect, name))
        if hook is not None:
            return hook(self, body, body_start)
        fields = None
        if name and dialect in ("stablehlo", "chlo", "mhlo"):
            fields = _parse_struct_fields(self, body, body_start)
        if fields is not None:
            shown = _canonical_fields(name, fields)
            body = ", ".join(f"{k} = {_format_field(v)}" for k, v in shown)
        else:
            body = _normalize_space(body)
        return DialectAttr(dialect, name, body, tuple(fields) if fields is not None else None)


    def _bounds_attr(self, name: str, body: str, body_start: int) -> DialectAttr:
        """`#stablehlo.bounds<3, ?>`, also spelled `#stablehlo.type_extensions<bounds = [3, ?]>`
        (one attribute: it always prints as `bounds`). ``get("bounds")`` gives the list with
        None for `?`."""
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


def _check_bounds(parser: Parser, shape: list[int], encoding: Attribute | None,
                  tok: Token) -> None:
    """StableHLO's encoding verifier, which MLIR runs while building the tensor type."""
    if not (isinstance(encoding, DialectAttr) and encoding.dialect == "stablehlo"
            and encoding.name == "bounds"):
        return
    bounds = encoding.get("bounds") or []
    if len(bounds) != len(shape):
        raise parser.error(f"Bounds length is {len(bounds)}, expected to be equal to "
                           f"rank({len(shape)}) of the tensor", tok)
    for index, (size, bound) in enumerate(zip(shape, bounds, strict=True)):
        if size != DYNAMIC and bound is not None:
            raise parser.error(f"Static dimension {index} cannot have a bound, use "
                               "ShapedType::kDynamic to indicate a missing bound", tok)


# Dialects whose types / attributes parse themselves with the parser's public methods:
# dialect -> fn(parser, token) called with the `!dialect.name` / `#dialect.name` token just
# consumed (the parser stands on what follows, e.g. `<`). Registered by dialect modules
# through register_dialect_types / register_dialect_attributes.
DIALECT_TYPE_HOOKS: dict[str, Callable[[Parser, Token], Type]] = {}
DIALECT_ATTR_HOOKS: dict[str, Callable[[Parser, Token], Attribute]] = {}


def register_dialect_types(dialect: str, fn: Callable[[Parser, Token], Type]) -> None:
    """Let `fn` parse every `!dialect.*` type."""
    DIALECT_TYPE_HOOKS[dialect] = fn


def register_dialect_attributes(dialect: str, fn: Callable[[Parser, Token], Attribute]) -> None:
    """Let `fn` parse every `#dialect<...>` / `#dialect.*` attribute."""
    DIALECT_ATTR_HOOKS[dialect] = fn


def _dialect_hook(table: dict[str, Any], dialect: str) -> Any:
    if not table.get(dialect) and registry.is_known_dialect(dialect):
        registry.ensure_loaded()  # dialect modules register their hooks when loaded
    return table.get(dialect)


# Dialect attributes with their own grammar: (dialect, name) -> fn(parser, body, body offset),
# registered by the op modules that own them (e.g. `#stablehlo.conv<...>`).
DIALECT_ATTR_PARSERS: dict[tuple[str, str], Any] = {}

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
}


def _canonical_fields(name: str, fields: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
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


def _normalize_space(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip() if ("\n" in text or "  " in text) else text


def _check_scale_range(parser: Parser, expressed: Type, scale: float, offset: int) -> None:
    """The quant dialect's `scale out of expressed type range`: a scale must lie between the
    expressed float type's smallest subnormal and its largest finite value."""
    if not isinstance(expressed, FloatType):
        return
    try:
        info = ml_dtypes.finfo(numpy_dtype(expressed))
    except (UnsupportedTypeError, ValueError):
        return
    low, high = float(info.smallest_subnormal), float(info.max)
    if not low <= scale <= high:
        raise parser.error(f"scale {scale:e} out of expressed type range [{low:e}, {high:e}]",
                           offset=offset)


def _parse_float_text(text: str) -> float:
    if text.startswith("0x"):
        return float(np.array([int(text, 16)], dtype=np.uint64).view(np.float64)[0])
    return float(text)


def _float_from_bits(bits: int, type: Type | None) -> float:
    from .types import numpy_dtype

    if not isinstance(type, FloatType):
        type = FloatType("f64")
    dtype = numpy_dtype(type)
    raw = np.array([bits], dtype=np.uint64).astype(f"u{max(dtype.itemsize, 1)}")
    return float(raw.view(dtype)[0])


def _parse_struct_fields(parser: Parser, body: str, offset: int) -> list[tuple[str, Any]] | None:
    """`key = value, ...` bodies of `#stablehlo.name<...>` structs, or None for other shapes."""
    if "=" not in body:
        return None
    sub = Parser(SourceFile(parser.source.name, body), parser.allow_unregistered)
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


def _format_field(value: Any) -> str:
    from .floats import format_float

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_format_field(v) for v in value) + "]"
    if isinstance(value, float):
        return format_float(value, FloatType("f64"))
    return str(value)


def parse_type_text(text: str) -> Type:
    """A type from its text (e.g. a type kept as OpaqueType), raising Diagnostic if bad."""
    parser = Parser(SourceFile("<type>", text))
    result = parser.parse_type()
    if parser.tok.kind != EOF:
        raise parser.error("unexpected text after type")
    return result


def parse_attribute_text(text: str) -> Attribute:
    """An attribute from its text, as the parser would build it in a file (passes use this
    to rebuild dialect attributes in their canonical form); raises Diagnostic if bad."""
    parser = Parser(SourceFile("<attribute>", text))
    result = parser.parse_attribute()
    if parser.tok.kind != EOF:
        raise parser.error("unexpected text after attribute")
    return result


def parse_source(text: str, filename: str = "<stdin>", allow_unregistered: bool = False,
                 line_offset: int = 0) -> Module:
    """Parse one source chunk into a Module, raising Diagnostic on malformed input.

    The cyclic garbage collector is paused while parsing: the parser allocates many small
    objects that all stay alive, so collections during the parse only cost time."""
    source = SourceFile(filename, text, line_offset)
    enabled = gc.isenabled()
    gc.disable()
    parser = Parser(source, allow_unregistered)
    try:
        return parser.parse_module()
    except RecursionError:
        raise parser.error("nesting is too deep to parse") from None
    finally:
        if enabled:
            gc.enable()
