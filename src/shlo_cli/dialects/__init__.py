"""Op definitions, one module per dialect or op family; importing a module registers its ops.

Every module below this package (and `shlo_cli.check_dialect`) is imported on first lookup,
so adding an op family is adding a file.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

# Dialect packages left to load on first use of one of their names (see
# `ir.registry.LAZY_DIALECTS`): dialect -> package.
LAZY = {"vhlo": f"{__name__}.vhlo"}


def load_all() -> None:
    import sys

    from .. import check_dialect
    from ..ir import registry

    lazy = {module for module in LAZY.values() if module not in sys.modules}
    registry.LAZY_DIALECTS.update((d, m) for d, m in LAZY.items() if m in lazy)
    for package in (sys.modules[__name__], check_dialect):
        _import_tree(package.__path__, package.__name__, lazy)


def _import_tree(path: Iterable[str], prefix: str, skip: set[str]) -> None:
    """Import every module below `prefix` (depth first, like `pkgutil.walk_packages`) except
    the packages in `skip`."""
    for info in pkgutil.iter_modules(path, prefix + "."):
        if info.name in skip:
            continue
        module = importlib.import_module(info.name)
        if info.ispkg:
            _import_tree(module.__path__, info.name, skip)
