"""Types, attributes and op forms of MLIR's grammar: each parses and prints canonically."""
# ruff: noqa: E501

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.ir.diagnostics import SourceFile
from shlo_cli.ir.parser import Parser, parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import DYNAMIC, QuantizedType, TensorType


def parse_type(text: str):  # type: ignore[no-untyped-def]
    return Parser(SourceFile("t", text)).parse_type()


def parse_attr(text: str):  # type: ignore[no-untyped-def]
    return Parser(SourceFile("t", text)).parse_attribute()


TYPES = [
    ("tensor<2x3xf32>", "tensor<2x3xf32>"),
    ("tensor<f32>", "tensor<f32>"),
    ("tensor<?x3xi32>", "tensor<?x3xi32>"),
    ("tensor< 2 x ? x f16 >", "tensor<2x?xf16>"),
    ("tensor<*xf32>", "tensor<*xf32>"),
    ("tensor<?xf32, #stablehlo.bounds<3>>", "tensor<?xf32, #stablehlo.bounds<3>>"),
    ("tensor<2x?xi64, #stablehlo.bounds<?, 5>>", "tensor<2x?xi64, #stablehlo.bounds<?, 5>>"),
    ("tensor<0x4xi1>", "tensor<0x4xi1>"),
    ("tensor<?x?xf32, #stablehlo.type_extensions<bounds = [3, ?]>>", "tensor<?x?xf32, #stablehlo.bounds<3, ?>>"),
    ("tensor<f32, #stablehlo.bounds<>>", "tensor<f32, #stablehlo.bounds<>>"),
    ("tuple<memref<2x?xf32, affine_map<(d0, d1) -> (d0)>>>", "tuple<memref<2x?xf32, affine_map<(d0, d1) -> (d0)>>>"),
    *[(f"tensor<{t}>", f"tensor<{t}>") for t in (
        "i1", "i2", "i4", "i8", "i16", "i32", "i64", "ui2", "ui4", "ui8", "ui16", "ui32", "ui64",
        "si8", "bf16", "f16", "f32", "f64", "tf32", "f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "f8E3M4",
        "f8E4M3", "f8E4M3FN", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ",
        "f8E8M0FNU", "complex<f32>", "complex<f64>", "index")],
    ("!stablehlo.token", "!stablehlo.token"),
    ("tuple<tensor<f32>, tuple<>, !stablehlo.token>", "tuple<tensor<f32>, tuple<>, !stablehlo.token>"),
    ("(tensor<f32>, i32) -> tensor<f32>", "(tensor<f32>, i32) -> tensor<f32>"),
    ("() -> ()", "() -> ()"),
    ("(i32) -> (i32, i32)", "(i32) -> (i32, i32)"),
    ("(i32) -> ((i32) -> i32)", "(i32) -> ((i32) -> i32)"),
    ("tensor<2x!quant.uniform<i8:f32, 1.0:17>>", "tensor<2x!quant.uniform<i8:f32, 1.000000e+00:17>>"),
    ("!quant.uniform<ui8:f32, 34.0:16>", "!quant.uniform<ui8:f32, 3.400000e+01:16>"),
    ("!quant.uniform<u8:f32, 34.0:16>", "!quant.uniform<u8:f32, 3.400000e+01:16>"),
    ("!quant.uniform<si8:f32, 34.0:16>", "!quant.uniform<si8:f32, 3.400000e+01:16>"),
    ("!quant.uniform<i8<-128:127>:f32, 0.1:-30>", "!quant.uniform<i8:f32, 1.000000e-01:-30>"),
    ("!quant.uniform<i8<-127:127>:f32:1, {0.1:-30,0.5:-20 }>",
     "!quant.uniform<i8<-127:127>:f32:1, {1.000000e-01:-30,5.000000e-01:-20}>"),
    ("!quant.uniform<i32:f32, 1.537725862903607E-5>", "!quant.uniform<i32:f32, 1.537725862903607E-5>"),
    ("!quant.uniform<i4:f32, 2.0>", "!quant.uniform<i4:f32, 2.000000e+00>"),
]


@pytest.mark.parametrize(("text", "printed"), TYPES)
def test_type_prints_canonically(text: str, printed: str) -> None:
    t = parse_type(text)
    assert str(t) == printed
    assert str(parse_type(printed)) == printed


def test_type_details() -> None:
    t = parse_type("tensor<?x3x!quant.uniform<i8<-100:100>:f32:1, {0.5:1, 0.25:2, 2.0:-3}>>")
    assert isinstance(t, TensorType) and t.shape == (DYNAMIC, 3)
    q = t.element
    assert isinstance(q, QuantizedType)
    assert (q.storage_min, q.storage_max, q.quantized_dimension) == (-100, 100, 1)
    assert q.scales == (0.5, 0.25, 2.0) and q.zero_points == (1, 2, -3)


ATTRS = [
    ("dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>", "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>"),
    ("dense<[1, 1, 1]> : tensor<3xi8>", "dense<1> : tensor<3xi8>"),
    ("dense<7> : tensor<2x3xi8>", "dense<7> : tensor<2x3xi8>"),
    ("dense<[5]> : tensor<1xi64>", "dense<5> : tensor<1xi64>"),
    ("dense<255> : tensor<i8>", "dense<-1> : tensor<i8>"),
    ("dense<255> : tensor<ui8>", "dense<255> : tensor<ui8>"),
    ("dense<[true, false]> : tensor<2xi1>", "dense<[true, false]> : tensor<2xi1>"),
    ("dense<> : tensor<0x2xi8>", "dense<> : tensor<0x2xi8>"),
    ("dense<[]> : tensor<0xf32>", "dense<> : tensor<0xf32>"),
    ("dense<[0.0, -0.0]> : tensor<2xf32>", "dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf32>"),
    ("dense<[0x7FC00000, 1.5, 0xFF800000]> : tensor<3xf32>",
     "dense<[0x7FC00000, 1.500000e+00, 0xFF800000]> : tensor<3xf32>"),
    ("dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f32>>",
     "dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>>"),
    # an empty tensor keeps a splat as written (jaxlib's MLIR printer; older MLIR wrote
    # `(0.0, 0.0)`, as upstream's testdata shows), and `dense<>` stays `dense<>`
    ("dense<(0.0, 0.0)> : tensor<14x0xcomplex<f32>>",
     "dense<(0.000000e+00,0.000000e+00)> : tensor<14x0xcomplex<f32>>"),
    ("dense<> : tensor<14x0xcomplex<f32>>", "dense<> : tensor<14x0xcomplex<f32>>"),
    ("dense<0> : tensor<1x0xi64>", "dense<0> : tensor<1x0xi64>"),
    ("dense<true> : tensor<0xi1>", "dense<true> : tensor<0xi1>"),
    ('dense<"0x0000803F00000040"> : tensor<2xf32>', "dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>"),
    ('dense<"0x0100"> : tensor<2xi8>', "dense<[1, 0]> : tensor<2xi8>"),
    ('dense<"0x0000803F"> : tensor<3xf32>', "dense<1.000000e+00> : tensor<3xf32>"),
    ("dense<[1, 2]> : tensor<2x!quant.uniform<i8:f32, 2.0:15>>",
     "dense<[1, 2]> : tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>"),
    ("array<i64: 1, 2>", "array<i64: 1, 2>"),
    ("array<i64>", "array<i64>"),
    ("array<i1: true, false>", "array<i1: true, false>"),
    ("array<f32: 1.0, 0x7FC00000>", "array<f32: 1.000000e+00, 0x7FC00000>"),
    ("1 : i32", "1 : i32"),
    ("-3 : si8", "-3 : si8"),
    ("255 : ui8", "255 : ui8"),
    ("255 : i8", "-1 : i8"),
    ("0x10 : i64", "16 : i64"),
    ("1.5 : f32", "1.500000e+00 : f32"),
    ("0x7FC00000 : f32", "0x7FC00000 : f32"),
    ("1. : f64", "1.000000e+00 : f64"),
    ("true", "true"),
    ('"a\\"b\\n\\09c"', '"a\\22b\\0A\\09c"'),
    ("unit", "unit"),
    ("[1, 2 : i32, 1.5, \"s\", @f, [], {}]", "[1, 2 : i32, 1.500000e+00, \"s\", @f, [], {}]"),
    ("{b = 1, a, \"c-d\" = 2 : i32}", "{a, b = 1 : i64, \"c-d\" = 2 : i32}"),
    ("@a::@b", "@a::@b"),
    ('@"x y"', '@"x y"'),
    ("tensor<2xf32>", "tensor<2xf32>"),
    ("#stablehlo<comparison_direction EQ>", "#stablehlo<comparison_direction EQ>"),
    ("#stablehlo<precision   DEFAULT>", "#stablehlo<precision DEFAULT>"),
    ("#chlo<comparison_direction LT>", "#chlo<comparison_direction LT>"),
    ("#stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>",
     "#stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>"),
    ("#stablehlo.dot<rhs_contracting_dimensions = [1], lhs_contracting_dimensions = [2]>",
     "#stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>"),
    ("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>",
     "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>"),
    ("#stablehlo.channel_handle<handle = 1, type = 0>", "#stablehlo.channel_handle<handle = 1, type = 0>"),
    ("#stablehlo.channel_handle<type = 2, handle = -1>", "#stablehlo.channel_handle<handle = -1, type = 2>"),
    ("#stablehlo.output_operand_alias<output_tuple_indices = [0],\n operand_index = 1, operand_tuple_indices = []>",
     "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1, operand_tuple_indices = []>"),
    ("#stablehlo.result_accuracy<atol = 1.0e-5, rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>",
     "#stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>"),
    ("#chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1]>",
     "#chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1]>"),
]


@pytest.mark.parametrize(("text", "printed"), ATTRS)
def test_attribute_prints_canonically(text: str, printed: str) -> None:
    attr = parse_attr(text)
    assert str(attr) == printed
    assert str(parse_attr(printed)) == printed


@pytest.mark.parametrize(("body", "message"), [
    ("handle = dense, type = 0", "parameter 'handle' which is to be a `int64_t`"),
    ("handle = 1, type = 1.5", "parameter 'type' which is to be a `int64_t`"),
    ("handle = 1, type = [1]", "parameter 'type' which is to be a `int64_t`"),
    ("handle = 1", "struct is missing required parameter: type"),
    ("handle = 1, type = 0, handle = 2", "duplicate or unknown struct parameter name: handle"),
    ("handle = 1, kind = 0", "duplicate or unknown struct parameter name: kind"),
    ("1, 0", "struct is missing required parameter: handle"),
])
def test_channel_handle_takes_exactly_two_integers(body: str, message: str) -> None:
    from shlo_cli.ir.diagnostics import Diagnostic

    with pytest.raises(Diagnostic) as caught:
        parse_attr(f"#stablehlo.channel_handle<{body}>")
    assert message in caught.value.message


@pytest.mark.parametrize(("body", "message"), [
    ("output_tuple_indices = [dense], operand_index = 0, operand_tuple_indices = []",
     "parameter 'outputTupleIndices' which is to be a `::llvm::ArrayRef<int64_t>`"),
    ("output_tuple_indices = [], operand_index = x, operand_tuple_indices = []",
     "parameter 'operandIndex' which is to be a `int64_t`"),
    ("output_tuple_indices = [], operand_index = 0", "expected 'operand_tuple_indices'"),
    ("operand_index = 0, output_tuple_indices = [], operand_tuple_indices = []",
     "expected 'output_tuple_indices'"),
])
def test_output_operand_alias_reads_its_three_parameters_in_order(body: str,
                                                                   message: str) -> None:
    from shlo_cli.ir.diagnostics import Diagnostic

    with pytest.raises(Diagnostic) as caught:
        parse_attr(f"#stablehlo.output_operand_alias<{body}>")
    assert message in caught.value.message


def test_dense_values_have_exact_dtypes() -> None:
    assert parse_attr("dense<[1, 2]> : tensor<2xi4>").value.dtype.name == "int4"
    assert parse_attr("dense<1.5> : tensor<2xbf16>").value.tolist() == [1.5, 1.5]
    assert parse_attr("dense<[true, false]> : tensor<2xi1>").value.dtype == np.bool_
    value = parse_attr("dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xui16>").value
    assert value.dtype == np.uint16 and value.shape == (2, 3)
    big = np.arange(150, dtype=np.float32)
    printed = str(parse_attr("dense<[" + ", ".join(map(str, big.tolist())) + "]> : tensor<150xf32>"))
    assert printed.startswith('dense<"0x000000000000803F') and printed.endswith('"> : tensor<150xf32>')
    assert (parse_attr(printed).value == big).all()


PROGRAM = """
#loc7 = loc("a.mlir":7:1)
module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func private @f(%arg0: tensor<2xf32> {jax.arg = "x"}) -> (tensor<2xf32>, tensor<2xf32>) {
    %0:2 = "test.pair"(%arg0) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %1 = "stablehlo.add"(%0#0, %0#1) {z = "\\22", a} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(#loc7)
    "test.br"(%1)[^bb1] : (tensor<2xf32>) -> ()
  ^bb1(%2: tensor<2xf32>):
    "test.region"() <{p = 1 : i64}> ({
    ^bb0(%x: tensor<f32>):
      "test.yield"(%x) : (tensor<f32>) -> ()
    }, {
    }) : () -> ()
    func.return %2, %0#1 : tensor<2xf32>, tensor<2xf32>
  }
}
"""


def test_generic_forms_regions_blocks_and_results() -> None:
    module = parse_source(PROGRAM, "p.mlir", allow_unregistered=True)
    printed = print_module(module)
    assert print_module(parse_source(printed, "q.mlir", allow_unregistered=True)) == printed
    assert '%0:2 = "test.pair"(%arg0)' in printed
    assert "stablehlo.add %0#0, %0#1 {a, z = \"\\22\"} : tensor<2xf32>" in printed
    assert '"test.br"(%1)[^bb1] : (tensor<2xf32>) -> ()' in printed
    assert "^bb1(%2: tensor<2xf32>):  // pred: ^bb0\n" in printed
    assert "^bb0(%arg1: tensor<f32>):" in printed
    generic = print_module(module, generic=True)
    assert '"func.func"() <{' in generic and '"func.return"(%2, %0#1)' in generic


def test_debuginfo_aliases_and_local_scope() -> None:
    module = parse_source(PROGRAM, "p.mlir", allow_unregistered=True)
    local = print_module(module, debuginfo=True, local_scope=True)
    assert 'loc("a.mlir":7:1)' in local and '} loc("p.mlir":3:1)' in local
    aliased = print_module(module, debuginfo=True)
    assert "loc(#loc" in aliased and '#loc = loc("p.mlir":3:1)' in aliased
    again = parse_source(aliased, "p.mlir", allow_unregistered=True)
    assert print_module(again, debuginfo=True, local_scope=True) == local


def test_bounds_spellings_are_one_type() -> None:
    assert parse_type("tensor<?xf32, #stablehlo.bounds<4>>") == parse_type(
        "tensor<?xf32, #stablehlo.type_extensions<bounds = [4]>>")
    assert parse_type("tensor<?xf32, #stablehlo.bounds<4>>").encoding.get("bounds") == [4]


def test_result_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ops naming their results one by one print `%a:2, %b = ...` and read back."""
    from shlo_cli.ir import registry

    registry.lookup("func.func")  # load every op first
    opdef = registry.OpDef("testgroups.op", asm_result_name=lambda op: ["a", None, "b"])
    monkeypatch.setitem(registry._REGISTRY, "testgroups.op", opdef)
    monkeypatch.setattr(registry, "_DIALECTS", registry._DIALECTS | {"testgroups"})
    text = ('func.func @f() {\n  %0:3 = "testgroups.op"() : () -> (i32, i32, i32)\n'
            '  "testgroups.op"(%0#0, %0#1, %0#2) : (i32, i32, i32) -> ()\n  func.return\n}\n')
    printed = print_module(parse_source(text))
    assert '%a:2, %b = "testgroups.op"() : () -> (i32, i32, i32)' in printed
    assert '"testgroups.op"(%a#0, %a#1, %b)' in printed
    assert print_module(parse_source(printed)) == printed
