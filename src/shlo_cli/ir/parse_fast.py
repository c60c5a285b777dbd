"""Fast paths for the most common op statements (`%r = stablehlo.add %a, %b : tensor<4xf32>`,
`return %0 : tensor<f32>`, `%c = stablehlo.constant dense<...> : ...`): one regular
expression reads the whole statement instead of one token at a time.

A fast parser only ever accepts text the token-level parser would read the same way into the
same op: it returns None at anything unusual (comments inside the statement, a type that
is not plain, an attribute not seen before, a value not defined yet, a type mismatch, ...),
before changing any parser state, and the token-level parser then reads the statement, with
its diagnostics.
Plain tensor and function types come from the parser's caches (`parse_types._TYPE_CACHE`,
`_FUNC_CACHE`), a text met for the first time built from its parts as the token-level reader
builds it (`parse_types.plain_tensor`, `plain_function`; None for a text that is no type).

Dialects register fast parsers by op name with `register_fast_parser`; a syntax object may
also offer one as its `fast_parse` attribute (`dialects.asm.Format` compiles its own).
"""

from __future__ import annotations

from . import regex_programs, registry
from .attributes import Attribute
from .core import Block, Location, Operation, Region, SourceLocation, Value, new_operation
from .lexer import (
    BARE,
    PERCENT,
    POSSESSIVE,
    PUNCT,
    SKIP,
    STRING,
    Token,
    lazy_regex,
    lex_at,
    new_token,
    possessive,
)
from .lexer import TENSOR as TENSOR  # (re-exported: the dialects' fast parsers use them)
from .lexer import VALUE as VALUE
from .locations import FileLineColLoc
from .parse_attributes import _DICT_CACHE, _SIMPLE_DICT, SIMPLE_DICT_PATTERN
from .parse_caches import text_cache
from .parse_host import ParserHost
from .parse_types import (
    _FUNC_CACHE,
    _TYPE_CACHE,
    SIMPLE_FUNC_PATTERN,
    plain_function,
    plain_tensor,
)
from .types import FunctionType, Type

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

    # What a fast parser returns: operands, result types, properties, attributes and the
    # offset the statement ends at (the next token is at or after it).
    FastResult = tuple[list[Value], list[Type], dict[str, Attribute], dict[str, Attribute], int]
    FastParser = Callable[[Any, Any, int, int], FastResult | None]
    # `fn(parser, opdef, pos, location, num_results)` builds the op, or returns None, with
    # nothing read, to leave the statement to the full parser; `location` is the offset of
    # the op's name (`build_operation` takes it as the op's location).
    FastOpParser = Callable[[Any, Any, int, Any, int], Operation | None]
    _Resolved = tuple[Any, FastParser | None, FastOpParser | None, str]

# A plain function type `(tensor<...>, ...) -> ...` (spaces as the printer writes them).
FUNCTION_TYPE = SIMPLE_FUNC_PATTERN

# Regex fragments, each reading exactly what the lexer reads as one token.
WS = r"[ \t\r\n]*"
# (lists possessive: each is followed by what cannot start another `, item`)
VALUE_LIST = possessive(rf"{VALUE}(?:{WS},{WS}{VALUE})*+")
KEYWORD_END = r"(?![A-Za-z0-9_$.])"
COLON = rf"{WS}:(?!:){WS}"
# (at most 18 digits: always an int64; a longer one, in range or not, is the token-level
# reader's, which reports `integer value too large` as MLIR's parseInteger<int64_t> does)
INT = possessive(r"-?[0-9]{1,18}+(?![0-9A-Za-z_.$])")
TENSOR_LIST = possessive(rf"{TENSOR}(?:{WS},{WS}{TENSOR})*+")
# A bare word and a symbol read whole: by a possessive run, or a lookahead after the run.
if POSSESSIVE:
    WORD = r"[A-Za-z_][A-Za-z0-9_$.]*+"
    SYMBOL = r"@[A-Za-z_][A-Za-z0-9_$.\-]*+"
    _ARGUMENT_NAME = r"%[A-Za-z0-9_$.\-]++(?!#)"
else:
    WORD = r"[A-Za-z_][A-Za-z0-9_$.]*(?![A-Za-z0-9_$.])"
    SYMBOL = r"@[A-Za-z_][A-Za-z0-9_$.\-]*(?![A-Za-z0-9_$.\-])"
    _ARGUMENT_NAME = r"%[A-Za-z0-9_$.\-]+(?![A-Za-z0-9_$.\-#])"


# A block's argument list `(%a: tensor<...>, ...):` and the `:` after it (its items in
# group 1, split at their commas and colons): names without `#N`, no locations.
_ARGUMENT = rf"{_ARGUMENT_NAME}{COLON}{TENSOR}"
BLOCK_ARGUMENTS = regex_programs.compile(
    possessive(rf"\({WS}({_ARGUMENT}(?:{WS},{WS}{_ARGUMENT})*+){WS}\){COLON}"))



def not_before(chars: str) -> str:
    """A lookahead failing where the next token may start with one of `chars` (or where a
    comment follows, which might hide one): what a fast parser's regex checks where the
    token-level parser looks at the next token."""
    return rf"(?!{WS}(?:[{regex_programs.escape(chars)}]|//))"


# `%name = op.name`, `%name:2 = op.name` or `op.name` at the start of a statement.
_HEAD_PATTERN = possessive(
    r"(?:(%[A-Za-z0-9_$.\-]++)(?::([1-9][0-9]*+))?+[ \t]*+=[ \t]*+)?+([A-Za-z_][A-Za-z0-9_$.]*+)")
_HEAD = regex_programs.compile(_HEAD_PATTERN)
# The same after what the lexer skips, or (group 4) the `}` ending a block, or (groups 5-7)
# a generic-form head `%name = "dialect.op"` (the quoted name without escapes): the block
# parser reads the next statement's head straight from where the last one ended, with no
# token in between.
STATEMENT = regex_programs.compile(
    rf"{SKIP}(?:{_HEAD_PATTERN}|(\}})|"
    + possessive(r'(?:(%[A-Za-z0-9_$.\-]++)(?::([1-9][0-9]{0,3}+))?+[ \t]*+=[ \t]*+)?+'
                 r'"([A-Za-z_][A-Za-z0-9_$.]*+)")'))

# `"dialect.op"(%a, %b)` opening a generic-form statement: the op name (a string without
# escapes) and the operand list.
_GENERIC_HEAD = regex_programs.compile(
    rf'"([A-Za-z_][A-Za-z0-9_$.]*)"{WS}\({WS}((?:{VALUE_LIST})?){WS}\)')

# A generic op's tail: `<{` opening its properties, the `>` closing them, `({` opening
# its region list, and a plain function type after the list's `)` or with no regions.
_PROPERTIES = regex_programs.compile(rf"{WS}<{WS}(?=\{{)")
_PROPERTIES_END = regex_programs.compile(rf"{WS}>")
_REGION_LIST = regex_programs.compile(rf"{WS}\({WS}(?=\{{)")
_GENERIC_TYPE = lazy_regex(rf"{COLON}({SIMPLE_FUNC_PATTERN}){not_before('-')}")
_REGIONS_END = lazy_regex(rf"{WS}\){COLON}({SIMPLE_FUNC_PATTERN}){not_before('-')}")

FAST_PARSERS: dict[str, FastParser] = {}

# Ops with regions (func.func, builtin.module, stablehlo.reduce) whose statement head a fast
# parser reads before the token-level region parser takes over (`FastOpParser`).
FAST_OP_PARSERS: dict[str, FastOpParser] = {}
_MAX_GROUP = 1024  # a larger `%r:N` group is left to the full parser (never looped over here)

# Exceptions a custom parser may trip over; the token-level parser reports them at the op
# name as `custom op '<name>' could not be parsed: ...` (`Parser._parse_custom_operation`).
CUSTOM_PARSER_ERRORS = (AttributeError, IndexError, KeyError, TypeError, ValueError)

_REGISTERED = registry._REGISTRY  # what `registry.lookup` returns once dialects are loaded

# What a statement's op name resolves to (`FastStatements._resolve`): (opdef, fast parser,
# op builder, the opdef's name), keyed by the written name, or (default dialect, name) for
# a dotless one. An entry counts only while its opdef is still the registered one.
_RESOLVED: dict[str | tuple[str, str], _Resolved] = text_cache()


def register_fast_parser(name: str, fn: FastParser) -> None:
    """Let `fn(parser, opdef, pos, num_results)` read op `name`'s statements from `pos` (just
    after the op name) when it can; it returns None to leave a statement to the full parser."""
    FAST_PARSERS[name] = fn


def register_fast_op_parser(name: str, fn: FastOpParser) -> None:
    """Let `fn` build op `name` (one with regions) from `pos`, just after its name: it
    returns None, having read nothing, for any head it does not read itself; once it returns
    an op, everything it read matched what the token-level parser reads. A statement naming
    `num_results` results (0: none named) gets an op with exactly that many, or None. A
    builder whose op ends with a region may read it with `parse_region(...,
    stop_at_end=True)`: the parser then stays at the region's `}`."""
    FAST_OP_PARSERS[name] = fn


def brace_token(src: str, pos: int) -> Token:
    """The token at `pos`, where the text has a `{`: made directly (no lexing) unless it
    starts `{-#`, which the lexer reads as one token."""
    if src.startswith("{-#", pos):
        return lex_at(src, pos)
    return new_token(PUNCT, "{", pos, pos + 1)


# The type a tensor type's text was read as before (None when it was not): a fast parser's
# first look, before `cached_tensor`.
known_type = _TYPE_CACHE.get


def cached_tensor(text: str) -> Type | None:
    """The tensor type spelled `text` (a `TENSOR` text), as the full parser builds it (see
    `parse_types.plain_tensor`); None when it is no type."""
    return _TYPE_CACHE.get(text) or plain_tensor(text)


# `_SIMPLE_FUNC` not followed by `->` (a function type returning a function) nor a comment.
_FUNCTION_TYPE = lazy_regex(rf"({SIMPLE_FUNC_PATTERN}){not_before('-')}")


def cached_function(src: str, pos: int) -> tuple[FunctionType, int] | None:
    """A `(tensor<...>, ...) -> ...` function type at `pos` the full parser has built before,
    and the offset after it; None when it is new or another `->` may follow."""
    m = _FUNCTION_TYPE.match(src, pos)
    if m is None:
        return None
    ftype = _FUNC_CACHE.get(m.group(1)) or plain_function(m.group(1))
    if ftype is None:
        return None
    return ftype, m.end()  # type: ignore[return-value]  # the cache holds function types


def function_type(text: str) -> FunctionType | None:
    """The function type spelled `text` (a `SIMPLE_FUNC_PATTERN` text, matched by a fast
    parser's own regex) as the full parser builds it; None when a part is no type."""
    return _FUNC_CACHE.get(text) or plain_function(text)  # type: ignore[return-value]


def cached_tensors(text: str) -> list[Type] | None:
    """The types of a `tensor<...>, tensor<...>` list, if all were built before."""
    known = _TENSOR_LISTS.get(text)
    if known is not None:
        return list(known)
    out = []
    for part in text.split(","):
        t = cached_tensor(part.strip())
        if t is None:
            return None
        out.append(t)
    if len(_TENSOR_LISTS) < 4096:
        _TENSOR_LISTS[text] = tuple(out)
    return out


_TENSOR_LISTS: dict[str, tuple[Type, ...]] = text_cache()  # list text -> its (cached) types


def cached_dict(src: str, pos: int) -> tuple[dict[str, Attribute], int] | None:
    """A plain attribute dictionary at `pos` the full parser has read before (a fresh copy)
    and the offset after it."""
    m = _SIMPLE_DICT.match(src, pos)
    if m is None:
        return None
    cached = _DICT_CACHE.get(m.group(0))
    if cached is None:
        return None
    return dict(cached), m.end()


def known_dict(text: str) -> dict[str, Attribute] | None:
    """The plain attribute dictionary spelled `text` when the full parser has read it
    before (the cached dict itself: not to be changed)."""
    return _DICT_CACHE.get(text)


# `{attrs} : (A, B) -> R`: a plain dictionary (group 1, optional) and a plain function type
# (group 2) not followed by another `->` nor a comment, in one regex step.
_FUNCTIONAL_TAIL = lazy_regex(
    rf"{WS}(?:({SIMPLE_DICT_PATTERN}){WS})?:(?!:){WS}({SIMPLE_FUNC_PATTERN}){not_before('-')}")


def functional_tail(src: str, pos: int) -> tuple[dict[str, Attribute], FunctionType,
                                                 int] | None:
    """`{attrs} : (A, B) -> R` (the dictionary optional, one read before) with a plain
    function type: the attributes (a fresh copy), the function type and the offset after
    it."""
    m = _FUNCTIONAL_TAIL.match(src, pos)
    if m is None:
        return None
    dict_text, type_text = m.group(1, 2)
    attributes: dict[str, Attribute] = {}
    if dict_text is not None:
        cached = _DICT_CACHE.get(dict_text)
        if cached is None:
            return None
        attributes = dict(cached)
    ftype = _FUNC_CACHE.get(type_text) or plain_function(type_text)
    if ftype is None:
        return None
    return attributes, ftype, m.end()  # type: ignore[return-value]  # function types


def same_types(values: list[Value], types: tuple[Type, ...] | list[Type]) -> bool:
    """Whether `values` have exactly `types` (so the full parser would accept them)."""
    if len(values) != len(types):
        return False
    i = 0
    for v in values:  # (by index: a `zip(..., strict=True)` cost more than the comparisons)
        vt = v.type
        t = types[i]
        if vt is not t and vt != t:
            return False
        i += 1
    return True


# (Helpers, not comprehensions inside the statement readers: a comprehension's variable from
# the enclosing function makes it a cell there, one more object for every statement read.)
def group_named(result: str, count: int, names: dict[str, Value]) -> bool:
    """Whether any of `%r#0` ... `%r#<count-1>` is named in `names`."""
    return any(f"{result}#{i}" in names for i in range(count))


def move_properties(opdef: Any, properties: dict[str, Attribute],
                    attributes: dict[str, Attribute]) -> None:
    """Inherent attributes written in an op's dictionary moved into its properties."""
    for key in [k for k in attributes if k in opdef.properties]:
        properties.setdefault(key, attributes.pop(key))


class FastStatements(ParserHost):
    """Mixin of `parser.Parser`: tries a registered fast parser before the token-level one."""

    if TYPE_CHECKING:  # Parser defines them
        scopes: list[tuple[dict[str, Value], bool]]
        forward_refs: dict[int, Any]
        default_dialects: list[str]
        region_end: int

        def parse_generic_tail(self, opdef: Any, name: str, operands: list[Value],
                               name_tok: Token, location: Location) -> Operation: ...
        def finish_operation(self, op: Operation, result_names: list[tuple[str, int, Token]],
                             num_results: int, start: Token) -> Operation: ...
        def parse_region(self, entry_args: list[tuple[Token, Type, Any]] | None = None,
                         isolated: bool = False, default_dialect: str = "",
                         stop_at_end: bool = False) -> Region: ...
        def cached_attr_dict(self, pos: int) -> tuple[dict[str, Attribute], int] | None: ...
        def parse_more_regions(self, opdef: Any, regions: list[Region]) -> None: ...
        def parse_generic_rest(self, opdef: Any, name: str, operands: list[Value],
                               name_tok: Token, location: Location | int,
                               properties: dict[str, Attribute], regions: list[Region],
                               successors: list[Block]) -> Operation: ...
        def build_operation(self, name: str, opdef: Any, operands: list[Value],
                            result_types: list[Type], properties: dict[str, Attribute],
                            attributes: dict[str, Attribute], regions: list[Region],
                            successors: list[Block] | None,
                            location: Location | int) -> Operation: ...

    def fast_value(self, name: str) -> Value | None:
        """The value `name` refers to, when it is plainly defined (else None: the full
        parser's lookup handles `%x#0` aliases, forward references and errors)."""
        for names, isolated in reversed(self.scopes):
            v = names.get(name)
            if v is not None:
                return v
            if isolated or "#" in name or (name + "#0") in names:
                return None
        return None

    def fast_values(self, text: str) -> list[Value] | None:
        """The values of a comma-separated `%a, %b` list (None if any is not plain)."""
        out = []
        names = self.scopes[-1][0]  # (where `fast_value` looks first)
        for part in text.split(","):
            name = part.strip()
            v = names.get(name) or self.fast_value(name)
            if v is None:
                return None
            out.append(v)
        return out

    def fast_operation(self, start: Token) -> Operation | None:
        """The statement at `start` read by a fast parser, or None (nothing consumed); the
        parser is left at the token after it, its trailing `loc(...)` read."""
        m = _HEAD.match(self.src, start.start)
        if m is None:
            return None
        found = self.fast_statement(m)
        if found is None:
            self.tok = start
            return None
        op, end = found
        tok = self.tok = lex_at(self.src, end)
        if tok.kind == BARE and tok.text == "loc":
            op.location.attr = self.parse_location()
        return op

    def fast_statement(self, m: re.Match[str]) -> tuple[Operation, int] | None:
        """The statement whose head `m` (`_HEAD` or `STATEMENT`) matched, read by a fast
        parser: the op and the offset it ends at, before any trailing `loc(...)` (which the
        caller reads). None, with no names defined, to leave it to the full parser; the
        current token is then undefined (the caller sets it again)."""
        if self.forward_refs:
            return None
        result, count_text, name = m.group(1, 2, 3)
        if "." in name:
            entry = _RESOLVED.get(name)
        else:
            dialects = self.default_dialects
            entry = _RESOLVED.get((dialects[-1] if dialects else "", name))
        if entry is None:
            entry = self._resolve(name)
            if entry is None:
                return None
        opdef, fast, builder, registered = entry
        if _REGISTERED.get(registered) is not opdef:
            entry = self._resolve(name)
            if entry is None:
                return None
            opdef, fast, builder, registered = entry
        if result is None:
            count = 0
        elif count_text is None:
            count = 1
        elif len(count_text) > 9:
            return None  # (not a Python int of thousands of digits: the full parser's)
        else:
            count = int(count_text)
        names = self.scopes[-1][0]
        if count == 1 and result in names:
            return None  # a redefinition (or a forward reference being resolved)
        start, end = m.span(3)  # (the op name ends the head)
        if fast is None:
            if builder is None:
                return None
            if count > 1 and (count > _MAX_GROUP or group_named(result, count, names)):
                return None
            built = self._fast_op(builder, opdef, name, start, end, count)
            if built is not None and count:
                self._define_results(built[0], result, count, names)
            return built
        parsed = fast(self, opdef, end, count)
        if parsed is None:
            return None
        operands, result_types, properties, attributes, end = parsed
        # `count` comes from the text: only once it matches the types is it looped over.
        if result is not None and (len(result_types) != count or count > 1 and group_named(
                result, count, names)):
            return None
        if attributes:  # inherent attributes written in the dictionary are properties
            move_properties(opdef, properties, attributes)
        op = new_operation(opdef.name, operands, result_types, properties, attributes,
                           start, opdef, self.source)
        if count == 1:  # (`_define_results`, inline for the common case)
            value = op.results[0]
            names[result] = value
            value.name_hint = result
        elif count:
            self._define_results(op, result, count, names)
        return op, end

    @staticmethod
    def _define_results(op: Operation, result: str, count: int,
                        names: dict[str, Value]) -> None:
        """`%r` (or `%r#0`, `%r#1`, ... for a group) named in this scope, all of them new."""
        if count == 1:
            value = op.results[0]
            names[result] = value
            value.name_hint = result
        else:
            for i, value in enumerate(op.results):
                hint = f"{result}#{i}"
                names[hint] = value
                value.name_hint = hint

    def fast_generic_statement(self, m: re.Match[str]) -> tuple[Operation, int, bool] | None:
        """The generic-form statement whose head `STATEMENT` matched (groups 5-7), when its
        op is registered, its operands plainly defined and its result names new: the op,
        the offset it ends at and whether a trailing `loc(...)` is still to be read there
        (else the current token is the one after it). Its usual spelling (a dictionary read
        before as properties, one region, a plain function type) is read by regex around
        the region parser; anything else from where that reading stops by the token-level
        reader's own steps, so diagnostics are that reader's. None, with nothing read, when
        the statement is none of these."""
        if self.forward_refs:
            return None
        result, count_text, name = m.group(5, 6, 7)
        opdef = _REGISTERED.get(name)
        if opdef is None:
            return None
        names = self.scopes[-1][0]
        count = 0 if result is None else int(count_text or 1)
        if count == 1 and result in names or count > 1 and group_named(result, count, names):
            return None  # a redefinition: the token-level reader reports it
        src = self.src
        name_start = m.start(7) - 1
        head = _GENERIC_HEAD.match(src, name_start)
        if head is None:
            return None
        operands = self.fast_values(head.group(2)) if head.group(2) else []
        if operands is None:
            return None
        name_tok = Token(STRING, src[name_start:m.end(7) + 1], name_start, m.end(7) + 1)
        result_tok = None if result is None else Token(PERCENT, result, m.start(5), m.end(5))
        self.custom_ops.append(None)
        try:
            found = self._generic_tail(opdef, name, operands, name_tok, head.end())
            if found is None:  # the token-level reader's steps from the operand list on
                self.tok = lex_at(src, head.end())
                op = self.parse_generic_tail(opdef, name, operands, name_tok,
                                             SourceLocation(self.source, name_start))
                end = -1
            else:
                op, end = found
        finally:
            self.custom_ops.pop()
        if end >= 0:  # read to its end by regex: the result names defined here
            if result_tok is None:
                return op, end, True
            if len(op.results) == count:
                self._define_results(op, result, count, names)
                return op, end, True
            self.tok = lex_at(src, end)  # (`finish_operation` reports the count)
        if result_tok is None:
            return self.finish_operation(op, [], 0, name_tok), self.tok.start, False
        return (self.finish_operation(op, [(result, count, result_tok)], count, result_tok),
                self.tok.start, False)

    def _generic_tail(self, opdef: Any, name: str, operands: list[Value], name_tok: Token,
                      pos: int) -> tuple[Operation, int] | None:
        """A generic op's usual tail from `pos` (after its operand list): a properties
        dictionary read before, at most one region (read by the region parser) and a plain
        function type the operands have: the op and the offset after it. Once a region is
        read and the rest is not this, the op is read on by the token-level reader (the
        offset then -1, the current token the one after the op). None, with nothing read,
        for a tail that is none of these before any region."""
        src = self.src
        properties: dict[str, Attribute] = {}
        opened = _PROPERTIES.match(src, pos)
        if opened is not None:
            found = self.cached_attr_dict(opened.end())
            if found is None:
                return None
            properties, pos = found
            closed = _PROPERTIES_END.match(src, pos)
            if closed is None:
                return None
            pos = closed.end()
        regions: list[Region] = []
        opened = _REGION_LIST.match(src, pos)
        if opened is not None:
            self.tok = brace_token(src, opened.end())
            regions.append(self.parse_region(isolated=opdef.isolated, stop_at_end=True))
            pos = self.region_end
            self.region_end = -1
            tail = _REGIONS_END.match(src, pos)
        else:
            tail = _GENERIC_TYPE.match(src, pos)
            if tail is None:
                return None
        ftype = None if tail is None else function_type(tail.group(1))
        if tail is None or ftype is None or not same_types(operands, ftype.inputs):
            if not regions:
                return None
            self.tok = lex_at(src, pos)  # after the region's `}`: the token-level reader's
            self.parse_more_regions(opdef, regions)
            return self.parse_generic_rest(
                opdef, name, operands, name_tok, name_tok.start, properties, regions,
                []), -1
        op = self.build_operation(
            name, opdef, operands, list(ftype.results), properties, {}, regions, None,
            name_tok.start)
        return op, tail.end()

    def fast_block_arguments(self, block: Block, pos: int) -> int:
        """`(%a: tensor<...>, %b: tensor<...>):` at `pos`, after a block label, every type a
        plain one and every name new in this scope: the arguments added and defined as the
        token-level reader does (located at their names), and the offset after the `:`
        (where the block's body starts). -1, with nothing read, for anything else."""
        src = self.src
        m = BLOCK_ARGUMENTS.match(src, pos)
        if m is None or self.forward_refs:
            return -1
        names = self.scopes[-1][0]
        items: list[tuple[str, Type, int]] = []
        offset = m.start(1)
        for part in m.group(1).split(","):  # `%name: type` (no commas nor colons inside)
            written, _, type_text = part.partition(":")
            name = written.lstrip()
            start = offset + len(written) - len(name)
            name = name.rstrip()
            offset += len(part) + 1
            t = cached_tensor(type_text.strip())
            if t is None or name in names or any(name == n for n, _, _ in items):
                return -1
            items.append((name, t, start))
        source = self.source
        for name, t, start in items:
            value = block.add_argument(t)
            line, col = source.position(start)
            block.arg_locations[-1] = FileLineColLoc(source.name, line, col)
            names[name] = value
            value.name_hint = name
        return m.end()

    def fast_generic_head(self) -> tuple[Any, str, list[Value]] | None:
        """At a generic-form op's name: a registered op's definition, name and operands (all
        plainly defined values), read up to the `)` closing them (the parser left at the
        token after it), as the token-level reader reads them; None, with nothing read,
        for anything else."""
        if self.forward_refs:
            return None
        src = self.src
        m = _GENERIC_HEAD.match(src, self.tok.start)
        if m is None:
            return None
        opdef = _REGISTERED.get(m.group(1))
        operands = self.fast_values(m.group(2)) if m.group(2) else []
        if opdef is None or operands is None:
            return None
        self.tok = lex_at(src, m.end())
        return opdef, m.group(1), operands

    def _resolve(self, name: str) -> _Resolved | None:
        """The op a statement's written name means here (as `Parser._parse_custom_operation`
        finds it) with its fast parser or op builder, remembered for the next statement;
        None when it has neither."""
        key: str | tuple[str, str] = name
        opdef = _REGISTERED.get(name)
        if opdef is None:
            if "." in name:
                opdef = registry.lookup(name)
            elif name == "module":
                opdef = registry.lookup("builtin.module")
            else:  # `return` in a function: the default dialect's op
                if not (self.default_dialects and self.default_dialects[-1]):
                    return None
                full = f"{self.default_dialects[-1]}.{name}"
                opdef = _REGISTERED.get(full) or registry.lookup(full)
        if "." not in name:
            key = (self.default_dialects[-1] if self.default_dialects else "", name)
        if opdef is None or opdef.syntax is None or _REGISTERED.get(opdef.name) is not opdef:
            return None
        fast = FAST_PARSERS.get(opdef.name)
        if fast is None:
            resolver = getattr(opdef.syntax, "fast_parser", None)
            fast = resolver() if resolver is not None else getattr(opdef.syntax, "fast_parse",
                                                                   None)
        builder = FAST_OP_PARSERS.get(opdef.name) if fast is None else None
        if fast is None and builder is None:
            return None
        entry = (opdef, fast, builder, opdef.name)
        if len(_RESOLVED) < 4096:
            _RESOLVED[key] = entry
        return entry

    def _fast_op(self, builder: FastOpParser, opdef: Any, name: str, start: int,
                 end: int, num_results: int) -> tuple[Operation, int] | None:
        """An op with regions read by `builder` (see `register_fast_op_parser`), with the
        token-level parser's handling of its custom parser's errors, and the offset it
        ends at: after the `}` of a last region read with `parse_region(..., stop_at_end=
        True)` (the token after it is not lexed: the caller reads on from the offset), else
        the offset of the token after it."""
        self.custom_ops.append(opdef.name)
        self.region_end = -1
        try:  # (the op placed by its offset: `Operation.location`)
            op = builder(self, opdef, end, start, num_results)
        except CUSTOM_PARSER_ERRORS as e:
            raise self.error(f"custom op '{name}' could not be parsed: {e}",
                             Token(BARE, name, start, start + len(name))) from None
        finally:
            self.custom_ops.pop()
        if op is None:
            return None
        end = self.region_end
        if end < 0:
            return op, self.tok.start
        self.region_end = -1
        return op, end
