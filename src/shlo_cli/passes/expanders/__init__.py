"""`hlo-expand`'s expanders: module rewrites that replace an op HLO backends lower late (or that
HLO does not have) by plain StableHLO ops. Each expander module registers itself under its
`hlo-expand` flag name (XLA's, e.g. `cholesky_expander`); modules are discovered on import, so
adding one needs no edit here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...ir.core import Module

ExpandFn = Callable[[Module], None]


@dataclass(frozen=True)
class Expander:
    flag: str
    run: ExpandFn
    help: str


EXPANDERS: dict[str, Expander] = {}


def register_expander(flag: str, help: str) -> Callable[[ExpandFn], ExpandFn]:
    """Register `fn(module)` (rewrites in place) under the `hlo-expand` flag `flag`."""

    def wrap(fn: ExpandFn) -> ExpandFn:
        EXPANDERS[flag] = Expander(flag, fn, help)
        return fn

    return wrap


def load_all() -> dict[str, Expander]:
    """Import every expander module so each registers itself; returns the registry."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__, __name__ + "."):
        importlib.import_module(info.name)
    return EXPANDERS
