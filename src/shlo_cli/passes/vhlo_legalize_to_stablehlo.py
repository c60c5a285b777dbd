"""`--vhlo-legalize-to-stablehlo`: VHLO (at the current version) -> StableHLO + func.

Mirrors upstream's VhloLegalizeToStablehlo, the inverse of stablehlo-legalize-to-vhlo:
attributes VHLO spells out at their default value are dropped again, exploded struct
attributes are rebuilt (`#stablehlo.conv`, `#stablehlo.dot`, channel handles, ...), dims
lists that StableHLO keeps as `array<i64: ...>` become dense arrays again, and
`vhlo.return_v1` becomes `func.return` directly inside a function, `stablehlo.return`
elsewhere. Together they round-trip every StableHLO program to the same printed text.

Only ops of the current version are converted; run `--vhlo-to-version=target=current` first
on older VHLO (as upstream's deserializer does).
"""

from __future__ import annotations

from ..dialects.vhlo import attributes as va
from ..dialects.vhlo.ops import OP_SPECS
from ..dialects.vhlo.stablehlo_attrs import (
    NoCounterpart,
    int_of,
    ints_of,
    to_stablehlo_attr,
    type_to_stablehlo,
)
from ..dialects.vhlo.types import NoneV1Type
from ..dialects.vhlo.version import CURRENT
from ..ir import registry
from ..ir.attributes import ArrayAttr, Attribute, DenseArrayAttr, SymbolRefAttr, UnitAttr
from ..ir.core import Module, Operation
from ..ir.diagnostics import Diagnostic
from ..ir.parser import parse_attribute_text
from ..ir.types import IntegerType
from . import register_pass
from .unrealized_casts import remove_identity_casts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    Special = Callable[[str, Attribute, "Attrs"], None]

_FUNC_OPS = {"vhlo.func_v1": "func.func", "vhlo.call_v1": "func.call"}

Attrs = dict[str, Attribute]


def source_name(op: Operation) -> str | None:
    """The StableHLO/func op a current-version VHLO op legalizes to, or None."""
    spec = OP_SPECS.get(op.name)
    if spec is None or spec.max_version != CURRENT:
        return None
    if op.name in _FUNC_OPS:
        return _FUNC_OPS[op.name]
    if op.name == "vhlo.return_v1":
        parent = op.parent_op
        if parent is not None and parent.name in ("vhlo.func_v1", "func.func"):
            return "func.return"
    return "stablehlo." + spec.base


def failure(op: Operation) -> Diagnostic:
    return Diagnostic(f"failed to legalize operation '{op.name}' that was explicitly marked "
                      "illegal", line=op.location.line or None, col=op.location.col or None)


def legalize_to_stablehlo(module: Module) -> None:
    """Rewrite the VHLO ops of `module` into StableHLO in place; raises Diagnostic at the
    first op that cannot be converted (e.g. an op of an older version)."""
    ops = list(module.op.walk())[1:]
    # Names first: a return's target depends on whether its parent is a function.
    targets = [(op, source_name(op)) for op in ops if op.name.startswith("vhlo.")]
    # The bytecode reader shares one object per attribute entry: convert each once.
    memo: dict[int, tuple[Attribute, Attribute]] = {}
    for op, name in targets:
        if name is None:
            raise failure(op)
        try:
            _convert(op, name, memo)
        except NoCounterpart:
            raise failure(op) from None
    # Like upstream, retype every value (ops of other dialects too: the casts that
    # allow-other-dialects put between the dialects), then drop the casts left as identities.
    try:
        for op in ops:
            for value in (*op.results, *(a for r in op.regions for b in r.blocks
                                          for a in b.arguments)):
                value.type = type_to_stablehlo(value.type)
    except NoCounterpart:
        raise failure(op) from None
    remove_identity_casts(module)


def _convert(op: Operation, name: str, memo: dict[int, tuple[Attribute, Attribute]]) -> None:
    attrs = {**op.properties, **op.attributes}
    _remove_defaults(op, attrs)
    converted: Attrs = {}
    for implode in _IMPLODE.get(op.name, ()):
        implode(attrs, converted)
    for attr_name, value in attrs.items():
        special = _SPECIAL.get((op.name, attr_name))
        if special is not None:
            special(attr_name, value, converted)
        else:
            known = memo.get(id(value))
            if known is None:  # the entry keeps `value` alive, so its id stays its own
                known = memo[id(value)] = (value, to_stablehlo_attr(value))
            converted[attr_name] = known[1]
    result_types = [type_to_stablehlo(r.type) for r in op.results]
    arg_types = [[[type_to_stablehlo(a.type) for a in block.arguments]
                  for block in region.blocks] for region in op.regions]
    for result, new_type in zip(op.results, result_types, strict=True):
        result.type = new_type
    for region, blocks in zip(op.regions, arg_types, strict=True):
        for block, types in zip(region.blocks, blocks, strict=True):
            for arg, new_type in zip(block.arguments, types, strict=True):
                arg.type = new_type
    opdef = registry.lookup(name)
    op.name = name
    op.opdef = opdef
    inherent = opdef.properties if opdef is not None else frozenset()
    op.properties = {k: v for k, v in converted.items() if k in inherent}
    op.attributes = {k: v for k, v in converted.items() if k not in inherent}
    op._plan_cache = None


# ---- defaults: drop what stablehlo-legalize-to-vhlo spelled out ------------------------------


def _is_bool(value: bool) -> Callable[[Attribute | None], bool]:
    return lambda a: isinstance(a, va.BooleanV1Attr) and a.value == value


def _is_int(value: int) -> Callable[[Attribute | None], bool]:
    return lambda a: isinstance(a, va.IntegerV1Attr) and a.value == value


def _is_empty_array(a: Attribute | None) -> bool:
    return isinstance(a, va.ArrayV1Attr) and not a.value


def _is_empty_dict(a: Attribute | None) -> bool:
    return isinstance(a, va.DictionaryV1Attr) and not a.value


def _is_empty_string(a: Attribute | None) -> bool:
    return isinstance(a, va.StringV1Attr) and not a.value


def _is_empty_tensor(a: Attribute | None) -> bool:
    return isinstance(a, va.TensorV1Attr) and not a.data.flat_values()


def _is_splat(value: int | bool) -> Callable[[Attribute | None], bool]:
    """A tensor whose elements all equal `value` (an empty one counts: nothing differs)."""
    def check(a: Attribute | None) -> bool:
        return isinstance(a, va.TensorV1Attr) and all(x == value for x in a.data.flat_values())
    return check


def _is_default_precisions(a: Attribute | None) -> bool:
    return isinstance(a, va.ArrayV1Attr) and all(
        e == va.PrecisionV1Attr("DEFAULT") for e in a.value)


def _is_default_accuracy(a: Attribute | None) -> bool:
    return (isinstance(a, va.ResultAccuracyV1Attr) and a.atol == 0 and a.rtol == 0
            and a.ulps == 0 and a.mode == va.ResultAccuracyModeV1Attr("DEFAULT"))


_FALSE = _is_bool(False)
_ZERO = _is_int(0)
_CONV_DEFAULTS = {"window_strides": _is_splat(1), "lhs_dilation": _is_splat(1),
                  "rhs_dilation": _is_splat(1), "window_reversal": _is_splat(False),
                  "precision_config": _is_default_precisions}
_DEFAULTS: dict[str, dict[str, Callable[[Attribute | None], bool]]] = {
    "vhlo.func_v1": {"sym_visibility": _is_empty_string, "arg_attrs": _is_empty_array,
                     "res_attrs": _is_empty_array},
    "vhlo.all_gather_v2": {"channel_id": _ZERO, "use_global_device_ids": _FALSE},
    "vhlo.all_reduce_v2": {"channel_id": _ZERO, "use_global_device_ids": _FALSE},
    "vhlo.reduce_scatter_v1": {"channel_id": _ZERO, "use_global_device_ids": _FALSE},
    "vhlo.all_to_all_v2": {"channel_id": _ZERO},
    "vhlo.collective_permute_v1": {"channel_id": _ZERO},
    "vhlo.collective_broadcast_v2": {"channel_id": _ZERO, "has_dynamic_root": _FALSE},
    "vhlo.collective_reduce_v1": {"channel_id": _ZERO, "use_global_device_ids": _FALSE,
                                  "has_dynamic_root": _FALSE},
    "vhlo.cholesky_v1": {"lower": _FALSE},
    "vhlo.compare_v1": {"compare_type": lambda a: a == va.ComparisonTypeV1Attr("NOTYPE")},
    "vhlo.composite_v2": {"version": _ZERO, "composite_attributes": _is_empty_dict},
    "vhlo.convolution_v1": {**_CONV_DEFAULTS, "padding": _is_splat(0)},
    "vhlo.dynamic_conv_v2": dict(_CONV_DEFAULTS),
    "vhlo.custom_call_v2": {
        "has_side_effect": _FALSE,
        "backend_config": lambda a: _is_empty_string(a) or _is_empty_dict(a),
        "api_version": lambda a: a == va.CustomCallApiVersionV1Attr("API_VERSION_ORIGINAL"),
        "called_computations": _is_empty_array, "output_operand_aliases": _is_empty_array,
        "result_tilings": _is_empty_array},
    "vhlo.dot_general_v2": {"precision_config": _is_default_precisions},
    "vhlo.dot_v1": {"precision_config": _is_default_precisions},
    "vhlo.dynamic_broadcast_in_dim_v1": {"known_expanding_dimensions": _is_empty_tensor,
                                         "known_nonexpanding_dimensions": _is_empty_tensor},
    "vhlo.dynamic_gather_v2": {"indices_are_sorted": _FALSE},
    "vhlo.gather_v2": {"indices_are_sorted": _FALSE},
    "vhlo.infeed_v1": {"infeed_config": _is_empty_string, "layout": _is_empty_array},
    "vhlo.outfeed_v1": {"outfeed_config": _is_empty_string},
    "vhlo.recv_v2": {"is_host_transfer": _FALSE, "source_target_pairs": _is_empty_tensor},
    "vhlo.send_v2": {"is_host_transfer": _FALSE, "source_target_pairs": _is_empty_tensor},
    "vhlo.reduce_window_v1": {"window_strides": _is_splat(1), "base_dilations": _is_splat(1),
                              "window_dilations": _is_splat(1), "padding": _is_splat(0)},
    "vhlo.scatter_v2": {"indices_are_sorted": _FALSE, "unique_indices": _FALSE},
    "vhlo.select_and_scatter_v1": {"window_strides": _is_splat(1), "padding": _is_splat(0)},
    "vhlo.sort_v1": {"dimension": _is_int(-1), "is_stable": _FALSE},
    **{f"vhlo.{n}_v2": {"result_accuracy": _is_default_accuracy} for n in (
        "cbrt", "cosine", "exponential", "exponential_minus_one", "log", "log_plus_one",
        "logistic", "rsqrt", "sine", "sqrt", "tan", "tanh")},
}


def _remove_defaults(op: Operation, attrs: Attrs) -> None:
    for name, is_default in _DEFAULTS.get(op.name, {}).items():
        if name in attrs and is_default(attrs[name]):
            del attrs[name]
    if op.name == "vhlo.custom_call_v2":
        # Layouts go together: both are dropped only when both are empty.
        if _is_empty_array(attrs.get("operand_layouts")) and _is_empty_array(
                attrs.get("result_layouts")):
            attrs.pop("operand_layouts")
            attrs.pop("result_layouts")


# ---- struct attributes rebuilt from their exploded fields ----------------------------------


def _ints_text(attr: Attribute | None) -> str:
    return "[" + ", ".join(map(str, ints_of(attr))) + "]"


def _take(attrs: Attrs, *names: str) -> list[Attribute]:
    missing = [n for n in names if n not in attrs]
    if missing:
        raise NoCounterpart(f"missing {', '.join(missing)}")
    return [attrs.pop(n) for n in names]


_CONV_FIELDS = ("input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
                "kernel_input_feature_dimension", "kernel_output_feature_dimension",
                "kernel_spatial_dimensions", "output_batch_dimension",
                "output_feature_dimension", "output_spatial_dimensions")


def _conv_dims(attrs: Attrs, out: Attrs) -> None:
    values = _take(attrs, *_CONV_FIELDS)
    parts = []
    for name, value in zip(_CONV_FIELDS, values, strict=True):
        text = _ints_text(value) if name.endswith("dimensions") else str(int_of(value))
        parts.append(f"{name} = {text}")
    out["dimension_numbers"] = parse_attribute_text("#stablehlo.conv<raw " + ", ".join(parts)
                                                    + ">")


def _struct(attr_name: str, mnemonic: str, lists: tuple[str, ...], ints: tuple[str, ...]
            ) -> Callable[[Attrs, Attrs], None]:
    def implode(attrs: Attrs, out: Attrs) -> None:
        values = _take(attrs, *lists, *ints)
        parts = [f"{n} = {_ints_text(v)}" for n, v in zip(lists, values, strict=False)]
        parts += [f"{n} = {int_of(v)}" for n, v in zip(ints, values[len(lists):], strict=True)]
        out[attr_name] = parse_attribute_text(f"#stablehlo.{mnemonic}<" + ", ".join(parts)
                                              + ">")

    return implode


_GATHER = _struct("dimension_numbers", "gather",
                  ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                   "start_indices_batching_dims", "start_index_map"), ("index_vector_dim",))
_SCATTER = _struct("scatter_dimension_numbers", "scatter",
                   ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                    "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"),
                   ("index_vector_dim",))
_DOT = _struct("dot_dimension_numbers", "dot",
               ("lhs_batching_dimensions", "rhs_batching_dimensions",
                "lhs_contracting_dimensions", "rhs_contracting_dimensions"), ())
_ALGORITHM = ("lhs_precision_type", "rhs_precision_type", "accumulation_type",
              "lhs_component_count", "rhs_component_count", "num_primitive_operations",
              "allow_imprecise_accumulation")


def _dot_algorithm(attrs: Attrs, out: Attrs) -> None:
    values = dict(zip(_ALGORITHM, _take(attrs, *_ALGORITHM), strict=True))
    none = va.TypeV1Attr(NoneV1Type())
    if values["lhs_component_count"] == none:
        if any(v != none for v in values.values()):
            raise NoCounterpart("a dot algorithm is either all none or all set")
        return
    types = [to_stablehlo_attr(values[n]) for n in _ALGORITHM[:3]]
    flag = values["allow_imprecise_accumulation"]
    if not isinstance(flag, va.BooleanV1Attr):
        raise NoCounterpart("allow_imprecise_accumulation must be a bool")
    out["algorithm"] = parse_attribute_text(
        f"#stablehlo.dot_algorithm<lhs_precision_type = {types[0]}, rhs_precision_type = "
        f"{types[1]}, accumulation_type = {types[2]}, lhs_component_count = "
        f"{int_of(values['lhs_component_count'])}, rhs_component_count = "
        f"{int_of(values['rhs_component_count'])}, num_primitive_operations = "
        f"{int_of(values['num_primitive_operations'])}, allow_imprecise_accumulation = "
        f"{'true' if flag.value else 'false'}>")


def _channel_handle(attrs: Attrs, out: Attrs) -> None:
    channel_id, channel_type = _take(attrs, "channel_id", "channel_type")
    out["channel_handle"] = _handle(int_of(channel_id), int_of(channel_type))


def _handle(handle: int, kind: int) -> Attribute:
    return parse_attribute_text(f"#stablehlo.channel_handle<handle = {handle}, type = {kind}>")


_IMPLODE: dict[str, tuple[Callable[[Attrs, Attrs], None], ...]] = {
    "vhlo.convolution_v1": (_conv_dims,),
    "vhlo.dynamic_conv_v2": (_conv_dims,),
    "vhlo.dot_general_v2": (_DOT, _dot_algorithm),
    "vhlo.dynamic_gather_v2": (_GATHER,),
    "vhlo.gather_v2": (_GATHER,),
    "vhlo.scatter_v2": (_SCATTER,),
    "vhlo.recv_v2": (_channel_handle,),
    "vhlo.send_v2": (_channel_handle,),
}


# ---- single attributes with a StableHLO form of their own ------------------------------------


def _channel_id(name: str, value: Attribute, out: Attrs) -> None:
    out["channel_handle"] = _handle(int_of(value), 0)


def _unit(name: str, value: Attribute, out: Attrs) -> None:
    if not isinstance(value, va.BooleanV1Attr):
        raise NoCounterpart(f"{name} must be a bool")
    if value.value:
        out[name] = UnitAttr()


def _symbol(name: str, value: Attribute, out: Attrs) -> None:
    if not isinstance(value, va.StringV1Attr):
        raise NoCounterpart(f"{name} must be a string")
    out[name] = SymbolRefAttr(value.value)


def _symbols(name: str, value: Attribute, out: Attrs) -> None:
    if not isinstance(value, va.ArrayV1Attr) or not all(
            isinstance(e, va.StringV1Attr) for e in value.value):
        raise NoCounterpart(f"{name} must be an array of strings")
    out[name] = ArrayAttr(tuple(SymbolRefAttr(e.value)  # type: ignore[union-attr]
                                for e in value.value))


def _api_version(name: str, value: Attribute, out: Attrs) -> None:
    if not isinstance(value, va.CustomCallApiVersionV1Attr):
        raise NoCounterpart("api_version must be an api_version_v1")
    out[name] = parse_attribute_text(f"{value.code} : i32")


def _dense_array(element_width: int) -> Special:
    def convert(name: str, value: Attribute, out: Attrs) -> None:
        if not isinstance(value, va.TensorV1Attr):
            raise NoCounterpart(f"{name} must be a tensor")
        data = value.data.flat_values()
        items = tuple(bool(x) for x in data) if element_width == 1 else tuple(
            int(x) for x in data)
        out[name] = DenseArrayAttr(IntegerType(element_width), items)

    return convert


_I64 = _dense_array(64)
_COLLECTIVES = ("vhlo.all_gather_v2", "vhlo.all_reduce_v2", "vhlo.all_to_all_v2",
                "vhlo.collective_permute_v1", "vhlo.reduce_scatter_v1",
                "vhlo.collective_broadcast_v2", "vhlo.collective_reduce_v1")
_SPECIAL: dict[tuple[str, str], Special] = {
    **{(n, "channel_id"): _channel_id for n in _COLLECTIVES},
    **{(n, "use_global_device_ids"): _unit for n in _COLLECTIVES},
    ("vhlo.collective_broadcast_v2", "has_dynamic_root"): _unit,
    ("vhlo.collective_reduce_v1", "has_dynamic_root"): _unit,
    ("vhlo.custom_call_v2", "called_computations"): _symbols,
    ("vhlo.custom_call_v2", "api_version"): _api_version,
    ("vhlo.composite_v2", "decomposition"): _symbol,
    ("vhlo.call_v1", "callee"): _symbol,
    ("vhlo.fft_v1", "fft_length"): _I64,
    ("vhlo.broadcast_v1", "broadcast_sizes"): _I64,
    ("vhlo.dynamic_slice_v1", "slice_sizes"): _I64,
    ("vhlo.reverse_v1", "dimensions"): _I64,
    ("vhlo.transpose_v1", "permutation"): _I64,
    **{("vhlo.pad_v1", n): _I64 for n in ("edge_padding_low", "edge_padding_high",
                                          "interior_padding")},
    **{("vhlo.slice_v1", n): _I64 for n in ("start_indices", "limit_indices", "strides")},
    ("vhlo.broadcast_in_dim_v1", "broadcast_dimensions"): _I64,
    **{("vhlo.dynamic_broadcast_in_dim_v1", n): _I64 for n in (
        "broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions")},
    **{("vhlo.select_and_scatter_v1", n): _I64 for n in ("window_dimensions",
                                                         "window_strides")},
    **{("vhlo.reduce_window_v1", n): _I64 for n in ("window_dimensions", "window_strides",
                                                    "base_dilations", "window_dilations")},
    ("vhlo.map_v1", "dimensions"): _I64,
    ("vhlo.reduce_v1", "dimensions"): _I64,
    ("vhlo.gather_v2", "slice_sizes"): _I64,
    **{(c, n): _I64 for c in ("vhlo.convolution_v1", "vhlo.dynamic_conv_v2")
       for n in ("lhs_dilation", "rhs_dilation", "window_strides")},
    ("vhlo.convolution_v1", "window_reversal"): _dense_array(1),
    ("vhlo.dynamic_conv_v2", "window_reversal"): _dense_array(1),
}


@register_pass("vhlo-legalize-to-stablehlo", "Legalize VHLO to StableHLO.")
def _run(module: Module) -> None:
    legalize_to_stablehlo(module)
