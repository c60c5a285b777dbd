"""VHLO's own bytecode encodings (upstream `stablehlo/dialect/VhloBytecode.cpp`).

The attribute and type codes are frozen: portable artifacts of every StableHLO version must
stay readable. Each attribute/type starts with its code, then its fields in upstream order.
Tensors of `!vhlo.bool_v1` store their data bit-packed (LSB first, a splat as one 0xFF or
0x00 byte); everything else stores MLIR's raw dense data.

``op_properties`` gives each VHLO op's inherent attributes (from upstream `VhloOps.td`): all
are required, so ODS writes each as a plain attribute index, sorted by name.
"""

from __future__ import annotations

import math
import struct

from ...ir.attributes import Attribute
from ...ir.codec import bits_to_float, float_to_bits
from ...ir.dense import decode_raw_dense, encode_raw_dense
from ...ir.types import DYNAMIC, FLOAT_WIDTHS, FloatType, IndexType, IntegerType, TensorType, Type
from .attributes import (
    ArrayV1Attr,
    AxisRefV1Attr,
    BooleanV1Attr,
    ComparisonDirectionV1Attr,
    ComparisonTypeV1Attr,
    CustomCallApiVersionV1Attr,
    DictionaryV1Attr,
    EnumV1Attr,
    FftTypeV1Attr,
    FloatV1Attr,
    IntegerV1Attr,
    MeshAxisV1Attr,
    MeshV1Attr,
    OutputOperandAliasV1Attr,
    PrecisionV1Attr,
    ReplicaGroupMeshAxesV1Attr,
    ResultAccuracyModeV1Attr,
    ResultAccuracyV1Attr,
    RngAlgorithmV1Attr,
    RngDistributionV1Attr,
    StringV1Attr,
    SubAxisInfoV1Attr,
    TensorV1Attr,
    TransposeV1Attr,
    TypeExtensionsV1Attr,
    TypeV1Attr,
)
from .type_conversion import to_builtin_type
from .types import (
    BooleanV1Type,
    ComplexV1Type,
    FloatBF16V1Type,
    FloatF4E2M1FNV1Type,
    FloatF6E2M3FNV1Type,
    FloatF6E3M2FNV1Type,
    FloatF8E3M4V1Type,
    FloatF8E4M3B11FNUZV1Type,
    FloatF8E4M3FNUZV1Type,
    FloatF8E4M3FNV1Type,
    FloatF8E4M3V1Type,
    FloatF8E5M2FNUZV1Type,
    FloatF8E5M2V1Type,
    FloatF8E8M0FNUV1Type,
    FloatF16V1Type,
    FloatF32V1Type,
    FloatF64V1Type,
    FloatTF32V1Type,
    FunctionV1Type,
    FutureV1Type,
    IndexV1Type,
    IntegerSI2V1Type,
    IntegerSI4V1Type,
    IntegerSI8V1Type,
    IntegerSI16V1Type,
    IntegerSI32V1Type,
    IntegerSI64V1Type,
    IntegerUI2V1Type,
    IntegerUI4V1Type,
    IntegerUI8V1Type,
    IntegerUI16V1Type,
    IntegerUI32V1Type,
    IntegerUI64V1Type,
    NoneV1Type,
    RankedBufferV1Type,
    RankedTensorV1Type,
    SimpleVhloType,
    TokenV1Type,
    TupleV1Type,
    UniformQuantizedPerAxisV1Type,
    UniformQuantizedV1Type,
    UnrankedTensorV1Type,
    WitnessV1Type,
    is_vhlo,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...ir.codec import AttrTypeReader, AttrTypeWriter

# ---- frozen code tables ----------------------------------------------------------------

# Attribute codes; 0 (ArgResultAliasV1Attr) is retired.
ARRAY = 1
BOOLEAN = 2
DICTIONARY = 6
FLOAT = 8
INTEGER = 9
OUTPUT_OPERAND_ALIAS = 10
STRING = 14
TENSOR = 15
TYPE = 17
TYPE_EXTENSIONS = 18
RESULT_ACCURACY = 20
SUB_AXIS_INFO = 21
AXIS_REF = 22
REPLICA_GROUP_MESH_AXES = 23
MESH_AXIS = 24
MESH = 25
ENUM_CODES: dict[type, int] = {
    ComparisonDirectionV1Attr: 3, ComparisonTypeV1Attr: 4, CustomCallApiVersionV1Attr: 5,
    FftTypeV1Attr: 7, PrecisionV1Attr: 11, RngAlgorithmV1Attr: 12, RngDistributionV1Attr: 13,
    TransposeV1Attr: 16, ResultAccuracyModeV1Attr: 19,
}
_CODE_ENUMS = {code: cls for cls, code in ENUM_CODES.items()}

# Type codes of the parameterless types.
SIMPLE_TYPE_CODES: dict[type, int] = {
    BooleanV1Type: 0, FloatBF16V1Type: 2, FloatF16V1Type: 3, FloatF32V1Type: 4,
    FloatF64V1Type: 5, FloatF8E4M3FNV1Type: 6, FloatF8E5M2V1Type: 7, IndexV1Type: 9,
    IntegerSI4V1Type: 10, IntegerSI8V1Type: 11, IntegerSI16V1Type: 12, IntegerSI32V1Type: 13,
    IntegerSI64V1Type: 14, IntegerUI4V1Type: 15, IntegerUI8V1Type: 16, IntegerUI16V1Type: 17,
    IntegerUI32V1Type: 18, IntegerUI64V1Type: 19, TokenV1Type: 22, WitnessV1Type: 26,
    FloatF8E4M3FNUZV1Type: 27, FloatF8E5M2FNUZV1Type: 28, FloatF8E4M3B11FNUZV1Type: 29,
    IntegerSI2V1Type: 31, IntegerUI2V1Type: 32, NoneV1Type: 33, FloatTF32V1Type: 34,
    FloatF8E4M3V1Type: 35, FloatF8E3M4V1Type: 36, FloatF4E2M1FNV1Type: 37,
    FloatF6E2M3FNV1Type: 38, FloatF6E3M2FNV1Type: 39, FloatF8E8M0FNUV1Type: 40,
}
_CODE_SIMPLE_TYPES = {code: cls for cls, code in SIMPLE_TYPE_CODES.items()}
COMPLEX_TYPE = 1
FUNCTION_TYPE = 8
RANKED_TENSOR_TYPE = 20
RANKED_TENSOR_TYPE_WITH_ENCODING = 21
TUPLE_TYPE = 23
UNIFORM_QUANTIZED_TYPE = 24
UNRANKED_TENSOR_TYPE = 25
UNIFORM_QUANTIZED_PER_AXIS_TYPE = 30
RANKED_BUFFER_TYPE = 41
FUTURE_TYPE = 42

INT64_MIN = -(1 << 63)  # ShapedType::kDynamic


def _dims_out(values: tuple[int, ...]) -> list[int]:
    return [INT64_MIN if v == DYNAMIC else v for v in values]


def _dims_in(values: list[int]) -> tuple[int, ...]:
    return tuple(DYNAMIC if v == INT64_MIN else v for v in values)


# ---- numbers -----------------------------------------------------------------------------


def _float_width(vhlo_type: Type) -> int | None:
    builtin = vhlo_type.builtin if isinstance(vhlo_type, SimpleVhloType) else None
    return FLOAT_WIDTHS.get(builtin.name) if isinstance(builtin, FloatType) else None


def _float_bits(value: float, vhlo_type: Type) -> int | None:
    """The value's bits in the VHLO float type's semantics."""
    if isinstance(vhlo_type, FloatTF32V1Type):  # tf32 is f32 with 13 fewer mantissa bits
        return struct.unpack("<I", struct.pack("<f", value))[0] >> 13
    builtin = vhlo_type.builtin if isinstance(vhlo_type, SimpleVhloType) else None
    if not isinstance(builtin, FloatType):
        return None
    return float_to_bits(value, builtin)


def _bits_float(bits: int, vhlo_type: Type) -> float:
    if isinstance(vhlo_type, FloatTF32V1Type):
        return struct.unpack("<f", struct.pack("<I", bits << 13))[0]
    return bits_to_float(bits, vhlo_type.builtin)  # type: ignore[attr-defined]


def _f64_bits(value: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def _f64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _int_width(vhlo_type: Type) -> tuple[int, bool] | None:
    """(APInt width, signed) of an integer attribute's type (index is 64-bit signed)."""
    if isinstance(vhlo_type, IndexV1Type):
        return 64, True
    builtin = vhlo_type.builtin if isinstance(vhlo_type, SimpleVhloType) else None
    if isinstance(builtin, IntegerType):
        return builtin.width, not builtin.is_unsigned
    if isinstance(builtin, IndexType):
        return 64, True
    return None


def _to_signed(value: int, width: int) -> int:
    return value - (1 << width) if value >> (width - 1) & 1 else value


# ---- tensors -----------------------------------------------------------------------------


def _is_bool_tensor(vhlo_type: Type) -> bool:
    return isinstance(vhlo_type, RankedTensorV1Type) and isinstance(
        vhlo_type.element_type, BooleanV1Type)


def _tensor_blob(attr: TensorV1Attr) -> bytes | None:
    raw = encode_raw_dense(attr.data)
    if raw is None or not _is_bool_tensor(attr.type):
        return raw
    count = math.prod(attr.type.shape)  # type: ignore[attr-defined]
    if len(raw) == 1 and count > 1:
        return b"\xff" if raw[0] else b"\x00"
    packed = bytearray((count + 7) // 8)
    for i in range(count):
        if raw[i]:
            packed[i // 8] |= 1 << (i % 8)
    return bytes(packed)


def _tensor_data(blob: bytes, vhlo_type: Type) -> bytes:
    if not _is_bool_tensor(vhlo_type):
        return blob
    count = math.prod(vhlo_type.shape)  # type: ignore[attr-defined]
    if len(blob) == 1 and blob[0] == 0xFF:
        return b"\x01"
    if len(blob) == (count + 7) // 8 and len(blob) != count:
        return bytes(1 if blob[i // 8] >> (i % 8) & 1 else 0 for i in range(count))
    return blob


# ---- writing -----------------------------------------------------------------------------


def write_attribute(attr: Attribute, w: AttrTypeWriter) -> bool:
    if isinstance(attr, EnumV1Attr):
        code = ENUM_CODES.get(type(attr))
        if code is None:
            return False
        w.varint(code)
        w.varint(attr.code)
    elif isinstance(attr, StringV1Attr):
        w.varint(STRING)
        w.string(attr.value)
    elif isinstance(attr, ArrayV1Attr):
        w.varint(ARRAY)
        w.attributes(attr.value)
    elif isinstance(attr, IntegerV1Attr):
        width = _int_width(attr.type)
        if width is None:
            return False
        w.varint(INTEGER)
        w.type(attr.type)
        w.apint(attr.value, width[0])
    elif isinstance(attr, TensorV1Attr):
        blob = _tensor_blob(attr)
        if blob is None:
            return False
        w.varint(TENSOR)
        w.type(attr.type)
        w.blob(blob)
    elif isinstance(attr, DictionaryV1Attr):
        w.varint(DICTIONARY)
        w.varint(len(attr.value))
        for key, value in attr.value:
            w.attribute(key)
            w.attribute(value)
    elif isinstance(attr, BooleanV1Attr):
        w.varint(BOOLEAN)
        w.varint(1 if attr.value else 0)
    elif isinstance(attr, TypeV1Attr):
        w.varint(TYPE)
        w.type(attr.value)
    elif isinstance(attr, FloatV1Attr):
        bits = _float_bits(attr.value, attr.type)
        width = _float_width(attr.type)
        if bits is None or width is None:
            return False
        w.varint(FLOAT)
        w.type(attr.type)
        w.apint(bits, width)
    elif isinstance(attr, TypeExtensionsV1Attr):
        w.varint(TYPE_EXTENSIONS)
        w.signed_varints(_dims_out(attr.bounds))
    elif isinstance(attr, OutputOperandAliasV1Attr):
        w.varint(OUTPUT_OPERAND_ALIAS)
        w.signed_varints(attr.output_tuple_indices)
        w.signed_varint(attr.operand_index)
        w.signed_varints(attr.operand_tuple_indices)
    else:
        return _write_sharding_attribute(attr, w)
    return True


def _write_sharding_attribute(attr: Attribute, w: AttrTypeWriter) -> bool:
    if isinstance(attr, ResultAccuracyV1Attr):
        w.varint(RESULT_ACCURACY)
        w.apint(_f64_bits(attr.atol), 64)
        w.apint(_f64_bits(attr.rtol), 64)
        w.signed_varint(attr.ulps)
        w.attribute(attr.mode)
    elif isinstance(attr, SubAxisInfoV1Attr):
        w.varint(SUB_AXIS_INFO)
        w.signed_varint(attr.pre_size)
        w.signed_varint(attr.size)
    elif isinstance(attr, AxisRefV1Attr):
        w.varint(AXIS_REF)
        w.attribute(attr.name)
        if attr.sub_axis_info is not None:
            w.varint(1)
            w.attribute(attr.sub_axis_info)
        else:
            w.varint(0)
    elif isinstance(attr, ReplicaGroupMeshAxesV1Attr):
        w.varint(REPLICA_GROUP_MESH_AXES)
        w.attribute(attr.mesh)
        w.attribute(attr.axes)
    elif isinstance(attr, MeshAxisV1Attr):
        w.varint(MESH_AXIS)
        w.attribute(attr.name)
        w.signed_varint(attr.size)
    elif isinstance(attr, MeshV1Attr):
        w.varint(MESH)
        w.attribute(attr.axes)
        w.optional_attribute(attr.device_ids)
    else:
        return False
    return True


def write_type(t: Type, w: AttrTypeWriter) -> bool:
    code = SIMPLE_TYPE_CODES.get(type(t))
    if code is not None:
        w.varint(code)
    elif isinstance(t, RankedTensorV1Type):
        if t.encoding is not None:
            w.varint(RANKED_TENSOR_TYPE_WITH_ENCODING)
            w.attribute(t.encoding)
        else:
            w.varint(RANKED_TENSOR_TYPE)
        w.signed_varints(_dims_out(t.shape))
        w.type(t.element_type)
    elif isinstance(t, FunctionV1Type):
        w.varint(FUNCTION_TYPE)
        w.types(t.inputs)
        w.types(t.outputs)
    elif isinstance(t, (ComplexV1Type, UnrankedTensorV1Type)):
        w.varint(COMPLEX_TYPE if isinstance(t, ComplexV1Type) else UNRANKED_TENSOR_TYPE)
        w.type(t.element_type)
    elif isinstance(t, (TupleV1Type, FutureV1Type)):
        w.varint(TUPLE_TYPE if isinstance(t, TupleV1Type) else FUTURE_TYPE)
        w.types(t.types)
    elif isinstance(t, UniformQuantizedV1Type):
        w.varint(UNIFORM_QUANTIZED_TYPE)
        w.varint(t.flags)
        w.type(t.storage_type)
        w.type(t.expressed_type)
        w.apint(_f64_bits(t.scale), 64)
        w.signed_varint(t.zero_point)
        w.signed_varint(t.storage_type_min)
        w.signed_varint(t.storage_type_max)
    elif isinstance(t, UniformQuantizedPerAxisV1Type):
        w.varint(UNIFORM_QUANTIZED_PER_AXIS_TYPE)
        w.varint(t.flags)
        w.type(t.storage_type)
        w.type(t.expressed_type)
        w.varint(t.quantized_dimension)
        w.signed_varint(t.storage_type_min)
        w.signed_varint(t.storage_type_max)
        w.varint(len(t.scales))
        for scale in t.scales:
            w.apint(_f64_bits(scale), 64)
        w.signed_varints(t.zero_points)
    elif isinstance(t, RankedBufferV1Type):
        w.varint(RANKED_BUFFER_TYPE)
        w.signed_varints(_dims_out(t.shape))
        w.type(t.element_type)
    else:
        return False
    return True


# ---- reading -----------------------------------------------------------------------------


def read_attribute(r: AttrTypeReader) -> Attribute:
    code = r.varint()
    enum = _CODE_ENUMS.get(code)
    if enum is not None:
        value = r.varint()
        try:
            return enum.from_code(value)  # type: ignore[attr-defined]
        except ValueError:
            raise r.error(f"invalid {enum.mnemonic} value: {value}") from None
    reader = _ATTR_READERS.get(code)
    if reader is None:
        raise r.error(f"unknown vhlo attribute code: {code}")
    return reader(r)


def _read_boolean(r: AttrTypeReader) -> Attribute:
    value = r.varint()
    if value not in (0, 1):
        raise r.error(f"unsupported value: {value}")
    return BooleanV1Attr(value == 1)


def _read_dictionary(r: AttrTypeReader) -> Attribute:
    entries = []
    for _ in range(r.varint()):
        key = r.attribute()
        entries.append((key, r.attribute()))
    return DictionaryV1Attr(tuple(entries))


def _read_float(r: AttrTypeReader) -> Attribute:
    ftype = r.type()
    width = _float_width(ftype)
    if width is None:
        raise r.error(f"unsupported floating-point type {ftype}")
    return FloatV1Attr(ftype, _bits_float(r.apint(width), ftype))


def _read_integer(r: AttrTypeReader) -> Attribute:
    itype = r.type()
    found = _int_width(itype)
    if found is None:
        raise r.error(f"unsupported integer type {itype}")
    width, signed = found
    value = r.apint(width)
    return IntegerV1Attr(itype, _to_signed(value, width) if signed else value)


def _read_output_operand_alias(r: AttrTypeReader) -> Attribute:
    outputs = tuple(r.signed_varints())
    operand = r.signed_varint()
    return OutputOperandAliasV1Attr(outputs, operand, tuple(r.signed_varints()))


def _read_tensor(r: AttrTypeReader) -> Attribute:
    ttype = r.type()
    blob = r.blob()
    builtin = to_builtin_type(ttype)
    if not isinstance(builtin, TensorType):
        raise r.error(f"expected a ranked tensor type for a tensor attribute, got {ttype}")
    if any(d < 0 for d in builtin.shape):
        raise r.error(f"expected a statically shaped tensor type for a tensor attribute, "
                      f"got {ttype}")
    decoded = decode_raw_dense(_tensor_data(blob, ttype), builtin)
    if decoded is None:
        raise r.error(f"invalid tensor data for type {ttype}")
    return TensorV1Attr(ttype, decoded)


def _read_result_accuracy(r: AttrTypeReader) -> Attribute:
    atol = _f64(r.apint(64))
    rtol = _f64(r.apint(64))
    ulps = r.signed_varint()
    return ResultAccuracyV1Attr(atol, rtol, ulps, r.attribute())


def _read_axis_ref(r: AttrTypeReader) -> Attribute:
    name = r.attribute()
    sub = r.attribute() if r.varint() else None
    return AxisRefV1Attr(name, sub)


_ATTR_READERS: dict[int, Any] = {
    ARRAY: lambda r: ArrayV1Attr(tuple(r.attributes())),
    BOOLEAN: _read_boolean,
    DICTIONARY: _read_dictionary,
    FLOAT: _read_float,
    INTEGER: _read_integer,
    OUTPUT_OPERAND_ALIAS: _read_output_operand_alias,
    STRING: lambda r: StringV1Attr(r.string()),
    TENSOR: _read_tensor,
    TYPE: lambda r: TypeV1Attr(r.type()),
    TYPE_EXTENSIONS: lambda r: TypeExtensionsV1Attr(_dims_in(r.signed_varints())),
    RESULT_ACCURACY: _read_result_accuracy,
    SUB_AXIS_INFO: lambda r: SubAxisInfoV1Attr(r.signed_varint(), r.signed_varint()),
    AXIS_REF: _read_axis_ref,
    REPLICA_GROUP_MESH_AXES: lambda r: ReplicaGroupMeshAxesV1Attr(r.attribute(),
                                                                  r.attribute()),
    MESH_AXIS: lambda r: MeshAxisV1Attr(r.attribute(), r.signed_varint()),
    MESH: lambda r: MeshV1Attr(r.attribute(), r.optional_attribute()),
}


def read_type(r: AttrTypeReader) -> Type:
    code = r.varint()
    simple = _CODE_SIMPLE_TYPES.get(code)
    if simple is not None:
        return simple()
    if code in (RANKED_TENSOR_TYPE, RANKED_TENSOR_TYPE_WITH_ENCODING):
        encoding = r.attribute() if code == RANKED_TENSOR_TYPE_WITH_ENCODING else None
        shape = _dims_in(r.signed_varints())
        return RankedTensorV1Type(shape, r.type(), encoding)
    if code == FUNCTION_TYPE:
        inputs = tuple(r.types())
        return FunctionV1Type(inputs, tuple(r.types()))
    if code == COMPLEX_TYPE:
        return ComplexV1Type(r.type())
    if code == UNRANKED_TENSOR_TYPE:
        return UnrankedTensorV1Type(r.type())
    if code == TUPLE_TYPE:
        return TupleV1Type(tuple(r.types()))
    if code == FUTURE_TYPE:
        return FutureV1Type(tuple(r.types()))
    if code == UNIFORM_QUANTIZED_TYPE:
        flags = r.varint()
        storage = r.type()
        expressed = r.type()
        scale = _f64(r.apint(64))
        zero_point = r.signed_varint()
        low = r.signed_varint()
        return UniformQuantizedV1Type(flags, storage, expressed, scale, zero_point, low,
                                      r.signed_varint())
    if code == UNIFORM_QUANTIZED_PER_AXIS_TYPE:
        flags = r.varint()
        storage = r.type()
        expressed = r.type()
        dim = r.varint()
        low = r.signed_varint()
        high = r.signed_varint()
        scales = tuple(_f64(r.apint(64)) for _ in range(r.varint()))
        zero_points = tuple(r.signed_varints())
        return UniformQuantizedPerAxisV1Type(flags, storage, expressed, dim, scales,
                                             zero_points, low, high)
    if code == RANKED_BUFFER_TYPE:
        shape = _dims_in(r.signed_varints())
        return RankedBufferV1Type(shape, r.type())
    raise r.error(f"unknown vhlo type code: {code}")


def owns(obj: object) -> bool:
    return is_vhlo(obj)


# ---- op properties -------------------------------------------------------------------------

# Each VHLO op and its inherent attributes (upstream `VhloOps.td`), sorted by name.
_OP_ATTRIBUTES: dict[str, str] = {
    "abs_v1": "",
    "add_v1": "",
    "after_all_v1": "",
    "all_gather_v1": "all_gather_dim channel_id replica_groups use_global_device_ids",
    "all_gather_v2": "all_gather_dim channel_id replica_groups use_global_device_ids",
    "all_reduce_v1": "channel_id replica_groups use_global_device_ids",
    "all_reduce_v2": "channel_id replica_groups use_global_device_ids",
    "all_to_all_v1": "channel_id concat_dimension replica_groups split_count split_dimension",
    "all_to_all_v2": "channel_id concat_dimension replica_groups split_count split_dimension",
    "and_v1": "",
    "async_done_v1": "",
    "async_start_v1": "",
    "atan2_v1": "",
    "batch_norm_grad_v1": "epsilon feature_index",
    "batch_norm_inference_v1": "epsilon feature_index",
    "batch_norm_training_v1": "epsilon feature_index",
    "bitcast_convert_v1": "",
    "broadcast_in_dim_v1": "broadcast_dimensions",
    "broadcast_v1": "broadcast_sizes",
    "call_v1": "callee",
    "case_v1": "",
    "cbrt_v1": "",
    "cbrt_v2": "result_accuracy",
    "ceil_v1": "",
    "cholesky_v1": "lower",
    "clamp_v1": "",
    "collective_broadcast_v1": "channel_id replica_groups",
    "collective_broadcast_v2": "channel_id has_dynamic_root replica_groups",
    "collective_permute_v1": "channel_id source_target_pairs",
    "collective_reduce_v1": "channel_id has_dynamic_root replica_groups use_global_device_ids",
    "compare_v1": "compare_type comparison_direction",
    "complex_v1": "",
    "composite_v1": "composite_attributes decomposition name version",
    "composite_v2": "composite_attributes decomposition name version",
    "concatenate_v1": "dimension",
    "constant_v1": "value",
    "convert_v1": "",
    "convolution_v1": (
        "batch_group_count feature_group_count input_batch_dimension input_feature_dimension "
        "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
        "kernel_spatial_dimensions lhs_dilation output_batch_dimension output_feature_dimension "
        "output_spatial_dimensions padding precision_config rhs_dilation window_reversal "
        "window_strides"
    ),
    "cosine_v1": "",
    "cosine_v2": "result_accuracy",
    "count_leading_zeros_v1": "",
    "create_token_v1": "",
    "cross-replica-sum_v1": "replica_groups",
    "custom_call_v1": (
        "api_version backend_config call_target_name called_computations has_side_effect "
        "operand_layouts output_operand_aliases result_layouts"
    ),
    "custom_call_v2": (
        "api_version backend_config call_target_name called_computations has_side_effect "
        "operand_layouts output_operand_aliases result_layouts result_tilings"
    ),
    "divide_v1": "",
    "dot_general_v1": (
        "lhs_batching_dimensions lhs_contracting_dimensions precision_config "
        "rhs_batching_dimensions rhs_contracting_dimensions"
    ),
    "dot_general_v2": (
        "accumulation_type allow_imprecise_accumulation lhs_batching_dimensions "
        "lhs_component_count lhs_contracting_dimensions lhs_precision_type "
        "num_primitive_operations precision_config rhs_batching_dimensions rhs_component_count "
        "rhs_contracting_dimensions rhs_precision_type"
    ),
    "dot_v1": "precision_config",
    "dynamic_broadcast_in_dim_v1": (
        "broadcast_dimensions known_expanding_dimensions known_nonexpanding_dimensions"
    ),
    "dynamic_conv_v1": (
        "batch_group_count feature_group_count input_batch_dimension input_feature_dimension "
        "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
        "kernel_spatial_dimensions lhs_dilation output_batch_dimension output_feature_dimension "
        "output_spatial_dimensions padding precision_config rhs_dilation window_reversal "
        "window_strides"
    ),
    "dynamic_conv_v2": (
        "batch_group_count feature_group_count input_batch_dimension input_feature_dimension "
        "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
        "kernel_spatial_dimensions lhs_dilation output_batch_dimension output_feature_dimension "
        "output_spatial_dimensions precision_config rhs_dilation window_reversal window_strides"
    ),
    "dynamic_gather_v1": (
        "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims start_index_map"
    ),
    "dynamic_gather_v2": (
        "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims "
        "operand_batching_dims start_index_map start_indices_batching_dims"
    ),
    "dynamic_iota_v1": "iota_dimension",
    "dynamic_pad_v1": "",
    "dynamic_reshape_v1": "",
    "dynamic_slice_v1": "slice_sizes",
    "dynamic_update_slice_v1": "",
    "einsum_v1": "einsum_config",
    "exponential_minus_one_v1": "",
    "exponential_minus_one_v2": "result_accuracy",
    "exponential_v1": "",
    "exponential_v2": "result_accuracy",
    "fft_v1": "fft_length fft_type",
    "floor_v1": "",
    "func_v1": "arg_attrs function_type res_attrs sym_name sym_visibility",
    "gather_v1": (
        "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims slice_sizes "
        "start_index_map"
    ),
    "gather_v2": (
        "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims "
        "operand_batching_dims slice_sizes start_index_map start_indices_batching_dims"
    ),
    "get_dimension_size_v1": "dimension",
    "get_tuple_element_v1": "index",
    "if_v1": "",
    "imag_v1": "",
    "infeed_v1": "infeed_config layout",
    "iota_v1": "iota_dimension",
    "is_finite_v1": "",
    "log_plus_one_v1": "",
    "log_plus_one_v2": "result_accuracy",
    "log_v1": "",
    "log_v2": "result_accuracy",
    "logistic_v1": "",
    "logistic_v2": "result_accuracy",
    "map_v1": "dimensions",
    "maximum_v1": "",
    "minimum_v1": "",
    "multiply_v1": "",
    "negate_v1": "",
    "not_v1": "",
    "optimization_barrier_v1": "",
    "or_v1": "",
    "outfeed_v1": "outfeed_config",
    "pad_v1": "edge_padding_high edge_padding_low interior_padding",
    "partition_id_v1": "",
    "popcnt_v1": "",
    "power_v1": "",
    "real_dynamic_slice_v1": "",
    "real_v1": "",
    "recv_v1": "channel_id channel_type is_host_transfer",
    "recv_v2": "channel_id channel_type is_host_transfer source_target_pairs",
    "reduce_precision_v1": "exponent_bits mantissa_bits",
    "reduce_scatter_v1": "channel_id replica_groups scatter_dimension use_global_device_ids",
    "reduce_v1": "dimensions",
    "reduce_window_v1": "base_dilations padding window_dilations window_dimensions window_strides",
    "remainder_v1": "",
    "replica_id_v1": "",
    "reshape_v1": "",
    "return_v1": "",
    "reverse_v1": "dimensions",
    "rng_bit_generator_v1": "rng_algorithm",
    "rng_v1": "rng_distribution",
    "round_nearest_afz_v1": "",
    "round_nearest_even_v1": "",
    "rsqrt_v1": "",
    "rsqrt_v2": "result_accuracy",
    "scatter_v1": (
        "index_vector_dim indices_are_sorted inserted_window_dims scatter_dims_to_operand_dims "
        "unique_indices update_window_dims"
    ),
    "scatter_v2": (
        "index_vector_dim indices_are_sorted input_batching_dims inserted_window_dims "
        "scatter_dims_to_operand_dims scatter_indices_batching_dims unique_indices "
        "update_window_dims"
    ),
    "select_and_scatter_v1": "padding window_dimensions window_strides",
    "select_v1": "",
    "send_v1": "channel_id channel_type is_host_transfer",
    "send_v2": "channel_id channel_type is_host_transfer source_target_pairs",
    "set_dimension_size_v1": "dimension",
    "shift_left_v1": "",
    "shift_right_arithmetic_v1": "",
    "shift_right_logical_v1": "",
    "sign_v1": "",
    "sine_v1": "",
    "sine_v2": "result_accuracy",
    "slice_v1": "limit_indices start_indices strides",
    "sort_v1": "dimension is_stable",
    "sqrt_v1": "",
    "sqrt_v2": "result_accuracy",
    "subtract_v1": "",
    "tan_v1": "",
    "tan_v2": "result_accuracy",
    "tanh_v1": "",
    "tanh_v2": "result_accuracy",
    "torch_index_select_v1": "batch_dims dim",
    "transpose_v1": "permutation",
    "triangular_solve_v1": "left_side lower transpose_a unit_diagonal",
    "tuple_v1": "",
    "unary_einsum_v1": "einsum_config",
    "uniform_dequantize_v1": "",
    "uniform_quantize_v1": "",
    "while_v1": "",
    "xor_v1": "",
}


def op_properties(name: str) -> tuple[tuple[str, bool], ...] | None:
    """The properties of a VHLO op: every attribute required, in name order; None for a
    name that is not a VHLO op."""
    if not name.startswith("vhlo."):
        return None
    names = _OP_ATTRIBUTES.get(name[5:])
    if names is None:
        return None
    return tuple((attr, False) for attr in names.split())
