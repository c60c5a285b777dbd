"""The kind of each attribute of the StableHLO, CHLO, check and interpreter ops (ODS's
`I64Attr`, `BoolAttr`, `ConfinedAttr<I64Attr, [IntNonNegative]>`, `ElementsAttr`, struct
AttrDefs such as `#stablehlo.gather<...>`, typed arrays such as custom_call's layouts, ...),
checked before the op's own verifier with ODS's `failed to satisfy constraint` text (what
MLIR's verifyInherentAttrs reports for a generic op): the verifiers and kernels may then read
an attribute's value as the kind it is declared with. (Enum values are checked where they
are parsed, `enums.py`; dense arrays in `dimension_numbers.py`.)
"""

from __future__ import annotations

from ...ir.attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DialectAttr,
    DictAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from ...ir.core import Operation
from ...ir.types import IndexType, IntegerType, TensorType
from ...ir.verifier import TYPE_CONSTRAINTS, op_error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def _signless(attr: Attribute | None, width: int) -> bool:
    return (isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType)
            and attr.type.width == width and not attr.type.signedness)


def _integer(width: int, least: int | None) -> Callable[[Attribute | None], bool]:
    def check(attr: Attribute | None) -> bool:
        return _signless(attr, width) and (least is None or attr.number >= least)  # type: ignore[union-attr]
    return check


def _is_bool(attr: Attribute | None) -> bool:
    return isinstance(attr, BoolAttr) or _signless(attr, 1)


def _is_f32(attr: Attribute | None) -> bool:
    return isinstance(attr, FloatAttr) and str(attr.type) == "f32"


def _is_flat_symbol(attr: Attribute | None) -> bool:
    return isinstance(attr, SymbolRefAttr) and not attr.nested


def _is_i64_elements(attr: Attribute | None) -> bool:
    element = getattr(getattr(attr, "type", None), "element", None)
    return (isinstance(attr, DenseElementsAttr) and isinstance(attr.type, TensorType)
            and isinstance(element, IntegerType) and element.width == 64
            and not element.signedness)


def _is_index_vector(attr: Attribute | None) -> bool:
    """StableHLO_1DIndexTensorAttr: a rank-1 tensor of index."""
    return (isinstance(attr, DenseElementsAttr) and isinstance(attr.type, TensorType)
            and attr.type.rank == 1 and isinstance(attr.type.element, IndexType))


def _array_of(test: Callable[[Attribute | None], bool]) -> Callable[[Attribute | None], bool]:
    """ODS's TypedArrayAttrBase: an array attribute whose elements all pass `test`."""
    return lambda a: isinstance(a, ArrayAttr) and all(test(e) for e in a.elements)


def _struct(name: str) -> Callable[[Attribute | None], bool]:
    """A `#stablehlo.<name><...>` attribute (ODS's AttrDef constraint)."""
    return lambda a: isinstance(a, DialectAttr) and a.dialect == "stablehlo" and a.name == name


def _is_elements(attr: Attribute | None) -> bool:
    return isinstance(attr, (DenseElementsAttr, DenseResourceAttr))


def _is_float(width: int) -> Callable[[Attribute | None], bool]:
    return lambda a: isinstance(a, FloatAttr) and str(a.type) == f"f{width}"


def _unsigned(width: int) -> Callable[[Attribute | None], bool]:
    return lambda a: (isinstance(a, IntegerAttr) and isinstance(a.type, IntegerType)
                      and a.type.width == width and a.type.is_unsigned)


_is_alias = _struct("output_operand_alias")


# kind -> (test, ODS's summary of the constraint)
_KINDS: dict[str, tuple[Callable[[Attribute | None], bool], str]] = {
    "i64": (_integer(64, None), "64-bit signless integer attribute"),
    "i64>=0": (_integer(64, 0), "64-bit signless integer attribute whose value is non-negative"),
    "i64>0": (_integer(64, 1), "64-bit signless integer attribute whose value is positive"),
    "i32": (_integer(32, None), "32-bit signless integer attribute"),
    "i32>=0": (_integer(32, 0), "32-bit signless integer attribute whose value is non-negative"),
    "i32>0": (_integer(32, 1), "32-bit signless integer attribute whose value is positive"),
    "bool": (_is_bool, "bool attribute"),
    "unit": (lambda a: isinstance(a, UnitAttr), "unit attribute"),
    "f32": (_is_f32, "32-bit float attribute"),
    "str": (lambda a: isinstance(a, StringAttr), "string attribute"),
    "dict": (lambda a: isinstance(a, DictAttr), "dictionary of named attribute values"),
    "str|dict": (lambda a: isinstance(a, (StringAttr, DictAttr)),
                 "string attribute or dictionary of named attribute values"),
    "symbol": (_is_flat_symbol, "flat symbol reference attribute"),
    "symbols": (lambda a: isinstance(a, ArrayAttr) and all(_is_flat_symbol(s)
                                                            for s in a.elements),
                "flat symbol ref array attribute"),
    "i64 elements": (_is_i64_elements, "64-bit signless integer elements attribute"),
    "layouts": (_array_of(_is_index_vector),
                "Array of layout (1D tensor of index type) attributes"),
    "tilings": (_array_of(_array_of(_is_index_vector)), "Array of tiling attributes"),
    "aliases": (_array_of(_is_alias),
                "Aliasing attribute for outputs and operands of CustomCall"),
    "gather": (_struct("gather"), "Attribute that models the dimension information for gather"),
    "scatter": (_struct("scatter"),
                "Attribute that models the dimension information for scatter"),
    "dot": (_struct("dot"), "Attribute that models the dimension information for dot."),
    "dot_algorithm": (_struct("dot_algorithm"),
                      "Attribute that models the algorithm constraints to use for computing dot."),
    "conv": (_struct("conv"), "Structure of dimension information for conv op"),
    "channel_handle": (_struct("channel_handle"), "two 64-bit integers 'handle' and 'type'"),
    "result_accuracy": (_struct("result_accuracy"),
                        "The requested accuracy for transcendental unary ops."),
    "elements": (_is_elements, "constant vector/tensor attribute"),
    "replica_groups": (lambda a: _is_i64_elements(a) or _struct("replica_group_mesh_axes")(a),
                       "64-bit signless integer elements attribute or mesh and axes based "
                       "replica groups representation."),
    "array": (lambda a: isinstance(a, ArrayAttr), "array attribute"),
    "f64": (_is_float(64), "64-bit float attribute"),
    "ui64": (_unsigned(64), "64-bit unsigned integer attribute"),
    "ui32": (_unsigned(32), "32-bit unsigned integer attribute"),
}

_BATCH_NORM = {"epsilon": "f32", "feature_index": "i64>=0"}
_CONVOLUTION = {"feature_group_count": "i64>0", "batch_group_count": "i64>0",
                "padding": "i64 elements", "dimension_numbers": "conv"}
_CHANNEL = {"channel_handle": "channel_handle", "replica_groups": "replica_groups"}
_ACCURACY = {"result_accuracy": "result_accuracy"}
_TRANSCENDENTAL = ("cbrt", "cosine", "exponential", "exponential_minus_one", "log",
                   "log_plus_one", "logistic", "rsqrt", "sine", "sqrt", "tan", "tanh")

# Op -> attribute -> kind, as StablehloOps.td and ChloOps.td declare them.
ATTRIBUTE_KINDS: dict[str, dict[str, str]] = {
    "chlo.top_k": {"k": "i64", "is_stable": "bool"},
    "chlo.scan": {"dimension": "i64>=0", "scan_dim_size": "i64>=0", "is_reverse": "bool",
                  "is_associative": "bool"},
    "concatenate": {"dimension": "i64>=0"},
    "get_dimension_size": {"dimension": "i64>=0"},
    "sort": {"dimension": "i64", "is_stable": "bool"},
    "iota": {"iota_dimension": "i64>=0"},
    "dynamic_iota": {"iota_dimension": "i64>=0"},
    "batch_norm_training": _BATCH_NORM,
    "batch_norm_inference": _BATCH_NORM,
    "batch_norm_grad": _BATCH_NORM,
    "all_gather": {"all_gather_dim": "i64>=0", "use_global_device_ids": "unit", **_CHANNEL},
    "all_reduce": {"use_global_device_ids": "unit", **_CHANNEL},
    "reduce_scatter": {"scatter_dimension": "i64>=0", "use_global_device_ids": "unit",
                       **_CHANNEL},
    "all_to_all": {"split_dimension": "i64>=0", "concat_dimension": "i64>=0",
                   "split_count": "i64>0", **_CHANNEL},
    "collective_permute": {"source_target_pairs": "i64 elements",
                           "channel_handle": "channel_handle"},
    "collective_broadcast": {"has_dynamic_root": "unit", **_CHANNEL},
    "collective_reduce": {"has_dynamic_root": "unit", "use_global_device_ids": "unit",
                          **_CHANNEL},
    "cross-replica-sum": {"replica_groups": "i64 elements"},
    "send": {"is_host_transfer": "bool", "source_target_pairs": "i64 elements",
             "channel_handle": "channel_handle"},
    "recv": {"is_host_transfer": "bool", "source_target_pairs": "i64 elements",
             "channel_handle": "channel_handle"},
    "set_dimension_size": {"dimension": "i64>=0"},
    "infeed": {"infeed_config": "str", "layout": "array"},
    "constant": {"value": "elements"},
    "dot_general": {"dot_dimension_numbers": "dot", "algorithm": "dot_algorithm"},
    "check.expect_almost_eq_const": {"value": "elements", "tolerance": "f64"},
    "check.expect_almost_eq": {"tolerance": "f64"},
    "check.expect_eq_const": {"value": "elements"},
    "check.expect_close": {"max_ulp_difference": "ui64", "min_ulp_difference": "ui64"},
    "check.expect_serialized_eq": {"probe_id": "str", "iteration": "ui32"},
    "interpreter.probe": {"probe_id": "str"},
    **{name: _ACCURACY for name in _TRANSCENDENTAL},
    "convolution": _CONVOLUTION,
    "dynamic_conv": _CONVOLUTION,
    "reduce_window": {"padding": "i64 elements"},
    "select_and_scatter": {"padding": "i64 elements"},
    "reduce_precision": {"exponent_bits": "i32>0", "mantissa_bits": "i32>=0"},
    "get_tuple_element": {"index": "i32>=0"},
    "scatter": {"indices_are_sorted": "bool", "unique_indices": "bool",
                "scatter_dimension_numbers": "scatter"},
    "gather": {"indices_are_sorted": "bool", "dimension_numbers": "gather"},
    "dynamic_gather": {"indices_are_sorted": "bool", "dimension_numbers": "gather"},
    "triangular_solve": {"left_side": "bool", "lower": "bool", "unit_diagonal": "bool"},
    "cholesky": {"lower": "bool"},
    "custom_call": {"call_target_name": "str", "has_side_effect": "bool",
                    "backend_config": "str|dict", "called_computations": "symbols",
                    "operand_layouts": "layouts", "result_layouts": "layouts",
                    "result_tilings": "tilings", "output_operand_aliases": "aliases"},
    "outfeed": {"outfeed_config": "str"},
    "composite": {"name": "str", "composite_attributes": "dict", "decomposition": "symbol",
                  "version": "i32"},
    "einsum": {"einsum_config": "str"},
    "unary_einsum": {"einsum_config": "str"},
    "torch_index_select": {"dim": "i64", "batch_dims": "i64"},
}


def attribute_kind_error(op_name: str, name: str, attr: Attribute) -> str | None:
    """ODS's complaint about `attr` as the declared scalar attribute `name` of `op_name`, or
    None (also for an attribute this table does not declare)."""
    kinds = ATTRIBUTE_KINDS.get(op_name[len("stablehlo."):] if op_name.startswith("stablehlo.")
                                else op_name)
    kind = kinds.get(name) if kinds is not None else None
    if kind is None:
        return None
    test, summary = _KINDS[kind]
    return None if test(attr) else f"attribute '{name}' failed to satisfy constraint: {summary}"


def check_attribute_kinds(op: Operation) -> None:
    """Each declared scalar attribute of a StableHLO or CHLO op holds its kind."""
    op_name = op.name
    kinds = ATTRIBUTE_KINDS.get(op_name[len("stablehlo."):] if op_name.startswith("stablehlo.")
                                else op_name)
    if kinds is None:
        return
    for name, kind in kinds.items():
        attr = op.attr(name)
        if attr is None:
            continue
        test, summary = _KINDS[kind]
        if not test(attr):
            raise op_error(op, f"attribute '{name}' failed to satisfy constraint: {summary}")


if check_attribute_kinds.__qualname__ not in (c.__qualname__ for c in TYPE_CONSTRAINTS):
    TYPE_CONSTRAINTS.append(check_attribute_kinds)
