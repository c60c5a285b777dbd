"""The op registry: every op is declared once, with its name, syntax, verifier and evaluator.

An evaluator is a plain function. The engine binds it once per op when it builds a plan,
passing operand values positionally and, by keyword, whatever its signature names:

- an inherent attribute name (e.g. ``dimensions``): the attribute's decoded ``.value``,
  or ``None`` when absent;
- ``result_type`` / ``result_types``: the op's result type(s);
- a region name listed in ``regions=`` (e.g. ``body``): a callable running that region;
- ``op``: the Operation itself; ``ctx``: the interpreter's per-process context.

It returns one value, or a tuple/list for multi-result ops.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..ir.core import Operation


# An op's SSA name hint: one base name for all results, or one per result group (`%a:2, %b`).
AsmResultName = Callable[["Operation"], "str | list[str] | None"]


class Syntax(Protocol):
    """Parses and prints an op's custom assembly (the part after `%r = name`)."""

    def parse(self, parser: Any, opdef: OpDef, location: Any, num_results: int) -> Operation: ...

    def print(self, printer: Any, op: Operation) -> None: ...


@dataclass
class OpDef:
    name: str
    syntax: Syntax | None = None
    properties: frozenset[str] = frozenset()
    regions: tuple[str, ...] = ()
    verify: Callable[[Operation], None] | None = None
    evaluate: Callable[..., Any] | None = None
    isolated: bool = False
    terminator: bool = False
    asm_result_name: AsmResultName | None = None
    required: tuple[str, ...] = ()  # attributes ODS requires (`requires attribute 'x'`)
    _params: tuple[str, ...] | None = field(default=None, init=False, repr=False,
                                            compare=False)
    # Rewrites, declared beside the op with `@folder(name)` / `@canonicalization(name)` and
    # applied by the pattern driver in passes/rewrite.py (see `Folder` and `Canonicalization`).
    fold: Folder | None = field(default=None, init=False)
    canonicalizations: list[Canonicalization] = field(default_factory=list, init=False)

    def set_evaluator(self, fn: Callable[..., Any] | None) -> None:
        self.evaluate = fn
        self._params = None

    @property
    def evaluate_params(self) -> tuple[str, ...]:
        """The evaluator's keyword-only parameter names, read from its signature on first
        use (not at declaration: a launch that evaluates nothing skips ~200 signatures)."""
        if self._params is None:
            fn = self.evaluate
            self._params = () if fn is None else tuple(
                p.name for p in inspect.signature(fn).parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY)
        return self._params


# `fold(op, constants)` gets the op and, per operand, the attribute of a constant operand (else
# None). It returns None when it cannot fold; else the replacement of each result (a list, or
# one item for a single result): an existing Value, or an Attribute to materialize as a
# constant. Returning the op's own result means "modified in place" (MLIR's convention).
Folder = Callable[["Operation", list[Any]], Any]
# `pattern(op, rewriter) -> bool`: rewrite `op` through the driver's rewriter (passes/rewrite)
# and say whether anything changed. The function's name is the pattern's name for
# `--canonicalize='disable-patterns=...'`.
Canonicalization = Callable[["Operation", Any], bool]
# `materialize(attr, type, location)`: a dialect's constant op holding `attr`, or None.
ConstantMaterializer = Callable[[Any, Any, Any], "Operation | None"]
CONSTANT_MATERIALIZERS: dict[str, ConstantMaterializer] = {}

_REGISTRY: dict[str, OpDef] = {}
_DIALECTS: set[str] = {"builtin", "func", "stablehlo", "chlo", "check", "interpreter", "arith",
                       "tensor", "quant", "sparse_tensor", "vhlo", "scf", "shape", "mhlo", "llvm",
                       "cf"}


def register(opdef: OpDef) -> OpDef:
    if opdef.name in _REGISTRY:
        existing = _REGISTRY[opdef.name]
        # Declaration modules may be imported twice under different paths; keep one.
        if existing.evaluate is not None and opdef.evaluate is None:
            return existing
    _REGISTRY[opdef.name] = opdef
    return opdef


def define_op(name: str, *, syntax: Syntax | None = None, properties: tuple[str, ...] = (),
              regions: tuple[str, ...] = (), verify: Callable[[Operation], None] | None = None,
              isolated: bool = False, terminator: bool = False,
              asm_result_name: AsmResultName | None = None,
              required: tuple[str, ...] = (),
              ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: declare op `name` with the decorated function as its evaluator."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        register(OpDef(name, syntax, frozenset(properties), regions, verify, fn, isolated,
                       terminator, asm_result_name, required))
        return fn

    return wrap


def declare_op(name: str, *, syntax: Syntax | None = None, properties: tuple[str, ...] = (),
               regions: tuple[str, ...] = (), verify: Callable[[Operation], None] | None = None,
               isolated: bool = False, terminator: bool = False,
               asm_result_name: AsmResultName | None = None) -> OpDef:
    """Declare an op with no evaluator (structural ops the engine handles itself)."""
    return register(OpDef(name, syntax, frozenset(properties), regions, verify, None, isolated,
                          terminator, asm_result_name))


def folder(name: str) -> Callable[[Folder], Folder]:
    """Decorator: the folder of op `name`, declared right after the op itself."""

    def wrap(fn: Folder) -> Folder:
        _REGISTRY[name].fold = fn
        return fn

    return wrap


def canonicalization(*names: str) -> Callable[[Canonicalization], Canonicalization]:
    """Decorator: a canonicalization pattern of ops `names`, declared beside them."""

    def wrap(fn: Canonicalization) -> Canonicalization:
        for name in names:
            _REGISTRY[name].canonicalizations.append(fn)
        return fn

    return wrap


def constant_materializer(dialect: str) -> Callable[[ConstantMaterializer],
                                                    ConstantMaterializer]:
    """Decorator: how `dialect` turns a folded attribute into a constant op."""

    def wrap(fn: ConstantMaterializer) -> ConstantMaterializer:
        CONSTANT_MATERIALIZERS[dialect] = fn
        return fn

    return wrap


def lookup(name: str) -> OpDef | None:
    _ensure_loaded()
    opdef = _REGISTRY.get(name)
    if opdef is None and LAZY_DIALECTS:
        load_dialect(name.partition(".")[0])
        opdef = _REGISTRY.get(name)
    return opdef


def is_known_dialect(dialect: str) -> bool:
    return dialect in _DIALECTS


def all_ops() -> dict[str, OpDef]:
    _ensure_loaded()
    for dialect in list(LAZY_DIALECTS):
        load_dialect(dialect)
    return dict(_REGISTRY)


# Dialect packages imported only when a name of theirs is first looked up (an op, a
# `!dialect.*` type, a `#dialect*` attribute), not with the others: VHLO (~90 ms of imports)
# appears only in portable artifacts. dialect -> module; a plugin package's `load_all()` fills it.
LAZY_DIALECTS: dict[str, str] = {}


def load_dialect(dialect: str) -> None:
    """Import `dialect`'s package if it is one of the lazily loaded ones not yet imported."""
    module = LAZY_DIALECTS.pop(dialect, None)
    if module is not None:
        importlib.import_module(module)


_loaded = False


def ensure_loaded() -> None:
    """Import every dialect module (each registers its ops and parser hooks)."""
    _ensure_loaded()


# Packages whose modules declare ops, imported by name on the first lookup. The registry sits
# in the lowest layer, so it names its plugins instead of importing them (no upward import);
# each package's `load_all()` imports its modules, which register their ops and parser hooks.
PLUGIN_PACKAGES: list[str] = ["shlo_cli.dialects"]


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for name in PLUGIN_PACKAGES:
            importlib.import_module(name).load_all()


# Binding hooks: `hook(op, opdef, kwargs)` may return a kernel replacing the plain evaluator
# binding (e.g. dequantize -> evaluate -> quantize for quantized element types), else None.
# Hooks run in list order; one wrapping the evaluator gets its inner kernel from
# `bind_after(hook, ...)`, so the later hooks (e.g. `?` result shapes) still apply.
BindHook = Callable[["Operation", Any, dict[str, Any]], "Callable[..., Any] | None"]
BIND_HOOKS: list[BindHook] = []


def bind_after(hook: BindHook, op: Operation, opdef: Any,
               kwargs: dict[str, Any]) -> Callable[..., Any]:
    """The kernel the hooks after `hook` (else the plain evaluator) bind for `kwargs`."""
    later = BIND_HOOKS[BIND_HOOKS.index(hook) + 1:] if hook in BIND_HOOKS else []
    return _bind_with(later, op, opdef, kwargs)


def _bind_with(hooks: list[BindHook], op: Operation, opdef: Any,
               kwargs: dict[str, Any]) -> Callable[..., Any]:
    for hook in hooks:
        kernel = hook(op, opdef, kwargs)
        if kernel is not None:
            return kernel
    fn = opdef.evaluate
    return functools.partial(fn, **kwargs) if kwargs else fn
