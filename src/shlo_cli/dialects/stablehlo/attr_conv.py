"""The `#stablehlo.conv` dimension numbers: their record, text form and attribute parser.

Apart from the `convolution` op so that a program's attributes parse without importing the
op's kernel and verifier (and the dot_general and reduce_window modules they share).
"""

from __future__ import annotations

import itertools

from ...ir import regex_programs
from ...ir.attributes import DialectAttr
from ...ir.diagnostics import EvaluationError
from ...ir.lexer import BARE, INT, lex_at
from ...ir.parse_attributes import DIALECT_ATTR_PARSERS
from ...ir.record import Record, set_field
from .dimension_numbers import parse_dimension_struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class ConvDims(Record):
    """`#stablehlo.conv` decoded: which axis of each operand/result plays which role."""

    __slots__ = ("input_batch", "input_feature", "input_spatial", "kernel_input_feature",
                 "kernel_output_feature", "kernel_spatial", "output_batch", "output_feature",
                 "output_spatial")
    input_batch: int
    input_feature: int
    input_spatial: tuple[int, ...]
    kernel_input_feature: int
    kernel_output_feature: int
    kernel_spatial: tuple[int, ...]
    output_batch: int
    output_feature: int
    output_spatial: tuple[int, ...]

    def __init__(self, input_batch: int, input_feature: int, input_spatial: tuple[int, ...],
                 kernel_input_feature: int, kernel_output_feature: int,
                 kernel_spatial: tuple[int, ...], output_batch: int, output_feature: int,
                 output_spatial: tuple[int, ...]) -> None:
        set_field(self, "input_batch", input_batch)
        set_field(self, "input_feature", input_feature)
        set_field(self, "input_spatial", input_spatial)
        set_field(self, "kernel_input_feature", kernel_input_feature)
        set_field(self, "kernel_output_feature", kernel_output_feature)
        set_field(self, "kernel_spatial", kernel_spatial)
        set_field(self, "output_batch", output_batch)
        set_field(self, "output_feature", output_feature)
        set_field(self, "output_spatial", output_spatial)

    def text(self) -> str:
        """`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` (upstream printConvolutionDimensions)."""
        return (_layout(self.input_spatial, {self.input_batch: "b", self.input_feature: "f"})
                + "x" + _layout(self.kernel_spatial, {self.kernel_input_feature: "i",
                                                      self.kernel_output_feature: "o"})
                + "->" + _layout(self.output_spatial, {self.output_batch: "b",
                                                       self.output_feature: "f"}))


_MAX_RANK = 1 << 16


def _layout(spatial: Sequence[int], named: dict[int, str]) -> str:
    size = max([s + 1 for s in spatial] + [d + 1 for d in named] + [0])
    if size > 1024 or min([*spatial, *named], default=0) < 0:
        # absurd dimension numbers (the verifier rejects them): list, don't lay out
        return "[" + ", ".join([f"{d}:{n}" for d, n in named.items()]
                               + [f"{d}:{i}" for i, d in enumerate(spatial)]) + "]"
    slots = ["?"] * size
    for d, name in named.items():
        slots[d] = name
    for i, d in enumerate(spatial):
        slots[d] = str(i)
    return "[" + ", ".join(slots) + "]"


_INTEGER = regex_programs.compile(r"-?[0-9]+")
_FIELD = regex_programs.compile(r"([a-z_]+)\s*=\s*(\[[^\]]*\]|-?[0-9]+)")
_CONV_TEXT = regex_programs.compile(r"\s*\[([^\]]*)\]\s*x\s*\[([^\]]*)\]\s*->\s*\[([^\]]*)\]\s*")


def _roles(items: Sequence[str], names: tuple[str, ...]) -> tuple[int, int, tuple[int, ...]]:
    """Axis of each of the two named roles and the spatial axes in spatial order, with
    upstream's parse errors."""
    allowed = list(names)
    found: dict[str, int] = {}
    spatial: dict[int, int] = {}
    for axis, item in enumerate(items):
        item = item.strip()
        if _INTEGER.fullmatch(item):
            number = int(item)
            if number < 0:
                raise ValueError(f"Unexpected dimension {number}")
            if number in spatial:
                raise ValueError(f"Duplicate entries for spatial dimension {number}")
            spatial[number] = axis
            continue
        if len(item) != 1 or not allowed:
            raise ValueError(f"Unexpected keyword {item}")
        if item not in allowed:
            raise ValueError(f"Unexpected dimension {item}, expecting {', '.join(allowed)}")
        allowed.remove(item)
        found[item] = axis
    if allowed:
        raise ValueError(f"Expected dimensions {', '.join(allowed)} not specified")
    for i in range(len(spatial)):
        if i not in spatial:
            raise ValueError(f"Expected spatial dimensions {i} not specified")
    return found[names[0]], found[names[1]], tuple(spatial[i] for i in range(len(spatial)))


def parse_int64_or_bool(p: Any) -> int:
    """MLIR's `parseInteger<int64_t>`, which also reads `true` and `false` (a 1-bit 1, sign
    extended: -1) and `false` (0)."""
    word = p.tok.text
    if word in ("true", "false") and p.tok.kind == BARE:
        p.advance()
        return -1 if word == "true" else 0
    return int(p.parse_int64())


def _parse_layout(p: Any, roles: tuple[str, str]) -> tuple[int, int, tuple[int, ...]]:
    """One `[b, 0, 1, f]` list: the axes of the two `roles` and the spatial axes in spatial
    order. Read as upstream's parseConvolutionDimensions reads it: each item checked where it
    stands, a missing role at the token after the items, missing spatial dimensions (up to
    ten) at the token after the `]`."""
    p.expect("[")
    allowed = list(roles)
    found: dict[str, int] = {}
    spatial: dict[int, int] = {}
    axis = 0
    while True:
        tok = p.tok
        if tok.kind == INT or tok.text == "-" or (tok.kind == BARE and tok.text in ("true",
                                                                                  "false")):
            number = parse_int64_or_bool(p)
            if number < 0:
                raise p.op_error(f"Unexpected dimension {number}", tok)
            if number in spatial:
                raise p.op_error(f"Duplicate entries for spatial dimension {number}", tok)
            spatial[number] = axis
        else:
            word = p.parse_keyword()
            if len(word) != 1 or not allowed:
                raise p.op_error(f"Unexpected keyword {word}", tok)
            if word not in allowed:
                raise p.op_error(f"Unexpected dimension {word}, expecting "
                                 f"{', '.join(allowed)}", tok)
            allowed.remove(word)
            found[word] = axis
        axis += 1
        if not p.accept(","):
            break
    if allowed:
        raise p.op_error(f"Expected dimensions {', '.join(allowed)} not specified")
    p.expect("]")
    count = max(spatial, default=-1) + 1
    # (the first ten, found without walking up to a huge dimension number: `[b, 9999999999, f]`)
    missing = [str(d) for d in itertools.islice((d for d in range(count) if d not in spatial), 10)]
    if missing:
        raise p.op_error(f"Expected spatial dimensions {', '.join(missing)} not specified")
    return found[roles[0]], found[roles[1]], tuple(spatial[d] for d in range(count))


def parse_conv_dims(p: Any) -> ConvDims:
    ib, if_, isp = _parse_layout(p, ("b", "f"))
    p.expect_keyword("x")
    ki, ko, ksp = _parse_layout(p, ("i", "o"))
    p.expect("->")
    ob, of, osp = _parse_layout(p, ("b", "f"))
    return ConvDims(ib, if_, isp, ki, ko, ksp, ob, of, osp)


def conv_dims_from_lists(lhs: Sequence[str], rhs: Sequence[str], out: Sequence[str]) -> ConvDims:
    ib, if_, isp = _roles(lhs, ("b", "f"))
    ki, ko, ksp = _roles(rhs, ("i", "o"))
    ob, of, osp = _roles(out, ("b", "f"))
    return ConvDims(ib, if_, isp, ki, ko, ksp, ob, of, osp)


def decode_conv_dims(attr: Any) -> ConvDims:
    """From either spelling: `[b, 0, f]x[...]->[...]` or `input_batch_dimension = 0, ...`."""
    if isinstance(attr, DialectAttr) and attr.fields:
        def one(name: str) -> int:
            return int(attr.get(name, 0))

        def many(name: str) -> tuple[int, ...]:
            return tuple(int(v) for v in attr.get(name, []) or [])

        return ConvDims(one("input_batch_dimension"), one("input_feature_dimension"),
                        many("input_spatial_dimensions"), one("kernel_input_feature_dimension"),
                        one("kernel_output_feature_dimension"), many("kernel_spatial_dimensions"),
                        one("output_batch_dimension"), one("output_feature_dimension"),
                        many("output_spatial_dimensions"))
    body = attr.body if isinstance(attr, DialectAttr) else str(attr)
    if body.startswith("raw"):
        return _decode_raw(body[3:])
    m = _CONV_TEXT.fullmatch(body)
    if m is None:
        raise EvaluationError(f"malformed convolution dimension numbers: {body}")
    try:
        return conv_dims_from_lists(*(g.split(",") if g.strip() else [] for g in m.groups()))
    except ValueError as e:
        raise EvaluationError(str(e)) from None


def _decode_raw(text: str) -> ConvDims:
    """`input_batch_dimension = 0, input_spatial_dimensions = [1, 2], ...` (missing = 0/[])."""
    found = dict(_FIELD.findall(text))

    def one(name: str) -> int:
        return int(found.get(name, "0"))

    def many(name: str) -> tuple[int, ...]:
        inner = found.get(name, "[]").strip("[]")
        return tuple(int(v) for v in inner.split(",") if v.strip())

    return ConvDims(one("input_batch_dimension"), one("input_feature_dimension"),
                    many("input_spatial_dimensions"), one("kernel_input_feature_dimension"),
                    one("kernel_output_feature_dimension"), many("kernel_spatial_dimensions"),
                    one("output_batch_dimension"), one("output_feature_dimension"),
                    many("output_spatial_dimensions"))


_RAW_FIELDS = (("input_batch_dimension", "input_batch"),
               ("input_feature_dimension", "input_feature"),
               ("input_spatial_dimensions", "input_spatial"),
               ("kernel_input_feature_dimension", "kernel_input_feature"),
               ("kernel_output_feature_dimension", "kernel_output_feature"),
               ("kernel_spatial_dimensions", "kernel_spatial"),
               ("output_batch_dimension", "output_batch"),
               ("output_feature_dimension", "output_feature"),
               ("output_spatial_dimensions", "output_spatial"))


_RAW_INTEGER_FIELDS = tuple(f for f, _ in _RAW_FIELDS if not f.endswith("dimensions"))


def _parse_conv_attr(p: Any, body: str, offset: int) -> DialectAttr:
    """`#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>` or `#stablehlo.conv<raw ...>`,
    checked like upstream and kept in the compressed form upstream prints."""
    if body.strip().startswith("raw"):
        # upstream's parseStruct (its note names dot dimension numbers for conv too)
        raw_at = offset + body.index("raw") + 3
        found = dict(parse_dimension_struct(p, "dot", [f for f, _ in _RAW_FIELDS],
                                            body[raw_at - offset:], raw_at, _RAW_INTEGER_FIELDS))
        values: list[Any] = [found.get(f, 0) if f in _RAW_INTEGER_FIELDS
                             else tuple(found.get(f, ())) for f, _ in _RAW_FIELDS]
        dims = ConvDims(*values)
        # Keep the raw numbers for the verifier (the compressed text can't show bad ones).
        fields = tuple((f, getattr(dims, a)) for f, a in _RAW_FIELDS)
        return DialectAttr("stablehlo", "conv", dims.text(), fields)
    # The compressed form, read over the file's tokens as upstream's parser reads it.
    after = p.tok
    p.tok = lex_at(p.src, offset)
    dims = parse_conv_dims(p)
    if p.tok.start != offset + len(body):
        raise p.wrong_token_error("expected '>'")
    p.tok = after
    return DialectAttr("stablehlo", "conv", dims.text())


DIALECT_ATTR_PARSERS[("stablehlo", "conv")] = _parse_conv_attr
