"""Build one-op modules calling a custom-call target, for the jax target tests."""

from __future__ import annotations

from typing import Any

import numpy as np

import shlo_cli

_ELEMENT = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
            np.dtype(np.complex64): "complex<f32>", np.dtype(np.complex128): "complex<f64>",
            np.dtype(np.int32): "i32", np.dtype(np.int64): "i64", np.dtype(np.bool_): "i1",
            np.dtype(np.uint32): "ui32", np.dtype(np.uint64): "ui64"}


def tensor_type(shape: tuple[int, ...], dtype: Any) -> str:
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{_ELEMENT[np.dtype(dtype)]}>"


def config_text(config: dict[str, Any]) -> str:
    parts = []
    for key, value in sorted(config.items()):
        if isinstance(value, str) and len(value) == 1:
            parts.append(f"{key} = {ord(value)} : ui8")
        elif isinstance(value, bool):
            parts.append(f"{key} = {'true' if value else 'false'}")
        elif isinstance(value, int):
            parts.append(f"{key} = {value} : i32")
        else:
            parts.append(f"{key} = {value}")
    return "{" + ", ".join(parts) + "}"


def call_module(target: str, operands: list[np.ndarray],
                results: list[tuple[tuple[int, ...], Any]], config: dict[str, Any] | None = None,
                extra: str = "") -> str:
    """`func.func @main` taking `operands` and returning the call's results."""
    in_types = [tensor_type(a.shape, a.dtype) for a in operands]
    out_types = [tensor_type(s, d) for s, d in results]
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(in_types))
    names = ", ".join(f"%arg{i}" for i in range(len(operands)))
    attrs = [f"mhlo.backend_config = {config_text(config or {})}", "api_version = 4 : i32"]
    if extra:
        attrs.append(extra)
    res = f"%0:{len(out_types)}" if len(out_types) > 1 else "%0"
    rets = ", ".join(f"%0#{i}" for i in range(len(out_types))) if len(out_types) > 1 else "%0"
    return (f"func.func @main({args}) -> ({', '.join(out_types)}) {{\n"
            f"  {res} = stablehlo.custom_call @{target}({names}) {{{', '.join(attrs)}}} : "
            f"({', '.join(in_types)}) -> ({', '.join(out_types)})\n"
            f"  return {rets} : {', '.join(out_types)}\n}}\n")


def run_call(target: str, operands: list[np.ndarray], results: list[tuple[tuple[int, ...], Any]],
             config: dict[str, Any] | None = None, extra: str = "") -> list[np.ndarray]:
    return shlo_cli.interpret(call_module(target, operands, results, config, extra), *operands)
