"""The op registry: every op is declared once, with its contract, syntax, verifier and evaluator.

An op's contract is what upstream's ODS declares and what the verifier and the engine rely on:

- ``operands``: names in order; ``"*name"`` is a variadic group, ``"name?"`` an optional
  operand. The verifier's operand-count check (`expected 2 operands, but found 3`) reads it.
- ``results``: how many (an int), or ``"*"`` for a variadic result list.
- ``attributes``: the inherent attributes (held as properties), ``"name?"`` marking an
  optional one (ODS's `OptionalAttr`, default-valued and unit attributes); the others are
  required (`requires attribute 'name'`). Attributes the op does not declare are accepted
  as discardable attributes, as upstream does: the declaration binds and documents.
- ``regions``: region names; a trailing ``*`` marks a variadic region list (or, in VHLO,
  regions of any number of blocks).

An evaluator is a plain function. The engine binds it once per op when it builds a plan,
passing operand values positionally and, by keyword, whatever its keyword-only parameters
name:

- a declared attribute (e.g. ``dimensions``): the attribute's decoded ``.value``, or
  ``None`` when absent;
- ``result_type`` / ``result_types``: the op's result type(s);
- a declared region (e.g. ``body``): a callable running that region (a list of callables for
  a variadic region list);
- ``op``: the Operation itself; ``ctx``: the interpreter's per-process context.

`define_op` checks the evaluator against the contract when the module is imported: it must
accept every operand count the contract allows, and each keyword-only parameter must be one
of the names above, so a misspelled keyword fails at import instead of binding None.
It returns one value, or a tuple/list for multi-result ops.
"""

from __future__ import annotations

import functools
import importlib
import types

from .record import Struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, Protocol

    from ..ir.core import Operation

    # An op's SSA name hint: one base name for all results, or one per result group (`%a:2, %b`).
    AsmResultName = Callable[["Operation"], "str | list[str] | None"]

    class Syntax(Protocol):
        """Parses and prints an op's custom assembly (the part after `%r = name`)."""

        def parse(self, parser: Any, opdef: OpDef, location: Any,
                  num_results: int) -> Operation: ...

        def print(self, printer: Any, op: Operation) -> None: ...

    # Folders, canonicalization patterns, constant materializers, binding hooks (each
    # described at its table below).
    Folder = Callable[["Operation", list[Any]], Any]
    Canonicalization = Callable[["Operation", Any], bool]
    ConstantMaterializer = Callable[[Any, Any, Any], "Operation | None"]
    BindHook = Callable[["Operation", Any, dict[str, Any]], "Callable[..., Any] | None"]


# Keyword-only evaluator parameters the engine provides itself (besides attributes and regions).
ENGINE_PARAMS = frozenset({"result_type", "result_types", "op", "ctx"})


class OpContractError(TypeError):
    """An op's declaration or its evaluator's signature is inconsistent (raised at import)."""


class OpDef(Struct):
    """An op's declaration: contract, syntax, verifier, evaluator and rewrites."""

    name: str
    syntax: Syntax | None
    properties: frozenset[str]  # the declared attributes' names
    regions: tuple[str, ...]
    verify: Callable[[Operation], None] | None
    evaluate: Callable[..., Any] | None
    isolated: bool
    terminator: bool
    asm_result_name: AsmResultName | None
    required: tuple[str, ...]  # attributes ODS requires (`requires attribute 'x'`)
    # The contract (see the module docstring); None only for ops built by hand in tests,
    # which the verifier then leaves unchecked.
    operands: tuple[str, ...] | None
    results: int | str | None
    attributes: tuple[str, ...]
    _params: tuple[str, ...]
    # Rewrites, declared beside the op with `@folder(name)` / `@canonicalization(name)` and
    # applied by the pattern driver in passes/rewrite.py (see `Folder` and `Canonicalization`).
    fold: Folder | None
    canonicalizations: list[Canonicalization]

    def __init__(self, name: str, syntax: Syntax | None = None,
                 properties: frozenset[str] = frozenset(), regions: tuple[str, ...] = (),
                 verify: Callable[[Operation], None] | None = None,
                 evaluate: Callable[..., Any] | None = None, isolated: bool = False,
                 terminator: bool = False, asm_result_name: AsmResultName | None = None,
                 required: tuple[str, ...] = (), operands: tuple[str, ...] | None = None,
                 results: int | str | None = None, attributes: tuple[str, ...] = ()) -> None:
        self.name = name
        self.syntax = syntax
        self.properties = properties
        self.regions = regions
        self.verify = verify
        self.evaluate = evaluate
        self.isolated = isolated
        self.terminator = terminator
        self.asm_result_name = asm_result_name
        self.required = tuple(sorted(required))  # ODS checks them in name order
        self.operands = operands
        self.results = results
        self.attributes = attributes
        self._params = ()
        self.fold = None
        self.canonicalizations = []

    def set_evaluator(self, fn: Callable[..., Any] | None) -> None:
        """Attach `fn` as the evaluator, after checking it against the contract."""
        self._params = () if fn is None else check_evaluator(self, fn)
        self.evaluate = fn

    @property
    def evaluate_params(self) -> tuple[str, ...]:
        """The evaluator's keyword-only parameter names (what the engine binds)."""
        return self._params


def operand_arity(operands: tuple[str, ...]) -> tuple[int, int | None]:
    """(required, maximum or None) for declared operand names (`*group`, `name?`)."""
    required = sum(1 for name in operands if not name.startswith("*") and
                   not name.endswith("?"))
    variadic = any(name.startswith("*") for name in operands)
    return required, None if variadic else len(operands)


_CO_VARARGS = 0x04  # `inspect.CO_VARARGS`: the code object takes `*args`


def _signature(fn: Callable[..., Any]) -> tuple[int, int | None, tuple[str, ...]]:
    """(required, maximum or None) positional parameters and the keyword-only names, read
    from the code object (cheap enough for every op at import), else from `inspect`."""
    if isinstance(fn, types.FunctionType) and not hasattr(fn, "__wrapped__"):
        code = fn.__code__
        count = code.co_argcount
        defaults = len(fn.__defaults__ or ())
        variadic = bool(code.co_flags & _CO_VARARGS)
        keywords = code.co_varnames[count:count + code.co_kwonlyargcount]
        return count - defaults, None if variadic else count, tuple(keywords)
    import inspect  # only for evaluators that are not plain functions (~6 ms to import)

    required, maximum, names = 0, 0, []
    variadic = False
    for p in inspect.signature(fn).parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            variadic = True
        elif p.kind is inspect.Parameter.KEYWORD_ONLY:
            names.append(p.name)
        elif p.kind is not inspect.Parameter.VAR_KEYWORD:
            maximum += 1
            required += p.default is inspect.Parameter.empty
    return required, None if variadic else maximum, tuple(names)


def _arity_text(required: int, maximum: int | None) -> str:
    if maximum is None:
        return f"{required} or more"
    return str(required) if required == maximum else f"{required} to {maximum}"


def check_evaluator(opdef: OpDef, fn: Callable[..., Any]) -> tuple[str, ...]:
    """Check `fn` against `opdef`'s contract; return its keyword-only parameter names.

    It must take every operand count the op allows (`*args` takes any), and bind only
    declared attributes, declared regions and the engine's parameters by keyword."""
    required, maximum, keywords = _signature(fn)
    where = f"op '{opdef.name}': evaluator '{getattr(fn, '__qualname__', fn)}'"
    if opdef.operands is not None:
        low, high = operand_arity(opdef.operands)
        if required > low or (maximum is not None and maximum != high):
            raise OpContractError(
                f"{where} takes {_arity_text(required, maximum)} positional operands, but the "
                f"op declares {_arity_text(low, high)} ({', '.join(opdef.operands) or 'none'})")
    regions = {name.rstrip("*") for name in opdef.regions}
    for name in keywords:
        if name not in opdef.properties and name not in regions and name not in ENGINE_PARAMS:
            raise OpContractError(
                f"{where} has keyword parameter '{name}', which is not a declared attribute "
                f"({', '.join(sorted(opdef.properties)) or 'none'}), region "
                f"({', '.join(sorted(regions)) or 'none'}) or engine parameter "
                f"({', '.join(sorted(ENGINE_PARAMS))})")
    return keywords


def _contract(name: str, operands: tuple[str, ...], results: int | str,
              attributes: tuple[str, ...]) -> dict[str, Any]:
    """OpDef fields of a declaration, after checking its spelling."""
    if not (isinstance(results, int) and results >= 0) and results != "*":
        raise OpContractError(f"op '{name}': results must be a count or '*', not {results!r}")
    if isinstance(operands, str) or isinstance(attributes, str):
        raise OpContractError(f"op '{name}': operands and attributes are tuples of names")
    names = tuple(a.rstrip("?") for a in attributes)
    return {"operands": tuple(operands), "results": results, "attributes": tuple(attributes),
            "properties": frozenset(names),
            "required": tuple(a for a in attributes if not a.endswith("?"))}


# A `Folder`, `fold(op, constants)`, gets the op and, per operand, the attribute of a
# constant operand (else None). It returns None when it cannot fold; else the replacement of
# each result (a list, or one item for a single result): an existing Value, or an Attribute to
# materialize as a constant. Returning the op's own result means "modified in place" (MLIR's
# convention).
# A `Canonicalization`, `pattern(op, rewriter) -> bool`: rewrite `op` through the driver's
# rewriter (passes/rewrite) and say whether anything changed. The function's name is the
# pattern's name for `--canonicalize='disable-patterns=...'`.
# A `ConstantMaterializer`, `materialize(attr, type, location)`: a dialect's constant op
# holding `attr`, or None.
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


def define_op(name: str, *, operands: tuple[str, ...], results: int | str,
              attributes: tuple[str, ...] = (), regions: tuple[str, ...] = (),
              syntax: Syntax | None = None, verify: Callable[[Operation], None] | None = None,
              isolated: bool = False, terminator: bool = False,
              asm_result_name: AsmResultName | None = None,
              ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: declare op `name` with the decorated function as its evaluator (checked
    against the declaration here, so a mismatch fails at import)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        opdef = OpDef(name, syntax, regions=regions, verify=verify, isolated=isolated,
                      terminator=terminator, asm_result_name=asm_result_name,
                      **_contract(name, operands, results, attributes))
        opdef.set_evaluator(fn)
        register(opdef)
        return fn

    return wrap


def declare_op(name: str, *, operands: tuple[str, ...], results: int | str,
               attributes: tuple[str, ...] = (), regions: tuple[str, ...] = (),
               syntax: Syntax | None = None, verify: Callable[[Operation], None] | None = None,
               isolated: bool = False, terminator: bool = False,
               asm_result_name: AsmResultName | None = None) -> OpDef:
    """Declare an op with no evaluator (structural ops the engine handles itself)."""
    return register(OpDef(name, syntax, regions=regions, verify=verify, isolated=isolated,
                          terminator=terminator, asm_result_name=asm_result_name,
                          **_contract(name, operands, results, attributes)))


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
    """The op named `name`, importing the module that defines it on first use (the core
    modules on the first lookup; every module when the index does not know the name)."""
    if not _core_loaded:
        load_core()
    opdef = _REGISTRY.get(name)
    if opdef is None:
        dialect = name.partition(".")[0]
        if not _loaded and not any(_plugin(p, "load_op", name) for p in PLUGIN_PACKAGES):
            if dialect not in LAZY_DIALECTS:
                _ensure_loaded()
        if LAZY_DIALECTS:
            load_dialect(dialect)
        opdef = _REGISTRY.get(name)
    return opdef


def load_attribute(dialect: str, name: str) -> bool:
    """Import the module that parses `#dialect.name<...>`, when the plugins' index names one
    not imported yet (True then)."""
    if not _core_loaded:
        load_core()
    return any(_plugin(p, "load_attribute", dialect, name) for p in PLUGIN_PACKAGES)


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


_loaded = False  # every op module imported
_core_loaded = False  # the modules every launch needs imported


def ensure_loaded() -> None:
    """Import every dialect module (each registers its ops and parser hooks): for code that
    lists all ops."""
    _ensure_loaded()


# Packages whose modules declare ops. The registry sits in the lowest layer, so it names its
# plugins instead of importing them (no upward import). Each package's `load_all()` imports
# its modules, which register their ops and parser hooks; a package may also offer
# `load_core()` (what every launch needs: hooks, verifiers of every op, ...),
# `load_op(name) -> bool` (the module of one op; False when unknown) and
# `load_attribute(dialect, name) -> bool` (the module parsing one dialect attribute), so a
# launch imports only the op modules its program uses. Without them `load_core()` means
# `load_all()`.
PLUGIN_PACKAGES: list[str] = ["shlo_cli.dialects"]


def _plugin(package: str, hook: str, *args: Any) -> Any:
    module = importlib.import_module(package)
    if hasattr(module, hook):
        return getattr(module, hook)(*args)
    if hook not in ("load_op", "load_attribute"):
        module.load_all()
    return False


def load_core() -> None:
    """Import the op modules every launch needs (parser hooks, attribute parsers, verifiers
    of every op, binding hooks, ...): what the first op lookup does."""
    global _core_loaded
    if not _core_loaded:
        _core_loaded = True
        for name in PLUGIN_PACKAGES:
            _plugin(name, "load_core")


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        load_core()
        for name in PLUGIN_PACKAGES:
            importlib.import_module(name).load_all()


# Binding hooks: `hook(op, opdef, kwargs)` may return a kernel replacing the plain evaluator
# binding (e.g. dequantize -> evaluate -> quantize for quantized element types), else None.
# Hooks run in ascending `order` (given at registration, so import order does not matter);
# one wrapping the evaluator gets its inner kernel from `bind_after(hook, ...)`, so the later
# hooks (e.g. `?` result shapes) still apply. The orders in use:
#   10 dynamic-shape guard, 20 scalar fast paths, 30 quantized types, 40 memory budget,
#   50 `?` result shapes, 60 specialized kernels, 70 convolution, 80 reduce.
# A hook registered with `ops` returns None for every other op, so binding an op runs (and
# imports the modules of) only the hooks that may apply to it.
BIND_HOOKS: list[BindHook] = []
_BIND_ORDER: dict[str, int] = {}  # hook's module.qualname -> its order
_HOOK_OPS: dict[BindHook, frozenset[str]] = {}  # hook -> the only ops it binds (absent: any)
_bind_hooks_loaded = False  # every hook module imported
_bind_hooks_of: set[str] = set()  # op names whose hook modules are imported


def register_bind_hook(hook: BindHook, order: int, ops: Iterable[str] | None = None) -> None:
    """Add `hook` at its `order` (a module imported twice replaces its hook); `ops`: the op
    names it may return a kernel for, when it returns None for all others."""
    name = f"{hook.__module__}.{hook.__qualname__}"
    BIND_HOOKS[:] = [h for h in BIND_HOOKS if f"{h.__module__}.{h.__qualname__}" != name]
    _BIND_ORDER[name] = order
    if ops is not None:
        _HOOK_OPS[hook] = frozenset(ops)
    BIND_HOOKS.append(hook)
    BIND_HOOKS.sort(key=lambda h: _BIND_ORDER[f"{h.__module__}.{h.__qualname__}"])


def bind_hooks(op_name: str | None = None) -> list[BindHook]:
    """The binding hooks that may apply to op `op_name` (None: every hook), in order, their
    modules imported first (tools that never interpret skip importing them; a program
    imports those of its own ops)."""
    global _bind_hooks_loaded
    if op_name is None:
        if not _bind_hooks_loaded:
            _bind_hooks_loaded = True
            for name in PLUGIN_PACKAGES:
                _plugin(name, "load_bind_hooks")
        return BIND_HOOKS
    if not _bind_hooks_loaded and op_name not in _bind_hooks_of:
        _bind_hooks_of.add(op_name)
        for name in PLUGIN_PACKAGES:
            _plugin(name, "load_bind_hooks", op_name)
    cached = _HOOKS_OF.get(op_name)
    if cached is not None and cached[0] == BIND_HOOKS:  # (tests trim BIND_HOOKS in place)
        return cached[1]
    hooks = [h for h in BIND_HOOKS if op_name in _HOOK_OPS.get(h, (op_name,))]
    _HOOKS_OF[op_name] = (list(BIND_HOOKS), hooks)
    return hooks


# op name -> (BIND_HOOKS when its hooks were listed, its hooks): binding an op asks again for
# every hook that wraps the kernel of the hooks after it (`bind_after`).
_HOOKS_OF: dict[str, tuple[list[BindHook], list[BindHook]]] = {}


def bind_after(hook: BindHook, op: Operation, opdef: Any,
               kwargs: dict[str, Any]) -> Callable[..., Any]:
    """The kernel the hooks after `hook` (else the plain evaluator) bind for `kwargs`."""
    hooks = bind_hooks(op.name)
    later = hooks[hooks.index(hook) + 1:] if hook in hooks else []
    return _bind_with(later, op, opdef, kwargs)


def _bind_with(hooks: list[BindHook], op: Operation, opdef: Any,
               kwargs: dict[str, Any]) -> Callable[..., Any]:
    for hook in hooks:
        kernel = hook(op, opdef, kwargs)
        if kernel is not None:
            return kernel
    fn = opdef.evaluate
    return functools.partial(fn, **kwargs) if kwargs else fn
