"""Every `vhlo.*_vN` op: its version range and the shape of its operands, attributes,
regions and results, as upstream `stablehlo/dialect/VhloOps.td` declares them.

VHLO ops have no verifiers or custom syntax (upstream's design: a shallow, frozen copy of
StableHLO); they print in generic form with their attributes as properties `<{...}>`, except
`vhlo.func_v1`, which prints `vhlo.func_v1 @name(%arg0: t) -> (r) {...} {attrs}`.

OP_SPECS maps the full op name to a VhloOpSpec. In the table below each line is
`mnemonic min max | operands | attributes | regions | results [| terminator]`; a leading
`*` marks a variadic operand/result group or a variadic region list. Attribute names are in
upstream's argument order (the bytecode writes properties in that order).
"""

from __future__ import annotations

from ...ir.attributes import Attribute
from ...ir.core import Location, Operation
from ...ir.lexer import PERCENT
from ...ir.record import Record, set_field
from ..registry import OpDef, declare_op
from ..syntax import Custom
from .attributes import StringV1Attr, TypeV1Attr
from .types import FunctionV1Type
from .version import CURRENT, Version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TABLE = """
    abs_v1 0.9.0 current | operand | | | result
    add_v1 0.9.0 current | lhs rhs | | | result
    after_all_v1 0.9.0 current | *inputs | | | result
    all_gather_v1 0.9.0 1.4.0 | operand | all_gather_dim replica_groups channel_id
          use_global_device_ids | | result
    all_gather_v2 1.5.0 current | *operands | all_gather_dim replica_groups channel_id
          use_global_device_ids | | *results
    all_reduce_v1 0.9.0 1.4.0 | operand | replica_groups channel_id use_global_device_ids |
          computation | result
    all_reduce_v2 1.5.0 current | *operands | replica_groups channel_id use_global_device_ids
          | computation | *results
    all_to_all_v1 0.9.0 1.4.0 | operand | split_dimension concat_dimension split_count
          replica_groups channel_id | | result
    all_to_all_v2 1.5.0 current | *operands | split_dimension concat_dimension split_count
          replica_groups channel_id | | *results
    and_v1 0.9.0 current | lhs rhs | | | result
    async_start_v1 1.15.0 current | *operands | | collective | result
    async_done_v1 1.15.0 current | operand | | | result
    atan2_v1 0.9.0 current | lhs rhs | | | result
    batch_norm_grad_v1 0.9.0 current | operand scale mean variance grad_output | epsilon
          feature_index | | grad_operand grad_scale grad_offset
    batch_norm_inference_v1 0.9.0 current | operand scale offset mean variance | epsilon
          feature_index | | result
    batch_norm_training_v1 0.9.0 current | operand scale offset | epsilon feature_index | |
          output batch_mean batch_var
    bitcast_convert_v1 0.9.0 current | operand | | | result
    broadcast_in_dim_v1 0.9.0 current | operand | broadcast_dimensions | | result
    broadcast_v1 0.9.0 current | operand | broadcast_sizes | | result
    call_v1 0.9.0 current | *operands | callee | | *results
    case_v1 0.9.0 current | index | | *branches | *results
    cbrt_v1 0.9.0 1.9.0 | operand | | | result
    cbrt_v2 1.10.0 current | operand | result_accuracy | | result
    ceil_v1 0.9.0 current | operand | | | result
    cholesky_v1 0.9.0 current | a | lower | | result
    clamp_v1 0.9.0 current | min operand max | | | result
    count_leading_zeros_v1 0.9.0 current | operand | | | result
    collective_broadcast_v1 0.16.0 1.19.0 | operand | replica_groups channel_id | | result
    collective_broadcast_v2 1.20.0 current | *operands | replica_groups channel_id
          has_dynamic_root | | *results
    collective_reduce_v1 1.19.0 current | *operands | replica_groups channel_id
          use_global_device_ids has_dynamic_root | computation | *results
    collective_permute_v1 0.9.0 current | operand | source_target_pairs channel_id | | result
    compare_v1 0.9.0 current | lhs rhs | comparison_direction compare_type | | result
    complex_v1 0.9.0 current | lhs rhs | | | result
    composite_v1 0.19.0 1.13.0 | *inputs | name composite_attributes decomposition version | |
          *results
    composite_v2 1.14.0 current | *inputs | name composite_attributes decomposition version |
          *composite_regions | *results
    concatenate_v1 0.9.0 current | *inputs | dimension | | result
    constant_v1 0.9.0 current | | value | | output
    convert_v1 0.9.0 current | operand | | | result
    convolution_v1 0.9.0 current | lhs rhs | window_strides padding lhs_dilation rhs_dilation
          window_reversal input_batch_dimension input_feature_dimension
          input_spatial_dimensions kernel_input_feature_dimension
          kernel_output_feature_dimension kernel_spatial_dimensions output_batch_dimension
          output_feature_dimension output_spatial_dimensions feature_group_count
          batch_group_count precision_config | | result
    cosine_v1 0.9.0 1.9.0 | operand | | | result
    cosine_v2 1.10.0 current | operand | result_accuracy | | result
    create_token_v1 0.9.0 current | | | | output
    cross-replica-sum_v1 0.9.0 current | operand | replica_groups | | result
    custom_call_v1 0.9.0 1.17.0 | *inputs | call_target_name has_side_effect backend_config
          api_version called_computations operand_layouts result_layouts
          output_operand_aliases | | *results
    custom_call_v2 1.18.0 current | *inputs | call_target_name has_side_effect backend_config
          api_version called_computations operand_layouts result_layouts
          output_operand_aliases result_tilings | | *results
    divide_v1 0.9.0 current | lhs rhs | | | result
    dot_general_v1 0.9.0 1.5.0 | lhs rhs | lhs_batching_dimensions rhs_batching_dimensions
          lhs_contracting_dimensions rhs_contracting_dimensions precision_config | | result
    dot_general_v2 1.6.0 current | lhs rhs | lhs_batching_dimensions rhs_batching_dimensions
          lhs_contracting_dimensions rhs_contracting_dimensions precision_config
          lhs_precision_type rhs_precision_type accumulation_type lhs_component_count
          rhs_component_count num_primitive_operations allow_imprecise_accumulation | | result
    dot_v1 0.9.0 current | lhs rhs | precision_config | | result
    dynamic_broadcast_in_dim_v1 0.9.0 current | operand output_dimensions |
          broadcast_dimensions known_expanding_dimensions known_nonexpanding_dimensions | |
          result
    dynamic_conv_v1 0.9.0 0.19.0 | lhs rhs d_padding | window_strides padding lhs_dilation
          rhs_dilation window_reversal input_batch_dimension input_feature_dimension
          input_spatial_dimensions kernel_input_feature_dimension
          kernel_output_feature_dimension kernel_spatial_dimensions output_batch_dimension
          output_feature_dimension output_spatial_dimensions feature_group_count
          batch_group_count precision_config | | result
    dynamic_conv_v2 0.20.0 current | lhs rhs padding | window_strides lhs_dilation
          rhs_dilation window_reversal input_batch_dimension input_feature_dimension
          input_spatial_dimensions kernel_input_feature_dimension
          kernel_output_feature_dimension kernel_spatial_dimensions output_batch_dimension
          output_feature_dimension output_spatial_dimensions feature_group_count
          batch_group_count precision_config | | result
    dynamic_gather_v1 0.9.0 1.0.0 | operand start_indices slice_sizes | offset_dims
          collapsed_slice_dims start_index_map index_vector_dim indices_are_sorted | | result
    dynamic_gather_v2 1.1.0 current | operand start_indices slice_sizes | offset_dims
          collapsed_slice_dims operand_batching_dims start_indices_batching_dims
          start_index_map index_vector_dim indices_are_sorted | | result
    dynamic_iota_v1 0.9.0 current | output_shape | iota_dimension | | result
    dynamic_pad_v1 0.9.0 current | operand padding_value edge_padding_low edge_padding_high
          interior_padding | | | result
    dynamic_reshape_v1 0.9.0 current | operand output_shape | | | result
    dynamic_slice_v1 0.9.0 current | operand *start_indices | slice_sizes | | result
    dynamic_update_slice_v1 0.9.0 current | operand update *start_indices | | | result
    einsum_v1 0.9.0 current | lhs rhs | einsum_config | | result
    exponential_minus_one_v1 0.9.0 1.9.0 | operand | | | result
    exponential_minus_one_v2 1.10.0 current | operand | result_accuracy | | result
    exponential_v1 0.9.0 1.8.0 | operand | | | result
    exponential_v2 1.9.0 current | operand | result_accuracy | | result
    fft_v1 0.9.0 current | operand | fft_type fft_length | | result
    floor_v1 0.9.0 current | operand | | | result
    func_v1 0.9.0 current | | sym_name function_type sym_visibility arg_attrs res_attrs | body
          |
    gather_v1 0.9.0 1.0.0 | operand start_indices | offset_dims collapsed_slice_dims
          start_index_map index_vector_dim slice_sizes indices_are_sorted | | result
    gather_v2 1.1.0 current | operand start_indices | offset_dims collapsed_slice_dims
          operand_batching_dims start_indices_batching_dims start_index_map index_vector_dim
          slice_sizes indices_are_sorted | | result
    get_dimension_size_v1 0.9.0 current | operand | dimension | | result
    get_tuple_element_v1 0.9.0 current | operand | index | | result
    if_v1 0.9.0 current | pred | | true_branch false_branch | *results
    imag_v1 0.9.0 current | operand | | | result
    infeed_v1 0.9.0 current | token | infeed_config layout | | *results
    iota_v1 0.9.0 current | | iota_dimension | | output
    is_finite_v1 0.9.0 current | x | | | y
    log_plus_one_v1 0.9.0 1.9.0 | operand | | | result
    log_plus_one_v2 1.10.0 current | operand | result_accuracy | | result
    logistic_v1 0.9.0 1.9.0 | operand | | | result
    logistic_v2 1.10.0 current | operand | result_accuracy | | result
    log_v1 0.9.0 1.9.0 | operand | | | result
    log_v2 1.10.0 current | operand | result_accuracy | | result
    map_v1 0.9.0 current | *inputs | dimensions | computation | result
    maximum_v1 0.9.0 current | lhs rhs | | | result
    minimum_v1 0.9.0 current | lhs rhs | | | result
    multiply_v1 0.9.0 current | lhs rhs | | | result
    negate_v1 0.9.0 current | operand | | | result
    not_v1 0.9.0 current | operand | | | result
    optimization_barrier_v1 0.9.0 current | *operand | | | *result
    or_v1 0.9.0 current | lhs rhs | | | result
    outfeed_v1 0.9.0 current | *inputs token | outfeed_config | | result
    pad_v1 0.9.0 current | operand padding_value | edge_padding_low edge_padding_high
          interior_padding | | result
    partition_id_v1 0.9.0 current | | | | result
    popcnt_v1 0.9.0 current | operand | | | result
    power_v1 0.9.0 current | lhs rhs | | | result
    real_dynamic_slice_v1 0.9.0 current | operand start_indices limit_indices strides | | |
          result
    real_v1 0.9.0 current | operand | | | result
    recv_v1 0.9.0 1.11.0 | token | channel_id channel_type is_host_transfer | | *results
    recv_v2 1.12.0 current | token | channel_id channel_type is_host_transfer
          source_target_pairs | | *results
    reduce_v1 0.9.0 current | *inputs *init_values | dimensions | body | *results
    reduce_precision_v1 0.9.0 current | operand | exponent_bits mantissa_bits | | output
    reduce_scatter_v1 0.9.0 current | operand | scatter_dimension replica_groups channel_id
          use_global_device_ids | computation | result
    reduce_window_v1 0.9.0 current | *inputs *init_values | window_dimensions window_strides
          base_dilations window_dilations padding | body | *results
    remainder_v1 0.9.0 current | lhs rhs | | | result
    replica_id_v1 0.9.0 current | | | | result
    reshape_v1 0.9.0 current | operand | | | result
    return_v1 0.9.0 current | *results | | | | terminator
    reverse_v1 0.9.0 current | operand | dimensions | | result
    rng_bit_generator_v1 0.9.0 current | initial_state | rng_algorithm | | output_state output
    rng_v1 0.9.0 current | a b shape | rng_distribution | | result
    round_nearest_even_v1 0.9.0 current | operand | | | result
    round_nearest_afz_v1 0.9.0 current | operand | | | result
    rsqrt_v1 0.9.0 1.9.0 | operand | | | result
    rsqrt_v2 1.10.0 current | operand | result_accuracy | | result
    scatter_v1 0.9.0 1.0.0 | *inputs scatter_indices *updates | update_window_dims
          inserted_window_dims scatter_dims_to_operand_dims index_vector_dim
          indices_are_sorted unique_indices | update_computation | *results
    scatter_v2 1.1.0 current | *inputs scatter_indices *updates | update_window_dims
          inserted_window_dims input_batching_dims scatter_indices_batching_dims
          scatter_dims_to_operand_dims index_vector_dim indices_are_sorted unique_indices |
          update_computation | *results
    select_and_scatter_v1 0.9.0 current | operand source init_value | window_dimensions
          window_strides padding | select scatter | result
    select_v1 0.9.0 current | pred on_true on_false | | | result
    send_v1 0.9.0 1.11.0 | *inputs token | channel_id channel_type is_host_transfer | | result
    send_v2 1.12.0 current | *inputs token | channel_id channel_type is_host_transfer
          source_target_pairs | | result
    set_dimension_size_v1 0.9.0 current | operand size | dimension | | result
    shift_left_v1 0.9.0 current | lhs rhs | | | result
    shift_right_arithmetic_v1 0.9.0 current | lhs rhs | | | result
    shift_right_logical_v1 0.9.0 current | lhs rhs | | | result
    sign_v1 0.9.0 current | operand | | | result
    sine_v1 0.9.0 1.9.0 | operand | | | result
    sine_v2 1.10.0 current | operand | result_accuracy | | result
    slice_v1 0.9.0 current | operand | start_indices limit_indices strides | | result
    sort_v1 0.9.0 current | *inputs | dimension is_stable | comparator | *results
    sqrt_v1 0.9.0 1.9.0 | operand | | | result
    sqrt_v2 1.10.0 current | operand | result_accuracy | | result
    subtract_v1 0.9.0 current | lhs rhs | | | result
    tan_v1 1.4.0 1.9.0 | operand | | | result
    tan_v2 1.10.0 current | operand | result_accuracy | | result
    tanh_v1 0.9.0 1.9.0 | operand | | | result
    tanh_v2 1.10.0 current | operand | result_accuracy | | result
    torch_index_select_v1 0.9.0 current | operand index | dim batch_dims | | result
    transpose_v1 0.9.0 current | operand | permutation | | result
    triangular_solve_v1 0.9.0 current | a b | left_side lower unit_diagonal transpose_a | |
          result
    tuple_v1 0.9.0 current | *val | | | result
    unary_einsum_v1 0.9.0 current | operand | einsum_config | | result
    uniform_dequantize_v1 0.9.0 current | operand | | | result
    uniform_quantize_v1 0.9.0 current | operand | | | result
    while_v1 0.9.0 current | *operand | | cond body | *results
    xor_v1 0.9.0 current | lhs rhs | | | result
"""


class VhloOpSpec(Record):
    """One VHLO op as upstream declares it (names with `*` are variadic)."""

    __slots__ = ("name", "min_version", "max_version", "operands", "attributes", "regions",
                 "results", "terminator")
    name: str
    min_version: Version
    max_version: Version
    operands: tuple[str, ...]
    attributes: tuple[str, ...]
    regions: tuple[str, ...]
    results: tuple[str, ...]
    terminator: bool

    def __init__(self, name: str, min_version: Version, max_version: Version,
                 operands: tuple[str, ...], attributes: tuple[str, ...], regions: tuple[str, ...],
                 results: tuple[str, ...], terminator: bool = False) -> None:
        set_field(self, "name", name)
        set_field(self, "min_version", min_version)
        set_field(self, "max_version", max_version)
        set_field(self, "operands", operands)
        set_field(self, "attributes", attributes)
        set_field(self, "regions", regions)
        set_field(self, "results", results)
        set_field(self, "terminator", terminator)

    @property
    def mnemonic(self) -> str:
        return self.name[len("vhlo."):]

    @property
    def base(self) -> str:
        """The op's name without its version suffix (`all_gather` for all_gather_v2)."""
        return self.mnemonic.rsplit("_v", 1)[0]

    @property
    def version(self) -> int:
        return int(self.mnemonic.rsplit("_v", 1)[1])

    def is_legal(self, target: Version) -> bool:
        return self.min_version <= target <= self.max_version


def _parse_table(text: str) -> dict[str, VhloOpSpec]:
    lines: list[str] = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        if raw.startswith("      ") and lines:
            lines[-1] += " " + raw.strip()
        else:
            lines.append(raw.strip())
    specs: dict[str, VhloOpSpec] = {}
    for line in lines:
        fields = [f.split() for f in line.split("|")]
        mnemonic, low, high = fields[0]
        spec = VhloOpSpec(
            "vhlo." + mnemonic, Version.parse(low),
            CURRENT if high == "current" else Version.parse(high),
            tuple(fields[1]), tuple(fields[2]), tuple(fields[3]), tuple(fields[4]),
            terminator=len(fields) > 5 and "terminator" in fields[5])
        specs[spec.name] = spec
    return specs


OP_SPECS: dict[str, VhloOpSpec] = _parse_table(_TABLE)


_LATEST: dict[str, VhloOpSpec] = {}
for _spec in OP_SPECS.values():
    if _spec.max_version == CURRENT:
        _LATEST.setdefault(_spec.base, _spec)


def latest_spec(base: str) -> VhloOpSpec | None:
    """The version of op `base` (e.g. `all_gather`) that CURRENT uses."""
    return _LATEST.get(base)


def specs_of(base: str) -> list[VhloOpSpec]:
    """Every version of op `base`, oldest first."""
    return sorted((s for s in OP_SPECS.values() if s.base == base), key=lambda s: s.version)


# ---- vhlo.func_v1 custom syntax -------------------------------------------------------------


def _parse_func(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`@name(%arg0: t, ...) -> (r, ...) { body } {attrs}` (upstream's FunctionBody)."""
    name = p.parse_symbol_name()
    p.expect("(")
    entry_args = []
    inputs = []
    if not p.at(")"):
        while True:
            tok = p.tok
            if tok.kind != PERCENT:
                raise p.error("expected SSA operand")
            p.advance()
            p.expect(":")
            arg_type = p.parse_type()
            p.parse_optional_attr_dict()
            entry_args.append((tok, arg_type, p.parse_optional_location()))
            inputs.append(arg_type)
            if not p.accept(","):
                break
    p.expect(")")
    p.expect("->")
    outputs = p.parse_function_result_types()
    region = p.parse_region(entry_args=entry_args)
    attributes = p.parse_optional_attr_dict()
    properties: dict[str, Attribute] = {
        "sym_name": StringV1Attr(name),
        "function_type": TypeV1Attr(FunctionV1Type(tuple(inputs), tuple(outputs))),
    }
    return p.build_operation(opdef.name, opdef, [], [], properties, attributes, [region], None,
                             location)


def _print_func(pr: Any, op: Operation) -> None:
    name = op.properties["sym_name"]
    ftype = op.properties["function_type"].value
    if not isinstance(name, StringV1Attr) or not isinstance(ftype, FunctionV1Type):
        raise TypeError("vhlo.func_v1 needs string_v1 sym_name and func_v1 function_type")
    from ...ir.attributes import SymbolRefAttr

    body = op.regions[0]
    args = []
    if body.blocks:
        for arg in body.entry.arguments:
            text = f"{pr.name(arg)}: {arg.type}"
            if pr.debuginfo:
                text += " " + pr.location_text(body.entry.arg_locations[arg.index])
            args.append(text)
    pr.write(f" {SymbolRefAttr(name.value)}(" + ", ".join(args) + ") -> ("
             + ", ".join(map(str, ftype.outputs)) + ") ")
    pr.print_region(body, print_entry_args=False, print_empty_block=True)
    pr.write(pr.attr_dict({**op.properties, **op.attributes}, ("sym_name", "function_type")))


def _register() -> None:
    func_syntax = Custom(_parse_func, _print_func)
    for spec in OP_SPECS.values():
        # Regions are `VHLO_AnyRegion` (any number of blocks): the trailing `*` tells the
        # verifier not to impose one block per region.
        regions = tuple(r.lstrip("*") + "*" for r in spec.regions)
        # The table is the contract: every VHLO attribute is required (ODS gives them all).
        results = "*" if any(r.startswith("*") for r in spec.results) else len(spec.results)
        declare_op(spec.name, syntax=func_syntax if spec.mnemonic == "func_v1" else None,
                   operands=spec.operands, results=results, attributes=spec.attributes,
                   regions=regions, terminator=spec.terminator)


_register()


