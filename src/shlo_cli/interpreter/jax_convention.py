"""jax.export's calling convention for the entry function, as it shows in `.mlir` text.

jax's `main` takes, in order (jax/_src/export/_export.py, "module calling convention"):

1. a platform index, `tensor<i32|i64> {jax.global_constant = "_platform_index"}`, only for
   modules lowered for several platforms: the position of the running platform in the
   export's `platforms` list (which lives in the `.jax` flatbuffer, not in the text);
2. effect tokens, `!stablehlo.token {jax.token = true}` (ordered side effects);
3. the array arguments.

Results are the effect tokens (first) then the arrays, each array tagged
`jax.result_info = "result[0]"` etc. (for display only).

`complete_inputs` lets callers pass only the arrays: the platform index (of `platform` in
`platforms`, or 0 when the list is unknown, jax's first-listed platform) and tokens are
filled in. `array_results` drops the token results again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ir.attributes import BoolAttr, DictAttr, StringAttr
from ..ir.core import Operation
from ..ir.types import FunctionType, TensorType, TokenType, numpy_dtype
from .engine import EvaluationError

PLATFORM_INDEX = "_platform_index"


def _attr_dicts(func: Operation, key: str, count: int) -> list[dict[str, Any]]:
    attr = func.properties.get(key) or func.attributes.get(key)
    elements = list(getattr(attr, "elements", ()) or ())
    out = [dict(d.entries) if isinstance(d, DictAttr) else {} for d in elements]
    return out + [{}] * (count - len(out))


def _is_platform_index(attrs: dict[str, Any]) -> bool:
    value = attrs.get("jax.global_constant")
    return isinstance(value, StringAttr) and value.value == PLATFORM_INDEX


def _is_token(t: Any, attrs: dict[str, Any]) -> bool:
    flag = attrs.get("jax.token")
    return isinstance(t, TokenType) or (isinstance(flag, BoolAttr) and flag.value)


def implicit_inputs(func: Operation) -> tuple[bool, int]:
    """(has a platform-index argument, number of token arguments after it)."""
    ftype: FunctionType = func.attr("function_type").value
    attrs = _attr_dicts(func, "arg_attrs", len(ftype.inputs))
    has_index = bool(ftype.inputs) and _is_platform_index(attrs[0])
    tokens = 0
    for t, a in list(zip(ftype.inputs, attrs, strict=True))[int(has_index):]:
        if not _is_token(t, a):
            break
        tokens += 1
    return has_index, tokens


def complete_inputs(func: Operation, arrays: Sequence[Any], platform: str = "cpu",
                    platforms: Sequence[str] | None = None) -> list[Any]:
    """`arrays` with the platform index and effect tokens jax's `main` expects prepended.

    Inputs that already include them (as many values as the function takes) are returned
    unchanged.
    """
    ftype: FunctionType = func.attr("function_type").value
    has_index, tokens = implicit_inputs(func)
    implicit = int(has_index) + tokens
    if not implicit or len(arrays) != len(ftype.inputs) - implicit:
        return list(arrays)
    prefix: list[Any] = []
    if has_index:
        index = 0
        if platforms is not None:
            names = [p.lower() for p in platforms]
            if platform.lower() not in names:
                raise EvaluationError(f"the module was exported for {list(platforms)}, "
                                      f"not for '{platform}'")
            index = names.index(platform.lower())
        index_type = ftype.inputs[0]
        dtype = numpy_dtype(index_type.element) if isinstance(index_type, TensorType) \
            else np.dtype(np.int32)
        prefix.append(np.array(index, dtype=dtype))
    if tokens:
        from ..dialects.stablehlo.elementwise_misc import TOKEN

        prefix.extend([TOKEN] * tokens)
    return prefix + list(arrays)


def token_result_count(func: Operation) -> int:
    """How many leading results are effect tokens."""
    ftype: FunctionType = func.attr("function_type").value
    attrs = _attr_dicts(func, "res_attrs", len(ftype.results))
    count = 0
    for t, a in zip(ftype.results, attrs, strict=True):
        if not _is_token(t, a):
            break
        count += 1
    return count


def array_results(func: Operation, results: Sequence[Any]) -> list[Any]:
    """`results` without jax's leading effect tokens."""
    return list(results)[token_result_count(func):]
