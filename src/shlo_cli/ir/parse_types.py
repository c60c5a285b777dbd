"""Type parsing for the MLIR text parser: builtin types (tensor, complex, tuple, function,
quantized) with fast paths for common spellings, and the hook dialects use for `!dialect.*`
types. `TypeParsing` is a mixin of `parser.Parser`; it uses the parser's token helpers."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from . import regex_programs, registry
from .attributes import (
    Attribute,
    DialectAttr,
)
from .diagnostics import Diagnostic
from .lexer import (
    BANG,
    BARE,
    PUNCT,
    STRING,
    TENSOR,
    Token,
    lazy_regex,
    lex_at,
    possessive,
    string_error,
)
from .parse_caches import text_cache
from .parse_host import ParserHost
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import TypeVar

    from .parser import Parser

    _Hook = TypeVar("_Hook")

INT64_MAX = (1 << 63) - 1


_FLOAT_NAMES = {
    "f16", "bf16", "f32", "f64", "tf32", "f80", "f128", "f4E2M1FN", "f6E2M3FN", "f6E3M2FN",
    "f8E3M4", "f8E4M3", "f8E4M3FN", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ",
    "f8E8M0FNU",
}

_INT_TYPE = regex_programs.compile(r"([su]?)i([0-9]+)")

# The words MLIR's parseOptionalType takes as the start of a type (besides `!` and `(`).
_TYPE_WORDS = {"tensor", "vector", "memref", "complex", "tuple", "index", "none"}


def starts_type(word: str) -> bool:
    """Whether a bare word begins a type where MLIR tries one (an attribute value that is
    none of MLIR's attribute forms, `nan` say, is then "expected attribute value")."""
    return word in _TYPE_WORDS or word in _FLOAT_NAMES or _INT_TYPE.fullmatch(word) is not None

_SIMPLE_TENSOR = regex_programs.compile(
    possessive(r"tensor<((?:(?:[0-9]++|\?)x)*+)([A-Za-z][A-Za-z0-9]*+|complex<[a-z0-9]++>)>"))

_DIMS = regex_programs.compile(r"\s*((?:(?:[0-9]+|\?)\s*x\s*)*)")

# Quantized types are rare: these compile on first use (re caches them), not at every launch.
_QUANT_HEAD = (
    r"\s*(ui|si|u|i)([0-9]+)(?:<\s*(-?[0-9]+)\s*:\s*(-?[0-9]+)\s*>)?\s*:\s*([A-Za-z0-9]+)\s*(?::\s*(-?[0-9]+))?\s*,\s*")

_QUANT_PARAM = (
    r"\s*([-+]?[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?)?|0x[0-9A-Fa-f]+)\s*(?::\s*(-?[0-9]+))?\s*")

_TYPE_CACHE: dict[str, Type] = text_cache()

# Fast paths: whole function types of plain tensors and dictionaries of plain entries are
# parsed once per distinct text (types and attributes are immutable, so sharing is safe).
_T = TENSOR

SIMPLE_FUNC_PATTERN = possessive(
    rf"\((?:{_T}(?:, {_T})*+)?+\) -> (?:{_T}|\((?:{_T}(?:, {_T})*+)?+\))")
_SIMPLE_FUNC = lazy_regex(SIMPLE_FUNC_PATTERN)

_FUNC_CACHE: dict[str, Type] = text_cache()
# A function type's inputs or results text (`tensor<...>, tensor<...>`) -> its types: the
# same lists recur in many function types read for the first time.
_TYPE_LISTS: dict[str, tuple[Type, ...]] = text_cache()

# A ranked tensor of a `!quant.uniform<...>` element with no brackets inside: read in full
# once per text, then looked up (quantized programs repeat a few such types many times).
_QUANT_TENSOR = lazy_regex(r"tensor<(?:(?:[0-9]+|\?)x)*!quant\.uniform<[^<>]*>>")
_QUANT_TENSOR_CACHE: dict[str, Type] = text_cache()

# `_balanced_end`'s scanners by bracket pair: the next string (skipped whole), `->` (its `>`
# is no bracket) or bracket.
_BRACKETS: dict[tuple[str, str], re.Pattern[str]] = {}

_CACHE_LIMIT = 1 << 16  # entries per cache; beyond it texts are parsed every time

MAX_INT_WIDTH = 16777215  # IntegerType::kMaxWidth

# Dialects whose types / attributes parse themselves with the parser's public methods:
# dialect -> fn(parser, token) called with the `!dialect.name` / `#dialect.name` token just
# consumed (the parser stands on what follows, e.g. `<`). Registered by dialect modules
# through register_dialect_types / register_dialect_attributes.
DIALECT_TYPE_HOOKS: dict[str, Callable[[Parser, Token], Type]] = {}



class TypeParsing(ParserHost):
    """Mixin: `parse_type` and friends (needs `Parser`'s token and error helpers)."""

    def parse_type(self) -> Type:
        tok = self.tok
        if tok.text == "tensor":  # the most common case first: a tensor type seen before
            m = _SIMPLE_TENSOR.match(self.src, tok.start)
            if m is not None:
                cached = plain_tensor(m.group(0))
                if cached is not None:
                    self.tok = lex_at(self.src, m.end())
                    return cached
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
                    cached = plain_tensor(key)
                    if cached is None:  # not a type: the token-level reader reports it
                        cached = self._parse_tensor_type()
                        if len(_TYPE_CACHE) < _CACHE_LIMIT:
                            _TYPE_CACHE[key] = cached
                    else:
                        self.tok = lex_at(self.src, m.end())
                    return cached
                return self._quantized_tensor_type()
            scalar = scalar_type(text)
            if scalar is not None:
                self.advance()
                return scalar
            width_match = _INT_TYPE.fullmatch(text)
            if width_match:  # a width over MAX_INT_WIDTH: MLIR's two messages
                if int(width_match.group(2)) >> 32:  # not an unsigned (getIntTypeBitwidth)
                    raise self.error("invalid integer width")
                raise self.error(f"integer bitwidth is limited to {MAX_INT_WIDTH} bits")
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
                self.expect("<", "in tuple type")
                types = [] if self.at(">") else self.parse_type_list()
                self.expect(">", "in tuple type")
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
            raise self.wrong_token_error("expected non-function type")
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
                    built = plain_function(key)
                    if built is not None:
                        after = lex_at(self.src, m.end())
                        if after.text != "->":
                            self.tok = after
                            return built
                    cached = self._parse_function_type()
                    if self.tok.start == lex_at(self.src, m.end()).start:
                        if len(_FUNC_CACHE) < _CACHE_LIMIT:
                            _FUNC_CACHE[key] = cached
                    return cached
            return self._parse_function_type()
        raise self.wrong_token_error("expected non-function type")

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
        assert m is not None  # the pattern matches the empty string
        dims = []
        text = m.group(1)
        if text:
            offset = m.start(1)
            for part in text.split("x")[:-1]:
                value = part.strip()
                if value == "?":
                    dims.append(DYNAMIC)
                else:
                    dims.append(int(value))
                    if dims[-1] > INT64_MAX:  # MLIR keeps dimensions in an int64_t
                        start = offset + len(part) - len(part.lstrip())
                        raise self.error("invalid dimension", lex_at(self.src, start))
                offset += len(part) + 1
        self.tok = lex_at(self.src, m.end())
        return dims

    def _quantized_tensor_type(self) -> Type:
        """The tensor type at `tensor` (one `_SIMPLE_TENSOR` does not match): a quantized
        one read before is looked up by its text (unless type aliases are defined, which
        `!quant.uniform` might name), else it is read in full and kept when the reading
        ended where the text does."""
        src = self.src
        m = None if self.type_aliases else _QUANT_TENSOR.match(src, self.tok.start)
        if m is None:
            return self._parse_tensor_type()
        key = m.group(0)
        cached = _QUANT_TENSOR_CACHE.get(key)
        if cached is not None:
            self.tok = lex_at(src, m.end())
            return cached
        parsed = self._parse_tensor_type()
        if (self.tok.start == lex_at(src, m.end()).start
                and len(_QUANT_TENSOR_CACHE) < _CACHE_LIMIT):
            _QUANT_TENSOR_CACHE[key] = parsed
        return parsed

    def _parse_tensor_type(self) -> Type:
        self.advance()  # tensor
        if not self.at("<"):
            raise self.wrong_token_error("expected '<' in tensor type")
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
        close = self.expect(">", "in tensor type")
        if encoding is not None:
            _check_bounds(self, TensorType(tuple(shape), element), encoding, close)
        return TensorType(tuple(shape), element, encoding)

    def _parse_dialect_type(self) -> Type:
        tok = self.advance()
        text = tok.text
        if text in self.type_aliases:
            return self.type_aliases[text]
        hook = _dialect_hook(DIALECT_TYPE_HOOKS, text[1:].split(".", 1)[0])
        if hook is not None:
            return hook(self.as_parser(), tok)  # the mixin only lives in Parser
        if text == "!stablehlo.token":
            return TokenType()
        if text == "!quant.uniform":
            return self._parse_quant_uniform(tok)
        if text == "!stablehlo.future" and self.at("<"):
            return self._parse_future_type(tok)
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

    def _parse_future_type(self, tok: Token) -> Type:
        """`!stablehlo.future<T, ...>`: kept as text, but its types must be ranked tensors
        (StableHLO's FutureType verifier, run while the type is built)."""
        start = self.tok.start
        try:
            self.expect("<")
            types = [] if self.at(">") else self.parse_type_list()
            self.expect(">")
        except Diagnostic:
            found = dialect_body_error(self.src, start)  # MLIR scans the body first
            if found is not None:
                raise self.error(found[0], offset=found[1]) from None
            raise
        for t in types:
            if not isinstance(t, TensorType):
                raise self.error(
                    f"future element type must be a ranked tensor, but got '{t}'", tok)
        return OpaqueType(f"{tok.text}<{', '.join(str(t) for t in types)}>")

    def _parse_quant_uniform(self, tok: Token) -> Type:
        if not self.at("<"):
            raise self.error("expected '<'")
        end = self._balanced_end(self.tok.start, "<", ">")
        body = self.src[self.tok.start + 1:end - 1]
        import re  # (only quantized types: a launch without them does not import it)

        m = re.match(_QUANT_HEAD, body)
        if m is None:
            raise self.error("invalid quantized type", self.tok)
        signed, width, qmin, qmax, expressed_name, axis = m.groups()
        if not 0 < int(width) <= 32:  # the quant dialect's storage limit
            raise self.error(f"illegal storage type size: {int(width)}", self.tok)
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
            pm = re.fullmatch(_QUANT_PARAM, item)
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
        if qmin is not None and qmax is not None and int(qmax) <= int(qmin):
            raise self.error("illegal storage min and storage max: "
                             f"({int(qmin)}:{int(qmax)})", tok)
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
        pattern = _BRACKETS.get((open_ch, close_ch))
        if pattern is None:
            # Each match: the run of other characters (one character class, so a match
            # never backtracks into it more than once), then what ends it; `\Z` ends the
            # text's last run, so no failed search restarts at every offset of a long tail.
            brackets = regex_programs.escape(open_ch + close_ch)
            pattern = _BRACKETS[(open_ch, close_ch)] = regex_programs.compile(
                rf'[^"\-{brackets}]*("(?:[^"\\]|\\.)*"|"|->|[{brackets}]|-|\Z)',
                regex_programs.DOTALL)
        depth = 0
        for m in pattern.finditer(self.src, start):
            c = m.group(1)
            if c == open_ch:
                depth += 1
            elif c == close_ch:
                depth -= 1
                if depth == 0:
                    return m.end()
            elif c == '"' or not c:  # a string left open runs to the end of the text
                break
        found = dialect_body_error(self.src, start) if open_ch == "<" else None
        message, offset = found or (f"unbalanced '{open_ch}' character in pretty dialect name",
                                    start)
        raise self.error(message, offset=offset)

    def parse_balanced_body(self, open_ch: str = "<", close_ch: str = ">") -> tuple[str, int]:
        """At `open_ch`: the text up to its matching `close_ch` and that text's offset, the
        cursor moved past the group (for dialect syntax parsed from its body text)."""
        if not self.at(open_ch):
            raise self.error(f"expected '{open_ch}'")
        end = self._balanced_end(self.tok.start, open_ch, close_ch)
        start = self.tok.end
        self.tok = lex_at(self.src, end)
        return self.src[start:end - 1], start


_DIALECT_BODY = lazy_regex(r'[^"\-<>\[\](){}]*("|->|[<>\[\](){}]|-|\Z)',
                           regex_programs.DOTALL)  # (used only once a body has failed)
_OPENER = {">": "<", "]": "[", ")": "(", "}": "{"}


def dialect_body_error(src: str, start: int) -> tuple[str, int] | None:
    """MLIR's complaint about the dialect symbol body opening with the `<` at `start`, and
    where (its parseDialectSymbolBody: every kind of bracket nests, a closer that does not
    match, or the end of the text, is "unbalanced" naming the innermost open bracket, at the
    `<`; strings are lexed, so one left open is the lexer's error); None if it is balanced.
    Run only once a faster reading has failed."""
    stack: list[str] = []
    pos = start
    while True:
        m = _DIALECT_BODY.match(src, pos)
        assert m is not None  # every run ends somewhere: `\Z` at the latest
        c = m.group(1)
        pos = m.end()
        if c in _OPENER:
            if stack[-1] != _OPENER[c]:
                break
            stack.pop()
            if not stack:
                return None
        elif c == '"':
            tok = lex_at(src, pos - 1)
            if tok.kind != STRING:
                return string_error(src, pos - 1)
            pos = tok.end
        elif c in ("<", "[", "(", "{"):
            stack.append(c)
        elif not c:  # the end of the text
            break
    return f"unbalanced '{stack[-1]}' character in pretty dialect name", start


def plain_tensor(text: str) -> Type | None:
    """The tensor type spelled `text` (all of it a `_SIMPLE_TENSOR` text: dims and a scalar or
    complex element, no spaces), as the token-level reader builds it, kept in `_TYPE_CACHE`;
    None when `text` is no such type (that reader then reports why). Built from the text's
    parts: a type read for the first time costs a few dictionary look-ups, not a lexer pass
    per token."""
    cached = _TYPE_CACHE.get(text)
    if cached is not None:
        return cached
    m = _SIMPLE_TENSOR.fullmatch(text)
    if m is None:
        return None
    dims, name = m.groups()
    element = _ELEMENTS.get(name)
    if element is None:
        element = _element_type(name)
        if element is None:
            return None
        _ELEMENTS[name] = element
    shape = tuple(DYNAMIC if d == "?" else int(d) for d in dims.split("x")[:-1]) if dims else ()
    # (a dimension of 19 digits or more may be beyond int64: the token-level reader reports it)
    if len(dims) > 19 and any(d > INT64_MAX for d in shape):
        return None
    built = TensorType(shape, element)
    if len(_TYPE_CACHE) < _CACHE_LIMIT:
        _TYPE_CACHE[text] = built
    return built


# A plain tensor type's element text -> its type (immutable: shared by the tensor types).
_ELEMENTS: dict[str, Type] = text_cache()


def _element_type(name: str) -> Type | None:
    """The element type spelled `name` (a scalar or `complex<scalar>`), or None."""
    if name.startswith("complex<"):
        inner = scalar_type(name[8:-1])
        if not isinstance(inner, (FloatType, IntegerType)):
            return None
        return ComplexType(inner)
    return scalar_type(name)


def plain_function(text: str) -> FunctionType | None:
    """The function type spelled `text` (all of it a `SIMPLE_FUNC_PATTERN` text), built from
    its tensor types (`plain_tensor`) and kept in `_FUNC_CACHE`; None if a part is no type.
    The caller checks that no `->` follows the text (a function type returning one)."""
    cached = _FUNC_CACHE.get(text)
    if cached is not None:
        return cached  # type: ignore[return-value]  # the cache holds function types
    close = text.find(") -> ")
    if close < 0 or not text.startswith("("):
        return None
    results = text[close + 5:]
    if results.startswith("("):
        results = results[1:-1]
    types: list[tuple[Type, ...]] = []
    for part in (text[1:close], results):
        known = _TYPE_LISTS.get(part)
        if known is None:
            out: list[Type] = []
            if part:
                for item in part.split(", "):
                    t = plain_tensor(item)
                    if t is None:
                        return None
                    out.append(t)
            known = tuple(out)
            if len(_TYPE_LISTS) < _CACHE_LIMIT:
                _TYPE_LISTS[part] = known
        types.append(known)
    built = FunctionType(types[0], types[1])
    if len(_FUNC_CACHE) < _CACHE_LIMIT:
        _FUNC_CACHE[text] = built
    return built


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


def _check_bounds(parser: ParserHost, plain: TensorType, encoding: Attribute,
                  close: Token) -> None:
    """StableHLO's encoding verifier (Base.cpp verifyBounds), which MLIR runs while building
    the tensor type once its closing `>` is read: reported there, naming the type without
    its encoding."""
    if not (isinstance(encoding, DialectAttr) and encoding.dialect == "stablehlo"
            and encoding.name == "bounds"):
        return
    bounds = encoding.get("bounds") or []
    shape = plain.shape
    if len(bounds) != len(shape):
        raise parser.error(f"Bounds length is {len(bounds)}, expected to be equal to "
                           f"rank({len(shape)}) of the tensor '{plain}'", close)
    for index, (size, bound) in enumerate(zip(shape, bounds, strict=True)):
        if size != DYNAMIC and bound is not None:
            raise parser.error(f"Static dimension {index} cannot have a bound, use "
                               "ShapedType::kDynamic to indicate a missing bound in tensor "
                               f"'{plain}'", close)


def register_dialect_types(dialect: str, fn: Callable[[Parser, Token], Type]) -> None:
    """Let `fn` parse every `!dialect.*` type."""
    DIALECT_TYPE_HOOKS[dialect] = fn


def _dialect_hook(table: dict[str, _Hook], dialect: str) -> _Hook | None:
    if not table.get(dialect) and registry.is_known_dialect(dialect):
        registry.load_core()  # core dialect modules register the hooks when loaded
        registry.load_dialect(dialect)
    return table.get(dialect)


def _normalize_space(text: str) -> str:
    import re

    return re.sub(r"\s+", " ", text).strip() if ("\n" in text or "  " in text) else text


def _check_scale_range(parser: ParserHost, expressed: Type, scale: float, offset: int) -> None:
    """The quant dialect's `scale out of expressed type range`: a scale must lie between the
    expressed float type's smallest subnormal and its largest finite value."""
    if not isinstance(expressed, FloatType):
        return
    try:
        info = ml_dtypes.finfo(numpy_dtype(expressed))  # type: ignore[no-untyped-call]
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

