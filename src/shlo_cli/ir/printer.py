"""MLIR text printer: custom syntax where an op has one, generic form otherwise, with value
names assigned exactly as MLIR's SSANameState does (`%0`, `%arg0`, `%c_0`, `%iterArg`)."""

from __future__ import annotations

from .attributes import Attribute, DialectAttr, OpaqueAttr, format_attr_entries
from .core import Block, Module, Operation, Region, Value
from .diagnostics import Diagnostic
from .locations import FileLineColLoc, LocAliases, LocationAttr
from .types import ENCODING_ALIASES, FunctionType, TensorType, Type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# Dialect attributes printed through a file-level alias (`#sparse = #sparse_tensor...`).
_ALIASED_DIALECTS = {"sparse_tensor": "sparse"}

_SHORT_NAMES: dict[tuple[str, str], str] = {}  # (default dialect, op name) -> printed name


class ValueNames:
    """MLIR's value/block naming: regions are numbered from a stack (a block's regions pushed
    in order, so the last pops first); nested regions start from their parent's counters
    (in the generic form the counters never restart); name hints are uniqued with a shared
    `_N` counter.
    Public: `interpreter.print` names values as the printer would (`names`, `result_bases`)."""

    def __init__(self, top: Operation, generic: bool) -> None:
        self.names: dict[int, str] = {}
        self.block_names: dict[int, str] = {}
        self.result_bases: dict[int, str] = {}
        self.result_groups: dict[int, list[tuple[str, int]]] = {}
        self.generic = generic
        self.used: list[set[str]] = []
        stack = [(r, 0, 0, 0, 0) for r in top.regions]
        # (region, next value id, next arg id, next conflict id, depth of used-name scope)
        self.next_value = self.next_arg = self.next_conflict = 0
        while stack:
            region, next_value, next_arg, next_conflict, depth = stack.pop()
            if not generic:  # the generic form prints unique SSA ids (OpPrintingFlags::
                # shouldPrintUniqueSSAIDs): no counter restarts, so in a module of several
                # functions the last one numbered (the last in the file) has %arg0
                self.next_value, self.next_arg, self.next_conflict = (
                    next_value, next_arg, next_conflict)
            del self.used[depth:]
            self.used.append(set())
            self._number_region(region)
            for block in region.blocks:
                for op in block.operations:
                    for nested in op.regions:
                        stack.append((nested, self.next_value, self.next_arg,
                                      self.next_conflict, depth + 1))

    def _is_used(self, name: str) -> bool:
        return any(name in scope for scope in self.used)

    def _unique(self, name: str) -> str:
        if self._is_used(name):
            while True:
                probe = f"{name}_{self.next_conflict}"
                self.next_conflict += 1
                if not self._is_used(probe):
                    name = probe
                    break
        self.used[-1].add(name)
        return name

    def _set(self, value: Value, hint: str | None) -> None:
        if hint:
            self.names[id(value)] = "%" + self._unique(hint)
        else:
            self.names[id(value)] = f"%{self.next_value}"
            self.next_value += 1

    def _number_region(self, region: Region) -> None:
        parent = region.parent
        hints = None
        if not self.generic and parent is not None and parent.opdef is not None:
            syntax = parent.opdef.syntax
            hint_fn = getattr(syntax, "block_arg_names", None)
            if hint_fn is not None:
                hints = hint_fn(parent, region)
        for index, block in enumerate(region.blocks):
            self.block_names[id(block)] = f"^bb{index}"
            entry = index == 0
            for i, arg in enumerate(block.arguments):
                if hints is not None and entry and i < len(hints) and hints[i]:
                    self._set(arg, hints[i])
                elif entry:
                    self.names[id(arg)] = f"%arg{self.next_arg}"
                    self.next_arg += 1
                else:
                    self._set(arg, None)
            for op in block.operations:
                self._number_op(op)

    def _number_op(self, op: Operation) -> None:
        if not op.results:
            return
        hint = None
        if not self.generic and op.opdef is not None and op.opdef.asm_result_name is not None:
            hint = op.opdef.asm_result_name(op)
        if isinstance(hint, (list, tuple)):
            self._number_result_groups(op, list(hint))
            return
        first = op.results[0]
        self._set(first, hint)
        base = self.names[id(first)]
        if len(op.results) > 1:
            self.result_bases[id(op)] = base
            for i, r in enumerate(op.results):
                self.names[id(r)] = f"{base}#{i}"

    def _number_result_groups(self, op: Operation, hints: list[str | None]) -> None:
        """Per-result names (`%values, %indices = chlo.top_k ...`): as in MLIR, each named
        result starts a group and unnamed ones join the group before them (`%a, %b:2 = `)."""
        groups: list[tuple[str, int]] = []
        for i, result in enumerate(op.results):
            hint = hints[i] if i < len(hints) else None
            if i == 0 or hint:
                self._set(result, hint)
                groups.append((self.names[id(result)], 1))
            else:
                base, size = groups[-1]
                self.names[id(result)] = f"{base}#{size}"
                groups[-1] = (base, size + 1)
        if len(groups) > 1 or groups[0][1] > 1:
            first_base, first_size = groups[0]
            if first_size > 1:
                self.names[id(op.results[0])] = f"{first_base}#0"
            self.result_groups[id(op)] = groups


class Printer:
    """Prints a module; custom op syntaxes call back into it (write, operand, region...)."""

    def __init__(self, generic: bool = False, debuginfo: bool = False,
                 local_scope: bool = False) -> None:
        self.generic = generic
        self.debuginfo = debuginfo
        self.local_scope = local_scope
        self.out: list[str] = []
        self.indent = 0
        self.names: ValueNames | None = None
        self.default_dialects: list[str] = ["builtin"]
        self.loc_aliases: LocAliases | None = None
        self.source_name = ""

    # ---- building blocks for op syntaxes ------------------------------------------------

    def write(self, text: str) -> None:
        self.out.append(text)

    def name(self, value: Value) -> str:
        assert self.names is not None
        found = self.names.names.get(id(value))
        return found if found is not None else "<<UNKNOWN SSA VALUE>>"

    def operands(self, values: Iterable[Value]) -> str:
        return ", ".join(self.name(v) for v in values)

    def block_name(self, block: Block) -> str:
        assert self.names is not None
        return self.names.block_names.get(id(block), "^bb?")

    def attr_dict(self, attrs: dict[str, Attribute], elided: Iterable[str] = (),
                  keyword: bool = False) -> str:
        """` {a = 1, b}` (or ` attributes {...}`) without the elided names; empty if none."""
        skip = set(elided)
        kept = {k: v for k, v in attrs.items() if k not in skip}
        if not kept:
            return ""
        return (" attributes {" if keyword else " {") + format_attr_entries(kept) + "}"

    def print_region(self, region: Region, print_entry_args: bool = True,
                     print_empty_block: bool = False, default_dialect: str = "") -> None:
        """`{` newline, blocks, `}` at the current indentation."""
        self.write("{")
        self.default_dialects.append(default_dialect)
        self.indent += 2
        for index, block in enumerate(region.blocks):
            show_header = index > 0 or (print_entry_args and block.arguments) or (
                print_empty_block and not block.operations)
            if show_header:
                self.write("\n" + " " * (self.indent - 2) + self._block_header(block))
            newline = "\n" + " " * self.indent
            for op in block.operations:
                self.out.append(newline)
                self.print_op(op)
        self.indent -= 2
        self.default_dialects.pop()
        self.write("\n" + " " * self.indent + "}")

    def _block_header(self, block: Block) -> str:
        text = self.block_name(block)
        if block.arguments:
            args = []
            for arg, loc in zip(block.arguments, block.arg_locations, strict=False):
                item = f"{self.name(arg)}: {arg.type}"
                if self.debuginfo:
                    item += " " + self.location_text(loc)
                args.append(item)
            text += "(" + ", ".join(args) + ")"
        return text + ":" + self._predecessors_comment(block)

    def _predecessors_comment(self, block: Block) -> str:
        """MLIR's `  // pred: ^bb0` / `  // 2 preds: ^bb0, ^bb1` / `  // no predecessors`."""
        region = block.parent
        if region is None:
            return "  // block is not in a region!"
        preds = [b for b in region.blocks for op in b.operations[-1:]
                 for succ in op.successors if succ is block]
        if not preds:
            return "" if region.blocks and region.blocks[0] is block else "  // no predecessors"
        if all(p is preds[0] for p in preds):
            return "  // pred: " + self.block_name(preds[0])
        return f"  // {len(preds)} preds: " + ", ".join(self.block_name(p) for p in preds)

    def location_text(self, loc: Attribute | None, op: Operation | None = None) -> str:
        """` loc(...)` text: an op's own location (`op` given; printed through a `#loc`
        alias unless local scope) or a block argument's location (inline, the locations
        nested in it through their aliases: `loc("jit(f)"(#loc30))`, as MLIR prints it)."""
        if loc is None and op is not None:
            loc = op_location(op)
        if loc is None:
            return "loc(unknown)"
        if isinstance(loc, LocationAttr):
            if self.loc_aliases is not None:
                if op is not None:
                    return self.loc_aliases.use(loc.resolved())
                return f"loc({loc.resolved().inline(self.loc_aliases.names)})"
            return f"loc({loc.inline()})"
        return str(loc)

    def op_name(self, op: Operation) -> str:
        """The op name with the enclosing default dialect (`func.` in functions) elided."""
        key = (self.default_dialects[-1], op.name)
        short = _SHORT_NAMES.get(key)
        if short is None:
            dialect, name = key
            short = name
            if dialect and name.startswith(dialect + ".") and "." not in name[len(dialect) + 1:]:
                short = name[len(dialect) + 1:]
            _SHORT_NAMES[key] = short
        return short

    # ---- ops ----------------------------------------------------------------------------

    def print_op(self, op: Operation) -> None:
        assert self.names is not None
        groups = self.names.result_groups.get(id(op))
        if groups is not None:
            self.write(", ".join(name if size == 1 else f"{name}:{size}"
                                 for name, size in groups) + " = ")
        elif len(op.results) == 1:
            self.write(self.name(op.results[0]) + " = ")
        elif op.results:
            self.write(f"{self.names.result_bases[id(op)]}:{len(op.results)} = ")
        syntax = op.opdef.syntax if op.opdef is not None else None
        if syntax is not None and not self.generic:
            mark, indent, depth = len(self.out), self.indent, len(self.default_dialects)
            try:
                self.write(self.op_name(op))
                syntax.print(self, op)
            except (AttributeError, IndexError, KeyError, TypeError, ValueError):
                # An op its custom printer cannot handle (e.g. one that would not verify)
                # is printed in generic form, as MLIR does for invalid ops.
                del self.out[mark:]
                self.indent = indent
                del self.default_dialects[depth:]
                self.print_generic(op)
        else:
            self.print_generic(op)
        if self.debuginfo:
            self.write(" " + self.location_text(None, op))

    def print_generic(self, op: Operation) -> None:
        self.write(f'"{op.name}"(' + self.operands(op.operands) + ")")
        if op.successors:
            self.write("[" + ", ".join(self.block_name(b) for b in op.successors) + "]")
        if op.properties:
            self.write(" <{" + format_attr_entries(op.properties) + "}>")
        if op.regions:
            self.write(" (")
            for i, region in enumerate(op.regions):
                if i:
                    self.write(", ")
                self.print_region(region, print_entry_args=True, print_empty_block=True)
            self.write(")")
        self.write(self.attr_dict(op.attributes))
        self.write(" : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types))))

    def print_module(self, module: Module) -> str:
        self.out = []
        self.names = ValueNames(module.op, self.generic)
        self.loc_aliases = None
        if self.debuginfo and not self.local_scope:
            self.loc_aliases = _collect_loc_aliases(module.op, self.generic)
        aliases = _encoding_aliases(module.op)
        token = ENCODING_ALIASES.set({text: alias for alias, text in aliases} or None)
        try:
            self.print_op(module.op)
        finally:
            ENCODING_ALIASES.reset(token)
        self.write("\n")
        text = "".join(self.out)
        if self.loc_aliases is not None:
            before = "".join(d + "\n" for d in self.loc_aliases.definitions(deferred=False))
            after = "".join(d + "\n" for d in self.loc_aliases.definitions(deferred=True))
            text = before + text + after
        resources = {k: v for k, v in module.resources.items() if not k.startswith("__")}
        if resources:
            text += _format_resources(resources)
        return "".join(f"{alias} = {attr_text}\n" for alias, attr_text in aliases) + text


def op_location(op: Operation) -> LocationAttr:
    """The op's `loc(...)` from the source, else where it was parsed (file:line:col)."""
    attr = op.location.attr
    if isinstance(attr, LocationAttr):
        return attr
    loc = op.location
    return FileLineColLoc(loc.filename, loc.line, loc.col)


# Ops whose custom form prints no entry block arguments (MLIR aliases only what it prints:
# `stablehlo.while(%iterArg = %x)` names its arguments but never their locations).
_HIDDEN_BLOCK_ARGS = frozenset({"stablehlo.while"})


def _collect_loc_aliases(top: Operation, generic: bool = False) -> LocAliases:
    """Visit locations in print order: each op's own location (deferrable, printed after the
    module), then the printed block argument locations (printed before it), then nested
    ops."""
    aliases = LocAliases()

    def visit(op: Operation) -> None:
        aliases.visit(op_location(op), deferrable=True)
        args_printed = generic or op.name not in _HIDDEN_BLOCK_ARGS
        for region in op.regions:
            for block in region.blocks:
                for loc in block.arg_locations if args_printed else ():
                    if isinstance(loc, LocationAttr):
                        aliases.visit(loc, deferrable=False)
                for nested in block.operations:
                    visit(nested)

    visit(top)
    aliases.assign()
    return aliases


def _format_resources(resources: dict[str, object]) -> str:
    lines = ["", "{-#", "  dialect_resources: {", "    builtin: {"]
    entries = [f'      {k}: "{v}"' for k, v in resources.items()]
    lines.append(",\n".join(entries))
    lines += ["    }", "  }", "#-}", ""]
    return "\n".join(lines)


def _encoding_aliases(top: Operation) -> list[tuple[str, str]]:
    """(alias, attribute text) for each aliased dialect attribute used as a tensor encoding
    (`#sparse = #sparse_tensor.encoding<...>`), numbered per prefix in order of first use."""
    found: list[str] = []
    for op in top.walk():
        for v in op.results:
            _collect_aliased(v.type, found)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    _collect_aliased(arg.type, found)
        ftype = op.attr("function_type")
        if ftype is not None:
            t = ftype.value
            if isinstance(t, FunctionType):
                for x in (*t.inputs, *t.results):
                    _collect_aliased(x, found)
    aliases = []
    counters: dict[str, int] = {}
    for attr_text in found:
        prefix = _ALIASED_DIALECTS[attr_text[1:].split(".", 1)[0]]
        n = counters.get(prefix, 0)
        counters[prefix] = n + 1
        aliases.append((f"#{prefix}" if n == 0 else f"#{prefix}{n}", attr_text))
    return aliases


def _collect_aliased(t: Type, found: list[str]) -> None:
    if isinstance(t, TensorType) and isinstance(t.encoding, (DialectAttr, OpaqueAttr)):
        text = str(t.encoding)
        dialect = text[1:].split(".", 1)[0].split("<", 1)[0]
        if dialect in _ALIASED_DIALECTS and text not in found:
            found.append(text)


def print_module(module: Module, generic: bool = False, debuginfo: bool = False,
                 local_scope: bool = False) -> str:
    """The module's text; nesting beyond Python's recursion limit is a diagnostic."""
    try:
        return Printer(generic, debuginfo, local_scope).print_module(module)
    except RecursionError:
        raise Diagnostic("nesting is too deep to print") from None
