"""MLIR text parser: modules, operations (generic form, custom syntax via the registry),
regions, blocks, SSA values and locations. Types are parsed by the `parse_types.TypeParsing`
mixin, attributes by `parse_attributes.AttributeParsing`, generic-form ops by
`parse_generic.GenericParsing`; the public hooks are re-exported
here (`register_dialect_types`, `register_dialect_attributes`, `DIALECT_ATTR_PARSERS`, ...).

Errors raise :class:`Diagnostic` located at the offending token, worded like MLIR's parser.
"""

from __future__ import annotations

import gc

from . import regex_programs, registry
from .attributes import (
    Attribute,
)
from .core import (
    EMPTY,
    Block,
    Location,
    Module,
    Operation,
    Region,
    SourceLocation,
    Value,
    new_operation,
)
from .diagnostics import Diagnostic, SourceFile
from .lexer import (
    AT,
    BANG,
    BARE,
    CARET,
    EOF,
    HASH,
    INT,
    INVALID,
    PERCENT,
    PUNCT,
    SKIP,
    STRING,
    Token,
    invalid_token_error,
    lex_at,
    new_token,
    unescape_string,
)
from .locations import (
    FileLineColLoc,
    LocationAttr,
)
from .parse_attributes import (  # noqa: F401  (re-exported: dialects and passes use them)
    DIALECT_ATTR_HOOKS,
    DIALECT_ATTR_PARSERS,
    STRUCT_FIELD_ORDER,
    AttributeParsing,
    canonical_fields,
    format_field,
    parse_struct_fields,
    register_dialect_attributes,
)
from .parse_fast import (
    CUSTOM_PARSER_ERRORS,
    STATEMENT,
    FastStatements,
    move_properties,
    same_types,
)
from .parse_generic import GenericParsing
from .parse_locations import LocationParsing
from .parse_resources import parse_resources
from .parse_types import (  # noqa: F401
    DIALECT_TYPE_HOOKS,
    MAX_INT_WIDTH,
    TypeParsing,
    register_dialect_types,
    scalar_type,
)
from .parse_uses import use_token
from .types import (
    Type,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Parser(TypeParsing, AttributeParsing, LocationParsing, GenericParsing,
             FastStatements):
    """Recursive-descent parser over one source chunk (types, attributes and locations in the
    mixins)."""

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
        self.forward_users: dict[int, list[Operation]] = {}  # ops using each forward ref
        self.block_uses: dict[int, Token] = {}
        self.default_dialects: list[str] = []
        self._peeked: Token | None = None
        self._peek_from = -1
        # Innermost op whose custom parser is running (None inside types, attributes, regions
        # and generic ops): MLIR's CustomOpAsmParser prefixes its errors with the op name.
        self.custom_ops: list[str | None] = []
        # The offset after the `}` a region read with `stop_at_end` ended at (-1: none).
        self.region_end = -1

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
        pos = offset if offset is not None else where.start
        if offset is None and where.kind == INVALID:
            # The parser stopped at text the lexer could not read: report that instead.
            message, pos = invalid_token_error(self.src, where)
        return Diagnostic(message, self.source, pos)

    def op_error(self, message: str, tok: Token | None = None) -> Diagnostic:
        """An error from an op's custom parser: `custom op '<name>' message`, as in MLIR."""
        ops = self.custom_ops
        if ops and ops[-1] is not None:
            message = f"custom op '{ops[-1]}' {message}"
        return self.error(message, tok)

    def wrong_token_error(self, message: str) -> Diagnostic:
        """MLIR's emitWrongTokenError (its parseToken's "expected ..."): reported right after
        the previous code, back over blanks (at the end of the previous line's code, before
        any `//` comment, when the token starts a line); at the end of input, one character
        back first."""
        if self.tok.kind == INVALID:  # the lexer's own error comes first, as in MLIR
            return self.error(message)
        pos = self.tok.start
        if self.tok.kind == EOF and pos:
            pos -= 1
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
        raise self.wrong_token_error(f"expected '{text}'{suffix}")

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
        if self.tok.kind != INT:  # after a `-`, MLIR's own parseToken: no op prefix
            raise (self.wrong_token_error if negative else self.op_error)("expected integer value")
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
        return SourceLocation(self.source, (tok or self.tok).start)

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
                self.resources.update(parse_resources(self))
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

    def push_scope(self, isolated: bool) -> None:
        self.scopes.append(({}, isolated))
        self.block_scopes.append({})

    def pop_scope(self) -> None:
        self.scopes.pop()
        blocks = self.block_scopes.pop()
        for label, block in blocks.items() if blocks else ():
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
        users = self.forward_users.pop(id(placeholder), [])
        if placeholder.type is not None and placeholder.type != value.type:
            raise self.error(
                f"definition of SSA value '{name}#0' has type {value.type}", tok)
        # Rewire the recorded uses of the placeholder.
        for op in users:
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
            else:
                first = names.get(name + "#0")  # `%0` names result #0 of a `%0:2` group
                if first is not None and id(first) not in self.forward_refs:
                    return first
            if isolated:
                break
        # A forward reference: resolved when the name is defined later in this scope.
        placeholder = Value(None, None, 0, name)  # type: ignore[arg-type]  # typed when defined
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
                    self.forward_users.setdefault(id(v), []).append(op)

    def parse_operand(self) -> Value:
        tok = self.tok
        if tok.kind != PERCENT:
            raise self.wrong_token_error("expected SSA operand")
        self.advance()
        return self.lookup_value(tok.text, tok)

    def parse_operand_with_type(self, value: Value, type: Type, tok: Token) -> Value:
        if value.type is type:  # the common case: one shared type object
            return value
        if value.type is None:
            value.type = type
        elif value.type != type:
            name = (tok.text if tok.kind == PERCENT else value.name_hint or "").partition("#")[0]
            raise self.error(f"use of value '{name}' expects different type than prior uses: "
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
        if same_types(operands, types):
            return  # (the common case: every value already has its type)
        if len(operands) != len(types):
            raise self.op_error(
                f"{len(operands)} operands present, but expected {len(types)}", tok)
        for i, (v, t) in enumerate(zip(operands, types, strict=True)):
            if v.type is not t and v.type is not None and v.type != t:
                tok = use_token(self.src, self.scopes, operands, i, tok) or tok
            self.parse_operand_with_type(v, t, tok)

    def resolve_operands(self, operands: list[Value], types: list[Type], tok: Token) -> None:
        """MLIR's OpAsmParser::resolveOperands (its own count-mismatch wording)."""
        if len(operands) != len(types):
            raise self.op_error(
                f"number of operands and types do not match: got {len(operands)} operands "
                f"and {len(types)} types", tok)
        self.check_operand_types(operands, types, tok)

    def parse_operation(self, try_fast: bool = True) -> Operation:
        start = self.tok
        if try_fast and (start.kind == PERCENT or start.kind == BARE):
            fast = self.fast_operation(start)
            if fast is not None:
                return fast
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
                    if self.tok.kind != INT:
                        raise self.wrong_token_error("expected integer number of results")
                    count = self.parse_integer()
                result_names.append((tok.text, count, tok))
                if not self.accept(","):
                    break
            self.expect("=", "after SSA name")
            num_results = sum(c for _, c, _ in result_names)
        name_tok = self.tok
        location = SourceLocation(self.source, name_tok.start)
        if name_tok.kind == STRING:
            op = self.parse_generic_operation(location)
        elif name_tok.kind == BARE:
            op = self._parse_custom_operation(location, num_results)
        else:
            raise self.wrong_token_error("expected operation name in quotes")
        return self.finish_operation(op, result_names, num_results, start)

    def finish_operation(self, op: Operation, result_names: list[tuple[str, int, Token]],
                         num_results: int, start: Token) -> Operation:
        """After an op's text: its trailing location, then its result names defined."""
        self._parse_trailing_location(op)
        if result_names and not op.results:
            raise self.error("cannot name an operation with no results", start)
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
        # every op name has its dialect's prefix: a bare `module` or `return` is never
        # looked up as written (an unknown name imports every op module)
        opdef = registry.lookup(name) if "." in name else None
        if opdef is None and "." not in name:
            if name == "module":
                opdef = registry.lookup("builtin.module")
            elif self.default_dialects and self.default_dialects[-1]:
                opdef = registry.lookup(f"{self.default_dialects[-1]}.{name}")
        syntax = opdef.syntax if opdef is not None else None
        if opdef is not None and syntax is None:  # MLIR's OpState::parse fallback
            raise self.error(f"custom op '{name}' has no custom assembly form")
        if opdef is None or syntax is None:
            message = f"custom op '{name}' is unknown"
            default = self.default_dialects[-1] if self.default_dialects else "builtin"
            if "." not in name and default:  # MLIR also looked the name up in it
                message += f" (tried '{default}.{name}' as well)"
            error = self.error(message)
            if name.startswith("sdy."):
                error.notes.append(Diagnostic(
                    "of Shardy's ops, text may hold sdy.mesh, sdy.sharding_constraint, "
                    "sdy.reshard and sdy.sharding_group; the others are read from jax.export "
                    "artifacts (.jax), which remove them for one device", severity="note"))
            raise error
        self.advance()
        self.custom_ops.append(opdef.name)
        try:
            return syntax.parse(self, opdef, location, num_results)
        except CUSTOM_PARSER_ERRORS as e:
            # A custom parser tripping over malformed input still gives a located error.
            raise self.error(f"custom op '{name}' could not be parsed: {e}", tok) from None
        finally:
            self.custom_ops.pop()

    def build_operation(self, name: str, opdef: Any, operands: list[Value],
                        result_types: list[Type],
                        properties: dict[str, Attribute], attributes: dict[str, Attribute],
                        regions: list[Region], successors: list[Block] | None,
                        location: Location | int) -> Operation:
        """Create an op, moving inherent attributes into properties as MLIR does (the op
        `Operation(...)` makes, by `new_operation`'s fewer steps); an int `location` is an
        offset into this source."""
        if opdef is not None and attributes:
            move_properties(opdef, properties, attributes)
        op = new_operation(name, operands, result_types or EMPTY, properties or {},
                           attributes or {}, location, opdef,
                           self.source if location.__class__ is int else None)
        if regions:
            op.regions = regions
            for region in regions:
                region.parent = op
        if successors:
            op.successors = successors
        return op

    def _parse_trailing_location(self, op: Operation) -> None:
        if self.tok.kind == BARE and self.tok.text == "loc":
            op.location.attr = self.parse_location()

    def parse_optional_location(self) -> Attribute | None:
        if self.tok.kind == BARE and self.tok.text == "loc":
            return self.parse_location()
        return None

    def parse_region(self, entry_args: list[tuple[Token, Type, Any]] | None = None,
                     isolated: bool = False, default_dialect: str = "",
                     stop_at_end: bool = False) -> Region:
        """`{ ops }` or `{ ^bb0(%a: t): ops ^bb1: ... }`; `entry_args` are pre-declared
        block arguments (from custom syntax like `func.func @f(%arg0: t)`). The parser is
        left at the token after the closing `}`; with `stop_at_end`, at the `}` itself, the
        offset after it in `region_end` (for a fast op builder: see `FastStatements._fast_op`;
        lexing a token only to learn where it starts was 1% of a parse)."""
        brace = self.tok
        body_start = None  # the body read from after the `{` (the token there not lexed)
        if brace.kind == PUNCT and brace.text == "{":
            if entry_args is None:  # (a region without a block: `}` or a `^label` next)
                opening = _REGION_START.match(self.src, brace.end)
                if opening is None or opening.lastindex is None:
                    body_start = brace.end
                else:
                    self.tok = lex_at(self.src, brace.end)
            else:
                body_start = brace.end
        else:
            self.expect("{", "to begin a region")
        region = Region()
        self.scopes.append(({}, isolated))  # (`push_scope`)
        self.block_scopes.append({})
        self.default_dialects.append(default_dialect)
        self.custom_ops.append(None)
        try:
            if body_start is not None or not (self.at("}") or self.tok.kind == CARET):
                block = Block()
                if entry_args:
                    for tok, type, loc in entry_args:
                        value = block.add_argument(type)
                        # Without `loc(...)` an argument is located at its name, as in MLIR.
                        block.arg_locations[-1] = loc or self.file_location(tok)
                        self.define_value(tok.text, value, tok)
                block.parent = region  # (`region.add_block(block)`)
                region.blocks.append(block)
                self._parse_block_body(block, body_start)
            while self.tok.kind == CARET:
                region.add_block(self._parse_labeled_block())
            tok = self.tok
            if stop_at_end and tok.kind == PUNCT and tok.text == "}":
                self.region_end = tok.end
            else:
                self.expect("}", "to end region")
        finally:
            self.default_dialects.pop()
            self.custom_ops.pop()
        self.pop_scope()
        return region

    def named_block(self, label: str) -> tuple[Block, bool]:
        """The block `label` names in the innermost region, and whether this mention made
        it (a successor may name a block before its label is read)."""
        blocks = self.block_scopes[-1]
        block = blocks.get(label)
        if block is not None:
            return block, False
        block = Block()
        block.label = label
        blocks[label] = block
        return block, True

    def _parse_labeled_block(self) -> Block:
        tok = self.tok
        # `^bb0(`: the arguments read from the `(` without lexing it first
        adjacent = self.src.startswith("(", tok.end)
        if not adjacent:
            self.advance()
        block, made = self.named_block(tok.text)
        if not made and block.parent is not None:
            raise self.error(f"redefinition of block '{tok.text}'", tok)
        if adjacent:
            body = self.fast_block_arguments(block, tok.end)
        else:
            body = self.fast_block_arguments(block, self.tok.start) if self.tok.text == "(" else -1
        if body >= 0:  # the arguments and the `:` read
            self._parse_block_body(block, body)
            return block
        if adjacent:
            self.advance()
        if self.accept("("):
            if not self.at(")"):
                while True:
                    arg_tok = self.tok
                    if arg_tok.kind != PERCENT:
                        raise self.wrong_token_error("expected SSA operand")
                    self.advance()
                    self.expect(":", "and type for SSA operand")
                    type = self.parse_type()
                    value = block.add_argument(type)
                    block.arg_locations[-1] = (self.parse_optional_location()
                                               or self.file_location(arg_tok))
                    self.define_value(arg_tok.text, value, arg_tok)
                    if not self.accept(","):
                        break
            self.expect(")")
        self.expect(":", "after block name")
        # Mark as placed (parent set when the region adds it).
        self._parse_block_body(block)
        return block

    def _parse_block_body(self, block: Block, start: int | None = None) -> None:
        """The ops of `block` up to its end (`}`, the next `^label` or the end of the text),
        from the current token or, when given, offset `start` (after a `{` or a `:`).
        Statements a fast parser reads go from one end offset to the next head with no
        token in between: the current token is lexed again only for the token-level
        parser, and a `loc(...)` after a fast-read op is read as the token-level parser
        reads it after any op."""
        ops = block.operations
        src = self.src
        statement = STATEMENT.match
        fast = self.fast_statement
        lexed = start is None  # whether self.tok is the token at `pos`
        pos = self.tok.start if start is None else start
        last: Operation | None = None  # the fast-read op a trailing `loc(...)` may follow
        while True:
            m = statement(src, pos)
            if m is not None:
                which = m.lastindex  # 3: a custom-form head, 4: `}`, 7: a generic-form head
                if which == 3:
                    if last is not None and m.group(3) == "loc" and m.group(1) is None:
                        self.tok = lex_at(src, m.start(3))
                        last.location.attr = self.parse_location()
                        pos, lexed, last = self.tok.start, True, None
                        continue
                    found = fast(m)
                    if found is not None:
                        op, pos = found
                        op.parent = block
                        ops.append(op)
                        lexed, last = False, op
                        continue
                elif which == 4:  # the `}` ending the block
                    self.tok = new_token(PUNCT, "}", m.start(4), m.end(4))
                    return
                else:
                    generic = self.fast_generic_statement(m)
                    if generic is not None:
                        op, pos, trailing = generic
                        op.parent = block
                        ops.append(op)
                        lexed, last = (False, op) if trailing else (True, None)
                        continue
            tok = self.tok if lexed else lex_at(src, pos)
            self.tok = tok
            kind = tok.kind
            if kind == CARET or kind == EOF or (kind == PUNCT and tok.text == "}"):
                break
            op = self.parse_operation(False)
            op.parent = block
            ops.append(op)
            pos, lexed, last = self.tok.start, True, None
        if kind == EOF:  # MLIR's block body reads an op there: parseOperation's complaint
            raise self.wrong_token_error("expected operation name in quotes")


# After a region's `{`: whether a `}` or a `^label` comes next (what the lexer skips first).
_REGION_START = regex_programs.compile(rf"{SKIP}(?:(\}})|(\^))?")


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
