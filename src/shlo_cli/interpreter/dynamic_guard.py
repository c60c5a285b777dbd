"""Run-time shapes that contradict an op: a diagnostic, not a kernel crash.

An op whose operand types have `?` dimensions was verified against those types only; the
shapes arriving at run time may still be impossible for it (a gather whose start indices
leave the operand, a triangular_solve with a non-square matrix). Kernels index by the shapes
they get, so such input surfaces as IndexError/ValueError; for these ops (and only these,
so static programs pay nothing) the binding maps it to a located diagnostic naming the shapes.
"""

from __future__ import annotations

from typing import Any

from ..ir.registry import register_bind_hook
from ..ir.types import TensorType, UnrankedTensorType
from .engine import EvaluationError, bind_after


def _dynamic(op: Any) -> bool:
    for v in op.operands:
        t = v.type
        if isinstance(t, UnrankedTensorType) or (isinstance(t, TensorType)
                                                 and not t.is_static):
            return True
    return False


def bind_dynamic_guard(op: Any, opdef: Any, kwargs: dict[str, Any]) -> Any:
    """Binding hook: wrap kernels of ops with dynamic operand types."""
    if not _dynamic(op):
        return None
    inner = bind_after(bind_dynamic_guard, op, opdef, kwargs)
    name = op.name

    def guarded(*args: Any) -> Any:
        try:
            return inner(*args)
        except (IndexError, ValueError) as e:
            shapes = ", ".join("x".join(map(str, getattr(a, "shape", ()))) or "scalar"
                               for a in args)
            raise EvaluationError(
                f"'{name}' cannot run on operands of shapes ({shapes}) given at run time: "
                f"{e}") from None

    return guarded


register_bind_hook(bind_dynamic_guard, 10)
