"""The op verifier, run after parsing like MLIR's OperationVerifier.

Order follows MLIR: an op's own invariants (structural checks, then its OpDef.verify) are
checked when the walk enters it, before its nested ops; ops isolated from above (func.func)
nested in an op are verified after that op's other nested ops; symbol uses (func.call) are
checked last, when the symbol table (the module) has been verified. The first failure stops
verification and is raised as a located Diagnostic.

Op verifiers raise Diagnostics without a source (only line and column); `verify_module`
attaches the chunk's SourceFile in this one place so every diagnostic renders as
`file:line:col: error: message` with the source line and a caret.
"""

from __future__ import annotations

import os

from . import registry
from .attributes import ArrayAttr, DictAttr, SymbolRefAttr
from .core import Block, Module, Operation, Region, Value
from .diagnostics import Diagnostic, SourceFile
from .registry import OpDef
from .types import FunctionType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

DEBUG_ENV = "SHLO_DEBUG_VERIFIER"  # set to get a verifier bug's Python traceback

# ODS operand/result type constraints shared by many ops (e.g. quantized element types),
# checked before each registered op's own verifier; dialect modules register them.
TYPE_CONSTRAINTS: list[Callable[[Operation], None]] = []

# Ops with MLIR's SymbolUserOpInterface (besides func.call): op name -> verifySymbolUses,
# run after the whole module has verified. Op modules register their own.
SYMBOL_USE_VERIFIERS: dict[str, Callable[[Operation, Module], None]] = {}


def verify_module(module: Module, line_offset: int = 0) -> None:
    """Verify a parsed chunk; raises the first failure as a Diagnostic with its source."""
    source = SourceFile(module.filename, module.source, line_offset)
    try:
        _Verifier(module).run()
    except Diagnostic as d:
        raise _located(d, source) from None
    except RecursionError:
        raise Diagnostic("nesting is too deep to verify") from None


def _located(diag: Diagnostic, source: SourceFile) -> Diagnostic:
    """Give an op verifier's diagnostic (and its notes) the chunk's source."""
    if diag.source is None:
        diag.source = source
        if diag.line is None:
            diag.line, diag.col = 0, 0
    for note in diag.notes:
        _located(note, source)
    return diag


def op_error(op: Operation, message: str, notes: list[Diagnostic] | None = None) -> Diagnostic:
    """`'name' op message` at the op (MLIR's emitOpError)."""
    return Diagnostic(f"'{op.name}' op {message}", line=op.location.line or None,
                      col=op.location.col or None, notes=notes)


def verifier_bug(op: Operation, error: Exception) -> Diagnostic:
    """An op verifier that raised instead of diagnosing: a bug in shlo, reported at the op
    with what was raised (a silently accepted program would hide it)."""
    return op_error(op, f"could not be verified: its verifier raised {type(error).__name__}"
                        f" ({error}); this is a bug in shlo, please report it")


INFERENCE_FAILED = "failed to infer returned types"


def inference_error(op: Operation, message: str) -> Diagnostic:
    """A failure of an op's result-type inference. MLIR reports the shape function's own
    message at the op (no `'name' op` prefix), then `'name' op failed to infer returned
    types` as a second error; expected-error annotations name both."""
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None,
                      notes=[op_error(op, INFERENCE_FAILED)])


def inferred_type_mismatch(op: Operation, inferred: str) -> Diagnostic:
    """Inference succeeded but disagrees with the declared result types (`inferred` is the
    quoted, comma-separated list of inferred types)."""
    actual = ", ".join(f"'{r.type}'" for r in op.results)
    return inference_error(op, f"'{op.name}' op inferred type(s) {inferred} are incompatible "
                               f"with return type(s) of operation {actual}")


def note_at(op: Operation, message: str) -> Diagnostic:
    return Diagnostic(message, severity="note", line=op.location.line or None,
                      col=op.location.col or None)


def _guarded(op: Operation, check: Callable[..., None], *args: object) -> None:
    """Run one of `op`'s checks; a Python exception from it becomes `verifier_bug`."""
    try:
        check(*args)
    except Diagnostic:
        raise
    except Exception as e:  # noqa: BLE001 - reported as a located diagnostic instead
        if os.environ.get(DEBUG_ENV):
            raise
        raise verifier_bug(op, e) from None


class _Verifier:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.symbol_users: list[Operation] = []

    def run(self) -> None:
        self.verify_isolated(self.module.op)
        verify_symbol_tables(self.module.op)
        for op in self.symbol_users:
            _guarded(op, SYMBOL_USE_VERIFIERS.get(op.name, verify_call), op, self.module)

    def verify_isolated(self, root: Operation) -> None:
        """Verify `root` and its nested ops, pre-order; isolated nested ops come after the
        rest of their parent's nest (MLIR's verifyOnExit)."""
        deferred: list[Operation] = []
        stack: list[Operation] = [root]
        while stack:
            op = stack.pop()
            _guarded(op, self.verify_op, op)
            children: list[Operation] = []
            for region in op.regions:
                for block in region.blocks:
                    verify_block(op, block)
                    for child in block.operations:
                        if child.opdef is not None and child.opdef.isolated and child.regions:
                            deferred.append(child)
                        else:
                            children.append(child)
            stack.extend(reversed(children))
        # MLIR verifies every isolated op (each function) even after one fails, and reports
        # the first error of each: later failures ride along as extra errors of the first.
        failures: list[Diagnostic] = []
        for op in deferred:
            try:
                self.verify_isolated(op)
                verify_isolation(op)
            except Diagnostic as d:
                failures.append(d)
        if failures:
            first = failures[0]
            for later in failures[1:]:
                first.notes.append(later)
                first.notes.extend(later.notes)
                later.notes = []
            raise first
        verify_dominance(root)

    def verify_op(self, op: Operation) -> None:
        opdef = op.opdef
        if opdef is None:
            verify_unregistered(op)
            return
        verify_regions(op)  # ODS trait order: regions, results, operands, then attributes
        verify_result_count(op)
        verify_operand_count(op)
        for name in opdef.required:
            if op.attr(name) is None:
                raise op_error(op, f"requires attribute '{name}'")
        if opdef.terminator:
            verify_terminator_position(op)
        structural = _STRUCTURAL.get(op.name)
        if structural is not None:
            structural(op)
        if op.name == "func.call" or op.name in SYMBOL_USE_VERIFIERS:
            self.symbol_users.append(op)
        for constraint in TYPE_CONSTRAINTS:
            constraint(op)
        if opdef.verify is not None:
            opdef.verify(op)


# ---- structural checks ---------------------------------------------------------------------


def verify_unregistered(op: Operation) -> None:
    """Ops of a known dialect must be registered, even with -allow-unregistered-dialect."""
    if "." in op.name and registry.is_known_dialect(op.dialect):
        raise Diagnostic(f"unregistered operation '{op.name}' found in dialect "
                         f"('{op.dialect}') that does not allow unknown operations",
                         line=op.location.line or None, col=op.location.col or None)


def operand_arity(opdef: OpDef) -> tuple[int, int | None]:
    """(required, maximum or None) operands, from the op's declared operands (an op without
    a declaration takes any number)."""
    if opdef.operands is None:
        return 0, None
    return registry.operand_arity(opdef.operands)


def verify_operand_count(op: Operation) -> None:
    """ODS operand counts: `expected N operands, but found M` (`N or more` if variadic)."""
    if op.opdef is None:
        return
    required, maximum = operand_arity(op.opdef)
    found = len(op.operands)
    if maximum is None or required != maximum:
        if found < required:
            raise op_error(op, f"expected {required} or more operands, but found {found}")
        if maximum is not None and found > maximum:
            raise op_error(op, f"expected at most {maximum} operands, but found {found}")
    elif found != required:
        raise op_error(op, f"expected {required} operands, but found {found}")


def result_arity(opdef: OpDef) -> int | None:
    """The fixed number of results the op declares; None when its result list is variadic
    (or not declared)."""
    return opdef.results if isinstance(opdef.results, int) else None


def verify_result_count(op: Operation) -> None:
    """ODS result-count traits: OneResult, ZeroResults, NResults<N>."""
    expected = result_arity(op.opdef) if op.opdef is not None else None
    found = len(op.results)
    if expected is None or found == expected:
        return
    if expected == 1:
        raise op_error(op, "requires one result")
    if expected == 0:
        raise op_error(op, "requires zero results")
    raise op_error(op, f"expected {expected} results, but found {found}")


def verify_regions(op: Operation) -> None:
    """ODS region constraints: the declared number of regions, each with one block (a
    trailing `*` in OpDef.regions marks a variadic region list)."""
    declared = op.opdef.regions if op.opdef is not None else ()
    if any(name.endswith("*") for name in declared):
        return
    if len(op.regions) != len(declared):
        wanted = {0: "requires zero regions", 1: "requires one region"}.get(
            len(declared), f"expected {len(declared)} regions")
        raise op_error(op, wanted)
    if op.name in ("func.func", "builtin.module"):
        return
    for i, (name, region) in enumerate(zip(declared, op.regions, strict=True)):
        if len(region.blocks) != 1:
            raise op_error(op, f"region #{i} ('{name}') failed to verify constraint: region "
                               "with 1 blocks")


def verify_block(parent: Operation, block: Block) -> None:
    """Blocks of registered ops (other than modules) end in a terminator."""
    if parent.opdef is None or parent.name == "builtin.module":
        return
    if not block.operations:
        raise Diagnostic("empty block: expect at least a terminator",
                         line=parent.location.line or None, col=parent.location.col or None)
    last = block.operations[-1]
    if last.opdef is not None and not last.opdef.terminator:
        raise Diagnostic(f"block with no terminator, has \"{last.name}\"",
                         line=last.location.line or None, col=last.location.col or None)


def verify_terminator_position(op: Operation) -> None:
    block = op.parent
    if block is not None and block.operations and block.operations[-1] is not op:
        raise op_error(op, "must be the last operation in the parent block")


def verify_func(op: Operation) -> None:
    """FunctionOpInterface: the entry block's arguments match the function type."""
    ftype_attr = op.attr("function_type")
    ftype = getattr(ftype_attr, "value", None)
    if ftype_attr is not None and not isinstance(ftype, FunctionType):
        raise op_error(op, "attribute 'function_type' failed to satisfy constraint: type "
                           "attribute of function type")
    for key, kind, count in (("arg_attrs", "argument", len(getattr(ftype, "inputs", ()))),
                             ("res_attrs", "result", len(getattr(ftype, "results", ())))):
        attrs = op.attr(key)
        if attrs is None:
            continue
        if not isinstance(attrs, ArrayAttr) \
                or not all(isinstance(a, DictAttr) for a in attrs.elements):
            raise op_error(op, f"attribute '{key}' failed to satisfy constraint: Array of "
                               "dictionary attributes")
        if isinstance(ftype, FunctionType) and len(attrs.elements) != count:
            raise op_error(op, f"expects {kind} attribute array to have the same number of "
                               f"elements as the number of function {kind}s, got "
                               f"{len(attrs.elements)}, but expected {count}")
    if not op.regions or not op.regions[0].blocks:
        visibility = op.attr("sym_visibility")
        if getattr(visibility, "value", None) in (None, "public"):
            raise op_error(op, "symbol declaration cannot have public visibility")
        return
    if not isinstance(ftype, FunctionType):
        return
    entry = op.regions[0].blocks[0]
    if len(entry.arguments) != len(ftype.inputs):
        raise op_error(op, f"entry block must have {len(ftype.inputs)} arguments to match "
                           "function signature")
    for i, (arg, expected) in enumerate(zip(entry.arguments, ftype.inputs, strict=True)):
        if arg.type != expected:
            raise op_error(op, f"type of entry block argument #{i}({arg.type}) must match the "
                               "type of the corresponding argument in function signature"
                               f"({expected})")


def enclosing_function(op: Operation) -> Operation | None:
    parent = op.parent_op
    return parent if parent is not None and parent.name == "func.func" else None


def verify_return(op: Operation) -> None:
    """func.return: directly in a func.func, with the function's result types (a type
    mismatch is MLIR's emitError: no `'func.return' op` prefix)."""
    func = enclosing_function(op)
    if func is None:
        raise op_error(op, "expects parent op 'func.func'")
    ftype = getattr(func.attr("function_type"), "value", None)
    if not isinstance(ftype, FunctionType):
        return
    name = _symbol(func)
    if len(op.operands) != len(ftype.results):
        raise op_error(op, f"has {len(op.operands)} operands, but enclosing function (@{name}) "
                           f"returns {len(ftype.results)}")
    for i, (value, expected) in enumerate(zip(op.operands, ftype.results, strict=True)):
        if value.type != expected:
            raise Diagnostic(f"type of return operand {i} ('{value.type}') doesn't match "
                             f"function result type ('{expected}') in function @{name}",
                             line=op.location.line or None, col=op.location.col or None)


def verify_call(op: Operation, module: Module) -> None:
    """func.call (SymbolUserOpInterface): the callee exists and its signature matches."""
    callee = op.attr("callee")
    if not isinstance(callee, SymbolRefAttr):
        raise op_error(op, "requires attribute 'callee'")
    target = _lookup_nearest(op, callee.root, module) if not callee.nested else None
    if target is None or target.name != "func.func":
        raise op_error(op, f"'{callee}' does not reference a valid function")
    ftype = getattr(target.attr("function_type"), "value", None)
    if not isinstance(ftype, FunctionType):
        return
    if len(op.operands) != len(ftype.inputs):
        raise op_error(op, "incorrect number of operands for callee")
    for i, (value, expected) in enumerate(zip(op.operands, ftype.inputs, strict=True)):
        if value.type != expected:
            raise op_error(op, f"operand type mismatch: expected operand type {expected}, but "
                               f"provided {value.type} for operand number {i}")
    if len(op.results) != len(ftype.results):
        raise op_error(op, "incorrect number of results for callee")
    for i, (value, expected) in enumerate(zip(op.results, ftype.results, strict=True)):
        if value.type != expected:
            raise op_error(op, f"result type mismatch at index {i}")


def _lookup_nearest(op: Operation, name: str, module: Module) -> Operation | None:
    """The symbol `name` of the symbol table nearest `op` (MLIR's lookupNearestSymbolFrom):
    a call in a nested `builtin.module` calls that module's function."""
    table = op.parent_op
    while table is not None and table.name != "builtin.module":
        table = table.parent_op
    if table is None or table is module.op:
        return module.lookup(name)
    for candidate in table.regions[0].entry.operations:
        sym = candidate.attr("sym_name")
        if sym is not None and sym.value == name:
            return candidate
    return None


def verify_dominance(root: Operation) -> None:
    """Every operand is defined before its use: earlier in the same block, or in an
    enclosing block before the op holding the use (ops isolated from above are checked on
    their own). Iterative, so deep nesting cannot exhaust the stack."""
    visible: set[int] = set()
    stack = [_Frame(block) for region in reversed(root.regions)
             for block in reversed(region.blocks)]
    while stack:
        frame = stack[-1]
        if not frame.started:
            frame.started = True
            frame.added.extend(id(arg) for arg in frame.block.arguments)
            visible.update(frame.added)
        ops = frame.block.operations
        if frame.index >= len(ops):
            visible.difference_update(frame.added)
            stack.pop()
            continue
        op = ops[frame.index]
        if not frame.nested_done:
            for i, value in enumerate(op.operands):
                if id(value) not in visible and _defined_inside(value, root):
                    raise _not_dominating(op, i, value)
            frame.nested_done = True
            if op.regions and not (op.opdef is not None and op.opdef.isolated):
                stack.extend(_Frame(block) for region in reversed(op.regions)
                             for block in reversed(region.blocks))
            continue
        results = [id(r) for r in op.results]
        visible.update(results)
        frame.added.extend(results)
        frame.index += 1
        frame.nested_done = False


class _Frame:
    __slots__ = ("block", "index", "added", "started", "nested_done")

    def __init__(self, block: Block) -> None:
        self.block = block
        self.index = 0
        self.added: list[int] = []
        self.started = False
        self.nested_done = False


def _not_dominating(op: Operation, index: int, value: Value) -> Diagnostic:
    owner = value.owner
    notes = []
    if isinstance(owner, Operation):
        where = " (op in the same block)" if owner.parent is op.parent else ""
        notes.append(note_at(owner, "operand defined here" + where))
    return Diagnostic(f"operand #{index} does not dominate this use",
                      line=op.location.line or None, col=op.location.col or None, notes=notes)


def verify_isolation(isolated: Operation) -> None:
    """Ops nested in an op isolated from above use only values defined inside it."""
    for op in _nested(isolated):
        for value in op.operands:
            if not _defined_inside(value, isolated):
                raise op_error(op, "using value defined outside the region",
                               notes=[note_at(isolated,
                                              "required by region isolation constraints")])


def _nested(op: Operation) -> Iterator[Operation]:
    stack = [op]
    while stack:
        current = stack.pop()
        for region in current.regions:
            for block in region.blocks:
                for child in block.operations:
                    if child is not op:
                        yield child
                    if child.regions and not (child.opdef is not None and child.opdef.isolated):
                        stack.append(child)


def _defined_inside(value: Value, ancestor: Operation) -> bool:
    owner = value.owner
    block: Block | None
    if isinstance(owner, Operation):
        block = owner.parent
    elif isinstance(owner, Block):
        block = owner
    else:
        return True
    while block is not None:
        region: Region | None = block.parent
        if region is None or region.parent is None:
            return False
        if region.parent is ancestor:
            return True
        block = region.parent.parent
    return False


def verify_symbol_tables(root: Operation) -> None:
    """Symbols are unique in each module (MLIR's SymbolTable trait, checked when leaving the
    module: inner modules first, before any symbol use)."""
    for region in root.regions:
        for block in region.blocks:
            for child in block.operations:
                if child.name == "builtin.module":
                    verify_symbol_tables(child)
    if root.name != "builtin.module":
        return
    first: dict[str, Operation] = {}
    for region in root.regions:
        for block in region.blocks:
            for child in block.operations:
                if child.attr("sym_name") is None:
                    continue
                name = _symbol(child)
                earlier = first.setdefault(name, child)
                if earlier is not child:
                    raise Diagnostic(f"redefinition of symbol named '{name}'",
                                     line=child.location.line or None,
                                     col=child.location.col or None,
                                     notes=[note_at(earlier, "see existing symbol definition "
                                                             "here")])


def _symbol(op: Operation) -> str:
    name = op.attr("sym_name")
    return str(getattr(name, "value", name))


_STRUCTURAL = {
    "func.func": verify_func,
    "func.return": verify_return,
}
