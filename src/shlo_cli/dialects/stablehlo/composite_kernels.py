"""Kernels that stand in for a `stablehlo.composite`'s decomposition (an engine binding
hook).

A composite is evaluated by calling its decomposition function: `chlo.top_k` from jax is a
full stable sort of every row, then a slice. Where a kernel of ours computes the same
bits faster, `COMPOSITE_KERNELS` maps the composite's name to a matcher, which inspects
the op and its decomposition once, when the op is bound, and returns that kernel only
when the decomposition is one it provably reproduces; anything else (an unknown name, a
decomposition of another form) keeps the plain evaluator, which runs the decomposition.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ir.core import Operation
from ...ir.diagnostics import Diagnostic, EvaluationError
from ...ir.registry import register_bind_hook
from ..chlo.composite_top_k import match_top_k

Kernel = Callable[..., Any]
# `matcher(composite, decomposition function)`: a kernel computing the composite's results
# bit for bit as the decomposition does, or None
Matcher = Callable[[Operation, Operation], Kernel | None]

COMPOSITE_KERNELS: dict[str, Matcher] = {"chlo.top_k": match_top_k}


def _decomposition(kwargs: dict[str, Any]) -> Operation | None:
    """The decomposition function, or None (the plain evaluator reports a missing one when
    the op runs, as before)."""
    ctx, symbol = kwargs.get("ctx"), kwargs.get("decomposition")
    if ctx is None or not isinstance(symbol, str):
        return None
    try:
        return ctx.interpreter.lookup_function(symbol)
    except (EvaluationError, Diagnostic):
        return None


def bind_composite(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """The registered kernel for a composite whose decomposition it matches, else None."""
    if op.name != "stablehlo.composite":
        return None
    name = op.attr("name")
    matcher = COMPOSITE_KERNELS.get(getattr(name, "value", None) or "")
    if matcher is None:
        return None
    decomposition = _decomposition(kwargs)
    return matcher(op, decomposition) if decomposition is not None else None


register_bind_hook(bind_composite, 60, ops=("stablehlo.composite",))
