"""Registry of `stablehlo.custom_call` targets: what each accepts, and how it evaluates.

A target is declared once, with everything the interpreter needs to reject a bad call with a
clear message before running it:

    register_target(
        "lapack_spotrf_ffi", evaluate,
        operands=[Operand("f32", min_rank=2)],
        results=[Operand("f32", min_rank=2), Operand("i32")],
        config={"uplo": Config("char", choices="LU")},
        verify=None,          # optional extra check: verify(call) raising TargetError
    )

`evaluate(call: TargetCall) -> Sequence[np.ndarray]` receives the operand arrays
(`call.operands`), the decoded backend_config (`call.config`, only the declared keys, with
defaults filled in), the result types (`call.result_types`) and the op itself (`call.op`).
A single `tuple<...>` result (older custom calls) is presented as its element types, and
the results are packed back.

Checks run the first time an op is evaluated; a failure is an `EvaluationError` naming the
target (`custom call @name: operand #0 ...`), which the interpreter reports at the op's
location. An unregistered target stays `Unsupported custom call target: @name`.

backend_config is read from the `mhlo.backend_config` dictionary (jax's FFI calls,
`api_version = 4`) or from a dictionary-valued `backend_config` property. Integer values
declared as `char` (jax spells `uplo = 76 : ui8` for 'L') decode to one-letter strings.

To add a target from plain Python, wrap a function of arrays:

    register_target("my_target", lambda call: [my_fn(*call.operands, **call.config)])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..ir.attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseElementsAttr,
    DictAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from ..ir.diagnostics import Diagnostic, EvaluationError
from ..ir.record import Record, Struct, set_field
from ..ir.types import TensorType, TokenType, TupleType, Type


class TargetError(Exception):
    """A call does not fit its target's declaration (reported with the target's name)."""


class Operand(Record):
    """What one operand or result may be: element types (`"f32"`, `"i32"`, ...) and rank.

    `elements=None` accepts any element type; `"token"` accepts `!stablehlo.token`.
    `same_as=i` requires the element type of operand `i` (results: of operand `i`).
    """

    __slots__ = ("elements", "min_rank", "rank", "same_as")
    elements: str | tuple[str, ...] | None
    min_rank: int
    rank: int | None
    same_as: int | None

    def __init__(self, elements: str | tuple[str, ...] | None = None, min_rank: int = 0,
                 rank: int | None = None, same_as: int | None = None) -> None:
        set_field(self, "elements", elements)
        set_field(self, "min_rank", min_rank)
        set_field(self, "rank", rank)
        set_field(self, "same_as", same_as)

    def allowed(self) -> tuple[str, ...] | None:
        if self.elements is None or isinstance(self.elements, tuple):
            return self.elements
        return (self.elements,)


class Config(Record):
    """One backend_config key: `kind` is `char`, `int`, `bool`, `float` or `str`."""

    __slots__ = ("kind", "choices", "default", "required")
    kind: str
    choices: str | tuple[Any, ...] | None
    default: Any
    required: bool

    def __init__(self, kind: str, choices: str | tuple[Any, ...] | None = None,
                 default: Any = None, required: bool = True) -> None:
        set_field(self, "kind", kind)
        set_field(self, "choices", choices)
        set_field(self, "default", default)
        set_field(self, "required", required)


class TargetCall(Struct):
    """Everything an evaluator may read about one call."""

    name: str
    operands: list[Any]
    config: dict[str, Any]
    result_types: list[Type]
    op: Any
    ctx: Any
    operand_types: list[Type]  # of `operands` (the op's, less dropped shape operands)

    def __init__(self, name: str, operands: list[Any], config: dict[str, Any],
                 result_types: list[Type], op: Any = None, ctx: Any = None,
                 operand_types: list[Type] | None = None) -> None:
        self.name = name
        self.operands = operands
        self.config = config
        self.result_types = result_types
        self.op = op
        self.ctx = ctx
        if operand_types is None:
            operand_types = list(getattr(op, "operand_types", None) or [])
        self.operand_types = operand_types


Evaluator = Callable[[TargetCall], Sequence[Any] | None]


class Target(Struct):
    """A registered target: its declaration and its evaluator."""

    name: str
    evaluate: Evaluator
    operands: Sequence[Operand] | None
    results: Sequence[Operand] | None
    config: Mapping[str, Config]
    verify: Callable[[TargetCall], None] | None
    variadic: bool  # operands/results: the last entry repeats
    shape_operands: bool  # reads jax's shape operands itself (else they are dropped)

    def __init__(self, name: str, evaluate: Evaluator, operands: Sequence[Operand] | None = None,
                 results: Sequence[Operand] | None = None,
                 config: Mapping[str, Config] | None = None,
                 verify: Callable[[TargetCall], None] | None = None,
                 variadic: bool = False, shape_operands: bool = False) -> None:
        self.name = name
        self.evaluate = evaluate
        self.operands = operands
        self.results = results
        self.config = {} if config is None else config
        self.verify = verify
        self.variadic = variadic
        self.shape_operands = shape_operands


_TARGETS: dict[str, Target] = {}
_VERIFIED: dict[int, Any] = {}  # id(op) -> op (kept alive so ids stay unique)


def register_target(
    name: str,
    evaluate: Evaluator,
    *,
    operands: Sequence[Operand] | None = None,
    results: Sequence[Operand] | None = None,
    config: Mapping[str, Config] | None = None,
    verify: Callable[[TargetCall], None] | None = None,
    variadic: bool = False,
    shape_operands: bool = False,
) -> Target:
    """Declare `@name` (replacing any earlier declaration) and return it.

    `operands`/`results`: one `Operand` per position (None: not checked). `config`: the
    backend_config keys the target reads. `verify(call)`: extra checks raising `TargetError`.
    `shape_operands`: the target reads the operands jax lists in `indices_of_shape_operands`
    (the result shapes of a shape-polymorphic call); for other targets they are dropped.
    """
    target = Target(name, evaluate, operands, results, dict(config or {}), verify, variadic,
                    shape_operands)
    _TARGETS[name] = target
    _VERIFIED.clear()
    _PREPARED.clear()
    return target


def unregister_target(name: str) -> None:
    _TARGETS.pop(name, None)
    _VERIFIED.clear()
    _PREPARED.clear()


def lookup_target(name: str) -> Target | None:
    _ensure_loaded()
    return _TARGETS.get(name)


def registered_target_names() -> list[str]:
    _ensure_loaded()
    return sorted(_TARGETS)


def _hint(name: str) -> str:
    """Why a known kind of unregistered target cannot run here, when we know."""
    if "python_cpu_callback" in name or "python_gpu_callback" in name:
        return (" (a jax host callback: jax.debug.print, jax.pure_callback or io_callback; "
                "its Python function lives in the process that lowered the program, not in "
                "the module; register one with shlo_cli.register_custom_call)")
    return ""


def call_target(name: str, operands: Sequence[Any], *, op: Any = None,
                ctx: Any = None) -> list[Any]:
    """Check (once per op) and evaluate a call of `@name`; errors are `EvaluationError`."""
    target = lookup_target(name)
    if target is None:
        raise EvaluationError(f"Unsupported custom call target: @{name}{_hint(name)}")
    try:
        call = _make_call(target, operands, op, ctx)
        if op is None or id(op) not in _VERIFIED:
            _check(target, call)
            if op is not None:
                _VERIFIED[id(op)] = op
        results = target.evaluate(call)
    except TargetError as e:
        raise EvaluationError(f"custom call @{name}: {e}") from None
    except (EvaluationError, Diagnostic):
        raise
    except Exception as e:  # a kernel's own failure (e.g. numpy's): still a located error
        raise EvaluationError(f"custom call @{name} failed: {type(e).__name__}: {e}") from None
    results = list(results) if results is not None else []
    if _tuple_result(op) is not None:
        return [tuple(results)]
    return results


# ---- checking ----------------------------------------------------------------------------


def _tuple_result(op: Any) -> TupleType | None:
    """The single `tuple<...>` result of older custom calls (evaluated element-wise)."""
    types = list(getattr(op, "result_types", None) or [])
    if len(types) == 1 and isinstance(types[0], TupleType):
        return types[0]
    return None


def shape_operand_indices(op: Any) -> frozenset[int]:
    """The operands jax's `indices_of_shape_operands` marks: a shape-polymorphic call's
    result shapes, appended after its real operands."""
    holders = (getattr(op, "attributes", {}), getattr(op, "properties", {}))
    attr = next((h["indices_of_shape_operands"] for h in holders
                 if "indices_of_shape_operands" in h), None)
    if not isinstance(attr, DenseElementsAttr):
        return frozenset()
    return frozenset(int(i) for i in np.asarray(attr.data).reshape(-1))


def _result_shapes(types: list[Any], shapes: list[Any]) -> list[Any]:
    """The result types with the shapes a shape-polymorphic call's shape operands give (one
    per result, in order): evaluators then read the run's sizes from `result_types` as they
    do for a static call."""
    if len(shapes) != len(types):
        return types
    out = []
    for t, shape in zip(types, shapes, strict=True):
        dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
        if isinstance(t, TensorType) and not t.is_static and len(dims) == t.rank \
                and all(d >= 0 and (s < 0 or s == d) for d, s in zip(dims, t.shape,
                                                                     strict=True)):
            t = t.with_shape(dims)
        out.append(t)
    return out


_Static = tuple[list[Type], dict[str, Any], list[Type], frozenset[int]]
# id(op) -> (op, target, what its calls take from the op alone), decoded once per op: a
# LAPACK call in a loop body paid ~20 us per step decoding its backend_config again
_PREPARED: dict[int, tuple[Any, Target, _Static]] = {}


def _static_parts(target: Target, op: Any) -> _Static:
    """Result types, decoded config, operand types and dropped shape operands of `op`."""
    entry = _PREPARED.get(id(op)) if op is not None else None
    if entry is not None and entry[0] is op and entry[1] is target:
        return entry[2]
    result_types = list(getattr(op, "result_types", None) or [])
    packed = _tuple_result(op)
    if packed is not None:
        result_types = list(packed.types)
    config = decode_config(target, op) if op is not None and target.config else {
        k: c.default for k, c in target.config.items()}
    operand_types = list(getattr(op, "operand_types", None) or [])
    dropped = frozenset() if target.shape_operands else shape_operand_indices(op)
    parts = (result_types, config, operand_types, dropped)
    if op is not None:
        _PREPARED[id(op)] = (op, target, parts)
    return parts


def _make_call(target: Target, operands: Sequence[Any], op: Any, ctx: Any) -> TargetCall:
    static_types, static_config, static_operand_types, dropped = _static_parts(target, op)
    result_types, config = list(static_types), dict(static_config)
    operand_types = list(static_operand_types)
    if dropped:
        result_types = _result_shapes(result_types, [operands[i] for i in sorted(dropped)
                                                     if i < len(operands)])
        operands = [x for i, x in enumerate(operands) if i not in dropped]
        operand_types = [t for i, t in enumerate(operand_types) if i not in dropped]
    return TargetCall(target.name, list(operands), config, result_types, op, ctx,
                      operand_types)


def _check(target: Target, call: TargetCall) -> None:
    if hasattr(call.op, "operand_types"):
        operand_types = call.operand_types
        _check_list("operand", target.operands, operand_types, operand_types, target.variadic)
        _check_list("result", target.results, call.result_types, operand_types,
                    target.variadic)
    if target.verify is not None:
        target.verify(call)


def _check_list(what: str, specs: Sequence[Operand] | None, types: list[Type],
                operand_types: list[Type], variadic: bool) -> None:
    if specs is None:
        return
    if len(types) != len(specs) and not (variadic and specs and len(types) >= len(specs) - 1):
        raise TargetError(f"expects {len(specs)} {what}s, got {len(types)}")
    for i, t in enumerate(types):
        spec = specs[min(i, len(specs) - 1)]
        _check_one(f"{what} #{i}", spec, t, operand_types)


def type_name(t: Type) -> str:
    """`f32` for `tensor<..xf32>`, `token` for a token."""
    if isinstance(t, TokenType):
        return "token"
    if isinstance(t, TensorType):
        return str(t.element)
    return str(t)


def _check_one(where: str, spec: Operand, t: Type, operand_types: list[Type]) -> None:
    allowed = spec.allowed()
    if spec.same_as is not None and spec.same_as < len(operand_types):
        allowed = (type_name(operand_types[spec.same_as]),)
    if allowed == ("token",):
        if not isinstance(t, TokenType):
            raise TargetError(f"{where} must be a token, got {t}")
        return
    if not isinstance(t, TensorType):
        raise TargetError(f"{where} must be a ranked tensor, got {t}")
    if allowed is not None and type_name(t) not in allowed:
        raise TargetError(f"{where} must have element type {' or '.join(allowed)}, got {t}")
    if spec.rank is not None and t.rank != spec.rank:
        raise TargetError(f"{where} must have rank {spec.rank}, got {t}")
    if t.rank < spec.min_rank:
        raise TargetError(f"{where} must have rank >= {spec.min_rank}, got {t}")


# ---- backend_config ----------------------------------------------------------------------


def config_dict(op: Any) -> dict[str, Attribute]:
    """The op's backend_config entries (`mhlo.backend_config` or a dict `backend_config`)."""
    for holder in (op.attributes, op.properties):
        for key in ("mhlo.backend_config", "backend_config"):
            attr = holder.get(key)
            if isinstance(attr, DictAttr):
                return dict(attr.entries)
    return {}


def attribute_value(attr: Attribute) -> Any:
    """A plain Python value for a backend_config entry."""
    if isinstance(attr, BoolAttr | IntegerAttr | FloatAttr | StringAttr):
        return attr.value
    if isinstance(attr, ArrayAttr):
        return [attribute_value(a) for a in attr.elements]
    if isinstance(attr, DenseElementsAttr):
        return np.asarray(attr.data).tolist()
    if isinstance(attr, DictAttr):
        return {k: attribute_value(v) for k, v in attr.entries}
    return attr


def decode_config(target: Target, op: Any) -> dict[str, Any]:
    """The declared keys of `op`'s backend_config, checked and decoded."""
    entries = config_dict(op)
    out: dict[str, Any] = {}
    for key, spec in target.config.items():
        attr = entries.get(key)
        if attr is None:
            if spec.required:
                raise TargetError(f"backend_config requires '{key}'")
            out[key] = spec.default
            continue
        out[key] = _decode(key, spec, attr)
    return out


def _decode(key: str, spec: Config, attr: Attribute) -> Any:
    value = attribute_value(attr)
    kind = spec.kind
    if kind == "char":
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 128:
            value = chr(value)
        elif not (isinstance(value, str) and len(value) == 1):
            raise TargetError(f"backend_config '{key}' must be a character code, got {attr}")
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise TargetError(f"backend_config '{key}' must be an integer, got {attr}")
    elif kind == "bool":
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            value = bool(value)
        if not isinstance(value, bool):
            raise TargetError(f"backend_config '{key}' must be a bool, got {attr}")
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TargetError(f"backend_config '{key}' must be a number, got {attr}")
        value = float(value)
    elif kind == "str" and not isinstance(value, str):
        raise TargetError(f"backend_config '{key}' must be a string, got {attr}")
    if spec.choices is not None and value not in spec.choices:
        shown = ", ".join(repr(c) for c in spec.choices)
        raise TargetError(f"backend_config '{key}' must be one of {shown}, got {value!r}")
    return value


# ---- loading -----------------------------------------------------------------------------

_BUILTIN_MODULES: Iterable[str] = ("jax_lapack", "jax_lapack_legacy", "jax_misc")
_loaded = False


def _ensure_loaded() -> None:
    """Import the built-in target modules (and the check dialect's) on first lookup."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    from ..ir import registry

    registry.all_ops()
    for module in _BUILTIN_MODULES:
        importlib.import_module(f"{__package__}.{module}")
