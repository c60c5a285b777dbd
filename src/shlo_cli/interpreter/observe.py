"""Seeing inside a run: `--trace`, `--profile` and `--dump-intermediates`.

Each is an observer whose `wrap(op, kernel)` returns the kernel to put in the plan. The engine
calls it only when an observer was given, so a run without one binds the plain kernels and
pays nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from ..ir.core import Operation
from ..ir.locations import CallSiteLoc, FileLineColLoc, FusedLoc, LocAliasRef, NameLoc

Kernel = Callable[..., Any]
SMALL = 16  # tensors with at most this many elements are printed whole by --trace


class Observer:
    """Base: wraps nothing."""

    def wrap(self, op: Operation, kernel: Kernel) -> Kernel:
        return kernel


class Observers(Observer):
    """Several observers, applied in order (the first wraps innermost)."""

    def __init__(self, observers: list[Observer]) -> None:
        self.observers = observers

    def wrap(self, op: Operation, kernel: Kernel) -> Kernel:
        for observer in self.observers:
            kernel = observer.wrap(op, kernel)
        return kernel


def _outputs(op: Operation, out: Any) -> list[Any]:
    if len(op.results) == 1 or (op.name == "func.call" and len(op.results) == 1):
        return [out]
    return list(out) if op.results else []


def position(op: Operation) -> str:
    """Where the op is in the program text (`file:line:col`)."""
    loc = op.location
    return f"{loc.filename}:{loc.line}:{loc.col}" if loc.line else "<unknown>"


def source_location(op: Operation) -> str:
    """The op's `loc(...)` source position (e.g. the Python line jax recorded), else its
    position in the program text."""
    found = _first_file_loc(op.location.attr, 0)
    return found or position(op)


def _first_file_loc(loc: Any, depth: int) -> str | None:
    if loc is None or depth > 32:
        return None
    if isinstance(loc, LocAliasRef):
        loc = loc.resolved()
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename}:{loc.line}:{loc.col}"
    if isinstance(loc, NameLoc):
        return _first_file_loc(loc.child, depth + 1)
    if isinstance(loc, CallSiteLoc):
        return _first_file_loc(loc.callee, depth + 1) or _first_file_loc(loc.caller, depth + 1)
    if isinstance(loc, FusedLoc):
        for inner in loc.locations:
            found = _first_file_loc(inner, depth + 1)
            if found:
                return found
    return None


def summarize(value: Any) -> str:
    """shape/dtype and min/max/mean, NaN/Inf counts; the values when the tensor is small."""
    if not isinstance(value, np.ndarray | np.generic):
        return type(value).__name__
    array = np.asarray(value)
    head = f"{'x'.join(map(str, array.shape)) or 'scalar'} {array.dtype}"
    if array.size == 0:
        return head + " (empty)"
    parts = [head]
    kind = array.dtype.kind
    try:
        numeric = array if kind in "biufc" else array.astype(np.float64)
    except (TypeError, ValueError):
        return head
    with np.errstate(all="ignore"):
        if numeric.dtype.kind == "c":
            numeric = np.abs(numeric)
            parts.append("|.|")
        if numeric.dtype.kind == "f":
            nan, inf = int(np.isnan(numeric).sum()), int(np.isinf(numeric).sum())
            finite = numeric[np.isfinite(numeric)]
            if finite.size:
                parts.append(f"min={finite.min():.6g} max={finite.max():.6g} "
                             f"mean={finite.mean():.6g}")
            parts.append(f"nan={nan} inf={inf}")
        elif numeric.dtype.kind in "biu":
            parts.append(f"min={numeric.min()} max={numeric.max()} "
                         f"mean={numeric.astype(np.float64).mean():.6g}")
    if array.size <= SMALL:
        parts.append("values=[" + " ".join(str(v) for v in array.reshape(-1)) + "]")
    return " ".join(parts)


class Tracer(Observer):
    """`--trace`: one line per executed op, written to `stream` (stderr by default)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.count = 0

    def wrap(self, op: Operation, kernel: Kernel) -> Kernel:
        where = position(op)
        name = op.name

        def traced(*args: Any) -> Any:
            out = kernel(*args)
            self.count += 1
            summaries = "; ".join(summarize(v) for v in _outputs(op, out)) or "(no results)"
            self.stream.write(f"[{self.count}] {where} {name} -> {summaries}\n")
            return out

        return traced


@dataclass
class Stat:
    calls: int = 0
    seconds: float = 0.0  # self time: nested regions' ops are counted on their own rows


class Profiler(Observer):
    """`--profile`: self time and call count per op kind and per source location."""

    def __init__(self) -> None:
        self.by_kind: dict[str, Stat] = {}
        self.by_location: dict[str, Stat] = {}
        self._children: list[float] = []

    def wrap(self, op: Operation, kernel: Kernel) -> Kernel:
        kind = self.by_kind.setdefault(op.name, Stat())
        where = self.by_location.setdefault(f"{source_location(op)} ({op.name})", Stat())
        children = self._children
        clock = time.perf_counter

        def timed(*args: Any) -> Any:
            start = clock()
            children.append(0.0)
            try:
                return kernel(*args)
            finally:
                elapsed = clock() - start
                own = elapsed - children.pop()
                if children:
                    children[-1] += elapsed
                kind.calls += 1
                kind.seconds += own
                where.calls += 1
                where.seconds += own

        return timed

    def rows(self, table: dict[str, Stat], limit: int | None = None) -> list[tuple[str, Stat]]:
        ordered = sorted(((k, s) for k, s in table.items() if s.calls),
                         key=lambda item: (-item[1].seconds, item[0]))
        return ordered[:limit] if limit else ordered

    def total(self) -> float:
        return sum(s.seconds for s in self.by_kind.values())


class IntermediateDumper(Observer):
    """`--dump-intermediates`: keeps every op result, keyed `NNNNNN.op.name[.i]` in
    execution order."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.count = 0

    def wrap(self, op: Operation, kernel: Kernel) -> Kernel:
        name = op.name

        def dumped(*args: Any) -> Any:
            out = kernel(*args)
            values = _outputs(op, out)
            for i, value in enumerate(values):
                if isinstance(value, np.ndarray | np.generic):
                    suffix = f".{i}" if len(values) > 1 else ""
                    self.arrays[f"{self.count:06d}.{name}{suffix}"] = np.asarray(value)
            self.count += 1
            return out

        return dumped
