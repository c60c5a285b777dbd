"""Custom op syntax objects: a parse/print pair given as two functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..ir.core import Operation


@dataclass(frozen=True)
class Custom:
    """Hand-written syntax: `parse(parser, opdef, location, num_results) -> Operation` and
    `print(printer, op)` (writes what follows the op name)."""

    parse_fn: Callable[..., Operation]
    print_fn: Callable[[Any, Operation], None]
    block_arg_names_fn: Callable[[Operation, Any], list[str]] | None = None

    def parse(self, parser: Any, opdef: Any, location: Any, num_results: int) -> Operation:
        return self.parse_fn(parser, opdef, location, num_results)

    def print(self, printer: Any, op: Operation) -> None:
        self.print_fn(printer, op)

    def block_arg_names(self, op: Operation, region: Any) -> list[str] | None:
        if self.block_arg_names_fn is None:
            return None
        return self.block_arg_names_fn(op, region)
