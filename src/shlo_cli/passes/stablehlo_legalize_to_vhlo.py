"""`--stablehlo-legalize-to-vhlo`: StableHLO + func ops -> the current version of VHLO.

Mirrors upstream's StablehloLegalizeToVhlo: every `stablehlo.X` becomes the newest
`vhlo.X_vN`, func.func/call/return become vhlo.func_v1/call_v1/return_v1, types and
attributes get their VHLO counterparts, and every attribute StableHLO leaves to a default is
written out (VHLO has no defaults). Struct attributes (dimension numbers, channel handles,
dot algorithms) are exploded into one VHLO attribute per field.

Ops are converted in place, pre-order, so a failure is reported at the outermost op that
cannot be converted, in upstream's words.
"""

from __future__ import annotations

from ..dialects.stablehlo.attr_conv import decode_conv_dims
from ..dialects.vhlo import attributes as va
from ..dialects.vhlo.ops import OP_SPECS, VhloOpSpec, latest_spec
from ..dialects.vhlo.stablehlo_attrs import (
    NoCounterpart,
    bool_tensor,
    i64_attr,
    i64_tensor,
    to_vhlo_attr,
    type_to_vhlo,
)
from ..ir import registry
from ..ir.attributes import (
    ArrayAttr,
    Attribute,
    DenseArrayAttr,
    DenseElementsAttr,
    DialectAttr,
    IntegerAttr,
    SymbolRefAttr,
    UnitAttr,
)
from ..ir.core import Module, Operation
from ..ir.diagnostics import Diagnostic
from ..ir.types import NoneType, Type
from . import PassOption, register_pass
from .unrealized_casts import CAST, insert_casts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_FUNC_OPS = {"func.func": "vhlo.func_v1", "func.call": "vhlo.call_v1",
             "func.return": "vhlo.return_v1"}

Attrs = dict[str, Attribute]


def target_spec(name: str) -> VhloOpSpec | None:
    """The VHLO op a StableHLO/func op legalizes to, or None."""
    if name in _FUNC_OPS:
        return OP_SPECS[_FUNC_OPS[name]]
    if name.startswith("stablehlo."):
        return latest_spec(name[len("stablehlo."):])
    return None


def failure(op: Operation) -> Diagnostic:
    return Diagnostic(f"failed to legalize operation '{op.name}' that was explicitly marked "
                      "illegal", line=op.location.line or None, col=op.location.col or None)


def legalize_to_vhlo(module: Module, allow_other_dialects: bool = False) -> None:
    """Rewrite `module` into VHLO in place; raises Diagnostic at the first op that has no
    VHLO form (e.g. a sparse tensor type or a string with a type)."""
    original: dict[int, Type] = {}  # id(value) -> its type before conversion
    converted: set[int] = set()
    for op in list(module.op.walk())[1:]:
        spec = target_spec(op.name)
        if spec is None:
            # Nested modules, casts and VHLO stay; other dialects only when asked for.
            if op.name not in ("builtin.module", CAST) and op.dialect != "vhlo" and (
                    op.dialect in ("stablehlo", "func") or not allow_other_dialects):
                raise failure(op)
            continue
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.arguments)]
        before = [v.type for v in values]
        try:
            _convert(op, spec, allow_other_dialects)
        except NoCounterpart:
            raise failure(op) from None
        converted.add(id(op))
        for value, old_type in zip(values, before, strict=True):
            original[id(value)] = old_type
    if allow_other_dialects:
        insert_casts(module, lambda op: id(op) in converted, original,
                     lambda t: type_to_vhlo(t, True))


def _convert(op: Operation, spec: VhloOpSpec, allow_other: bool) -> None:
    attrs: Attrs = {}
    _add_defaults(op, attrs)
    for name, value in {**op.properties, **op.attributes}.items():
        special = _SPECIAL.get((op.name, name))
        if special is not None:
            special(value, attrs)
        else:
            attrs[name] = to_vhlo_attr(value, allow_other)
    result_types = [type_to_vhlo(r.type, allow_other) for r in op.results]
    arg_types = [[[type_to_vhlo(a.type, allow_other) for a in block.arguments]
                  for block in region.blocks] for region in op.regions]
    # Everything converted: now change the op in place.
    for result, new_type in zip(op.results, result_types, strict=True):
        result.type = new_type
    for region, blocks in zip(op.regions, arg_types, strict=True):
        for block, types in zip(region.blocks, blocks, strict=True):
            for arg, new_type in zip(block.arguments, types, strict=True):
                arg.type = new_type
    op.name = spec.name
    op.opdef = registry.lookup(spec.name)
    inherent = set(spec.attributes)
    op.properties = {k: v for k, v in attrs.items() if k in inherent}
    op.attributes = {k: v for k, v in attrs.items() if k not in inherent}
    op._plan_cache = None


# ---- special cases: one StableHLO attribute -> several (or renamed) VHLO ones ----------------


def _field(attr: Any, name: str, default: Any) -> Any:
    if not isinstance(attr, DialectAttr):
        raise NoCounterpart(f"expected a struct attribute, got {attr}")
    value = attr.get(name, default)
    return default if value is None else value


def _channel_id(value: Attribute, out: Attrs) -> None:
    out["channel_id"] = i64_attr(int(_field(value, "handle", 0)))


def _channel_handle(value: Attribute, out: Attrs) -> None:
    out["channel_id"] = i64_attr(int(_field(value, "handle", 0)))
    out["channel_type"] = i64_attr(int(_field(value, "type", 0)))


def _unit_flag(name: str) -> Callable[[Attribute, Attrs], None]:
    def convert(value: Attribute, out: Attrs) -> None:
        if not isinstance(value, UnitAttr):
            raise NoCounterpart(f"{name} must be a unit attribute")
        out[name] = va.BooleanV1Attr(True)

    return convert


def _conv_dims(value: Attribute, out: Attrs) -> None:
    try:
        dims = decode_conv_dims(value)
    except Exception as e:  # noqa: BLE001 - any malformed spelling has no VHLO form
        raise NoCounterpart(str(e)) from None
    out["input_batch_dimension"] = i64_attr(dims.input_batch)
    out["input_feature_dimension"] = i64_attr(dims.input_feature)
    out["input_spatial_dimensions"] = i64_tensor(dims.input_spatial)
    out["kernel_input_feature_dimension"] = i64_attr(dims.kernel_input_feature)
    out["kernel_output_feature_dimension"] = i64_attr(dims.kernel_output_feature)
    out["kernel_spatial_dimensions"] = i64_tensor(dims.kernel_spatial)
    out["output_batch_dimension"] = i64_attr(dims.output_batch)
    out["output_feature_dimension"] = i64_attr(dims.output_feature)
    out["output_spatial_dimensions"] = i64_tensor(dims.output_spatial)


def _struct_fields(lists: tuple[str, ...], ints: tuple[str, ...]
                   ) -> Callable[[Attribute, Attrs], None]:
    def convert(value: Attribute, out: Attrs) -> None:
        for name in lists:
            out[name] = i64_tensor([int(x) for x in _field(value, name, [])])
        for name in ints:
            out[name] = i64_attr(int(_field(value, name, 0)))

    return convert


_GATHER = _struct_fields(("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                          "start_indices_batching_dims", "start_index_map"),
                         ("index_vector_dim",))
_SCATTER = _struct_fields(("update_window_dims", "inserted_window_dims", "input_batching_dims",
                           "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"),
                          ("index_vector_dim",))
_DOT = _struct_fields(("lhs_batching_dimensions", "rhs_batching_dimensions",
                       "lhs_contracting_dimensions", "rhs_contracting_dimensions"), ())


def _dot_algorithm(value: Attribute, out: Attrs) -> None:
    for name in ("lhs_precision_type", "rhs_precision_type", "accumulation_type"):
        out[name] = va.TypeV1Attr(type_to_vhlo(_field(value, name, None)))
    for name in ("lhs_component_count", "rhs_component_count", "num_primitive_operations"):
        out[name] = i64_attr(int(_field(value, name, 0)))
    out["allow_imprecise_accumulation"] = va.BooleanV1Attr(
        bool(_field(value, "allow_imprecise_accumulation", False)))


def _api_version(value: Attribute, out: Attrs) -> None:
    if not isinstance(value, IntegerAttr):
        raise NoCounterpart("api_version must be an integer")
    try:
        out["api_version"] = va.CustomCallApiVersionV1Attr.from_code(value.number)
    except ValueError as e:
        raise NoCounterpart(str(e)) from None


def _called_computations(value: Attribute, out: Attrs) -> None:
    if not isinstance(value, ArrayAttr) or not all(
            isinstance(e, SymbolRefAttr) and not e.nested for e in value.elements):
        raise NoCounterpart("called_computations must be an array of symbols")
    out["called_computations"] = va.ArrayV1Attr(
        tuple(va.StringV1Attr(e.root) for e in value.elements))  # type: ignore[union-attr]


def _callee(value: Attribute, out: Attrs) -> None:
    if not isinstance(value, SymbolRefAttr) or value.nested:
        raise NoCounterpart("callee must be a flat symbol")
    out["callee"] = va.StringV1Attr(value.root)


_CHANNEL_ID_OPS = frozenset(f"stablehlo.{n}" for n in (
    "all_gather", "all_reduce", "all_to_all", "collective_permute", "reduce_scatter",
    "collective_broadcast", "collective_reduce"))

_SPECIAL: dict[tuple[str, str], Callable[[Attribute, Attrs], None]] = {
    **{(n, "channel_handle"): _channel_id for n in _CHANNEL_ID_OPS},
    **{(n, "use_global_device_ids"): _unit_flag("use_global_device_ids")
       for n in _CHANNEL_ID_OPS if "broadcast" not in n},
    ("stablehlo.collective_broadcast", "has_dynamic_root"): _unit_flag("has_dynamic_root"),
    ("stablehlo.collective_reduce", "has_dynamic_root"): _unit_flag("has_dynamic_root"),
    ("stablehlo.convolution", "dimension_numbers"): _conv_dims,
    ("stablehlo.dynamic_conv", "dimension_numbers"): _conv_dims,
    ("stablehlo.custom_call", "api_version"): _api_version,
    ("stablehlo.custom_call", "called_computations"): _called_computations,
    ("stablehlo.dot_general", "dot_dimension_numbers"): _DOT,
    ("stablehlo.dot_general", "algorithm"): _dot_algorithm,
    ("stablehlo.gather", "dimension_numbers"): _GATHER,
    ("stablehlo.dynamic_gather", "dimension_numbers"): _GATHER,
    ("stablehlo.scatter", "scatter_dimension_numbers"): _SCATTER,
    ("stablehlo.recv", "channel_handle"): _channel_handle,
    ("stablehlo.send", "channel_handle"): _channel_handle,
    ("func.call", "callee"): _callee,
}


# ---- defaults: VHLO spells out what StableHLO leaves implicit ------------------------------


def _precision_defaults() -> Attribute:
    return va.ArrayV1Attr((va.PrecisionV1Attr("DEFAULT"), va.PrecisionV1Attr("DEFAULT")))


def _window_rank(op: Operation, attr_name: str) -> int:
    value = op.attr(attr_name)
    if isinstance(value, DenseArrayAttr):
        return len(value.items)
    if isinstance(value, DenseElementsAttr):
        return int(value.type.num_elements)
    raise NoCounterpart(f"'{op.name}' needs {attr_name}")


def _zeros_pairs(n: int) -> Attribute:
    return i64_tensor([0] * (2 * n), (n, 2))


_DEFAULT_ACCURACY = va.ResultAccuracyV1Attr(0.0, 0.0, 0, va.ResultAccuracyModeV1Attr("DEFAULT"))
_ACCURACY_OPS = frozenset(f"stablehlo.{n}" for n in (
    "cbrt", "cosine", "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic",
    "rsqrt", "sine", "sqrt", "tan", "tanh"))
_FALSE = va.BooleanV1Attr(False)
_EMPTY_ARRAY = va.ArrayV1Attr(())


def _add_defaults(op: Operation, out: Attrs) -> None:
    """Upstream's addDefaults: each attribute StableHLO may omit, at its default value."""
    name = op.name

    def default(attr_name: str, make: Callable[[], Attribute]) -> None:
        if op.attr(attr_name) is None:
            out[attr_name] = make()

    if name == "func.func":
        default("sym_visibility", lambda: va.StringV1Attr(""))
        default("arg_attrs", lambda: _EMPTY_ARRAY)
        default("res_attrs", lambda: _EMPTY_ARRAY)
    if name in ("stablehlo.all_gather", "stablehlo.all_reduce", "stablehlo.reduce_scatter",
                "stablehlo.collective_reduce"):
        if op.attr("channel_handle") is None:
            out["channel_id"] = i64_attr(0)
        default("use_global_device_ids", lambda: _FALSE)
    if name in ("stablehlo.all_to_all", "stablehlo.collective_permute",
                "stablehlo.collective_broadcast"):
        if op.attr("channel_handle") is None:
            out["channel_id"] = i64_attr(0)
    if name in ("stablehlo.collective_broadcast", "stablehlo.collective_reduce"):
        default("has_dynamic_root", lambda: _FALSE)
    if name == "stablehlo.cholesky":
        default("lower", lambda: _FALSE)
    if name == "stablehlo.compare":
        default("compare_type", lambda: va.ComparisonTypeV1Attr("NOTYPE"))
    if name == "stablehlo.composite":
        default("version", lambda: i64_attr(0))
        default("composite_attributes", lambda: va.DictionaryV1Attr(()))
    if name in ("stablehlo.convolution", "stablehlo.dynamic_conv"):
        dims_attr = op.attr("dimension_numbers")
        try:
            n = len(decode_conv_dims(dims_attr).input_spatial) if dims_attr is not None else 0
        except Exception as e:  # noqa: BLE001
            raise NoCounterpart(str(e)) from None
        default("window_strides", lambda: i64_tensor([1] * n))
        if name == "stablehlo.convolution":
            default("padding", lambda: _zeros_pairs(n))
        default("lhs_dilation", lambda: i64_tensor([1] * n))
        default("rhs_dilation", lambda: i64_tensor([1] * n))
        default("window_reversal", lambda: bool_tensor([False] * n))
        default("precision_config", _precision_defaults)
    if name == "stablehlo.custom_call":
        default("has_side_effect", lambda: _FALSE)
        typed_ffi = (isinstance(op.attr("api_version"), IntegerAttr)
                     and op.attr("api_version").number == 4)  # type: ignore[union-attr]
        default("backend_config", lambda: va.DictionaryV1Attr(()) if typed_ffi
                else va.StringV1Attr(""))
        default("api_version", lambda: va.CustomCallApiVersionV1Attr("API_VERSION_ORIGINAL"))
        for attr_name in ("called_computations", "operand_layouts", "result_layouts",
                          "output_operand_aliases", "result_tilings"):
            default(attr_name, lambda: _EMPTY_ARRAY)
    if name in ("stablehlo.dot_general", "stablehlo.dot"):
        default("precision_config", _precision_defaults)
    if name == "stablehlo.dot_general" and op.attr("algorithm") is None:
        none = va.TypeV1Attr(type_to_vhlo(NoneType()))
        for attr_name in ("lhs_precision_type", "rhs_precision_type", "accumulation_type",
                          "lhs_component_count", "rhs_component_count",
                          "num_primitive_operations", "allow_imprecise_accumulation"):
            out[attr_name] = none
    if name in _ACCURACY_OPS:
        default("result_accuracy", lambda: _DEFAULT_ACCURACY)
    if name == "stablehlo.dynamic_broadcast_in_dim":
        default("known_expanding_dimensions", lambda: i64_tensor([]))
        default("known_nonexpanding_dimensions", lambda: i64_tensor([]))
    if name in ("stablehlo.dynamic_gather", "stablehlo.gather"):
        default("indices_are_sorted", lambda: _FALSE)
    if name == "stablehlo.infeed":
        default("infeed_config", lambda: va.StringV1Attr(""))
        default("layout", lambda: _EMPTY_ARRAY)
    if name == "stablehlo.outfeed":
        default("outfeed_config", lambda: va.StringV1Attr(""))
    if name in ("stablehlo.recv", "stablehlo.send"):
        default("is_host_transfer", lambda: _FALSE)
        default("source_target_pairs", lambda: i64_tensor([]))
    if name == "stablehlo.reduce_window":
        n = _window_rank(op, "window_dimensions")
        for attr_name in ("window_strides", "base_dilations", "window_dilations"):
            default(attr_name, lambda: i64_tensor([1] * n))
        default("padding", lambda: _zeros_pairs(n))
    if name == "stablehlo.scatter":
        default("indices_are_sorted", lambda: _FALSE)
        default("unique_indices", lambda: _FALSE)
    if name == "stablehlo.select_and_scatter":
        n = _window_rank(op, "window_dimensions")
        default("window_strides", lambda: i64_tensor([1] * n))
        default("padding", lambda: _zeros_pairs(n))
    if name == "stablehlo.sort":
        default("dimension", lambda: i64_attr(-1))
        default("is_stable", lambda: _FALSE)


def _parse_bool(text: str) -> bool:
    if text in ("true", "1", ""):
        return True
    if text in ("false", "0"):
        return False
    raise ValueError(f"'{text}' is invalid value for boolean argument! Try 0 or 1")


@register_pass("stablehlo-legalize-to-vhlo", "Legalize StableHLO to VHLO.",
               options=(PassOption("allow-other-dialects",
                                   "Allow ops and types of other dialects to stay as they are.",
                                   False, _parse_bool, flag=True),))
def _run(module: Module, allow_other_dialects: bool = False) -> None:
    legalize_to_vhlo(module, allow_other_dialects)

