"""`dot_general`, `dot` (and the deprecated `einsum`/`unary_einsum`), with the `precision_config`
and `{attrs} : (lhs, rhs) -> result` syntax pieces convolution reuses.

Operands are converted to the result element type first, so products and sums happen at the
result's width (i8 x i8 -> i32 does not wrap at 8 bits). Integer results use matmul/einsum
(exact modular arithmetic); real float results go to BLAS (see gemm.py: f32 stays f32, types
narrower than f32 accumulate in f32 and round once, XLA's choice) unless at most
SEQUENTIAL_DEPTH terms are summed; those and complex results accumulate one contracting index
at a time, vectorized over all outputs, rounding every product and sum in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ir.attributes import ArrayAttr, Attribute, DialectAttr
from ...ir.core import Location, Operation
from ...ir.diagnostics import Diagnostic, EvaluationError
from ...ir.lexer import BARE, STRING, lazy_regex, unescape_string
from ...ir.parse_fast import (
    INT,
    KEYWORD_END,
    VALUE,
    WS,
    functional_tail,
    not_before,
    register_fast_parser,
    same_types,
)
from ...ir.types import (
    DYNAMIC,
    FunctionType,
    TensorType,
    Type,
    element_type,
    numpy_dtype,
)
from ...ir.verifier import op_error
from ..asm import Format
from ..registry import OpDef, define_op
from ..syntax import Custom, resolve_functional_operands
from .attr_dot import dot_dimension_attr, parse_dot_algorithm_attr
from .attr_kinds import attribute_kind_error
from .dimension_numbers import dense_array_error, parse_dim_list
from .dot_dimensions import check_dot_dimensions
from .gemm import SEQUENTIAL_DEPTH, blas_dtype, float_matmul
from .ordered_dot import available as ordered_available
from .ordered_dot import column_available, looped_column, looped_products
from .quantization_verify import check_dot_general_quantization
from .reducer import contiguous as _contiguous

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...ir.parse_fast import FastResult

# ---- arithmetic ------------------------------------------------------------------------------


def _batched_matmul(lhs: np.ndarray, rhs: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """(B, M, K) x (B, K, N) -> (B, M, N), summing in `dtype` (see module docstring)."""
    if dtype == np.bool_:
        return np.matmul(lhs.astype(np.int64), rhs.astype(np.int64)) != 0
    lhs = lhs.astype(dtype)
    rhs = rhs.astype(dtype)
    if blas_dtype(dtype) is not None and lhs.shape[2] > SEQUENTIAL_DEPTH:
        return float_matmul(lhs, rhs, dtype)
    with np.errstate(all="ignore"):
        if dtype.kind in "iu":
            return np.matmul(lhs, rhs)
        # The reference's order, one contracting index at a time. Types narrower than f32
        # accumulate in f32 and round once at the end, as XLA does.
        acc_dtype = np.dtype(np.float32) if _is_narrow_float(dtype) else dtype
        lhs, rhs = lhs.astype(acc_dtype), rhs.astype(acc_dtype)
        if acc_dtype.kind == "f":
            return sequential_products(lhs, rhs).astype(dtype)
        acc = np.zeros((lhs.shape[0], lhs.shape[1], rhs.shape[2]), dtype=acc_dtype)
        for k in range(lhs.shape[2]):
            acc = acc + lhs[:, :, k, None] * rhs[:, None, k, :]
        return acc.astype(dtype)


def sequential_products(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """(B, M, K) x (B, K, N) of real floats summed one contracting index at a time from +0,
    each product and sum rounded in the operands' type (the reference's order). From two
    results on (N >= 2), numpy's matmul loop where this build keeps that order
    (ordered_dot.py), else every product in one multiply, then one reduction along K
    (`product_layout`); for one result, matmul's loop too where this build keeps the
    order in it (ordered_dot.looped_column), else the running sums along K in one accumulate
    (sequential, the earlier sum first, as `acc + product`), then `+ 0`. Starting the
    sums at the first product instead of at +0 changes only an all -0.0 sum (-0.0 where
    +0 + -0.0 is +0.0; a sum from +0 is never -0.0), which the final `+ 0` makes +0.0
    and leaves every other value as it is."""
    b, m, k = lhs.shape
    n = rhs.shape[2]
    if n >= 2:
        if lhs.dtype == rhs.dtype and ordered_available(lhs.dtype):
            return looped_products(lhs, rhs)
        left, right, perm, shape = product_layout(b, m, k, n)
        return summed_products(lhs.reshape(left).transpose(perm),
                               rhs.reshape(right).transpose(perm), shape).reshape(b, m, n)
    if k == 0:
        return np.zeros((b, m, n), lhs.dtype)
    if n == 1 and lhs.dtype == rhs.dtype and column_available(lhs.dtype):
        return looped_column(lhs, rhs)
    products = lhs[:, :, :, None] * rhs[:, None, :, :]
    return np.add.accumulate(products, axis=2)[:, :, -1, :] + lhs.dtype.type(0)


def product_layout(b: int, m: int, k: int, n: int) -> tuple[
        tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(lhs shape, rhs shape, their permutation, products shape) for `summed_products` of
    a (B, M, K) x (B, K, N) dot, N >= 2: each operand reshaped (without unit B or M) and
    permuted to K first, so the products are (K, B, M, N) and their sum one whole
    (B, M, N) array added after the other (a few long numpy loops, not one per row). A
    plan-time kernel of an RNN step passes its operands in these shapes, and the numpy
    calls are then the same ones, NaN payloads included."""
    keep = [d for d, size in ((0, b), (1, m)) if size != 1]
    full_left, full_right, full = (b, m, k, 1), (b, 1, k, n), (b, m, k, n)
    dims = keep + [2, 3]
    kept = len(keep)
    perm = (kept, *range(kept), kept + 1)
    return (tuple(full_left[d] for d in dims), tuple(full_right[d] for d in dims), perm,
            tuple(full[d] for d in (2, *keep, 3)))


def summed_products(left: np.ndarray, right: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """left * right (broadcast to `shape`, K first) summed along K from +0, in order. The
    products are a fresh C-ordered array whose last axis (N >= 2) is not K's, so numpy's
    reduction adds them one (B, M, N) slice after the other into the accumulator,
    `acc + product` (its pairwise summation is only along the innermost axis), from the
    initial +0."""
    products = np.multiply(left, right, np.empty(shape, left.dtype))
    # (positional: keywords cost a microsecond here; `0` is the initial value)
    summed: np.ndarray = np.add.reduce(products, 0, None, None, False, 0)  # type: ignore[call-overload]
    return summed


def _is_narrow_float(dtype: np.dtype) -> bool:
    """f16, bf16 and the f8/f6/f4 types: real floats with fewer bits than f32."""
    return dtype.kind not in "iubc" and dtype.itemsize < 4


def _dims(attr: Any, name: str) -> list[int]:
    value = attr.get(name) if attr is not None else None
    return [int(v) for v in value] if value else []


def dot_general_arrays(lhs: np.ndarray, rhs: np.ndarray, lhs_batch: Sequence[int],
                       rhs_batch: Sequence[int], lhs_contract: Sequence[int],
                       rhs_contract: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """spec dot_general: result dims are batch, lhs free, rhs free."""
    lhs_free = [d for d in range(lhs.ndim) if d not in lhs_batch and d not in lhs_contract]
    rhs_free = [d for d in range(rhs.ndim) if d not in rhs_batch and d not in rhs_contract]
    batch_shape = [lhs.shape[d] for d in lhs_batch]
    m_shape = [lhs.shape[d] for d in lhs_free]
    n_shape = [rhs.shape[d] for d in rhs_free]
    k_size = int(np.prod([lhs.shape[d] for d in lhs_contract], dtype=np.int64))
    if [lhs.shape[d] for d in lhs_contract] != [rhs.shape[d] for d in rhs_contract]:
        raise EvaluationError("contracting dimension sizes do not match")
    b = int(np.prod(batch_shape, dtype=np.int64))
    m = int(np.prod(m_shape, dtype=np.int64))
    n = int(np.prod(n_shape, dtype=np.int64))
    left = np.transpose(lhs, list(lhs_batch) + lhs_free + list(lhs_contract)).reshape(b, m, k_size)
    right = np.transpose(rhs, list(rhs_batch) + list(rhs_contract) + rhs_free).reshape(b, k_size, n)
    out = _batched_matmul(left, right, dtype)
    return _contiguous(out.reshape(batch_shape + m_shape + n_shape))


def result_dtype(result_type: Type) -> np.dtype:
    return numpy_dtype(element_type(result_type))


def dot_general(lhs: np.ndarray, rhs: np.ndarray, *, dot_dimension_numbers: Any,
                precision_config: Any = None, algorithm: Any = None,
                result_type: Type) -> np.ndarray:
    """Sum of products over the contracting dims, per batch index (spec: dot_general)."""
    dims = dot_dimension_numbers
    return dot_general_arrays(lhs, rhs, _dims(dims, "lhs_batching_dimensions"),
                              _dims(dims, "rhs_batching_dimensions"),
                              _dims(dims, "lhs_contracting_dimensions"),
                              _dims(dims, "rhs_contracting_dimensions"),
                              result_dtype(result_type))


def dot(lhs: np.ndarray, rhs: np.ndarray, *, precision_config: Any = None,
        result_type: Type) -> np.ndarray:
    """Legacy dot: contracts lhs's last dimension with rhs's first."""
    return dot_general_arrays(lhs, rhs, [], [], [lhs.ndim - 1], [0], result_dtype(result_type))


# ---- dot syntax ------------------------------------------------------------------------------


def functional_suffix(op: Operation) -> str:
    return " : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types)))


def rest_attrs(op: Operation, elided: set[str]) -> dict[str, Attribute]:
    merged = {k: v for k, v in op.properties.items() if k not in elided}
    merged.update((k, v) for k, v in op.attributes.items() if k not in elided)
    return merged


def _print_precision(op: Operation) -> str:
    attr = op.attr("precision_config")
    if attr is None:
        return ""
    words = [e.value if isinstance(e, DialectAttr) else str(e)
             for e in getattr(attr, "elements", ())]
    return ", precision = [" + ", ".join(words) + "]"


_PRECISIONS = ("DEFAULT", "HIGH", "HIGHEST")
_PRECISION_FAILED = ("failed to parse StableHLO_PrecisionAttr parameter 'value' which is to be a "
                     "`::mlir::stablehlo::Precision`")


def _parse_precision_word(p: Any) -> str:
    """One precision enum word; a bad one gives MLIR's two errors (the word, then the attr)."""
    tok = p.tok
    if tok.kind == STRING:  # (parseKeywordOrString)
        word = unescape_string(p.advance().text)
    elif tok.kind == BARE:
        word = p.advance().text
    else:
        bad = p.op_error("expected valid keyword or string")
        bad.notes.append(p.op_error(_PRECISION_FAILED, tok))
        raise bad
    if word not in _PRECISIONS:
        err = p.op_error("expected ::mlir::stablehlo::Precision to be one of: "
                         + ", ".join(_PRECISIONS), tok)
        err.notes.append(p.op_error(_PRECISION_FAILED, tok))
        raise err
    return word


def _parse_precision(p: Any) -> ArrayAttr:
    p.expect("=")
    p.expect("[")
    items: list[Attribute] = []
    if not p.at("]"):
        while True:
            items.append(DialectAttr("stablehlo", "", f"precision {_parse_precision_word(p)}"))
            if not p.accept(","):
                break
    p.expect("]")
    return ArrayAttr(tuple(items))


def _parse_algorithm(p: Any) -> DialectAttr:
    p.expect("=")
    body, start = p.parse_balanced_body("<", ">")
    return parse_dot_algorithm_attr(p, body, start)


def _pair(p: Any) -> tuple[list[int], list[int]]:
    p.expect("=")
    left = parse_dim_list(p)
    p.expect_keyword("x")
    return left, parse_dim_list(p)


def _parse_dot_general(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    lhs = p.parse_operand()
    p.expect(",")
    rhs = p.parse_operand()
    p.expect(",")
    lhs_batch: list[int] = []
    rhs_batch: list[int] = []
    if p.at("batching_dims"):
        p.advance()
        lhs_batch, rhs_batch = _pair(p)
        p.expect(",")
    p.expect_keyword("contracting_dims")
    lhs_contract, rhs_contract = _pair(p)
    props: dict[str, Attribute] = {
        "dot_dimension_numbers": dot_dimension_attr(lhs_batch, rhs_batch, lhs_contract,
                                                    rhs_contract)}
    while p.accept(","):
        if p.at("precision"):
            p.advance()
            props["precision_config"] = _parse_precision(p)
        else:
            p.expect_keyword("algorithm")
            props["algorithm"] = _parse_algorithm(p)
    return finish_op(p, opdef, [lhs, rhs], props, location, tok)


_DIMS = rf"\[{WS}((?:{INT}(?:{WS},{WS}{INT})*)?){WS}\]"
_DIMS_PAIR = rf"{WS}={WS}{_DIMS}{WS}x{KEYWORD_END}{WS}{_DIMS}"
_DOT_GENERAL = lazy_regex(
    rf"{WS}({VALUE}){WS},{WS}({VALUE}){WS},{WS}(?:batching_dims{KEYWORD_END}{_DIMS_PAIR}"
    rf"{WS},{WS})?contracting_dims{KEYWORD_END}{_DIMS_PAIR}{not_before(',')}")


def _fast_dot_general(p: Any, opdef: OpDef, pos: int, num_results: int) -> FastResult | None:
    """`%a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [2] {attrs} : type`
    (see `ir.parse_fast`): no precision nor algorithm, the batching dims optional."""
    src = p.src
    m = _DOT_GENERAL.match(src, pos)
    if m is None:
        return None
    lhs = p.fast_value(m.group(1))
    rhs = p.fast_value(m.group(2))
    tail = functional_tail(src, m.end())
    if lhs is None or rhs is None or tail is None:
        return None
    attributes, ftype, end = tail
    operands = [lhs, rhs]
    if not same_types(operands, ftype.inputs):
        return None
    dims = [[int(d) for d in text.split(",")] if text and text.strip() else []
            for text in m.group(3, 4, 5, 6)]
    if any(not -(1 << 63) <= d < (1 << 63) for group in dims for d in group):
        return None  # (`integer value too large`, from the token-level reader)
    props: dict[str, Attribute] = {"dot_dimension_numbers": dot_dimension_attr(*dims)}
    return operands, list(ftype.results), props, attributes, end


def finish_op(p: Any, opdef: OpDef, operands: list[Any], props: dict[str, Attribute],
              location: Location, tok: Any, operands_at: Any = None) -> Operation:
    dict_tok = p.tok
    attributes = p.parse_optional_attr_dict()
    for name in sorted(attributes):
        # The generated parser checks inherent attributes as `attr-dict` is read (MLIR's
        # verifyInherentAttrs, in name order), at the dictionary, with the op's prefix.
        message = inherent_attribute_error(opdef.name, name, attributes[name])
        if message is not None:
            raise p.op_error(f"'{opdef.name}' op {message}", dict_tok)
    p.expect(":")
    type_tok = p.tok
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", type_tok)
    resolve_functional_operands(p, operands, list(ftype.inputs), location, tok, operands_at)
    return p.build_operation(opdef.name, opdef, operands, list(ftype.results), props,
                             attributes, [], None, location)


def _print_dot_general(pr: Any, op: Operation) -> None:
    dims = op.attr("dot_dimension_numbers")
    pr.write(f" {pr.operands(op.operands)}, ")
    lb, rb = _dims(dims, "lhs_batching_dimensions"), _dims(dims, "rhs_batching_dimensions")
    if lb or rb:
        pr.write(f"batching_dims = {_dim_text(lb)} x {_dim_text(rb)}, ")
    lc, rc = _dims(dims, "lhs_contracting_dimensions"), _dims(dims, "rhs_contracting_dimensions")
    pr.write(f"contracting_dims = {_dim_text(lc)} x {_dim_text(rc)}")
    pr.write(_print_precision(op))
    algorithm = op.attr("algorithm")
    if isinstance(algorithm, DialectAttr):
        pr.write(f", algorithm = <{algorithm.body}>")
    pr.write(pr.attr_dict(rest_attrs(op, {"dot_dimension_numbers", "precision_config",
                                            "algorithm"})))
    pr.write(functional_suffix(op))


def _dim_text(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _parse_dot(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    lhs = p.parse_operand()
    p.expect(",")
    rhs = p.parse_operand()
    props: dict[str, Attribute] = {}
    if p.accept(","):
        p.expect_keyword("precision")
        props["precision_config"] = _parse_precision(p)
    return finish_op(p, opdef, [lhs, rhs], props, location, tok)


def _print_dot(pr: Any, op: Operation) -> None:
    pr.write(f" {pr.operands(op.operands)}")
    pr.write(_print_precision(op))
    pr.write(pr.attr_dict(rest_attrs(op, {"precision_config"})))
    pr.write(functional_suffix(op))


def error_at_op(op: Operation, message: str) -> Diagnostic:
    """An error at the op (upstream emitOptionalError: no `'name' op` prefix)."""
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


_BAD_PRECISION = ("attribute 'precision_config' failed to satisfy constraint: Precision "
                  "Config attribute")


def _is_precision_config(attr: Attribute) -> bool:
    """ODS's constraint on `precision_config`: an array of `#stablehlo<precision ...>`."""
    elements = attr.elements if isinstance(attr, ArrayAttr) else None
    return elements is not None and all(
        isinstance(e, DialectAttr) and e.body.split()[:1] == ["precision"] for e in elements)


def check_precision_config_attr(op: Operation) -> None:
    attr = op.attr("precision_config")
    if attr is not None and not _is_precision_config(attr):
        raise op_error(op, _BAD_PRECISION)


def inherent_attribute_error(op_name: str, name: str, attr: Attribute) -> str | None:
    """ODS's complaint about `attr` given as the inherent attribute `name` of dot, dot_general
    or convolution, or None."""
    if name == "precision_config":
        return None if _is_precision_config(attr) else _BAD_PRECISION
    return attribute_kind_error(op_name, name, attr) or dense_array_error(op_name, name, attr)


def verify_precision_count(op: Operation) -> None:
    attr = op.attr("precision_config")
    if isinstance(attr, ArrayAttr) and len(attr.elements) > 2:
        raise error_at_op(op, "expects precision config to be empty or have <= 2 elements.")


def verify_dot_general(op: Operation) -> None:
    """Upstream inferDotGeneralOp / verifyDotGeneralOp checks, first failure reported."""
    check_precision_config_attr(op)
    dims = op.attr("dot_dimension_numbers")
    lb, rb = _dims(dims, "lhs_batching_dimensions"), _dims(dims, "rhs_batching_dimensions")
    lc, rc = _dims(dims, "lhs_contracting_dimensions"), _dims(dims, "rhs_contracting_dimensions")
    lhs, rhs = op.operand_types[:2] if len(op.operands) == 2 else (None, None)
    check_dot_dimensions(op, getattr(lhs, "shape", None), getattr(rhs, "shape", None),
                         lb, rb, lc, rc)
    verify_precision_count(op)
    if isinstance(lhs, TensorType) and isinstance(rhs, TensorType):
        # inferDotGeneralOp's shape: batch dimensions, then lhs's and rhs's free ones
        check_inferred_shape(op, [lhs.shape[d] for d in lb] + [
            n for d, n in enumerate(lhs.shape) if d not in lb and d not in lc] + [
            n for d, n in enumerate(rhs.shape) if d not in rb and d not in rc])
    algorithm = op.attr("algorithm")
    if isinstance(algorithm, DialectAttr) and algorithm.fields:
        precision = op.attr("precision_config")
        words = [e.value for e in getattr(precision, "elements", ())]
        if any(w != "DEFAULT" for w in words):
            raise error_at_op(op, "must specify DEFAULT precision config when algorithm is set.")
    check_dot_general_quantization(op, rc)


def check_inferred_shape(op: Operation, shape: Sequence[int]) -> None:
    """The result's shape must be compatible with the inferred one (upstream wording)."""
    result = op.result_types[0] if op.results else None
    if not isinstance(result, TensorType):
        return
    if len(result.shape) != len(shape) or any(
            a != b and DYNAMIC not in (a, b) for a, b in zip(result.shape, shape, strict=True)):
        text = ", ".join("?" if d == DYNAMIC else str(d) for d in shape)
        raise error_at_op(op, f"inferred shape '[{text}]' is incompatible with return type of "
                              f"operation '{result}'")


def verify_dot(op: Operation) -> None:
    check_precision_config_attr(op)
    types = op.operand_types
    if len(types) == 2 and all(isinstance(t, TensorType) for t in types):
        if any(len(t.shape) not in (1, 2) for t in types):
            raise error_at_op(op, "expected both lhs/rhs ranks to be either 1 or 2")
        lhs, rhs = types
        check_inferred_shape(op, list(lhs.shape[:-1]) + list(rhs.shape[1:]))
    verify_precision_count(op)


define_op("stablehlo.dot_general", operands=("lhs", "rhs"), results=1,
          attributes=("dot_dimension_numbers", "precision_config?", "algorithm?"),
          syntax=Custom(_parse_dot_general, _print_dot_general),
          verify=verify_dot_general)(dot_general)
register_fast_parser("stablehlo.dot_general", _fast_dot_general)
define_op("stablehlo.dot", operands=("lhs", "rhs"), results=1, attributes=("precision_config?",),
          syntax=Custom(_parse_dot, _print_dot), verify=verify_dot)(dot)



# ---- einsum / unary_einsum (deprecated ops, kept for parsing/printing old programs) ----------


def _einsum(config: Any, operands: Sequence[np.ndarray], result_type: Type) -> np.ndarray:
    if not isinstance(config, str):  # missing, or not a string attribute
        raise EvaluationError("requires a string attribute 'einsum_config'")
    dtype = result_dtype(result_type)
    try:
        with np.errstate(all="ignore"):
            out = np.einsum(config, *[np.asarray(x).astype(dtype) for x in operands])
    except ValueError as e:
        raise EvaluationError(f"invalid einsum_config {config!r}: {e}") from None
    return _contiguous(np.asarray(out, dtype=dtype))


def einsum(lhs: np.ndarray, rhs: np.ndarray, *, einsum_config: str,
           result_type: Type) -> np.ndarray:
    """`lhs`, `rhs` contracted as the einsum equation `einsum_config` says."""
    return _einsum(einsum_config, [lhs, rhs], result_type)


def unary_einsum(operand: np.ndarray, *, einsum_config: str, result_type: Type) -> np.ndarray:
    """`operand` summed/transposed as the einsum equation `einsum_config` says."""
    return _einsum(einsum_config, [operand], result_type)


define_op("stablehlo.einsum", operands=("lhs", "rhs"), results=1, attributes=("einsum_config",),
          syntax=Format("$lhs `,` $rhs `,` `config` `=` $einsum_config", operands=("lhs", "rhs"),
                        types="functional", attrs={"einsum_config": "attr"}))(einsum)
define_op("stablehlo.unary_einsum", operands=("operand",), results=1, attributes=("einsum_config",),
          syntax=Format("$operand `,` `config` `=` $einsum_config", operands=("operand",),
                        types="functional", attrs={"einsum_config": "attr"}))(unary_einsum)
