"""Quantized dot, dot_general and convolution for `--stablehlo-legalize-quant-to-math`."""

from __future__ import annotations

from ..ir.core import Value
from ..ir.types import Type
from .chlo_legalize import Rewriter


def lower_dot(rw: Rewriter, before: list[Type]) -> list[Value] | None:
    return None


def lower_dot_general(rw: Rewriter, before: list[Type]) -> list[Value] | None:
    return None


def lower_convolution(rw: Rewriter, before: list[Type]) -> list[Value] | None:
    return None
