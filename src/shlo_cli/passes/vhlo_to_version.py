"""`--vhlo-to-version=target=X.Y.Z`: upgrade or downgrade VHLO ops to a target version.

Mirrors upstream's VhloToVersion: an op is legal at a target when the target lies in its
version range, its versioned constraints hold (e.g. reduce ops with differing operand and
result element types need 0.17.0), and every VHLO attribute and type it carries (recursively)
exists at the target. An illegal op is rewritten into the other version of the same op when
upstream's upgrade/downgrade rule applies (e.g. `all_gather_v2` -> `all_gather_v1` needs a
single operand, `dot_general_v2` -> `v1` needs the default algorithm); otherwise the pass
fails with upstream's two errors: the op, then `failed to convert VHLO to vX.Y.Z` at the
module.
"""

from __future__ import annotations

import functools

import numpy as np

from ..dialects.vhlo import attributes as va
from ..dialects.vhlo import types as vt
from ..dialects.vhlo.ops import OP_SPECS, VhloOpSpec, specs_of
from ..dialects.vhlo.stablehlo_attrs import i64_tensor
from ..dialects.vhlo.version import Version, VersionError, resolve_target
from ..ir import registry
from ..ir.attributes import Attribute
from ..ir.core import Module, Operation
from ..ir.diagnostics import Diagnostic
from ..ir.types import Type
from . import PassOption, register_pass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    Rule = Callable[[Operation], bool]
    """Adjusts an op's attributes for the other version in place; False when it cannot."""

# ---- legality ------------------------------------------------------------------------------


def attribute_is_legal(attr: Attribute, target: Version) -> bool:
    """Upstream's isLegalAttribute: non-VHLO attributes pass; VHLO ones must exist at
    `target`, and so must what arrays, dictionaries and typed attributes hold."""
    if not vt.is_vhlo(attr):
        return True
    cls = type(attr)
    if not cls.min_version <= target <= cls.max_version:
        return False
    if isinstance(attr, va.ArrayV1Attr):
        return all(attribute_is_legal(a, target) for a in attr.value)
    if isinstance(attr, va.DictionaryV1Attr):
        return all(attribute_is_legal(k, target) and attribute_is_legal(v, target)
                   for k, v in attr.value)
    if isinstance(attr, (va.FloatV1Attr, va.IntegerV1Attr, va.TensorV1Attr)):
        return type_is_legal(attr.type, target)
    if isinstance(attr, va.TypeV1Attr):
        return type_is_legal(attr.value, target)
    if isinstance(attr, va.ResultAccuracyV1Attr):
        return attribute_is_legal(attr.mode, target)
    if isinstance(attr, va.AxisRefV1Attr):
        return attribute_is_legal(attr.name, target) and (
            attr.sub_axis_info is None or attribute_is_legal(attr.sub_axis_info, target))
    if isinstance(attr, va.ReplicaGroupMeshAxesV1Attr):
        return attribute_is_legal(attr.mesh, target) and attribute_is_legal(attr.axes, target)
    return True


_TYPE_LEGALITY: dict[tuple[int, Version], tuple[Type, bool]] = {}
"""Answers of `type_is_legal` by type identity (the entry holds the type, so its id stays
its own); legalization shares one VHLO object per type, so most lookups hit."""


def type_is_legal(t: Type, target: Version) -> bool:
    """Upstream's isLegalType (containers are checked through, as upstream does)."""
    if not vt.is_vhlo(t):
        return True
    known = _TYPE_LEGALITY.get((id(t), target))
    if known is not None:
        return known[1]
    if len(_TYPE_LEGALITY) >= 4096:
        _TYPE_LEGALITY.clear()
    legal = _type_is_legal(t, target)
    _TYPE_LEGALITY[(id(t), target)] = (t, legal)
    return legal


def _type_is_legal(t: Type, target: Version) -> bool:
    cls = type(t)
    if not cls.min_version <= target <= cls.max_version:
        return False
    if isinstance(t, (vt.ComplexV1Type, vt.UnrankedTensorV1Type, vt.RankedBufferV1Type)):
        return type_is_legal(t.element_type, target)
    if isinstance(t, vt.FunctionV1Type):
        return all(type_is_legal(x, target) for x in (*t.inputs, *t.outputs))
    if isinstance(t, vt.RankedTensorV1Type):
        if t.encoding is not None and not attribute_is_legal(t.encoding, target):
            return False
        return type_is_legal(t.element_type, target)
    if isinstance(t, vt.TupleV1Type):
        return all(type_is_legal(x, target) for x in t.types)
    if isinstance(t, vt.UniformQuantizedV1Type):
        return type_is_legal(t.storage_type, target) and type_is_legal(t.expressed_type, target)
    return True


def _element_type(t: Type) -> Type | None:
    return t.element_type if isinstance(t, (vt.RankedTensorV1Type,
                                            vt.UnrankedTensorV1Type)) else None


def _promotable_reduce(op: Operation, target: Version) -> bool:
    """Reduce ops whose result element types differ from their operands' need 0.17.0."""
    same = all(_element_type(a.type) == _element_type(r.type)
               for a, r in zip(op.operands, op.results, strict=False))
    return same or not target < Version(0, 17, 0)


def _custom_call_v1(op: Operation, target: Version) -> bool:
    if target < Version(1, 17, 0) and any(isinstance(v.type, vt.FutureV1Type)
                                          for v in op.operands):
        return False
    api = op.attr("api_version")
    if target < Version(1, 3, 0) and (
            isinstance(op.attr("backend_config"), va.DictionaryV1Attr)
            or (isinstance(api, va.CustomCallApiVersionV1Attr)
                and api.value == "API_VERSION_TYPED_FFI")):
        return False
    return True


_CONSTRAINTS: dict[str, Callable[[Operation, Version], bool]] = {
    **{f"vhlo.{n}_v1": _promotable_reduce for n in (
        "all_reduce", "reduce", "reduce_scatter", "reduce_window", "scatter",
        "select_and_scatter")},
    "vhlo.custom_call_v1": _custom_call_v1,
}


@functools.cache
def _every_vhlo_class_legal(target: Version) -> bool:
    """Whether every VHLO attribute and type class exists at `target` (true of the current
    version): then every attribute and type is legal there, however deeply nested."""
    stack: list[type] = list(vt._vhlo_classes())
    while stack:
        cls = stack.pop()
        if not cls.min_version <= target <= cls.max_version:  # type: ignore[attr-defined]
            return False
        stack.extend(cls.__subclasses__())
    return True


def op_is_legal(op: Operation, target: Version) -> bool:
    """Upstream's isLegalOperation for a VHLO op (other ops are always legal)."""
    spec = OP_SPECS.get(op.name)
    if spec is None:
        return not op.name.startswith("vhlo.")
    if not spec.is_legal(target):
        return False
    constraint = _CONSTRAINTS.get(op.name)
    if constraint is not None and not constraint(op, target):
        return False
    if _every_vhlo_class_legal(target):
        return True
    if not all(attribute_is_legal(a, target)
               for a in (*op.properties.values(), *op.attributes.values())):
        return False
    return all(type_is_legal(v.type, target) for v in (*op.operands, *op.results))


# ---- upgrade / downgrade rules -------------------------------------------------------------

_NONE = va.TypeV1Attr(vt.NoneV1Type())
_FALSE = va.BooleanV1Attr(False)
_DEFAULT_ACCURACY = va.ResultAccuracyV1Attr(0.0, 0.0, 0, va.ResultAccuracyModeV1Attr("DEFAULT"))
_DOT_ALGORITHM = ("lhs_precision_type", "rhs_precision_type", "accumulation_type",
                  "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                  "allow_imprecise_accumulation")


def _is_empty_tensor(attr: Attribute | None) -> bool:
    return isinstance(attr, va.TensorV1Attr) and np.asarray(attr.data.value).size == 0


def _is_empty_array(attr: Attribute | None) -> bool:
    return isinstance(attr, va.ArrayV1Attr) and not attr.value


def _is_default_accuracy(attr: Attribute | None) -> bool:
    return (isinstance(attr, va.ResultAccuracyV1Attr) and attr.atol == 0 and attr.rtol == 0
            and attr.ulps == 0 and attr.mode == va.ResultAccuracyModeV1Attr("DEFAULT"))


def _adds(**defaults: Callable[[Operation], Attribute]) -> Rule:
    def rule(op: Operation) -> bool:
        for name, make in defaults.items():
            op.properties[name] = make(op)
        return True

    return rule


def _drops(check: Callable[[Attribute | None], bool], *names: str,
           single_operand: bool = False) -> Rule:
    def rule(op: Operation) -> bool:
        if single_operand and len(op.operands) != 1:
            return False
        if not all(check(op.properties.get(n)) for n in names):
            return False
        for n in names:
            op.properties.pop(n, None)
        return True

    return rule


def _single_operand(op: Operation) -> bool:
    return len(op.operands) == 1


def _empty_i64(op: Operation) -> Attribute:
    return i64_tensor([])


def _conv_padding(op: Operation) -> Attribute:
    lhs = op.operands[0].type if op.operands else None
    rank = len(lhs.shape) if isinstance(lhs, vt.RankedTensorV1Type) else 2
    n = max(rank - 2, 0)
    return i64_tensor([0] * (2 * n), (n, 2))


def _no_regions(op: Operation) -> bool:
    return not op.regions


def _accuracy_pair() -> tuple[Rule, Rule]:
    return (_adds(result_accuracy=lambda op: _DEFAULT_ACCURACY),
            _drops(_is_default_accuracy, "result_accuracy"))


# base name -> (upgrade v1 -> v2, downgrade v2 -> v1)
_RULES: dict[str, tuple[Rule, Rule]] = {
    "dynamic_conv": (_drops(lambda a: True, "padding"),
                     _adds(padding=_conv_padding)),
    "gather": (_adds(operand_batching_dims=_empty_i64, start_indices_batching_dims=_empty_i64),
               _drops(_is_empty_tensor, "operand_batching_dims",
                      "start_indices_batching_dims")),
    "dynamic_gather": (_adds(operand_batching_dims=_empty_i64,
                             start_indices_batching_dims=_empty_i64),
                       _drops(_is_empty_tensor, "operand_batching_dims",
                              "start_indices_batching_dims")),
    "scatter": (_adds(input_batching_dims=_empty_i64, scatter_indices_batching_dims=_empty_i64),
                _drops(_is_empty_tensor, "input_batching_dims",
                       "scatter_indices_batching_dims")),
    "all_gather": (_adds(), _drops(lambda a: True, single_operand=True)),
    "all_to_all": (_adds(), _drops(lambda a: True, single_operand=True)),
    "all_reduce": (_adds(), _drops(lambda a: True, single_operand=True)),
    "dot_general": (_adds(**{n: (lambda op: _NONE) for n in _DOT_ALGORITHM}),
                    _drops(lambda a: a == _NONE, *_DOT_ALGORITHM)),
    "send": (_adds(source_target_pairs=_empty_i64),
             _drops(_is_empty_tensor, "source_target_pairs")),
    "recv": (_adds(source_target_pairs=_empty_i64),
             _drops(_is_empty_tensor, "source_target_pairs")),
    "collective_broadcast": (_adds(has_dynamic_root=lambda op: _FALSE),
                             _drops(lambda a: a == _FALSE, "has_dynamic_root",
                                    single_operand=True)),
    "composite": (_adds(), _no_regions),
    "custom_call": (_adds(result_tilings=lambda op: va.ArrayV1Attr(())),
                    _drops(_is_empty_array, "result_tilings")),
    **{base: _accuracy_pair() for base in (
        "cbrt", "cosine", "exponential", "exponential_minus_one", "log", "log_plus_one",
        "logistic", "rsqrt", "sine", "sqrt", "tan", "tanh")},
}


def _retarget(op: Operation, spec: VhloOpSpec, target: Version) -> bool:
    """Rewrite `op` into the version of its op that `target` has, if a rule allows it."""
    rules = _RULES.get(spec.base)
    if rules is None:
        return False
    for other in specs_of(spec.base):
        if other is spec or not other.is_legal(target):
            continue
        if abs(other.version - spec.version) != 1:
            continue
        rule = rules[0] if other.version > spec.version else rules[1]
        saved = dict(op.properties)
        if not rule(op):
            op.properties = saved
            return False
        if spec.base == "composite" and other.version == 1:
            op.regions = []
        op.name = other.name
        op.opdef = registry.lookup(other.name)
        op._plan_cache = None
        return True
    return False


def vhlo_to_version(module: Module, target: Version) -> list[Operation]:
    """Convert every VHLO op of `module` to `target`'s op set, in place; raises Diagnostic
    (the op, with the module-level `failed to convert VHLO to vX` as a second error).

    Returns the converted ops in the order upstream's conversion recreates them (pre-order),
    which decides the use-list orders its bytecode writer records."""
    opset = target.opset()
    converted = []
    for op in list(module.op.walk())[1:]:
        if op_is_legal(op, opset):
            continue
        spec = OP_SPECS.get(op.name)
        name = op.name
        if spec is None or not _retarget(op, spec, opset) or not op_is_legal(op, opset):
            raise _failure(module, op, name, opset)
        converted.append(op)
    return converted


def _failure(module: Module, op: Operation, name: str, target: Version) -> Diagnostic:
    at_module = Diagnostic(f"failed to convert VHLO to v{target}",
                           line=module.op.location.line, col=module.op.location.col)
    return Diagnostic(f"failed to legalize operation '{name}' that was explicitly marked "
                      "illegal", line=op.location.line or None, col=op.location.col or None,
                      notes=[at_module])


@register_pass("vhlo-to-version", "Convert between versions of VHLO.",
               options=(PassOption("target", "The target version: X.Y.Z, current or minimum.",
                                   ""),))
def _run(module: Module, target: str = "") -> None:
    try:
        version = resolve_target(target)
    except VersionError as e:
        loc = module.op.location
        raise Diagnostic(str(e), line=loc.line, col=loc.col) from None
    vhlo_to_version(module, version)

