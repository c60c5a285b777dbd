"""A small ODS-like assembly format: one declaration drives both parsing and printing.

    Format("$operand `,` `dims` `=` $broadcast_dimensions", types="functional",
           attrs={"broadcast_dimensions": "array"})

Directives:
- ``$name``: an operand (``operands=("lhs", "rhs")``; a trailing ``*`` marks a variadic
  group) or an inherent attribute whose inline kind is given in ``attrs``:
  ``array`` (`[1, 2]` <-> `array<i64: 1, 2>`), ``int`` (`0` <-> `0 : i64`),
  ``enum:<name>`` (`EQ` <-> `#stablehlo<name EQ>`), ``string`` (a bare string, ODS StrAttr:
  `"tag" : T` then reads `T` as the op's type), ``attr`` (any attribute as is).
- `` `text` ``: a literal keyword or punctuation.
- ``[ ... ]``: an optional group, printed when its first attribute is present.
- ``types``: how the trailing `: ...` is written: ``same`` (`: T` when every operand and the
  result share a type, else a function type), ``functional`` (`(A, B) -> R`), ``result``
  (`: R`), ``operands`` (`: A, B`, no results), ``variadic_same`` (`: A, B` and results of
  the same types), ``tuple`` (`: tuple<A, B>`), ``select`` (`: P, T` or a function type),
  ``none`` (no trailing types).
"""

from __future__ import annotations

from ..ir import regex_programs
from ..ir.attributes import Attribute, DenseArrayAttr, DialectAttr, IntegerAttr, StringAttr
from ..ir.core import Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.lexer import INT
from ..ir.record import Struct
from ..ir.types import I64, FunctionType, TupleType, Type
from .stablehlo.enums import parse_enum_case
from .syntax import resolve_functional_operands

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TOKEN = regex_programs.compile(r"\s*(?:`([^`]*)`|\$([A-Za-z_][A-Za-z0-9_]*)|(\[)|(\]))")


class _Item(Struct):
    kind: str  # "literal", "operand", "attr", "optional"
    text: str
    children: list[_Item]

    def __init__(self, kind: str, text: str = "", children: list[_Item] | None = None) -> None:
        self.kind = kind
        self.text = text
        self.children = [] if children is None else children


def _compile(fmt: str, operand_names: set[str]) -> list[_Item]:
    stack: list[list[_Item]] = [[]]
    pos = 0
    fmt = fmt.strip()
    while pos < len(fmt):
        m = _TOKEN.match(fmt, pos)
        if m is None:
            raise ValueError(f"bad assembly format near {fmt[pos:]!r}")
        pos = m.end()
        if m.group(1) is not None:
            stack[-1].append(_Item("literal", m.group(1)))
        elif m.group(2) is not None:
            name = m.group(2)
            stack[-1].append(_Item("operand" if name in operand_names else "attr", name))
        elif m.group(3):
            stack.append([])
        else:
            children = stack.pop()
            stack[-1].append(_Item("optional", children=children))
    return stack[0]


def _enum(kind: str, word: str) -> DialectAttr:
    return DialectAttr("stablehlo", "", f"{kind} {word}")


class Format:
    """Parses and prints an op from a declarative format (see the module docstring)."""

    def __init__(self, fmt: str = "", *, operands: tuple[str, ...] = (), types: str = "same",
                 attrs: dict[str, str] | None = None, num_results: int | None = 1,
                 result_name: str | None = None) -> None:
        self.operands = tuple(o.rstrip("*") for o in operands)
        self.variadic = {o.rstrip("*") for o in operands if o.endswith("*")}
        self.items = _compile(fmt, set(self.operands))
        # A format of one operand item is upstream's `operands` directive (reshape,
        # bitcast_convert, dynamic_update_slice, ...): ODS reports a count there.
        self.operands_directive = len(self.items) == 1 and self.items[0].kind == "operand"
        self.types = types
        self.attrs = attrs or {}
        self.num_results = num_results
        self.elided = set(self.attrs)
        self._fast: Any = None  # the compiled fast parser (False: this format has none)

    def fast_parse(self, p: Any, opdef: Any, pos: int, num_results: int) -> Any:
        """The statement at `pos` read by the compiled regex (see `asm_fast`), or None."""
        fast = self.fast_parser()
        return None if fast is None else fast(p, opdef, pos, num_results)

    def fast_parser(self) -> Any:
        """The compiled fast parser's `parse` (None when this format has none); compiled on
        first use, so the parser can keep it instead of calling `fast_parse`."""
        fast = self._fast
        if fast is None:
            fast = False
            cls = type(self)
            if all(getattr(cls, name) is getattr(Format, name)
                   for name in ("parse", "_parse_items", "_parse_attr", "_parse_types")):
                from .asm_fast import compile_format

                fast = compile_format(self) or False
            self._fast = fast
        return None if fast is False else fast.parse

    # ---- parsing ----------------------------------------------------------------------------

    def parse(self, p: Any, opdef: Any, location: Any, num_results: int) -> Operation:
        groups: dict[str, list[Value]] = {name: [] for name in self.operands}
        props: dict[str, Attribute] = {}
        start = p.tok
        self._parse_items(p, self.items, groups, props)
        attributes = p.parse_optional_attr_dict()
        operands = [v for name in self.operands for v in groups[name]]
        result_types = self._parse_types(p, operands, num_results, start, location)
        return p.build_operation(opdef.name, opdef, operands, result_types, props, attributes,
                                 [], None, location)

    def _parse_items(self, p: Any, items: list[_Item], groups: dict[str, list[Value]],
                     props: dict[str, Attribute], optional: bool = False) -> bool:
        for index, item in enumerate(items):
            if item.kind == "literal":
                if optional and index == 0:
                    if not p.accept(item.text):
                        return False
                elif item.text[0].isalpha():  # ODS's parseKeyword: the op's prefix, here
                    p.expect_keyword(item.text)
                else:
                    p.expect(item.text)
            elif item.kind == "operand":
                if item.text in self.variadic:
                    groups[item.text] = p.parse_operand_list()
                else:
                    groups[item.text] = [p.parse_operand()]
            elif item.kind == "attr":
                props[item.text] = self._parse_attr(p, item.text)
            else:
                self._parse_items(p, item.children, groups, props, optional=True)
        return True

    def _parse_attr(self, p: Any, name: str) -> Attribute:
        kind = self.attrs.get(name, "attr")
        if kind == "array":
            p.expect("[")
            values = []
            if not p.at("]"):
                try:
                    values.append(p.parse_int64())
                    while p.accept(","):
                        values.append(p.parse_int64())
                except Diagnostic as bad:
                    # MLIR's DenseArrayAttr parser still asks for the `]` after a bad element.
                    if not p.at("]"):
                        bad.notes.append(p.error("expected ']'"))
                    raise
            p.expect("]")
            return DenseArrayAttr(I64, tuple(values))
        if kind == "int":  # an I64Attr: MLIR reads an attribute value there
            if p.tok.kind != INT and not p.at("-"):
                raise p.wrong_token_error("expected attribute value")
            return IntegerAttr(p.parse_int64(), I64)
        if kind.startswith("enum:"):
            return parse_enum_case(p, kind[5:])
        if kind == "string":
            return StringAttr(p.parse_string())
        return p.parse_attribute()

    def _parse_types(self, p: Any, operands: list[Value], num_results: int, tok: Any,
                     location: Any) -> list[Type]:
        mode = self.types
        if mode == "none":
            return []
        p.expect(":")
        if mode == "result":
            p.check_operand_types(operands, [], tok)
            return [p.parse_type()]
        if mode in ("operands", "variadic_same"):
            types = p.parse_type_list() if operands else []
            p.resolve_operands(operands, types, tok)
            return list(types) if mode == "variadic_same" else []
        if mode == "tuple":
            t = p.parse_type()
            if not isinstance(t, TupleType):
                raise p.op_error("expected tuple type", tok)
            p.resolve_operands(operands, list(t.types), tok)
            return [t]
        type_tok = p.tok
        if p.at("("):
            ftype = p.parse_type()
            if not isinstance(ftype, FunctionType):
                raise p.error("expected function type", tok)
            if mode == "functional":  # ODS's functional-type(operands, results)
                resolve_functional_operands(p, operands, list(ftype.inputs), location, tok,
                                            tok if self.operands_directive else None)
                return list(ftype.results)
            # StableHLO's assignFromFunctionType (also select's): counts first (at the type),
            # then one result.
            if len(operands) != len(ftype.inputs):
                p.check_operand_types(operands, list(ftype.inputs), type_tok)
            if len(ftype.results) != 1:
                raise p.op_error("expected single output", tok)
            p.check_operand_types(operands, list(ftype.inputs), tok)
            return list(ftype.results)
        if mode == "functional":
            raise p.error("expected '('")
        if mode == "select":
            types = p.parse_type_list()
            if len(types) != 2:
                raise p.op_error("expected functional type or list of two types", tok)
            pred, value = types
            p.check_operand_types(operands, [pred] + [value] * (len(operands) - 1), tok)
            return [value]
        t = p.parse_type()  # same
        p.check_operand_types(operands, [t] * len(operands), tok)
        # The format's own count, not the `%r:N` written (checked against it by the parser:
        # an N from the text must not size anything before that check).
        return [t] * (self.num_results if self.num_results is not None else num_results or 1)

    # ---- printing -----------------------------------------------------------------------

    def print(self, pr: Any, op: Operation) -> None:
        groups = self._groups(op)
        text = self._print_items(pr, op, self.items, groups)
        # MLIR writes a space before each operand element, an empty variadic one included
        # (`stablehlo.tuple  : tuple<>`)
        leading_operand = bool(self.items) and self.items[0].kind == "operand"
        pr.write(" " + text if text or leading_operand else "")
        extra = {k: v for k, v in op.properties.items() if k not in self.elided}
        extra.update(op.attributes)
        pr.write(pr.attr_dict(extra))
        pr.write(self._print_types(op))

    def _groups(self, op: Operation) -> dict[str, list[Value]]:
        groups: dict[str, list[Value]] = {}
        fixed = len(self.operands) - len(self.variadic)
        spare = len(op.operands) - fixed
        pos = 0
        for name in self.operands:
            n = spare if name in self.variadic else 1
            groups[name] = op.operands[pos:pos + n]
            pos += n
        return groups

    def _print_items(self, pr: Any, op: Operation, items: list[_Item],
                     groups: dict[str, list[Value]]) -> str:
        out = ""
        for item in items:
            if item.kind == "literal":
                piece = item.text
                if piece in (",", ")", "]", ":") or (out.endswith(("(", "[")) and piece != "="):
                    out += piece
                    continue
            elif item.kind == "operand":
                piece = pr.operands(groups[item.text])
                if out.endswith(("(", "[")):
                    out += piece
                    continue
            elif item.kind == "attr":
                piece = self._print_attr(op.attr(item.text), item.text)
            else:
                first = next((c for c in item.children if c.kind == "attr"), None)
                if first is None or op.attr(first.text) is None:
                    continue
                inner = self._print_items(pr, op, item.children, groups)
                out += inner if inner.startswith(",") else " " + inner
                continue
            out = f"{out} {piece}" if out else piece
        return out

    def _print_attr(self, attr: Attribute | None, name: str) -> str:
        kind = self.attrs.get(name, "attr")
        if attr is None:
            return ""
        if kind == "array":
            return "[" + ", ".join(str(v) for v in attr.value) + "]"
        if kind == "int":
            return str(attr.value)
        if kind.startswith("enum:"):
            # Bare, one space after `=` like any element: MLIR's old double space (the enum
            # attr's own printer added a leading one) is gone since llvm-project#184253.
            return str(attr.value)
        return str(attr)

    def _print_types(self, op: Operation) -> str:
        mode = self.types
        if mode == "none":
            return ""
        if mode == "result" or mode == "tuple":
            return f" : {op.results[0].type}"
        ins = op.operand_types
        if mode in ("operands", "variadic_same"):
            return " : " + ", ".join(map(str, ins)) if ins else ""
        outs = op.result_types
        if mode == "select":
            if len(outs) == 1 and all(t == outs[0] for t in ins[1:]):
                return f" : {ins[0]}, {outs[0]}"
        elif mode != "functional" and outs and all(t is outs[0] or t == outs[0]
                                                    for t in (*ins, *outs)):
            return f" : {outs[0]}"
        return " : " + str(FunctionType(tuple(ins), tuple(outs)))
