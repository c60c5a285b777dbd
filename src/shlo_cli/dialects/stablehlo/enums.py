"""StableHLO's and CHLO's enum attributes (`#stablehlo<comparison_direction LT>`).

Their cases are checked while parsing, with the two errors upstream's generated enum parsers
give, and the enum each op attribute holds is checked by the verifier, as ODS's attribute
constraints do: an unknown case or another kind of attribute never reaches a kernel.
"""

from __future__ import annotations

from ...ir import regex_programs
from ...ir.attributes import ArrayAttr, Attribute, DialectAttr, IntegerAttr
from ...ir.core import Operation
from ...ir.lexer import BARE, STRING, unescape_string
from ...ir.parse_attributes import DIALECT_ATTR_PARSERS
from ...ir.record import Record, set_field
from ...ir.verifier import TYPE_CONSTRAINTS, op_error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Enum(Record):
    """An enum kind as upstream's diagnostics name it."""

    __slots__ = ("cpp", "attr_def", "summary", "cases")
    cpp: str  # the C++ enum upstream's messages name
    attr_def: str  # its attribute's TableGen name
    summary: str  # the constraint text a verifier error quotes
    cases: tuple[str, ...]

    def __init__(self, cpp: str, attr_def: str, summary: str, cases: tuple[str, ...]) -> None:
        set_field(self, "cpp", cpp)
        set_field(self, "attr_def", attr_def)
        set_field(self, "summary", summary)
        set_field(self, "cases", cases)


_COMPARISONS = ("EQ", "NE", "GE", "GT", "LE", "LT")
_COMPARISON_TYPES = ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")
_PRECISIONS = ("DEFAULT", "HIGH", "HIGHEST")


def _enums(dialect: str, prefix: str) -> dict[str, Enum]:
    ns = f"::mlir::{dialect}::"
    found = {
        "comparison_direction": Enum(f"{ns}ComparisonDirection",
                                     f"{prefix}_ComparisonDirectionAttr",
                                     "Which comparison operation to perform.", _COMPARISONS),
        "comparison_type": Enum(f"{ns}ComparisonType", f"{prefix}_ComparisonTypeAttr",
                                "Which comparison type to use.", _COMPARISON_TYPES),
        "precision": Enum(f"{ns}Precision", f"{prefix}_PrecisionAttr",
                          "XLA precision for an operand. Has backend specific meaning.",
                          _PRECISIONS),
    }
    if dialect == "stablehlo":
        found.update({
            "fft_type": Enum(f"{ns}FftType", "StableHLO_FftTypeAttr",
                             "XLA fast fourier transform type.",
                             ("FFT", "IFFT", "RFFT", "IRFFT")),
            "transpose": Enum(f"{ns}Transpose", "StableHLO_TransposeAttr", "Transpose options",
                              ("TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT")),
            "rng_distribution": Enum(f"{ns}RngDistribution", "StableHLO_RngDistributionAttr",
                                     "XLA PRNG distribution to be used.", ("UNIFORM", "NORMAL")),
            "rng_algorithm": Enum(f"{ns}RngAlgorithm", "StableHLO_RngAlgorithmAttr",
                                  "XLA PRNG algorithm to be used.",
                                  ("DEFAULT", "THREE_FRY", "PHILOX")),
        })
    return found


ENUMS = {"stablehlo": _enums("stablehlo", "StableHLO"), "chlo": _enums("chlo", "CHLO")}
_WORD = regex_programs.compile(r"\s*([A-Za-z_][A-Za-z0-9_$.]*)?")


def _word(body: str, pos: int) -> tuple[str | None, int, int]:
    """The identifier after `pos` (None if there is none), where it starts and ends."""
    m = _WORD.match(body, pos)
    assert m is not None  # (every part of the pattern is optional)
    return m.group(1), m.start(1) if m.group(1) else m.end(), m.end()


def _enum_parser(dialect: str) -> Any:
    kinds = ENUMS[dialect]

    def parse(p: Any, body: str, offset: int) -> DialectAttr:
        """`kind CASE` of a known kind, its case checked; any other body kept as written."""
        kind, _, after_kind = _word(body, 0)
        enum = kinds.get(kind or "")
        if enum is None:
            return DialectAttr(dialect, "", " ".join(body.split()))
        case, start, end = _word(body, after_kind)
        if case is not None and case in enum.cases:
            if body[end:].strip():
                raise p.error("expected '>'", offset=offset + end)
            return DialectAttr(dialect, "", f"{kind} {case}")
        if case is None:
            err = p.error("expected valid keyword", offset=offset + end)
        else:
            err = p.error(f"expected {enum.cpp} to be one of: {', '.join(enum.cases)}",
                          offset=offset + start)
        err.notes.append(p.error(f"failed to parse {enum.attr_def} parameter 'value' which is "
                                 f"to be a `{enum.cpp}`", offset=offset))
        raise err

    return parse


for _dialect in ENUMS:
    DIALECT_ATTR_PARSERS[(_dialect, "")] = _enum_parser(_dialect)


def parse_enum_case(p: Any, kind: str) -> DialectAttr:
    """A case of the StableHLO enum `kind` written bare in an op's custom syntax, read as
    upstream's generated enum parser reads it: a keyword or a string (parseKeywordOrString),
    an unknown case named with the cases it may be, at the word."""
    enum = ENUMS["stablehlo"][kind]
    tok = p.tok
    if tok.kind == STRING:
        word = unescape_string(tok.text)
    elif tok.kind == BARE:
        word = tok.text
    else:
        raise p.op_error("expected valid keyword or string")
    p.advance()
    if word not in enum.cases:
        raise p.op_error(f"expected {enum.cpp} to be one of: {', '.join(enum.cases)}", tok)
    return DialectAttr("stablehlo", "", f"{kind} {word}")

# Op attribute -> the enum kind it holds (`precision_config`: an array of them), per dialect.
_ATTRIBUTE_ENUMS = {"comparison_direction": "comparison_direction",
                    "compare_type": "comparison_type", "fft_type": "fft_type",
                    "transpose_a": "transpose", "rng_distribution": "rng_distribution",
                    "rng_algorithm": "rng_algorithm"}
_API_VERSIONS = range(5)  # custom_call's api_version: an i32 enum (UNSPECIFIED .. TYPED_FFI)


def _holds(attr: Attribute | None, dialect: str, kind: str) -> bool:
    return (isinstance(attr, DialectAttr) and attr.dialect == dialect and not attr.name
            and attr.body.split(" ", 1)[0] == kind)


def check_enum_attributes(op: Operation) -> None:
    """Each enum-valued attribute of a StableHLO or CHLO op holds its enum (ODS's
    `failed to satisfy constraint` otherwise)."""
    dialect = op.name.split(".", 1)[0]
    kinds = ENUMS.get(dialect)
    if kinds is None:
        return
    for name in (*op.properties, *op.attributes):
        attr = op.attr(name)
        kind = _ATTRIBUTE_ENUMS.get(name)
        if kind is not None:
            if not _holds(attr, dialect, kind):
                raise op_error(op, f"attribute '{name}' failed to satisfy constraint: "
                                   f"{kinds[kind].summary}")
        elif name == "precision_config":
            if not (isinstance(attr, ArrayAttr)
                    and all(_holds(a, dialect, "precision") for a in attr.elements)):
                raise op_error(op, "attribute 'precision_config' failed to satisfy "
                                   "constraint: Precision Config attribute")
        elif name == "api_version" and op.name == "stablehlo.custom_call":
            if not (isinstance(attr, IntegerAttr) and str(attr.type) == "i32"
                    and attr.number in _API_VERSIONS):
                raise op_error(op, "attribute 'api_version' failed to satisfy constraint: "
                                   "Custom call API version")


if check_enum_attributes.__qualname__ not in (c.__qualname__ for c in TYPE_CONSTRAINTS):
    TYPE_CONSTRAINTS.append(check_enum_attributes)
